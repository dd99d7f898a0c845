//! The YUYV 4:2:2 image the NAO's cameras deliver (V4L2_PIX_FMT_YUYV).

use crate::color::{rgb_to_ycbcr, ycbcr_to_rgb, ColorRange};
use crate::rgb::RgbImage;

/// The resolutions the NAO v6 cameras run at (B-Human's `CameraResolutionRequest`): the upper
/// camera at 640×480 or 1280×960, the lower one at 640×480 or 320×240.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// 320×240 (lower camera).
    Qvga,
    /// 640×480 (either camera).
    Vga,
    /// 1280×960 (upper camera).
    Quad,
}

impl Resolution {
    pub const ALL: [Resolution; 3] = [Resolution::Qvga, Resolution::Vga, Resolution::Quad];

    /// (width, height) in pixels.
    pub fn size(self) -> (usize, usize) {
        match self {
            Resolution::Qvga => (320, 240),
            Resolution::Vga => (640, 480),
            Resolution::Quad => (1280, 960),
        }
    }

    /// The resolution of this size, if the cameras have one.
    pub fn from_size(width: usize, height: usize) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|resolution| resolution.size() == (width, height))
    }

    /// Bytes of one YUYV frame at this resolution (two per pixel).
    pub fn yuyv_bytes(self) -> usize {
        let (width, height) = self.size();
        width * height * 2
    }
}

/// What was wrong with a YUYV image's size or buffer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum YuyvImageError {
    #[error("{width}x{height} is not a NAO camera resolution (320x240, 640x480 or 1280x960)")]
    UnsupportedSize { width: usize, height: usize },
    #[error("a {width}x{height} YUYV image needs {expected} bytes, the buffer has {found}")]
    SizeMismatch {
        width: usize,
        height: usize,
        expected: usize,
        found: usize,
    },
}

/// A YUYV 4:2:2 frame: per row, pairs of pixels as `Y0 Cb Y1 Cr`.
///
/// Luma and chroma are read in place ([`luma`](Self::luma), [`chroma`](Self::chroma),
/// [`row`](Self::row)); nothing is copied to access a channel.
#[derive(Clone, PartialEq, Eq)]
pub struct YuyvImage {
    resolution: Resolution,
    data: Vec<u8>,
}

impl std::fmt::Debug for YuyvImage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (width, height) = self.resolution.size();
        write!(formatter, "YuyvImage({width}x{height})")
    }
}

impl YuyvImage {
    /// Wraps a frame buffer of `2 * width * height` bytes at a camera resolution.
    pub fn new(width: usize, height: usize, data: Vec<u8>) -> Result<Self, YuyvImageError> {
        let resolution = Resolution::from_size(width, height)
            .ok_or(YuyvImageError::UnsupportedSize { width, height })?;
        if data.len() != resolution.yuyv_bytes() {
            return Err(YuyvImageError::SizeMismatch {
                width,
                height,
                expected: resolution.yuyv_bytes(),
                found: data.len(),
            });
        }
        Ok(Self { resolution, data })
    }

    /// Converts an RGB image (of a camera resolution); each pixel pair gets the mean chroma of
    /// its two pixels.
    pub fn from_rgb(rgb: &RgbImage, range: ColorRange) -> Result<Self, YuyvImageError> {
        let (width, height) = (rgb.width(), rgb.height());
        let resolution = Resolution::from_size(width, height)
            .ok_or(YuyvImageError::UnsupportedSize { width, height })?;
        let mut data = Vec::with_capacity(resolution.yuyv_bytes());
        for pair in rgb.data().chunks_exact(6) {
            let (y0, cb0, cr0) = rgb_to_ycbcr([pair[0], pair[1], pair[2]], range);
            let (y1, cb1, cr1) = rgb_to_ycbcr([pair[3], pair[4], pair[5]], range);
            let cb = (u16::from(cb0) + u16::from(cb1)).div_ceil(2) as u8;
            let cr = (u16::from(cr0) + u16::from(cr1)).div_ceil(2) as u8;
            data.extend_from_slice(&[y0, cb, y1, cr]);
        }
        Ok(Self { resolution, data })
    }

