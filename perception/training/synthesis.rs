//! Training scenes for the ball network, rendered from a seed: every sample is a small scene
//! around one candidate circle, drawn pixel by pixel on demand and turned into a `BallPatch`
//! exactly as a camera frame is at run time.
//!
//! A scene is field (carpet or turf of a random green, with a texture) or, sometimes, a wall
//! or floor; then, in this order: white lines on the ground (bands, line ends, crossings), the
//! ball's shadow, the ball (a sphere with the twelve black pentagons of `simulator`'s pattern,
//! turned at random, lit from above with a random ambient share), and in front of it things
//! that hide part of it (a shoe, a robot part). Camera motion blurs everything along one
//! direction, a rolling ball also along its own; the frame's gain, a white-balance error
//! (a gain per channel) and sensor noise follow, then YCbCr with the chroma shared by pixel
//! pairs as in YUYV. The frame's `FieldColor` is the one the scene's own white and field
//! colours give, with the estimation errors of a real frame added.
//!
//! Half of the samples are balls, the candidate circle placed off the ball's centre by up to
//! 0.45 radii and scaled by up to ±35 % (what the contour stage hands over); the other half are
//! the things that make the spot search fire without a ball: line crossings and ends, robot
//! parts and feet (white and grey with dark joints), shoes, elongated white blobs with dark
//! spots, white discs without a pattern, dark patches on the turf, and circles beside a ball.
//!
//! Every sample is a pure function of (seed, index): the data regenerates bit for bit, and the
//! test `perception/tests/ball_training_data.rs` checks a checksum of the first samples.

#![allow(dead_code)]

use cortex_image::{rgb_to_ycbcr, ColorRange};
use nalgebra::Vector3;
use perception::ball_patch::BallPatch;
use perception::color_classes::ChromaCache;
use perception::field_color::FieldColor;
use simulator::ball_pattern::BallPattern;

/// One training sample.
#[derive(Debug, Clone)]
pub struct Sample {
    pub values: Vec<f32>,
    pub ball: bool,
    /// For a ball: ((ball x − candidate x) / r, (ball y − candidate y) / r, ln(ball r / r)).
    pub target: [f32; 3],
}

/// A small, fast, seedable generator (SplitMix64).
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    pub fn chance(&mut self, probability: f32) -> bool {
        self.unit() < probability
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f32 {
        let u = self.unit().max(1e-7);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    }

    pub fn index(&mut self, count: usize) -> usize {
        (self.next_u64() % count as u64) as usize
    }
}

