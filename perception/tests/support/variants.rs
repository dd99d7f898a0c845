//! Frames derived from the shared ones for the detection tests: lighting, casts, noise,
//! mirrored, shifted, the ball painted out, shrunk and tiled, rescaled, and real balls shrunk
//! onto other frames' turf (small balls).

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

/// The sets of the detection test: the shared frames and every variant counted in its "all".
pub fn standard_sets(frames: &[LabelledFrame]) -> Vec<(&'static str, Vec<LabelledFrame>)> {
    vec![
        ("shared frames", frames.to_vec()),
        (
            "darker (x0.6)",
            variant(frames, |_, _, rgb| rgb.map(|c| clamp(f32::from(c) * 0.6))),
        ),
        (
            "brighter (x1.3)",
            variant(frames, |_, _, rgb| rgb.map(|c| clamp(f32::from(c) * 1.3))),
        ),
        (
            "warm cast (R x1.2, B x0.8)",
            variant(frames, |_, _, [r, g, b]| {
                [clamp(f32::from(r) * 1.2), g, clamp(f32::from(b) * 0.8)]
            }),
        ),
        (
            "cold cast (R x0.85, B x1.2)",
            variant(frames, |_, _, [r, g, b]| {
                [clamp(f32::from(r) * 0.85), g, clamp(f32::from(b) * 1.2)]
            }),
        ),
        (
            "green cast (G x1.15)",
            variant(frames, |_, _, [r, g, b]| [r, clamp(f32::from(g) * 1.15), b]),
        ),
        (
            "noise (+-20)",
            variant(frames, |x, y, rgb| {
                let mut channel = 0;
                rgb.map(|c| {
                    channel += 1;
                    clamp(f32::from(c) + noise(x, y, channel, 20.0))
                })
            }),
        ),
        ("mirrored", mirrored(frames)),
        ("shifted (+40, -30)", shifted(frames, 40, -30)),
        ("shifted (-60, +20)", shifted(frames, -60, 20)),
    ]
}

/// Variants a real NAO camera makes that the detection test's sets leave out: vignetting,
/// strong sensor noise in a dark frame, JPEG-like blocks, a cast and an exposure together, and
/// the robot's own body at the bottom of the frame.
pub fn camera_sets(frames: &[LabelledFrame]) -> Vec<(&'static str, Vec<LabelledFrame>)> {
    vec![
        ("vignetting (corners x0.55)", vignetted(frames, 0.45)),
        (
            "dark and noisy (x0.45, +-25)",
            variant(frames, |x, y, rgb| {
                let mut channel = 0;
                rgb.map(|c| {
                    channel += 1;
                    clamp(f32::from(c) * 0.45 + noise(x, y, channel + 3, 25.0))
                })
            }),
        ),
        (
            "warm and dark (x0.7 R x1.15 B x0.85)",
            variant(frames, |_, _, [r, g, b]| {
                [
                    clamp(f32::from(r) * 0.7 * 1.15),
                    clamp(f32::from(g) * 0.7),
                    clamp(f32::from(b) * 0.7 * 0.85),
                ]
            }),
        ),
        ("JPEG-like 8x8 blocks", blocky(frames)),
        ("robot body at the bottom", with_robot_body(frames)),
    ]
}

/// Over-exposed frames, as a NAO's auto exposure makes them under bright light: every channel
/// scaled up and clipped at 255, so the ball's white panels clip and its black patches and the
/// turf's tint on its shaded side brighten with it. Kept apart from [`camera_sets`] (their
/// totals are asserted as they were measured before these sets existed).
pub fn over_exposed_sets(frames: &[LabelledFrame]) -> Vec<(&'static str, Vec<LabelledFrame>)> {
    let scaled = |gain: f32| {
        variant(frames, move |_, _, rgb| {
            rgb.map(|c| clamp(f32::from(c) * gain))
        })
    };
    vec![
        ("over-exposed (x1.6, clipped)", scaled(1.6)),
        ("over-exposed (x2, clipped)", scaled(2.0)),
    ]
}

/// Brightness falling off towards the corners: `1 − strength · (d / d_corner)²`.
pub fn vignetted(frames: &[LabelledFrame], strength: f32) -> Vec<LabelledFrame> {
    frames
        .iter()
        .map(|frame| {
            let (width, height) = (frame.image.width() as f32, frame.image.height() as f32);
            let (cx, cy) = (width / 2.0, height / 2.0);
            let corner = cx * cx + cy * cy;
            LabelledFrame {
                name: frame.name.clone(),
                image: map_pixels(&frame.image, |x, y, rgb| {
                    let d = (x as f32 - cx).powi(2) + (y as f32 - cy).powi(2);
                    let gain = 1.0 - strength * d / corner;
                    rgb.map(|c| clamp(f32::from(c) * gain))
                }),
                balls: frame.balls.clone(),
            }
        })
        .collect()
}