    /// Converts to RGB.
    pub fn to_rgb(&self, range: ColorRange) -> RgbImage {
        let (width, height) = self.resolution.size();
        let mut data = Vec::with_capacity(width * height * 3);
        for pair in self.data.chunks_exact(4) {
            data.extend_from_slice(&ycbcr_to_rgb(pair[0], pair[1], pair[3], range));
            data.extend_from_slice(&ycbcr_to_rgb(pair[2], pair[1], pair[3], range));
        }
        RgbImage::new(width, height, data).expect("the size comes from a valid resolution")
    }

    pub fn resolution(&self) -> Resolution {
        self.resolution
    }

    pub fn width(&self) -> usize {
        self.resolution.size().0
    }

    pub fn height(&self) -> usize {
        self.resolution.size().1
    }

    /// The raw frame bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The raw frame bytes of row `y` (`2 * width` bytes). Panics if `y >= height`.
    pub fn row(&self, y: usize) -> &[u8] {
        let stride = 2 * self.width();
        &self.data[y * stride..(y + 1) * stride]
    }

    /// The luma of pixel (x, y). Panics outside the image.
    pub fn luma(&self, x: usize, y: usize) -> u8 {
        self.data[2 * (y * self.width() + x)]
    }

    /// The (Cb, Cr) shared by pixel (x, y) and its pair. Panics outside the image.
    pub fn chroma(&self, x: usize, y: usize) -> (u8, u8) {
        let pair = 4 * ((y * self.width() + x) / 2);
        (self.data[pair + 1], self.data[pair + 3])
    }

    /// (Y, Cb, Cr) of pixel (x, y). Panics outside the image.
    #[inline]
    pub fn ycbcr(&self, x: usize, y: usize) -> (u8, u8, u8) {
        // One index and one bounds check: the pixel's pair holds its luma and the chroma.
        let index = y * self.width() + x;
        let pair = &self.data[4 * (index / 2)..][..4];
        (pair[2 * (index & 1)], pair[1], pair[3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_camera_sizes_with_matching_buffers_are_accepted() {
        assert!(YuyvImage::new(640, 480, vec![0; 640 * 480 * 2]).is_ok());
        assert!(YuyvImage::new(320, 240, vec![0; 320 * 240 * 2]).is_ok());
        assert!(YuyvImage::new(1280, 960, vec![0; 1280 * 960 * 2]).is_ok());
        assert_eq!(
            YuyvImage::new(640, 480, vec![0; 10]),
            Err(YuyvImageError::SizeMismatch {
                width: 640,
                height: 480,
                expected: 614_400,
                found: 10
            })
        );
        assert_eq!(
            YuyvImage::new(641, 480, vec![]),
            Err(YuyvImageError::UnsupportedSize {
                width: 641,
                height: 480
            })
        );
    }

    #[test]
    fn luma_and_chroma_are_read_from_their_bytes() {
        let mut data = vec![0; 320 * 240 * 2];
        // Pixels (2, 1) and (3, 1): the second pair of row 1.
        let start = 2 * 320 + 4;
        data[start..start + 4].copy_from_slice(&[10, 20, 30, 40]);
        let image = YuyvImage::new(320, 240, data).unwrap();
        assert_eq!(image.ycbcr(2, 1), (10, 20, 40));
        assert_eq!(image.ycbcr(3, 1), (30, 20, 40));
        assert_eq!(image.row(1)[4..8], [10, 20, 30, 40]);
    }

    #[test]
    fn rgb_round_trip_keeps_colours() {
        let mut rgb = RgbImage::filled(320, 240, [30, 160, 60]);
        rgb.set(100, 100, [250, 250, 250]);
        rgb.set(101, 100, [250, 250, 250]);
        let yuyv = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
        let back = yuyv.to_rgb(ColorRange::Full);
        for (x, y) in [(0, 0), (100, 100), (319, 239)] {
            let (original, converted) = (rgb.get(x, y).unwrap(), back.get(x, y).unwrap());
            for channel in 0..3 {
                let difference = i32::from(original[channel]) - i32::from(converted[channel]);
                assert!(difference.abs() <= 3, "{original:?} -> {converted:?}");
            }
        }
    }
}
