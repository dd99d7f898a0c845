//! PNG files: read RGB, RGBA, grey and grey+alpha (8 or 16 bits, palettes expanded) as RGB;
//! write RGB.

use crate::rgb::RgbImage;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

/// Largest width or height accepted from a file: a hostile header cannot make us allocate
/// gigabytes.
const MAX_SIDE: u32 = 8192;

/// Why a PNG file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PngReadError {
    #[error("{path}: cannot open: {source}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a readable PNG: {source}")]
    Decode {
        path: PathBuf,
        source: png::DecodingError,
    },
    #[error("{path}: {width}x{height} is larger than {MAX_SIDE} pixels on a side")]
    TooLarge {
        path: PathBuf,
        width: u32,
        height: u32,
    },
    #[error("{path}: the decoded image data is shorter than its {width}x{height} header says")]
    Incomplete {
        path: PathBuf,
        width: usize,
        height: usize,
    },
    #[error("{path}: unsupported PNG colour type {color_type:?}")]
    UnsupportedColor {
        path: PathBuf,
        color_type: png::ColorType,
    },
}

/// Why a PNG file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PngWriteError {
    #[error("{path}: cannot create: {source}")]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot encode: {source}")]
    Encode {
        path: PathBuf,
        source: png::EncodingError,
    },
}

/// The width and height a PNG file's header declares, without decoding the image.
pub fn png_size(path: &Path) -> Result<(usize, usize), PngReadError> {
    let file = File::open(path).map_err(|source| PngReadError::Open {
        path: path.to_owned(),
        source,
    })?;
    let reader = png::Decoder::new(BufReader::new(file))
        .read_info()
        .map_err(|source| PngReadError::Decode {
            path: path.to_owned(),
            source,
        })?;
    Ok((reader.info().width as usize, reader.info().height as usize))
}

/// Reads a PNG file as RGB. Grey becomes R = G = B; alpha is dropped.
pub fn read_png(path: &Path) -> Result<RgbImage, PngReadError> {
    let file = File::open(path).map_err(|source| PngReadError::Open {
        path: path.to_owned(),
        source,
    })?;
    let decode_error = |source| PngReadError::Decode {
        path: path.to_owned(),
        source,
    };
    let mut decoder = png::Decoder::new(BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(decode_error)?;
    let (width, height) = (reader.info().width, reader.info().height);
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(PngReadError::TooLarge {
            path: path.to_owned(),
            width,
            height,
        });
    }
    let (color_type, _) = reader.output_color_type();
    let channels = match color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(PngReadError::UnsupportedColor {
                path: path.to_owned(),
                color_type,
            })
        }
    };
    let size = reader.output_buffer_size().unwrap_or(0);
    let mut buffer = vec![0; size];
    let info = reader.next_frame(&mut buffer).map_err(decode_error)?;
    let stride = info.line_size;
    let (width, height) = (info.width as usize, info.height as usize);
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in buffer.chunks_exact(stride).take(height) {
        for pixel in row[..width * channels].chunks_exact(channels) {
            match channels {
                1 | 2 => rgb.extend_from_slice(&[pixel[0]; 3]),
                _ => rgb.extend_from_slice(&pixel[..3]),
            }
        }
    }
    RgbImage::new(width, height, rgb).map_err(|_| PngReadError::Incomplete {
        path: path.to_owned(),
        width,
        height,
    })
}

/// Writes an RGB image as an 8-bit RGB PNG.
pub fn write_png(path: &Path, image: &RgbImage) -> Result<(), PngWriteError> {
    let file = File::create(path).map_err(|source| PngWriteError::Create {
        path: path.to_owned(),
        source,
    })?;
    let encode_error = |source| PngWriteError::Encode {
        path: path.to_owned(),
        source,
    };
    let mut encoder = png::Encoder::new(
        BufWriter::new(file),
        image.width() as u32,
        image.height() as u32,
    );
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(encode_error)?;
    writer
        .write_image_data(image.data())
        .map_err(encode_error)?;
    writer.finish().map_err(encode_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_grey(path: &Path, color: png::ColorType, pixels: &[u8], width: u32) {
        let file = File::create(path).unwrap();
        let mut encoder = png::Encoder::new(BufWriter::new(file), width, 1);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(pixels).unwrap();
        writer.finish().unwrap();
    }

    #[test]
    fn rgb_round_trips_through_a_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("frame.png");
        let mut image = RgbImage::filled(5, 3, [10, 20, 30]);
        image.set(4, 2, [200, 100, 0]);
        write_png(&path, &image).unwrap();
        assert_eq!(read_png(&path).unwrap(), image);
    }

    #[test]
    fn grey_and_alpha_become_rgb() {
        let folder = tempfile::tempdir().unwrap();
        let grey = folder.path().join("grey.png");
        write_grey(&grey, png::ColorType::Grayscale, &[7, 99], 2);
        assert_eq!(read_png(&grey).unwrap().data(), &[7, 7, 7, 99, 99, 99]);
        let rgba = folder.path().join("rgba.png");
        write_grey(&rgba, png::ColorType::Rgba, &[1, 2, 3, 4, 5, 6, 7, 8], 2);
        assert_eq!(read_png(&rgba).unwrap().data(), &[1, 2, 3, 5, 6, 7]);
        let grey_alpha = folder.path().join("grey_alpha.png");
        write_grey(
            &grey_alpha,
            png::ColorType::GrayscaleAlpha,
            &[50, 0, 60, 255],
            2,
        );
        assert_eq!(
            read_png(&grey_alpha).unwrap().data(),
            &[50, 50, 50, 60, 60, 60]
        );
    }
}