fn to_ycbcr([r, g, b]: [u8; 3]) -> [f32; 3] {
    let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
    let y = 0.299 * r + 0.587 * g + 0.114 * b;
    [y, 0.564 * (b - y), 0.713 * (r - y)]
}

fn to_rgb([y, cb, cr]: [f32; 3]) -> [u8; 3] {
    let r = y + cr / 0.713;
    let b = y + cb / 0.564;
    let g = (y - 0.299 * r - 0.114 * b) / 0.587;
    [clamp(r), clamp(g), clamp(b)]
}

/// JPEG-like compression: per 8 × 8 block, the chroma is the block's mean and the luma's
/// deviation from its mean is quantised in steps of 12.
pub fn blocky(frames: &[LabelledFrame]) -> Vec<LabelledFrame> {
    frames
        .iter()
        .map(|frame| {
            let (width, height) = (frame.image.width(), frame.image.height());
            let mut image = frame.image.clone();
            for block_y in (0..height).step_by(8) {
                for block_x in (0..width).step_by(8) {
                    let pixels: Vec<(usize, usize)> = (block_y..(block_y + 8).min(height))
                        .flat_map(|y| (block_x..(block_x + 8).min(width)).map(move |x| (x, y)))
                        .collect();
                    let values: Vec<[f32; 3]> = pixels
                        .iter()
                        .map(|&(x, y)| to_ycbcr(frame.image.get(x, y).unwrap()))
                        .collect();
                    let count = values.len() as f32;
                    let mean: [f32; 3] = std::array::from_fn(|channel| {
                        values.iter().map(|value| value[channel]).sum::<f32>() / count
                    });
                    for (&(x, y), value) in pixels.iter().zip(&values) {
                        let luma = mean[0] + ((value[0] - mean[0]) / 12.0).round() * 12.0;
                        image.set(x, y, to_rgb([luma, mean[1], mean[2]]));
                    }
                }
            }
            LabelledFrame {
                name: frame.name.clone(),
                image,
                balls: frame.balls.clone(),
            }
        })
        .collect()
}

/// The robot's own body as the lower camera sees it: white plastic with grey shading in both
/// bottom corners (quarter ellipses of 150 × 85 px), a dark seam along their edge. Frames where
/// it would cover a labelled ball are left out.
pub fn with_robot_body(frames: &[LabelledFrame]) -> Vec<LabelledFrame> {
    let (semi_x, semi_y) = (150.0f32, 85.0f32);
    frames
        .iter()
        .filter_map(|frame| {
            let (width, height) = (frame.image.width() as f32, frame.image.height() as f32);
            // Distance measure from the nearer bottom corner: 1 on the ellipse.
            let body = |x: f32, y: f32| {
                let corner_x = if x < width / 2.0 { 0.0 } else { width };
                ((x - corner_x) / semi_x).powi(2) + ((y - height) / semi_y).powi(2)
            };
            let covered = frame.balls.iter().any(|label| {
                (0..16).any(|step| {
                    let angle = step as f32 / 16.0 * std::f32::consts::TAU;
                    body(
                        label.x + label.radius * angle.cos(),
                        label.y + label.radius * angle.sin(),
                    ) <= 1.1
                })
            });
            if covered {
                return None;
            }
            let image = map_pixels(&frame.image, |x, y, rgb| {
                let inside = body(x as f32, y as f32);
                if inside > 1.0 {
                    rgb
                } else if inside > 0.92 {
                    [40, 40, 45]
                } else {
                    // Lit from above: brighter near the seam, grey deeper in.
                    let shade = 150.0 + 85.0 * inside.sqrt();
                    [clamp(shade), clamp(shade), clamp(shade - 4.0)]
                }
            });
            Some(LabelledFrame {
                name: frame.name.clone(),
                image,
                balls: frame.balls.clone(),
            })
        })
        .collect()
}

