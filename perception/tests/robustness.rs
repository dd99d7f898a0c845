//! Frames no camera should deliver, at every resolution: the perception tick must return (no
//! panic, no out-of-range index) and find no ball in frames that cannot hold one.

use cortex_image::{ColorRange, Resolution, RgbImage, YuyvImage};

fn yuyv(rgb: &RgbImage) -> YuyvImage {
    YuyvImage::from_rgb(rgb, ColorRange::Full).unwrap()
}

fn frame(width: usize, height: usize, pixel: impl Fn(usize, usize) -> [u8; 3]) -> RgbImage {
    let mut image = RgbImage::filled(width, height, [0, 0, 0]);
    for y in 0..height {
        for x in 0..width {
            image.set(x, y, pixel(x, y));
        }
    }
    image
}

fn hash(x: usize, y: usize, salt: usize) -> u8 {
    let mut value = (x as u32).wrapping_mul(0x9e37_79b1)
        ^ (y as u32).wrapping_mul(0x85eb_ca77)
        ^ (salt as u32).wrapping_mul(0xc2b2_ae3d);
    value ^= value >> 15;
    value = value.wrapping_mul(0x2c1b_3c6d);
    (value >> 11) as u8
}

#[test]
fn uniform_frames_hold_no_ball() {
    for resolution in Resolution::ALL {
        let (width, height) = resolution.size();
        for colour in [[0, 0, 0], [255, 255, 255], [40, 140, 60], [128, 128, 128]] {
            let percepts =
                perception::perceive(&yuyv(&RgbImage::filled(width, height, colour)), None);
            assert!(percepts.balls.is_empty(), "{colour:?} at {width}x{height}");
        }
    }
}

#[test]
fn noise_stripes_and_checkerboards_do_not_break_the_tick() {
    for resolution in Resolution::ALL {
        let (width, height) = resolution.size();
        let frames = [
            frame(width, height, |x, y| {
                [hash(x, y, 0), hash(x, y, 1), hash(x, y, 2)]
            }),
            frame(width, height, |x, y| {
                let grey = hash(x, y, 3);
                [grey, grey, grey]
            }),
            frame(width, height, |x, y| {
                if (x / 7 + y / 7) % 2 == 0 {
                    [255, 255, 255]
                } else {
                    [0, 0, 0]
                }
            }),
            frame(width, height, |x, _| {
                if x % 2 == 0 {
                    [255, 255, 255]
                } else {
                    [0, 100, 0]
                }
            }),
            frame(width, height, |_, y| {
                if y < height / 2 {
                    [255, 255, 255]
                } else {
                    [30, 150, 40]
                }
            }),
        ];
        for (index, rgb) in frames.iter().enumerate() {
            let percepts = perception::perceive(&yuyv(rgb), None);
            for ball in &percepts.balls {
                assert!(
                    ball.x.is_finite() && ball.y.is_finite() && ball.radius > 0.0,
                    "frame {index} at {width}x{height}: {ball:?}"
                );
                assert!((0.0..=1.0).contains(&ball.confidence));
            }
        }
    }
}

#[test]
fn a_ball_cut_by_every_border_and_corner_does_not_break_the_tick() {
    // A white disc with black patches on a field, centred on each border and corner.
    let (width, height) = (640usize, 480usize);
    let centres = [
        (0.0, 0.0),
        (320.0, 0.0),
        (639.0, 0.0),
        (0.0, 240.0),
        (639.0, 240.0),
        (0.0, 479.0),
        (320.0, 479.0),
        (639.0, 479.0),
    ];
    for (cx, cy) in centres {
        let rgb = frame(width, height, |x, y| {
            let (dx, dy) = (x as f32 - cx, y as f32 - cy);
            let distance = (dx * dx + dy * dy).sqrt();
            if distance > 40.0 {
                [40, 140, 60]
            } else if ((dx / 12.0).floor() + (dy / 12.0).floor()) as i32 % 3 == 0 {
                [20, 20, 20]
            } else {
                [240, 240, 240]
            }
        });
        let percepts = perception::perceive(&yuyv(&rgb), None);
        for ball in &percepts.balls {
            assert!(ball.x.is_finite() && ball.y.is_finite(), "{ball:?}");
        }
    }
}
