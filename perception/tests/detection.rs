//! The ball detector on the real NAO frames of the shared data folder and on variants this test
//! derives from them (lighting, colour casts, sensor noise, mirrored and shifted frames, and
//! frames with the ball masked out). Prints a table of recall and false balls per set:
//!
//! ```sh
//! cargo test -p perception --test detection -- --nocapture
//! ```
//!
//! A ball counts as found when a detection's centre is within 5 px of the label's; every
//! detection that is not within 5 px of a label is a false ball.

mod support;

use cortex_image::RgbImage;
use support::{labelled_frames, to_yuyv, vision_dir, Label, LabelledFrame};

const MAX_CENTER_ERROR_PX: f32 = 5.0;

#[derive(Debug, Default, Clone, Copy)]
struct Score {
    frames: usize,
    labelled: usize,
    found: usize,
    false_balls: usize,
}

impl Score {
    fn recall(&self) -> f32 {
        if self.labelled == 0 {
            1.0
        } else {
            self.found as f32 / self.labelled as f32
        }
    }

    fn false_per_frame(&self) -> f32 {
        self.false_balls as f32 / self.frames.max(1) as f32
    }
}

fn evaluate(frames: &[LabelledFrame], log: bool) -> Score {
    let mut score = Score::default();
    for frame in frames {
        let balls = perception::perceive(&to_yuyv(&frame.image), None).balls;
        score.frames += 1;
        score.labelled += frame.balls.len();
        let near = |ball: &perception::BallPercept, label: &Label| {
            ((ball.x - label.x).powi(2) + (ball.y - label.y).powi(2)).sqrt() <= MAX_CENTER_ERROR_PX
        };
        let found = frame
            .balls
            .iter()
            .filter(|label| balls.iter().any(|ball| near(ball, label)))
            .count();
        let false_balls = balls
            .iter()
            .filter(|ball| !frame.balls.iter().any(|label| near(ball, label)))
            .count();
        score.found += found;
        score.false_balls += false_balls;
        if log && (found < frame.balls.len() || false_balls > 0) {
            let seen: Vec<String> = balls
                .iter()
                .map(|ball| format!("({:.1}, {:.1}, r {:.1})", ball.x, ball.y, ball.radius))
                .collect();
            eprintln!(
                "  {}: labels {:?}, detections {}",
                frame.name,
                frame
                    .balls
                    .iter()
                    .map(|label| (label.x, label.y))
                    .collect::<Vec<_>>(),
                seen.join(" ")
            );
        }
    }
    score
}

fn map_pixels(image: &RgbImage, change: impl Fn(usize, usize, [u8; 3]) -> [u8; 3]) -> RgbImage {
    let mut result = image.clone();
    for y in 0..image.height() {
        for x in 0..image.width() {
            result.set(x, y, change(x, y, image.get(x, y).unwrap()));
        }
    }
    result
}

fn clamp(value: f32) -> u8 {
    value.round().clamp(0.0, 255.0) as u8
}

/// Deterministic noise in [−amplitude, amplitude] per pixel and channel.
fn noise(x: usize, y: usize, channel: usize, amplitude: f32) -> f32 {
    let mut hash = (x as u32).wrapping_mul(0x9e37_79b1)
        ^ (y as u32).wrapping_mul(0x85eb_ca77)
        ^ (channel as u32).wrapping_mul(0xc2b2_ae3d);
    hash ^= hash >> 15;
    hash = hash.wrapping_mul(0x2c1b_3c6d);
    hash ^= hash >> 12;
    (hash % 2001) as f32 / 1000.0 * amplitude - amplitude
}