/// A real ball made small on another real frame: the ball of `source` (its label's circle and what
/// lies around it out to 1.3 radii, the top of its shadow among it) is shrunk to `radius` by
/// averaging the source pixels under each new pixel (as a camera's pixel integrates the light over
/// its area), and blended into `background` at (x, y) with an edge that fades from 1.05 to 1.3
/// radii: the ball's own outline and the top of its shadow come along, the background's turf takes
/// over beyond (a white line behind the source's ball would otherwise leave a bright halo that no
/// real small ball has). The result keeps the background's labels and adds the small ball's.
fn transplanted(
    background: &LabelledFrame,
    source: &Label,
    source_image: &RgbImage,
    (x, y, radius): (f32, f32, f32),
) -> LabelledFrame {
    let scale = source.radius / radius;
    let reach = (1.3 * radius).ceil() as i64 + 1;
    let mut image = background.image.clone();
    for py in (y.round() as i64 - reach)..=(y.round() as i64 + reach) {
        for px in (x.round() as i64 - reach)..=(x.round() as i64 + reach) {
            let (Ok(ux), Ok(uy)) = (usize::try_from(px), usize::try_from(py)) else {
                continue;
            };
            let Some(under) = image.get(ux, uy) else {
                continue;
            };
            let (dx, dy) = (px as f32 - x, py as f32 - y);
            let alpha = ((1.3 - dx.hypot(dy) / radius) / 0.25).clamp(0.0, 1.0);
            if alpha == 0.0 {
                continue;
            }
            // The new pixel covers [dx − 0.5, dx + 0.5) around the ball's centre: that is
            // `scale` source pixels each way, sampled on a grid of at most 8 × 8.
            let samples = (scale.ceil() as usize).clamp(1, 8);
            let mut sum = [0.0f32; 3];
            let mut count = 0.0f32;
            for sy in 0..samples {
                for sx in 0..samples {
                    let offset_x = (dx - 0.5 + (sx as f32 + 0.5) / samples as f32) * scale;
                    let offset_y = (dy - 0.5 + (sy as f32 + 0.5) / samples as f32) * scale;
                    let (source_x, source_y) = (
                        (source.x + offset_x)
                            .round()
                            .clamp(0.0, source_image.width() as f32 - 1.0),
                        (source.y + offset_y)
                            .round()
                            .clamp(0.0, source_image.height() as f32 - 1.0),
                    );
                    let pixel = source_image
                        .get(source_x as usize, source_y as usize)
                        .unwrap();
                    for channel in 0..3 {
                        sum[channel] += f32::from(pixel[channel]);
                    }
                    count += 1.0;
                }
            }
            let blended: [u8; 3] = std::array::from_fn(|channel| {
                clamp(alpha * sum[channel] / count + (1.0 - alpha) * f32::from(under[channel]))
            });
            image.set(ux, uy, blended);
        }
    }
    let mut balls = background.balls.clone();
    balls.push(Label { x, y, radius });
    LabelledFrame {
        name: format!("{} with a small ball (r {radius})", background.name),
        image,
        balls,
    }
}

/// Whether the ring of `radius` px around (x, y) is turf in `image` (green over red and blue in
/// at least 90 % of 32 samples at 1–2.5 radii) and lies in the image.
fn on_turf(image: &RgbImage, (x, y, radius): (f32, f32, f32)) -> bool {
    let mut turf = 0;
    for sample in 0..32 {
        let angle = sample as f32 / 32.0 * std::f32::consts::TAU;
        let distance = radius * (1.0 + 1.5 * (sample % 4) as f32 / 3.0);
        let (px, py) = (x + angle.cos() * distance, y + angle.sin() * distance);
        if px < 0.0 || py < 0.0 {
            return false;
        }
        let Some([red, green, blue]) = image.get(px as usize, py as usize) else {
            return false;
        };
        if green > red.saturating_add(8) && green > blue.saturating_add(8) {
            turf += 1;
        }
    }
    turf >= 29
}

/// Small real balls at `radius` px (a ball 2.5–6.5 m from the upper camera at 12–5 px), one per
/// frame: every frame with a ball and turf is a background once, and gets the ball of another
/// frame (the next but one in the list) shrunk and placed on its turf, the first place of a fixed
/// scan (rows from the bottom up, columns from a frame-dependent start) that is turf all around
/// and at least 2 radii clear of the frame's own ball.
pub fn small_ball_set(frames: &[LabelledFrame], radius: f32) -> Vec<LabelledFrame> {
    let with_ball: Vec<&LabelledFrame> = frames.iter().filter(|f| !f.balls.is_empty()).collect();
    let mut set = Vec::new();
    for (index, background) in with_ball.iter().enumerate() {
        let source = with_ball[(index + 2) % with_ball.len()];
        let (width, height) = (background.image.width(), background.image.height());
        let columns = 16;
        let place = (0..12).find_map(|row| {
            let py = height as f32 - 3.0 * radius - row as f32 * 20.0;
            (0..columns).find_map(|column| {
                let step = (width as f32 - 8.0 * radius) / columns as f32;
                let px = 4.0 * radius + ((column + 5 * index) % columns) as f32 * step;
                let clear = background
                    .balls
                    .iter()
                    .all(|ball| (ball.x - px).hypot(ball.y - py) > ball.radius + 3.6 * radius);
                (clear && on_turf(&background.image, (px, py, radius))).then_some((px, py))
            })
        });
        if let Some((px, py)) = place {
            set.push(transplanted(
                background,
                &source.balls[0],
                &source.image,
                (px, py, radius),
            ));
        }
    }
    set
}
