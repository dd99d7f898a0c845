//! `EcImage`: the frame at half resolution in three planes (luma, Cb, Cr), the input of the
//! coarse stages (field colour, scan lines, ball spots). B-Human's `ECImage` keeps grey and
//! colour planes the same way.
//!
//! Each pixel is one 2×2 block of the camera image: the mean of its four lumas and of the two
//! chroma pairs the block holds. Halving suppresses sensor noise and quarters the work.

use cortex_image::YuyvImage;

/// Luma, Cb and Cr planes at half the camera's resolution, row-major.
#[derive(Clone)]
pub struct EcImage {
    pub width: usize,
    pub height: usize,
    pub luma: Vec<u8>,
    pub cb: Vec<u8>,
    pub cr: Vec<u8>,
}

impl std::fmt::Debug for EcImage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "EcImage({}x{})", self.width, self.height)
    }
}

impl EcImage {
    /// Halves a YUYV frame.
    pub fn from_yuyv(image: &YuyvImage) -> Self {
        let width = image.width() / 2;
        let height = image.height() / 2;
        let (mut luma, mut cb, mut cr) = (
            vec![0; width * height],
            vec![0; width * height],
            vec![0; width * height],
        );
        // Row by row into slices of known length, so that the loop has no capacity or bounds
        // checks and the compiler vectorises it.
        let rows = luma
            .chunks_exact_mut(width.max(1))
            .zip(cb.chunks_exact_mut(width.max(1)))
            .zip(cr.chunks_exact_mut(width.max(1)));
        for (y, ((luma_row, cb_row), cr_row)) in rows.enumerate() {
            let upper = image.row(2 * y).chunks_exact(4);
            let lower = image.row(2 * y + 1).chunks_exact(4);
            let pixels = upper
                .zip(lower)
                .zip(luma_row.iter_mut().zip(cb_row.iter_mut().zip(cr_row)));
            for ((top, bottom), (luma, (cb, cr))) in pixels {
                let sum_luma = u16::from(top[0])
                    + u16::from(top[2])
                    + u16::from(bottom[0])
                    + u16::from(bottom[2]);
                *luma = ((sum_luma + 2) / 4) as u8;
                *cb = (u16::from(top[1]) + u16::from(bottom[1])).div_ceil(2) as u8;
                *cr = (u16::from(top[3]) + u16::from(bottom[3])).div_ceil(2) as u8;
            }
        }
        Self {
            width,
            height,
            luma,
            cb,
            cr,
        }
    }

    /// (Y, Cb, Cr) at (x, y). Panics outside the image.
    pub fn get(&self, x: usize, y: usize) -> (u8, u8, u8) {
        let index = y * self.width + x;
        (self.luma[index], self.cb[index], self.cr[index])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cortex_image::{ColorRange, RgbImage};

    #[test]
    fn blocks_average_to_half_resolution() {
        let mut rgb = RgbImage::filled(320, 240, [0, 0, 0]);
        for (x, y) in [(2, 2), (3, 2), (2, 3), (3, 3)] {
            rgb.set(x, y, [255, 255, 255]);
        }
        rgb.set(4, 2, [255, 255, 255]);
        let image = EcImage::from_yuyv(&YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap());
        assert_eq!((image.width, image.height), (160, 120));
        assert_eq!(image.get(1, 1), (255, 128, 128));
        // One white pixel of four.
        assert_eq!(image.get(2, 1).0, 64);
        assert_eq!(image.get(0, 0), (0, 128, 128));
    }
}