fn variant(
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

fn mirrored(frames: &[LabelledFrame]) -> Vec<LabelledFrame> {
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
fn shifted(frames: &[LabelledFrame], dx: i32, dy: i32) -> Vec<LabelledFrame> {
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
fn ball_masked(frames: &[LabelledFrame]) -> Vec<LabelledFrame> {
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
fn zoomed_out(frames: &[LabelledFrame], factor: usize) -> Vec<LabelledFrame> {
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

#[test]
fn rome_ball_within_5_px_and_nothing_on_the_white_wall() {
    let Some(vision) = vision_dir("rome_ball_within_5_px_and_nothing_on_the_white_wall") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let rome = &frames[0];
    let balls = perception::perceive(&to_yuyv(&rome.image), None).balls;
    assert_eq!(balls.len(), 1, "one ball in {}: {balls:?}", rome.name);
    let label = rome.balls[0];
    let error = ((balls[0].x - label.x).powi(2) + (balls[0].y - label.y).powi(2)).sqrt();
    assert!(
        error <= MAX_CENTER_ERROR_PX,
        "{balls:?} is {error:.1} px from {label:?}"
    );
    assert!(
        (balls[0].radius - label.radius).abs() <= 0.15 * label.radius,
        "{balls:?}"
    );
    let wall = &frames[1];
    let balls = perception::perceive(&to_yuyv(&wall.image), None).balls;
    assert!(balls.is_empty(), "no ball on {}: {balls:?}", wall.name);
}

#[test]
fn detection_on_the_shared_frames_and_their_variants() {
    let Some(vision) = vision_dir("detection_on_the_shared_frames_and_their_variants") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let sets: Vec<(&str, Vec<LabelledFrame>)> = vec![
        ("shared frames", frames.clone()),
        (
            "darker (x0.6)",
            variant(&frames, |_, _, rgb| rgb.map(|c| clamp(f32::from(c) * 0.6))),
        ),
        (
            "brighter (x1.3)",
            variant(&frames, |_, _, rgb| rgb.map(|c| clamp(f32::from(c) * 1.3))),
        ),
        // A colour cast is a white-balance error: a gain per channel.
        (
            "warm cast (R x1.2, B x0.8)",
            variant(&frames, |_, _, [r, g, b]| {
                [clamp(f32::from(r) * 1.2), g, clamp(f32::from(b) * 0.8)]
            }),
        ),
        (
            "cold cast (R x0.85, B x1.2)",
            variant(&frames, |_, _, [r, g, b]| {
                [clamp(f32::from(r) * 0.85), g, clamp(f32::from(b) * 1.2)]
            }),
        ),
        (
            "green cast (G x1.15)",
            variant(&frames, |_, _, [r, g, b]| {
                [r, clamp(f32::from(g) * 1.15), b]
            }),
        ),
        (
            "noise (+-20)",
            variant(&frames, |x, y, rgb| {
                let mut channel = 0;
                rgb.map(|c| {
                    channel += 1;
                    clamp(f32::from(c) + noise(x, y, channel, 20.0))
                })
            }),
        ),
        ("mirrored", mirrored(&frames)),
        ("shifted (+40, -30)", shifted(&frames, 40, -30)),
        ("shifted (-60, +20)", shifted(&frames, -60, 20)),
        ("ball masked out", ball_masked(&frames)),
    ];
    eprintln!(
        "{:<28} {:>6} {:>6} {:>6} {:>8} {:>6} {:>10}",
        "set", "frames", "balls", "found", "recall", "false", "false/frm"
    );
    let mut results = Vec::new();
    for (name, set) in &sets {
        let score = evaluate(set, std::env::var_os("DETECTION_LOG").is_some());
        eprintln!(
            "{:<28} {:>6} {:>6} {:>6} {:>7.0}% {:>6} {:>10.3}",
            name,
            score.frames,
            score.labelled,
            score.found,
            100.0 * score.recall(),
            score.false_balls,
            score.false_per_frame()
        );
        results.push((*name, score));
    }
    // Small balls: the frames shrunk and tiled 2 x 2. The tiles' seams are edges no camera
    // frame has, and they make false balls of their own, so this set is printed and its recall
    // asserted, but it stays out of the totals.
    let zoomed = evaluate(
        &zoomed_out(&frames, 2),
        std::env::var_os("DETECTION_LOG").is_some(),
    );
    eprintln!(
        "{:<28} {:>6} {:>6} {:>6} {:>7.0}% {:>6} {:>10.3}  (not in \"all\")",
        "zoomed out x2 (2x2 tiles)",
        zoomed.frames,
        zoomed.labelled,
        zoomed.found,
        100.0 * zoomed.recall(),
        zoomed.false_balls,
        zoomed.false_per_frame()
    );
    assert!(zoomed.recall() >= MIN_ZOOMED_RECALL, "{zoomed:?}");
    let shared = results[0].1;
    let total = results
        .iter()
        .fold(Score::default(), |sum, (_, score)| Score {
            frames: sum.frames + score.frames,
            labelled: sum.labelled + score.labelled,
            found: sum.found + score.found,
            false_balls: sum.false_balls + score.false_balls,
        });
    eprintln!(
        "{:<28} {:>6} {:>6} {:>6} {:>7.0}% {:>6} {:>10.3}",
        "all",
        total.frames,
        total.labelled,
        total.found,
        100.0 * total.recall(),
        total.false_balls,
        total.false_per_frame()
    );
    // The levels reached when this test was written (docs/performance.md has the table); a
    // change that makes the detector worse fails here.
    assert!(shared.recall() >= MIN_SHARED_RECALL, "{shared:?}");
    assert!(
        shared.false_per_frame() <= MAX_SHARED_FALSE_PER_FRAME,
        "{shared:?}"
    );
    assert!(total.recall() >= MIN_VARIANT_RECALL, "{total:?}");
    assert!(
        total.false_per_frame() <= MAX_VARIANT_FALSE_PER_FRAME,
        "{total:?}"
    );
}

const MIN_SHARED_RECALL: f32 = 0.60;
const MAX_SHARED_FALSE_PER_FRAME: f32 = 0.25;
const MIN_VARIANT_RECALL: f32 = 0.50;
const MAX_VARIANT_FALSE_PER_FRAME: f32 = 0.20;
const MIN_ZOOMED_RECALL: f32 = 0.50;

/// Box-filtered half size or nearest-neighbour double size.
fn rescaled(image: &RgbImage, factor: f32) -> RgbImage {
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

#[test]
fn the_ball_is_found_at_every_camera_resolution() {
    let Some(vision) = vision_dir("the_ball_is_found_at_every_camera_resolution") else {
        return;
    };
    let frames = labelled_frames(&vision);
    for name in ["rome_bottom_ball.png", "detectball/log_42625.png"] {
        let frame = frames.iter().find(|frame| frame.name == name).unwrap();
        let label = frame.balls[0];
        for factor in [0.5, 2.0] {
            let image = rescaled(&frame.image, factor);
            let balls = perception::perceive(&to_yuyv(&image), None).balls;
            // The label scaled: pixel centres move with the scale (x' + 0.5 = (x + 0.5) f).
            let (x, y) = (
                (label.x + 0.5) * factor - 0.5,
                (label.y + 0.5) * factor - 0.5,
            );
            let tolerance = MAX_CENTER_ERROR_PX * factor;
            assert!(
                balls.len() == 1
                    && ((balls[0].x - x).powi(2) + (balls[0].y - y).powi(2)).sqrt() <= tolerance,
                "{name} at {}x{}: {balls:?}, label at ({x}, {y})",
                image.width(),
                image.height()
            );
        }
    }
}
