//! Frames derived from the shared ones for the detection tests: lighting, casts, noise,
//! mirrored, shifted, the ball painted out, shrunk and tiled, rescaled.

use super::{Label, LabelledFrame};
use cortex_image::RgbImage;

pub fn map_pixels(image: &RgbImage, change: impl Fn(usize, usize, [u8; 3]) -> [u8; 3]) -> RgbImage {
    let mut result = image.clone();
    for y in 0..image.height() {
        for x in 0..image.width() {
            result.set(x, y, change(x, y, image.get(x, y).unwrap()));
        }
    }
    result
}

pub fn clamp(value: f32) -> u8 {
    value.round().clamp(0.0, 255.0) as u8
}

/// Deterministic noise in [−amplitude, amplitude] per pixel and channel.
pub fn noise(x: usize, y: usize, channel: usize, amplitude: f32) -> f32 {
    let mut hash = (x as u32).wrapping_mul(0x9e37_79b1)
        ^ (y as u32).wrapping_mul(0x85eb_ca77)
        ^ (channel as u32).wrapping_mul(0xc2b2_ae3d);
    hash ^= hash >> 15;
    hash = hash.wrapping_mul(0x2c1b_3c6d);
    hash ^= hash >> 12;
    (hash % 2001) as f32 / 1000.0 * amplitude - amplitude
}

pub fn variant(
    frames: &[LabelledFrame],
    change: impl Fn(usize, usize, [u8; 3]) -> [u8; 3] + Copy,
) -> Vec<LabelledFrame> {
    frames
        .iter()
        .map(|frame| LabelledFrame {
            name: frame.name.clone(),
            image: map_pixels(&frame.image, change),
            balls: frame.balls.clone(),
        })
        .collect()
}

pub fn mirrored(frames: &[LabelledFrame]) -> Vec<LabelledFrame> {
    frames
        .iter()
        .map(|frame| {
            let width = frame.image.width();
            let image = map_pixels(&frame.image, |x, y, _| {
                frame.image.get(width - 1 - x, y).unwrap()
            });
            let balls = frame
                .balls
                .iter()
                .map(|label| Label {
                    x: (width - 1) as f32 - label.x,
                    ..*label
                })
                .collect();
            LabelledFrame {
                name: frame.name.clone(),
                image,
                balls,
            }
        })
        .collect()
}

/// Shifted by (dx, dy) with the border pixels repeated; labels whose ball leaves the frame by
/// more than half its radius are dropped along with every frame where that happens.
pub fn shifted(frames: &[LabelledFrame], dx: i32, dy: i32) -> Vec<LabelledFrame> {
    frames
        .iter()
        .filter_map(|frame| {
            let (width, height) = (frame.image.width() as i32, frame.image.height() as i32);
            let balls: Vec<Label> = frame
                .balls
                .iter()
                .map(|label| Label {
                    x: label.x + dx as f32,
                    y: label.y + dy as f32,
                    ..*label
                })
                .collect();
            let inside = balls.iter().all(|label| {
                label.x >= 0.5 * label.radius
                    && label.y >= 0.5 * label.radius
                    && label.x <= width as f32 - 0.5 * label.radius
                    && label.y <= height as f32 - 0.5 * label.radius
            });
            if !inside {
                return None;
            }
            let image = map_pixels(&frame.image, |x, y, _| {
                let source_x = (x as i32 - dx).clamp(0, width - 1) as usize;
                let source_y = (y as i32 - dy).clamp(0, height - 1) as usize;
                frame.image.get(source_x, source_y).unwrap()
            });
            Some(LabelledFrame {
                name: frame.name.clone(),
                image,
                balls,
            })
        })
        .collect()
}

/// The ball painted over with the scene three radii to its side (left or right, whichever is
/// inside the frame): frames that must show no ball.
pub fn ball_masked(frames: &[LabelledFrame]) -> Vec<LabelledFrame> {
    frames
        .iter()
        .filter(|frame| !frame.balls.is_empty())
        .map(|frame| {
            let mut image = frame.image.clone();
            for label in &frame.balls {
                let reach = 1.3 * label.radius;
                let offset = if label.x + 4.0 * label.radius < image.width() as f32 {
                    3.0 * label.radius
                } else {
                    -3.0 * label.radius
                };
                for y in (label.y - reach).max(0.0) as usize
                    ..((label.y + reach) as usize).min(image.height())
                {
                    for x in (label.x - reach).max(0.0) as usize
                        ..((label.x + reach) as usize).min(image.width())
                    {
                        let distance =
                            ((x as f32 - label.x).powi(2) + (y as f32 - label.y).powi(2)).sqrt();
                        let source_x = (x as f32 + offset) as usize;
                        if distance <= reach {
                            if let Some(pixel) = frame.image.get(source_x, y) {
                                image.set(x, y, pixel);
                            }
                        }
                    }
                }
            }
            LabelledFrame {
                name: format!("{} (ball masked)", frame.name),
                image,
                balls: Vec::new(),
            }
        })
        .collect()
}

/// Each frame shrunk by an integer factor (box filter) and tiled factor × factor times: the same
/// scenes seen from farther away, with several small balls per frame.
pub fn zoomed_out(frames: &[LabelledFrame], factor: usize) -> Vec<LabelledFrame> {
    frames
        .iter()
        .map(|frame| {
            let (width, height) = (frame.image.width(), frame.image.height());
            let (small_width, small_height) = (width / factor, height / factor);
            let mut image = RgbImage::filled(width, height, [0, 0, 0]);
            for y in 0..height {
                for x in 0..width {
                    let (source_x, source_y) =
                        ((x % small_width) * factor, (y % small_height) * factor);
                    let mut sum = [0u32; 3];
                    for dy in 0..factor {
                        for dx in 0..factor {
                            let pixel = frame.image.get(source_x + dx, source_y + dy).unwrap();
                            for channel in 0..3 {
                                sum[channel] += u32::from(pixel[channel]);
                            }
                        }
                    }
                    let count = (factor * factor) as u32;
                    image.set(x, y, sum.map(|value| ((value + count / 2) / count) as u8));
                }
            }
            let mut balls = Vec::new();
            for tile_y in 0..factor {
                for tile_x in 0..factor {
                    for label in &frame.balls {
                        let scale = factor as f32;
                        balls.push(Label {
                            x: (label.x + 0.5) / scale - 0.5 + (tile_x * small_width) as f32,
                            y: (label.y + 0.5) / scale - 0.5 + (tile_y * small_height) as f32,
                            radius: label.radius / scale,
                        });
                    }
                }
            }
            LabelledFrame {
                name: format!("{} (zoomed out x{factor})", frame.name),
                image,
                balls,
            }
        })
        .collect()
}

/// Box-filtered half size or nearest-neighbour double size.
pub fn rescaled(image: &RgbImage, factor: f32) -> RgbImage {
    let (width, height) = (
        (image.width() as f32 * factor) as usize,
        (image.height() as f32 * factor) as usize,
    );
    let mut result = RgbImage::filled(width, height, [0, 0, 0]);
    for y in 0..height {
        for x in 0..width {
            if factor < 1.0 {
                let mut sum = [0u32; 3];
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let pixel = image.get(2 * x + dx, 2 * y + dy).unwrap();
                    for channel in 0..3 {
                        sum[channel] += u32::from(pixel[channel]);
                    }
                }
                result.set(x, y, sum.map(|value| ((value + 2) / 4) as u8));
            } else {
                let source = image
                    .get((x as f32 / factor) as usize, (y as f32 / factor) as usize)
                    .unwrap();
                result.set(x, y, source);
            }
        }
    }
    result
}
