//! Camera images as JPEG: YUYV 4:2:2 from the camera channel, spread to one Y, Cb, Cr triple per
//! pixel (the two pixels of a pair share U and V) and handed to `jpeg-encoder` as YCbCr, so no
//! colour conversion happens here. Runs only while someone subscribes to the images.

use crate::sources::YuyvView;

/// Why an image could not be encoded.
#[derive(Debug, thiserror::Error)]
pub enum JpegError {
    /// The pixel buffer does not match the size the header gives.
    #[error("the image header says {width}×{height} (needs {needed} bytes of YUYV), the payload has {found}")]
    SizeMismatch {
        /// Width from the header.
        width: usize,
        /// Height from the header.
        height: usize,
        /// Bytes the size needs.
        needed: usize,
        /// Bytes there are.
        found: usize,
    },
    /// Empty, odd-width, or larger than JPEG allows (65535).
    #[error(
        "a {width}×{height} image cannot be a YUYV JPEG (even width 2..=65534, height 1..=65535)"
    )]
    BadSize {
        /// Width.
        width: usize,
        /// Height.
        height: usize,
    },
    /// The encoder refused.
    #[error("encoding JPEG: {0}")]
    Encoder(#[from] jpeg_encoder::EncodingError),
}

/// Encodes `image` at `quality` (1..=100). `scratch` keeps the YCbCr buffer between calls.
pub fn encode_yuyv(
    image: &YuyvView<'_>,
    quality: u8,
    scratch: &mut Vec<u8>,
) -> Result<Vec<u8>, JpegError> {
    let (width, height) = (image.width, image.height);
    if width < 2 || width % 2 != 0 || width > 65534 || height == 0 || height > 65535 {
        return Err(JpegError::BadSize { width, height });
    }
    let needed = width * height * 2;
    if image.pixels.len() < needed {
        return Err(JpegError::SizeMismatch {
            width,
            height,
            needed,
            found: image.pixels.len(),
        });
    }
    scratch.clear();
    scratch.reserve(width * height * 3);
    for pair in image.pixels[..needed].chunks_exact(4) {
        let (y0, u, y1, v) = (pair[0], pair[1], pair[2], pair[3]);
        scratch.extend_from_slice(&[y0, u, v, y1, u, v]);
    }
    let mut out = Vec::with_capacity(width * height / 4);
    let encoder = jpeg_encoder::Encoder::new(&mut out, quality.clamp(1, 100));
    encoder.encode(
        scratch,
        width as u16,
        height as u16,
        jpeg_encoder::ColorType::Ycbcr,
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_becomes_a_jpeg_and_bad_sizes_are_refused() {
        let pixels: Vec<u8> = (0..64 * 48 * 2).map(|index| (index % 251) as u8).collect();
        let mut scratch = Vec::new();
        let view = YuyvView {
            width: 64,
            height: 48,
            pixels: &pixels,
        };
        let jpeg = encode_yuyv(&view, 80, &mut scratch).unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8], "SOI marker");
        assert_eq!(&jpeg[jpeg.len() - 2..], &[0xff, 0xd9], "EOI marker");
        let short = YuyvView {
            width: 64,
            height: 49,
            pixels: &pixels,
        };
        let error = encode_yuyv(&short, 80, &mut scratch).unwrap_err();
        assert!(error.to_string().contains("payload has 6144"), "{error}");
        let odd = YuyvView {
            width: 63,
            height: 48,
            pixels: &pixels,
        };
        assert!(matches!(
            encode_yuyv(&odd, 80, &mut scratch),
            Err(JpegError::BadSize { .. })
        ));
    }
}
