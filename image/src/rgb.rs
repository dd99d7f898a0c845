//! An 8-bit RGB image, row-major, three bytes per pixel.

/// What was wrong with the buffer given for an RGB image.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RgbImageError {
    #[error("an RGB image of {width}x{height} needs {expected} bytes, the buffer has {found}")]
    SizeMismatch {
        width: usize,
        height: usize,
        expected: usize,
        found: usize,
    },
    #[error("an RGB image must not be empty (got {width}x{height})")]
    Empty { width: usize, height: usize },
}

/// An RGB image: `data[3 * (y * width + x) + channel]`.
#[derive(Clone, PartialEq, Eq)]
pub struct RgbImage {
    width: usize,
    height: usize,
    data: Vec<u8>,
}

impl std::fmt::Debug for RgbImage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "RgbImage({}x{})", self.width, self.height)
    }
}

impl RgbImage {
    /// Wraps a buffer of `3 * width * height` bytes.
    pub fn new(width: usize, height: usize, data: Vec<u8>) -> Result<Self, RgbImageError> {
        if width == 0 || height == 0 {
            return Err(RgbImageError::Empty { width, height });
        }
        let expected = width
            .checked_mul(height)
            .and_then(|pixels| pixels.checked_mul(3));
        if expected != Some(data.len()) {
            return Err(RgbImageError::SizeMismatch {
                width,
                height,
                expected: expected.unwrap_or(usize::MAX),
                found: data.len(),
            });
        }
        Ok(Self {
            width,
            height,
            data,
        })
    }

    /// An image of one colour (`width` and `height` at least 1).
    pub fn filled(width: usize, height: usize, rgb: [u8; 3]) -> Self {
        let width = width.max(1);
        let height = height.max(1);
        Self {
            width,
            height,
            data: rgb.repeat(width * height),
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The raw bytes, row-major RGB.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The raw bytes, row-major RGB, for editing in place.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }

    /// The pixel at (x, y); None outside the image.
    pub fn get(&self, x: usize, y: usize) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let index = 3 * (y * self.width + x);
        Some([self.data[index], self.data[index + 1], self.data[index + 2]])
    }

    /// Sets the pixel at (x, y); does nothing outside the image.
    pub fn set(&mut self, x: usize, y: usize, rgb: [u8; 3]) {
        if x < self.width && y < self.height {
            let index = 3 * (y * self.width + x);
            self.data[index..index + 3].copy_from_slice(&rgb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_buffer_sizes_are_rejected() {
        assert_eq!(
            RgbImage::new(2, 2, vec![0; 11]),
            Err(RgbImageError::SizeMismatch {
                width: 2,
                height: 2,
                expected: 12,
                found: 11
            })
        );
        assert!(RgbImage::new(0, 2, vec![]).is_err());
        assert!(RgbImage::new(usize::MAX, 3, vec![]).is_err());
    }

    #[test]
    fn pixels_are_row_major() {
        let mut image = RgbImage::filled(3, 2, [1, 2, 3]);
        image.set(2, 1, [9, 8, 7]);
        assert_eq!(image.get(2, 1), Some([9, 8, 7]));
        assert_eq!(&image.data()[15..18], &[9, 8, 7]);
        assert_eq!(image.get(3, 0), None);
    }
}