fn hash(seed: u64, x: i32, y: i32, channel: u32) -> f32 {
    let mut z = seed
        ^ (x as u32 as u64).wrapping_mul(0x9e37_79b1)
        ^ ((y as u32 as u64) << 32).wrapping_mul(0x85eb_ca77)
        ^ u64::from(channel).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

/// Smooth noise in [0, 1) with features of about `scale` pixels.
fn value_noise(seed: u64, x: f32, y: f32, scale: f32) -> f32 {
    let (u, v) = (x / scale, y / scale);
    let (x0, y0) = (u.floor(), v.floor());
    let (fx, fy) = (u - x0, v - y0);
    let (fx, fy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (x0, y0) = (x0 as i32, y0 as i32);
    let corner = |dx, dy| hash(seed, x0 + dx, y0 + dy, 7);
    let top = corner(0, 0) * (1.0 - fx) + corner(1, 0) * fx;
    let bottom = corner(0, 1) * (1.0 - fx) + corner(1, 1) * fx;
    top * (1.0 - fy) + bottom * fy
}

#[derive(Debug, Clone, Copy)]
enum Paint {
    Colour([f32; 3]),
    /// Multiplies what is below (a shadow).
    Darken(f32),
}

/// A shape in scene pixels.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// Points within `half_width` of a line through `centre` along `direction`, and within
    /// `half_length` of `centre` along it.
    Band {
        centre: (f32, f32),
        direction: (f32, f32),
        half_width: f32,
        half_length: f32,
    },
    /// |x'/a|^p + |y'/b|^p ≤ 1 in axes turned by `angle` (p = 2 an ellipse, larger a rounded
    /// rectangle).
    Blob {
        centre: (f32, f32),
        axes: (f32, f32),
        angle: f32,
        power: f32,
    },
}

impl Shape {
    fn contains(&self, x: f32, y: f32) -> bool {
        match *self {
            Shape::Band {
                centre,
                direction,
                half_width,
                half_length,
            } => {
                let (dx, dy) = (x - centre.0, y - centre.1);
                let along = dx * direction.0 + dy * direction.1;
                let across = -dx * direction.1 + dy * direction.0;
                across.abs() <= half_width && along.abs() <= half_length
            }
            Shape::Blob {
                centre,
                axes,
                angle,
                power,
            } => {
                let (dx, dy) = (x - centre.0, y - centre.1);
                let (sin, cos) = angle.sin_cos();
                let u = (dx * cos + dy * sin) / axes.0;
                let v = (-dx * sin + dy * cos) / axes.1;
                u.abs().powf(power) + v.abs().powf(power) <= 1.0
            }
        }
    }
}

struct Ball {
    centre: (f32, f32),
    radius: f32,
    pattern: BallPattern,
    light: Vector3<f32>,
    ambient: f32,
    white: f32,
    black: f32,
}

impl Ball {
    /// Colour and coverage (0–1, anti-aliased edge) at (x, y) with the ball moved by `shift`.
    fn colour(&self, x: f32, y: f32, shift: (f32, f32)) -> Option<([f32; 3], f32)> {
        let (dx, dy) = (
            (x - self.centre.0 - shift.0) / self.radius,
            (y - self.centre.1 - shift.1) / self.radius,
        );
        let distance_squared = dx * dx + dy * dy;
        let distance = distance_squared.sqrt();
        let coverage = ((1.0 - distance) * self.radius + 0.5).clamp(0.0, 1.0);
        if coverage <= 0.0 {
            return None;
        }
        let (dx, dy) = if distance > 1.0 {
            (dx / distance, dy / distance)
        } else {
            (dx, dy)
        };
        // Camera frame: x right, y down, z towards the camera (the visible half).
        let normal = Vector3::new(dx, dy, -(1.0 - (dx * dx + dy * dy).min(1.0)).sqrt());
        let shade = self.ambient + (1.0 - self.ambient) * normal.dot(&self.light).max(0.0);
        let level = if self.pattern.is_black(&normal) {
            self.black
        } else {
            self.white
        } * shade;
        Some(([level; 3], coverage))
    }
}

struct Scene {
    seed: u64,
    field: [f32; 3],
    field_texture: (f32, f32),
    /// Non-field background (wall, floor) instead of field.
    background: Option<[f32; 3]>,
    ground: Vec<(Shape, Paint)>,
    ball: Option<Ball>,
    front: Vec<(Shape, Paint)>,
    camera_blur: (f32, f32),
    ball_motion: (f32, f32),
    blur_samples: usize,
    gain: f32,
    cast: [f32; 3],
    noise: f32,
    /// Image border in scene pixels: (x min, x max, y min, y max).
    bounds: (f32, f32, f32, f32),
}

impl Scene {
    fn colour(&self, x: f32, y: f32, ball_shift: (f32, f32)) -> [f32; 3] {
        let mut colour = match self.background {
            Some(background) => background,
            None => {
                let texture = 1.0
                    + self.field_texture.1
                        * (value_noise(self.seed, x, y, self.field_texture.0) - 0.5)
                    + 0.5 * self.field_texture.1 * (hash(self.seed, x as i32, y as i32, 9) - 0.5);
                self.field.map(|channel| channel * texture)
            }
        };
        let paint = |colour: &mut [f32; 3], paint: Paint| match paint {
            Paint::Colour(new) => *colour = new,
            Paint::Darken(factor) => *colour = colour.map(|channel| channel * factor),
        };
        for (shape, shape_paint) in &self.ground {
            if shape.contains(x, y) {
                paint(&mut colour, *shape_paint);
            }
        }
        if let Some(ball) = &self.ball {
            if let Some((ball_colour, coverage)) = ball.colour(x, y, ball_shift) {
                for channel in 0..3 {
                    colour[channel] =
                        colour[channel] * (1.0 - coverage) + ball_colour[channel] * coverage;
                }
            }
        }
        for (shape, shape_paint) in &self.front {
            if shape.contains(x, y) {
                paint(&mut colour, *shape_paint);
            }
        }
        colour
    }

    /// The camera's RGB at pixel (x, y): blur, gain, cast, noise.
    fn rgb(&self, x: i32, y: i32) -> [f32; 3] {
        let mut sum = [0.0f32; 3];
        for sample in 0..self.blur_samples {
            let t = (sample as f32 + 0.5) / self.blur_samples as f32 - 0.5;
            // The ball's own motion runs through its samples in another order than the
            // camera's, so the two blurs do not move in lockstep.
            let s = ((sample * 3 + 1) % self.blur_samples) as f32 / self.blur_samples as f32 - 0.5
                + 0.5 / self.blur_samples as f32;
            let colour = self.colour(
                x as f32 - t * self.camera_blur.0,
                y as f32 - t * self.camera_blur.1,
                (s * self.ball_motion.0, s * self.ball_motion.1),
            );
            for channel in 0..3 {
                sum[channel] += colour[channel];
            }
        }
        let count = self.blur_samples as f32;
        std::array::from_fn(|channel| {
            let noise = self.noise * (hash(self.seed, x, y, channel as u32) - 0.5) * 3.46;
            (sum[channel] / count * self.gain * self.cast[channel] + noise).clamp(0.0, 255.0)
        })
    }

    /// (Y, Cb, Cr) as a YUYV camera delivers it: luma per pixel, chroma per pixel pair.
    fn pixel(&self, x: i32, y: i32) -> Option<(u8, u8, u8)> {
        let inside = |x: i32, y: i32| {
            let (x, y) = (x as f32, y as f32);
            x >= self.bounds.0 && x <= self.bounds.1 && y >= self.bounds.2 && y <= self.bounds.3
        };
        if !inside(x, y) {
            return None;
        }
        let left = x & !1;
        let to_bytes = |rgb: [f32; 3]| rgb.map(|channel| channel.round() as u8);
        let own = to_bytes(self.rgb(x, y));
        let other = to_bytes(self.rgb(if left == x { x + 1 } else { left }, y));
        let (luma, cb, cr) = rgb_to_ycbcr(own, ColorRange::Full);
        let (_, other_cb, other_cr) = rgb_to_ycbcr(other, ColorRange::Full);
        let mean = |a: u8, b: u8| (u16::from(a) + u16::from(b)).div_ceil(2) as u8;
        Some((luma, mean(cb, other_cb), mean(cr, other_cr)))
    }
}

fn unit_direction(angle: f32) -> (f32, f32) {
    (angle.cos(), angle.sin())
}

fn grey(level: f32) -> [f32; 3] {
    [level; 3]
}

/// White and grey robot parts with dark joints, around `centre`, about `size` pixels large.
fn robot_part(random: &mut Random, centre: (f32, f32), size: f32) -> Vec<(Shape, Paint)> {
    let mut shapes = vec![(
        Shape::Blob {
            centre,
            axes: (size * random.range(0.6, 1.6), size * random.range(0.5, 1.3)),
            angle: random.range(0.0, 3.2),
            power: random.range(2.0, 5.0),
        },
        Paint::Colour(grey(random.range(170.0, 245.0))),
    )];
    for _ in 0..random.index(4) {
        shapes.push((
            Shape::Blob {
                centre: (
                    centre.0 + size * random.range(-0.8, 0.8),
                    centre.1 + size * random.range(-0.8, 0.8),
                ),
                axes: (size * random.range(0.1, 0.5), size * random.range(0.1, 0.4)),
                angle: random.range(0.0, 3.2),
                power: random.range(2.0, 4.0),
            },
            Paint::Colour(grey(random.range(25.0, 110.0))),
        ));
    }
    shapes
}

/// A shoe or foot: a blob of a random colour with a darker sole or laces.
fn shoe(random: &mut Random, centre: (f32, f32), size: f32) -> Vec<(Shape, Paint)> {
    let colour = match random.index(4) {
        0 => [150.0, 90.0, 50.0],
        1 => grey(random.range(20.0, 60.0)),
        2 => grey(random.range(200.0, 245.0)),
        _ => [
            random.range(40.0, 220.0),
            random.range(40.0, 220.0),
            random.range(40.0, 220.0),
        ],
    };
    let angle = random.range(-0.6, 0.6);
    let mut shapes = vec![(
        Shape::Blob {
            centre,
            axes: (size * random.range(1.2, 2.2), size * random.range(0.5, 0.9)),
            angle,
            power: 2.5,
        },
        Paint::Colour(colour),
    )];
    shapes.push((
        Shape::Band {
            centre: (centre.0, centre.1 + size * 0.5),
            direction: unit_direction(angle),
            half_width: size * 0.12,
            half_length: size * 1.8,
        },
        Paint::Colour(grey(random.range(180.0, 240.0))),
    ));
    shapes
}

/// White lines on the ground near `around` (radius `radius`): 0 to 2 bands, sometimes ending.
fn lines(
    random: &mut Random,
    around: (f32, f32),
    radius: f32,
    count: usize,
) -> Vec<(Shape, Paint)> {
    (0..count)
        .map(|_| {
            let direction = unit_direction(random.range(0.0, std::f32::consts::PI));
            let half_width = radius * random.range(0.15, 0.8);
            // Often touching the ball: the band's edge within a radius of the ball's edge.
            let offset = if random.chance(0.6) {
                (radius + half_width + radius * random.range(-0.5, 0.3))
                    * if random.chance(0.5) { 1.0 } else { -1.0 }
            } else {
                radius * random.range(-2.5, 2.5)
            };
            let centre = (
                around.0 - direction.1 * offset + direction.0 * radius * random.range(-2.0, 2.0),
                around.1 + direction.0 * offset + direction.1 * radius * random.range(-2.0, 2.0),
            );
            let half_length = if random.chance(0.25) {
                radius * random.range(0.5, 2.0)
            } else {
                1e6
            };
            (
                Shape::Band {
                    centre,
                    direction,
                    half_width,
                    half_length,
                },
                Paint::Colour(grey(random.range(185.0, 245.0))),
            )
        })
        .collect()
}

/// The sample (seed, index).
pub fn sample(seed: u64, index: u64) -> Sample {
    let mut random = Random::new(seed ^ index.wrapping_mul(0xd6e8_feb8_6659_fd93));
    let scene_seed = random.next_u64();
    let radius = random.range(7.0f32.ln(), 55.0f32.ln()).exp();
    let ball_centre = (random.range(-0.5, 0.5), random.range(-0.5, 0.5));
    let is_ball = random.chance(0.5);

    // The field: carpet (blue-green) or turf (yellow-green), bright or dim.
    let green = random.range(90.0, 190.0);
    let field = [
        green * random.range(0.05, 0.5),
        green,
        green * random.range(0.25, 0.8),
    ];
    let background = random
        .chance(0.12)
        .then(|| grey(random.range(40.0, 230.0)).map(|c| c * random.range(0.9, 1.1)));
    let field_texture = (random.range(2.0, 14.0), random.range(0.0, 0.45));

    let line_count = match random.index(10) {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    };
    let mut ground = lines(&mut random, ball_centre, radius, line_count);
    let mut front = Vec::new();
    let mut ball = None;
    let candidate;
    let mut target = [0.0; 3];
    if is_ball {
        // Shadow under the ball, on the ground.
        if random.chance(0.8) {
            ground.push((
                Shape::Blob {
                    centre: (
                        ball_centre.0,
                        ball_centre.1 + radius * random.range(0.5, 0.9),
                    ),
                    axes: (
                        radius * random.range(0.8, 1.2),
                        radius * random.range(0.25, 0.5),
                    ),
                    angle: 0.0,
                    power: 2.0,
                },
                Paint::Darken(random.range(0.25, 0.8)),
            ));
        }
        let light =
            Vector3::new(random.range(-0.6, 0.6), -1.0, -random.range(0.2, 1.5)).normalize();
        ball = Some(Ball {
            centre: ball_centre,
            radius,
            pattern: BallPattern::rolled_to(random.range(-3.0, 3.0), random.range(-3.0, 3.0)),
            light,
            ambient: random.range(0.3, 0.8),
            white: random.range(190.0, 250.0),
            black: random.range(10.0, 70.0),
        });
        // Something in front: a shoe or a robot part hiding up to about half the ball.
        if random.chance(0.15) {
            let angle = random.range(0.0, std::f32::consts::TAU);
            let size = radius * random.range(0.6, 1.5);
            let distance = radius + size * random.range(0.0, 0.8);
            let centre = (
                ball_centre.0 + angle.cos() * distance,
                ball_centre.1 + angle.sin() * distance,
            );
            front = if random.chance(0.5) {
                shoe(&mut random, centre, size)
            } else {
                robot_part(&mut random, centre, size)
            };
        }
        let shift_angle = random.range(0.0, std::f32::consts::TAU);
        let shift = radius * (0.15 * random.normal()).abs().min(0.45);
        let scale = random.range(-0.35, 0.35).exp();
        candidate = (
            ball_centre.0 + shift * shift_angle.cos(),
            ball_centre.1 + shift * shift_angle.sin(),
            radius * scale,
        );
        target = [
            (ball_centre.0 - candidate.0) / candidate.2,
            (ball_centre.1 - candidate.1) / candidate.2,
            (radius / candidate.2).ln(),
        ];
    } else {
        let size = radius * random.range(0.6, 2.0);
        let at = (
            ball_centre.0 + radius * random.range(-0.5, 0.5),
            ball_centre.1 + radius * random.range(-0.5, 0.5),
        );
        match random.index(8) {
            // Lines only: a crossing or a line end under the candidate.
            0 => ground.extend(lines(&mut random, ball_centre, radius, 2)),
            1 | 2 => front = robot_part(&mut random, at, size),
            3 => front = shoe(&mut random, at, size),
            // An elongated white blob with dark spots, its shadow beside it.
            4 => {
                let axes = (size * random.range(1.0, 2.5), size * random.range(0.3, 0.7));
                let angle = random.range(0.0, 3.2);
                ground.push((
                    Shape::Blob {
                        centre: (at.0, at.1 + 0.4 * axes.1),
                        axes,
                        angle,
                        power: 2.0,
                    },
                    Paint::Darken(0.5),
                ));
                front.push((
                    Shape::Blob {
                        centre: at,
                        axes,
                        angle,
                        power: random.range(2.0, 4.0),
                    },
                    Paint::Colour(grey(random.range(190.0, 245.0))),
                ));
                for _ in 0..1 + random.index(3) {
                    front.push((
                        Shape::Blob {
                            centre: (
                                at.0 + axes.0 * random.range(-0.6, 0.6) * angle.cos(),
                                at.1 + axes.0 * random.range(-0.6, 0.6) * angle.sin(),
                            ),
                            axes: (size * random.range(0.1, 0.3), size * random.range(0.1, 0.3)),
                            angle: 0.0,
                            power: 2.0,
                        },
                        Paint::Colour(grey(random.range(20.0, 80.0))),
                    ));
                }
            }
            // A white disc without a pattern (a penalty mark, a cup, a light), with a shadow.
            5 => {
                let axes = (
                    radius * random.range(0.8, 1.3),
                    radius * random.range(0.5, 1.2),
                );
                ground.push((
                    Shape::Blob {
                        centre: (at.0, at.1 + 0.6 * axes.1),
                        axes: (axes.0, 0.5 * axes.1),
                        angle: 0.0,
                        power: 2.0,
                    },
                    Paint::Darken(random.range(0.3, 0.7)),
                ));
                front.push((
                    Shape::Blob {
                        centre: at,
                        axes,
                        angle: 0.0,
                        power: 2.0,
                    },
                    Paint::Colour(grey(random.range(190.0, 245.0))),
                ));
            }
            // Dark patches on the turf near a line.
            6 => {
                ground.extend(lines(&mut random, ball_centre, radius, 1));
                for _ in 0..2 + random.index(4) {
                    ground.push((
                        Shape::Blob {
                            centre: (
                                at.0 + radius * random.range(-1.2, 1.2),
                                at.1 + radius * random.range(-1.2, 1.2),
                            ),
                            axes: (
                                radius * random.range(0.2, 0.8),
                                radius * random.range(0.2, 0.6),
                            ),
                            angle: random.range(0.0, 3.2),
                            power: 2.0,
                        },
                        Paint::Darken(random.range(0.2, 0.6)),
                    ));
                }
            }
            // A ball beside the candidate: a circle off the ball is not a ball.
            _ => {
                ball = Some(Ball {
                    centre: ball_centre,
                    radius,
                    pattern: BallPattern::rolled_to(
                        random.range(-3.0, 3.0),
                        random.range(-3.0, 3.0),
                    ),
                    light: Vector3::new(0.0, -1.0, -0.7).normalize(),
                    ambient: random.range(0.3, 0.8),
                    white: random.range(190.0, 250.0),
                    black: random.range(10.0, 70.0),
                });
                let angle = random.range(0.0, std::f32::consts::TAU);
                let distance = radius * random.range(1.2, 2.2);
                candidate = (
                    ball_centre.0 + distance * angle.cos(),
                    ball_centre.1 + distance * angle.sin(),
                    radius * random.range(-0.4, 0.4).exp(),
                );
                return finish(
                    &mut random,
                    scene_seed,
                    SceneParts {
                        field,
                        field_texture,
                        background,
                        ground,
                        ball,
                        front,
                    },
                    candidate,
                    false,
                    target,
                );
            }
        }
        candidate = (
            at.0 + radius * random.range(-0.3, 0.3),
            at.1 + radius * random.range(-0.3, 0.3),
            radius * random.range(-0.4, 0.4).exp(),
        );
    }
    finish(
        &mut random,
        scene_seed,
        SceneParts {
            field,
            field_texture,
            background,
            ground,
            ball,
            front,
        },
        candidate,
        is_ball,
        target,
    )
}

struct SceneParts {
    field: [f32; 3],
    field_texture: (f32, f32),
    background: Option<[f32; 3]>,
    ground: Vec<(Shape, Paint)>,
    ball: Option<Ball>,
    front: Vec<(Shape, Paint)>,
}

/// Camera effects, the frame's `FieldColor`, and the patch.
fn finish(
    random: &mut Random,
    scene_seed: u64,
    parts: SceneParts,
    candidate: (f32, f32, f32),
    is_ball: bool,
    target: [f32; 3],
) -> Sample {
    let radius = candidate.2;
    let camera_blur = if random.chance(0.5) {
        let length = radius * random.range(0.0, 1.0);
        let angle = std::f32::consts::FRAC_PI_2 + 0.7 * random.normal();
        (length * angle.cos(), length * angle.sin())
    } else {
        (0.0, 0.0)
    };
    let ball_motion = if random.chance(0.3) {
        let length = radius * random.range(0.0, 0.7);
        let angle = random.range(0.0, std::f32::consts::TAU);
        (length * angle.cos(), length * angle.sin())
    } else {
        (0.0, 0.0)
    };
    let longest = (camera_blur.0.hypot(camera_blur.1)).max(ball_motion.0.hypot(ball_motion.1));
    let blur_samples = (1 + (longest / 2.0).ceil() as usize).min(8);
    // Exposure from 0.3 of a bright frame (the dark frames a real camera gives in a dim hall)
    // to 2 times it (an over-exposed frame): a quarter of the scenes are over-exposed, and the
    // sensor clips each channel at 255 before the colour conversion (`Scene::rgb`), so a bright
    // ball's white and its lit field side saturate as a real camera's do.
    let gain = if random.chance(0.25) {
        random.range(1.3, 2.0)
    } else {
        random.range(0.3, 1.3)
    };
    let cast = [
        random.range(0.8, 1.25),
        random.range(0.9, 1.12),
        random.range(0.78, 1.25),
    ];
    // The image border: sometimes the ball is cut by it.
    let far = 1e6;
    let mut bounds = (-far, far, -far, far);
    if random.chance(0.2) {
        let edge = radius * random.range(0.0, 1.3);
        match random.index(4) {
            0 => bounds.3 = candidate.1 + edge,
            1 => bounds.2 = candidate.1 - edge,
            2 => bounds.1 = candidate.0 + edge,
            _ => bounds.0 = candidate.0 - edge,
        }
    }
    let scene = Scene {
        seed: scene_seed,
        field: parts.field,
        field_texture: parts.field_texture,
        background: parts.background,
        ground: parts.ground,
        ball: parts.ball,
        front: parts.front,
        camera_blur,
        ball_motion,
        blur_samples,
        gain,
        cast,
        // The sensor's gain that lifts a dark exposure amplifies its noise too: up to 2.4 times
        // the bright frame's at the darkest exposures.
        noise: random.range(0.0, 12.0) * (0.9 / gain).clamp(1.0, 2.4),
        bounds,
    };
    // The frame's thresholds: its bright level is not the ball's white, and the white point and
    // field hue are estimates.
    let lit = |rgb: [f32; 3]| -> (u8, u8, u8) {
        let rgb: [u8; 3] = std::array::from_fn(|channel| {
            (rgb[channel] * gain * cast[channel])
                .round()
                .clamp(0.0, 255.0) as u8
        });
        rgb_to_ycbcr(rgb, ColorRange::Full)
    };
    let (white_luma, _, _) = lit(grey(220.0));
    let (_, white_cb, white_cr) = lit(grey(128.0));
    let white_point = (
        (f32::from(white_cb) + 2.0 * random.normal()).clamp(104.0, 152.0),
        (f32::from(white_cr) + 2.0 * random.normal()).clamp(104.0, 152.0),
    );
    let (_, field_cb, field_cr) = lit(parts.field);
    let field_hue = (f32::from(field_cr) - white_point.1)
        .atan2(f32::from(field_cb) - white_point.0)
        + 0.08 * random.normal();
    let field_color = FieldColor {
        bright_luma: (f32::from(white_luma) * random.range(0.7, 1.4)).clamp(40.0, 255.0),
        white_point,
        field_hue_rad: (parts.background.is_none() || random.chance(0.8)).then_some(field_hue),
    };
    let mut cache = ChromaCache::default();
    let patch = BallPatch::extract(
        |x, y| scene.pixel(x, y),
        &field_color,
        &mut cache,
        candidate,
    );
    Sample {
        values: patch.values,
        ball: is_ball,
        target,
    }
}

/// A checksum of samples (seed, first..first + count): FNV-1a over the values' bits, the label
/// and the targets.
pub fn checksum(seed: u64, first: u64, count: u64) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut add = |bits: u32| {
        for byte in bits.to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for index in first..first + count {
        let sample = sample(seed, index);
        for value in sample.values.iter().chain(&sample.target) {
            add(value.to_bits());
        }
        add(u32::from(sample.ball));
    }
    hash
}
