//! Raw YUYV files (one frame exactly as V4L2 delivers it, the resolution told by the length)
//! and [`read_image_file`], which takes either a PNG or a raw frame.

use crate::color::ColorRange;
use crate::png_io::{png_size, read_png, PngReadError};
use crate::yuyv::{Resolution, YuyvImage, YuyvImageError};
use std::io::Read;
use std::path::{Path, PathBuf};

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// Why an image file could not be read as a camera frame.
#[derive(Debug, thiserror::Error)]
pub enum ImageFileError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}: neither a PNG (no PNG signature in the first 8 bytes) nor a raw YUYV frame \
         ({length} bytes; a frame has 153600, 614400 or 2457600 bytes for 320x240, 640x480, \
         1280x960)"
    )]
    NotAFrame { path: PathBuf, length: u64 },
    #[error(transparent)]
    Png(#[from] PngReadError),
    #[error("{path}: {source}")]
    Size {
        path: PathBuf,
        source: YuyvImageError,
    },
}

fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ImageFileError> {
    let read_error = |source| ImageFileError::Read {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    Ok(bytes)
}

/// Reads a raw YUYV frame; its length must be that of a camera resolution.
pub fn read_yuyv_file(path: &Path) -> Result<YuyvImage, ImageFileError> {
    let length = std::fs::metadata(path)
        .map_err(|source| ImageFileError::Read {
            path: path.to_owned(),
            source,
        })?
        .len();
    let is_frame = Resolution::ALL
        .into_iter()
        .any(|resolution| resolution.yuyv_bytes() as u64 == length);
    if !is_frame {
        return Err(ImageFileError::NotAFrame {
            path: path.to_owned(),
            length,
        });
    }
    let bytes = read_limited(path, length)?;
    yuyv_from_bytes(path, bytes)
}

fn yuyv_from_bytes(path: &Path, bytes: Vec<u8>) -> Result<YuyvImage, ImageFileError> {
    let length = bytes.len() as u64;
    let resolution = Resolution::ALL
        .into_iter()
        .find(|resolution| resolution.yuyv_bytes() as u64 == length)
        .ok_or_else(|| ImageFileError::NotAFrame {
            path: path.to_owned(),
            length,
        })?;
    let (width, height) = resolution.size();
    YuyvImage::new(width, height, bytes).map_err(|source| ImageFileError::Size {
        path: path.to_owned(),
        source,
    })
}

/// Writes a frame as a raw YUYV file.
pub fn write_yuyv_file(path: &Path, image: &YuyvImage) -> std::io::Result<()> {
    std::fs::write(path, image.data())
}

/// Reads a PNG (RGB, converted with `range`) or a raw YUYV frame, told apart by the PNG
/// signature.
pub fn read_image_file(path: &Path, range: ColorRange) -> Result<YuyvImage, ImageFileError> {
    let mut signature = [0u8; 8];
    let read_error = |source| ImageFileError::Read {
        path: path.to_owned(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    let mut filled = 0;
    while filled < signature.len() {
        let count = file.read(&mut signature[filled..]).map_err(read_error)?;
        if count == 0 {
            break;
        }
        filled += count;
    }
    if filled == signature.len() && signature == PNG_SIGNATURE {
        // A size no camera has is refused from the header, before a large image is decoded.
        let (width, height) = png_size(path)?;
        if Resolution::from_size(width, height).is_none() {
            return Err(ImageFileError::Size {
                path: path.to_owned(),
                source: YuyvImageError::UnsupportedSize { width, height },
            });
        }
        let rgb = read_png(path)?;
        YuyvImage::from_rgb(&rgb, range).map_err(|source| ImageFileError::Size {
            path: path.to_owned(),
            source,
        })
    } else {
        read_yuyv_file(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_tells_the_resolution() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("frame.yuyv");
        std::fs::write(&path, vec![128u8; 320 * 240 * 2]).unwrap();
        assert_eq!(
            read_yuyv_file(&path).unwrap().resolution(),
            Resolution::Qvga
        );
        std::fs::write(&path, vec![128u8; 320 * 240 * 2 + 1]).unwrap();
        let error = read_yuyv_file(&path).unwrap_err().to_string();
        assert!(error.contains("153601 bytes"), "{error}");
        assert!(error.contains("frame.yuyv"), "{error}");
    }
}
