//! The ray caster behind the simulated cameras: every pixel's viewing ray, from the camera's
//! pose on the field, meets the nearest of the ball, the goals, the other robots, the robot's
//! own legs and arms (one oriented box per link, painted white with dark grey joint covers) and
//! the ground (green carpet with white lines, grey floor beyond it), or the grey walls above the
//! horizon. The result is written straight into YUYV bytes.
//!
//! Cost: the ray of a pixel is `origin + t·(c0 + a·c1 + b·c2)`, linear in the pixel's
//! normalised coordinates (a, b), so a row costs one add per pixel; the ground is one division
//! and a handful of comparisons (`field::is_on_line`); the ball, posts, robots and own links are
//! tested only inside their bounding rectangles on the image (a few hundred pixels each; the
//! own legs cover none unless the camera looks down at the feet, the hands only the lower
//! image's corners then, the arms nothing else unless swung in front of the lower camera). A
//! box is tested in its own coordinates, where the camera is placed once per frame and the
//! ray, linear along a row too, costs three multiply-adds per pixel; a link's paint is looked up
//! once per pixel it is seen in, not per box tested.

use nalgebra::{Isometry3, IsometryMatrix3, Point3, Vector3};

use crate::ball_pattern::BallPattern;
use crate::body_paint::ShellPaint;
use crate::field::{
    is_near_line, is_on_carpet, BALL_RADIUS_M, GOAL_HEIGHT_M, GOAL_POST_CENTER_M,
    GOAL_POST_DIAMETER_M, LINE_WIDTH_M,
};
use types::{GroundTruth, RobotPose};

/// A colour in BT.601 full-range YCbCr, as floats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ycbcr {
    pub y: f32,
    pub cb: f32,
    pub cr: f32,
}

impl Ycbcr {
    /// The YCbCr of an RGB colour (BT.601 full range).
    pub const fn from_rgb(red: f32, green: f32, blue: f32) -> Self {
        Self {
            y: 0.299 * red + 0.587 * green + 0.114 * blue,
            cb: 128.0 - 0.168_736 * red - 0.331_264 * green + 0.5 * blue,
            cr: 128.0 + 0.5 * red - 0.418_688 * green - 0.081_312 * blue,
        }
    }

    /// `share` of this colour and the rest of `other`.
    fn mixed(self, other: Ycbcr, share: f32) -> Self {
        let rest = 1.0 - share;
        Self {
            y: self.y * share + other.y * rest,
            cb: self.cb * share + other.cb * rest,
            cr: self.cr * share + other.cr * rest,
        }
    }

    /// Lit with `light` (1: as is): luma and saturation scale together, as RGB would.
    fn shaded(self, light: f32) -> Self {
        Self {
            y: self.y * light,
            cb: 128.0 + (self.cb - 128.0) * light,
            cr: 128.0 + (self.cr - 128.0) * light,
        }
    }
}

/// The colours of the world under neutral light.
pub mod palette {
    use super::Ycbcr;
    pub const CARPET: Ycbcr = Ycbcr::from_rgb(52.0, 132.0, 60.0);
    pub const LINE: Ycbcr = Ycbcr::from_rgb(228.0, 232.0, 228.0);
    pub const FLOOR: Ycbcr = Ycbcr::from_rgb(108.0, 104.0, 100.0);
    pub const WALL: Ycbcr = Ycbcr::from_rgb(168.0, 168.0, 172.0);
    pub const BALL_WHITE: Ycbcr = Ycbcr::from_rgb(240.0, 240.0, 240.0);
    pub const BALL_BLACK: Ycbcr = Ycbcr::from_rgb(22.0, 22.0, 24.0);
    pub const GOAL: Ycbcr = Ycbcr::from_rgb(236.0, 236.0, 236.0);
    pub const ROBOT_BODY: Ycbcr = Ycbcr::from_rgb(222.0, 222.0, 226.0);
    pub const ROBOT_HEAD: Ycbcr = Ycbcr::from_rgb(120.0, 120.0, 126.0);
    /// The robot's own shells: the NAO v6's white plastic, a little warm (Cb a few steps below
    /// neutral, Cr a step above).
    pub const BODY_SHELL: Ycbcr = Ycbcr::from_rgb(234.0, 232.0, 226.0);
    /// The robot's own dark grey parts: the joint covers at the hips, knees, ankles, shoulders
    /// and elbows, the sole's rim, the fingers.
    pub const BODY_TRIM: Ycbcr = Ycbcr::from_rgb(72.0, 73.0, 78.0);
}

/// Size of the other robots (a NAO is about 0.57 m tall and 0.27 m wide).
const ROBOT_BODY_RADIUS_M: f32 = 0.13;
const ROBOT_BODY_HEIGHT_M: f32 = 0.46;
const ROBOT_HEAD_RADIUS_M: f32 = 0.07;
const ROBOT_HEAD_CENTER_Z_M: f32 = 0.5;
/// How far the ground is rendered; beyond it, the wall colour.
const MAX_GROUND_DISTANCE_M: f32 = 40.0;
/// A hall's light: from the whole ceiling (a hemisphere light), so that a surface facing up is
/// lit fully, a vertical one (posts, robots) at 0.8 and one facing down at 0.6.
const AMBIENT: f32 = 0.6;
const SKY: f32 = 0.4;

/// How much brighter (luma steps, at full sheen) the glossy white shells get where the view ray
/// reflects straight up into the hall's light.
const SHEEN_LUMA: f32 = 30.0;

/// A box in the field: axis-aligned in its own coordinates from `min` to `max`, placed on the
/// field by `box_to_field` and painted by `paint` (how the robot's own links are given to the
/// renderer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrientedBox {
    /// Box coordinates → field coordinates.
    pub box_to_field: Isometry3<f32>,
    /// The corner with the smallest coordinates, in box coordinates, m.
    pub min: Vector3<f32>,
    /// The corner with the largest coordinates, in box coordinates, m.
    pub max: Vector3<f32>,
    pub paint: ShellPaint,
}

/// The shapes the renderer knows.
#[derive(Debug, Clone, Copy)]
enum Shape {
    Sphere {
        center: Vector3<f32>,
        radius: f32,
    },
    /// Upright, from `bottom` to `top` above the ground, with a flat top.
    UprightCylinder {
        center_x: f32,
        center_y: f32,
        radius: f32,
        bottom: f32,
        top: f32,
    },
    /// Along y, at height `z` and distance `x`, from `y0` to `y1` (the crossbar).
    CylinderAlongY {
        x: f32,
        z: f32,
        radius: f32,
        y0: f32,
        y1: f32,
    },
    /// An oriented box: from `min` to `max` in its own coordinates, which `field_to_box` gives
    /// (kept this way round, with a rotation matrix, because every ray is turned into the box's
    /// coordinates: nine multiplications instead of a quaternion's two dozen).
    Box {
        field_to_box: IsometryMatrix3<f32>,
        min: Vector3<f32>,
        max: Vector3<f32>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Material {
    Ball,
    /// The ball moving during the exposure: averaged over [`BLUR_SAMPLES`] positions.
    BlurredBall,
    Plain(Ycbcr),
    /// The robot's own body (only on [`Shape::Box`]).
    Shell(ShellPaint),
}

/// Positions of a moving ball averaged into one frame: one per pixel of its path in the image,
/// within these bounds.
const BLUR_SAMPLES: (usize, usize) = (4, 48);

/// A shape with its material and the rectangle of pixels it may cover.
#[derive(Debug, Clone, Copy)]
struct Object {
    shape: Shape,
    material: Material,
    /// Pixel columns `u0..u1` and rows `v0..v1`.
    rect: [usize; 4],
    /// For a box: the camera in the box's coordinates, where every ray of the frame starts
    /// (turned into them once per frame instead of once per ray and box). The origin otherwise.
    camera_in_box: Point3<f32>,
}

/// An object on the row being rendered, with what stays fixed along the row.
#[derive(Debug, Clone, Copy)]
struct RowObject<'a> {
    object: &'a Object,
    /// For a box: the viewing ray of the row's column 0 and its change from one column to the
    /// next, in the box's coordinates (the ray is linear in the column, so a pixel's ray in the
    /// box costs three multiply-adds instead of a rotation). Zero otherwise.
    direction_in_box: Vector3<f32>,
    step_in_box: Vector3<f32>,
}

/// How the camera looks: its image size and intrinsics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intrinsics {
    pub width: usize,
    pub height: usize,
    pub focal_length_px: [f32; 2],
    pub optical_center_px: [f32; 2],
}

impl Intrinsics {
    /// The NAO v6 defaults for a `width`×`height` image (the numbers perception's camera
    /// matrix uses): focal lengths 0.96666·width and 1.28574·height, centre in the middle.
    pub fn nao_v6(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            focal_length_px: [0.96666 * width as f32, 1.28574 * height as f32],
            optical_center_px: [0.5 * width as f32, 0.5 * height as f32],
        }
    }
}

/// Per-frame light: overall brightness and a colour cast (white balance off by some amount).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lighting {
    pub brightness: f32,
    pub cast_cb: f32,
    pub cast_cr: f32,
}

impl Lighting {
    pub const NEUTRAL: Lighting = Lighting {
        brightness: 1.0,
        cast_cb: 0.0,
        cast_cr: 0.0,
    };
}

/// What varies per pixel on top of the scene: sensor noise.
pub trait PixelNoise {
    /// Noise to add to a luma value.
    fn luma(&mut self) -> f32;
    /// Noise to add to a chroma value.
    fn chroma(&mut self) -> f32;
}

/// No noise.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNoise;

impl PixelNoise for NoNoise {
    fn luma(&mut self) -> f32 {
        0.0
    }
    fn chroma(&mut self) -> f32 {
        0.0
    }
}

/// How chroma is sampled: YUYV stores one (Cb, Cr) per pair of pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChromaSampling {
    /// The mean of both pixels' chroma (what a camera's 4:4:4 → 4:2:2 does).
    PairMean,
    /// The chroma of the pair's first pixel only.
    FirstOfPair,
}

/// Everything fixed for one frame: the camera's pose, the objects in view, the light.
#[derive(Debug)]
pub struct FrameGeometry {
    origin: Vector3<f32>,
    /// The camera-to-field rotation's columns: optical axis, left, up.
    axes: [Vector3<f32>; 3],
    objects: Vec<Object>,
    pattern: BallPattern,
    ball_center: Vector3<f32>,
    /// How far the ball moves while the frame is exposed (zero: it is sharp).
    ball_sweep: Vector3<f32>,
    /// How many of its positions a moving ball's pixels average.
    blur_samples: usize,
    lighting: Lighting,
    intrinsics: Intrinsics,
    /// The angle one pixel spans (vertically, at the image's centre).
    pixel_angle_rad: f32,
}

impl FrameGeometry {
    /// Prepares a frame: the camera at `camera_to_field`, the world of `truth` and the robot's
    /// own body as `own_body` (its links, each with its paint), exposed for
    /// `exposure_s` (a rolling ball is smeared along its path; the ground truth is its position
    /// in the middle of the exposure).
    pub fn new(
        camera_to_field: &Isometry3<f32>,
        truth: &GroundTruth,
        own_body: &[OrientedBox],
        intrinsics: Intrinsics,
        lighting: Lighting,
        exposure_s: f32,
    ) -> Self {
        let rotation = camera_to_field.rotation.to_rotation_matrix();
        let matrix = rotation.matrix();
        let ball = truth.ball.position;
        let ball_center = Vector3::new(ball.x, ball.y, BALL_RADIUS_M);
        let velocity = truth.ball.velocity;
        let mut ball_sweep = Vector3::new(velocity.x, velocity.y, 0.0) * exposure_s.max(0.0);
        let sweep_length = ball_sweep.norm();
        if sweep_length.is_nan() || sweep_length < 0.05 * BALL_RADIUS_M {
            // Sharp (also for a velocity that is not finite).
            ball_sweep = Vector3::zeros();
        }
        let mut geometry = Self {
            origin: camera_to_field.translation.vector,
            axes: [
                matrix.column(0).into_owned(),
                matrix.column(1).into_owned(),
                matrix.column(2).into_owned(),
            ],
            objects: Vec::new(),
            pattern: BallPattern::rolled_to(ball.x, ball.y),
            ball_center,
            ball_sweep,
            blur_samples: BLUR_SAMPLES.0,
            lighting,
            intrinsics,
            pixel_angle_rad: 1.0 / intrinsics.focal_length_px[1],
        };
        // A moving ball's rectangle is that of a sphere holding its whole path.
        let mut shapes = vec![if ball_sweep == Vector3::zeros() {
            (
                Shape::Sphere {
                    center: ball_center,
                    radius: BALL_RADIUS_M,
                },
                Material::Ball,
            )
        } else {
            (
                Shape::Sphere {
                    center: ball_center,
                    radius: BALL_RADIUS_M + 0.5 * ball_sweep.norm(),
                },
                Material::BlurredBall,
            )
        }];
        let post_radius = GOAL_POST_DIAMETER_M / 2.0;
        for side in [-1.0_f32, 1.0] {
            let x = side * GOAL_POST_CENTER_M[0];
            for post in [-1.0_f32, 1.0] {
                shapes.push((
                    Shape::UprightCylinder {
                        center_x: x,
                        center_y: post * GOAL_POST_CENTER_M[1],
                        radius: post_radius,
                        bottom: 0.0,
                        top: GOAL_HEIGHT_M,
                    },
                    Material::Plain(palette::GOAL),
                ));
            }
            shapes.push((
                Shape::CylinderAlongY {
                    x,
                    z: GOAL_HEIGHT_M - post_radius,
                    radius: post_radius,
                    y0: -GOAL_POST_CENTER_M[1],
                    y1: GOAL_POST_CENTER_M[1],
                },
                Material::Plain(palette::GOAL),
            ));
        }
        for robot in &truth.other_robots {
            shapes.extend(robot_shapes(robot));
        }
        shapes.extend(
            own_body
                .iter()
                .map(|link| (box_shape(link), Material::Shell(link.paint))),
        );
        let inverse = camera_to_field.inverse();
        if ball_sweep != Vector3::zeros() {
            let ends = [
                ball_center - ball_sweep * 0.5,
                ball_center + ball_sweep * 0.5,
            ]
            .map(|end| geometry.pixel_of(&inverse, &end));
            if let [Some(first), Some(last)] = ends {
                let pixels = (first - last).norm().ceil() as usize;
                geometry.blur_samples = pixels.clamp(BLUR_SAMPLES.0, BLUR_SAMPLES.1);
            }
        }
        for (shape, material) in shapes {
            if let Some(rect) = geometry.image_rect(&inverse, &shape) {
                let camera_in_box = match shape {
                    Shape::Box { field_to_box, .. } => field_to_box * Point3::from(geometry.origin),
                    _ => Point3::origin(),
                };
                geometry.objects.push(Object {
                    shape,
                    material,
                    rect,
                    camera_in_box,
                });
            }
        }
        geometry
    }

    /// The pixel a point (field frame) lands on, if it is in front of the camera.
    fn pixel_of(
        &self,
        field_to_camera: &Isometry3<f32>,
        point: &Vector3<f32>,
    ) -> Option<nalgebra::Vector2<f32>> {
        let in_camera = field_to_camera * Point3::from(*point);
        if in_camera.x <= 0.01 {
            return None;
        }
        let intrinsics = &self.intrinsics;
        Some(nalgebra::Vector2::new(
            intrinsics.optical_center_px[0]
                - intrinsics.focal_length_px[0] * in_camera.y / in_camera.x,
            intrinsics.optical_center_px[1]
                - intrinsics.focal_length_px[1] * in_camera.z / in_camera.x,
        ))
    }

    /// The pixels a shape may cover: the corners of its bounding box projected, widened by a
    /// pixel; None when none of them are in view. A box that reaches behind the camera is cut
    /// at the near plane (1 cm in front of it): its corners in front and the points where its
    /// edges cross that plane bound what of it can be seen.
    fn image_rect(&self, field_to_camera: &Isometry3<f32>, shape: &Shape) -> Option<[usize; 4]> {
        let corners = bounding_box_corners(shape).map(|corner| field_to_camera * corner);
        let intrinsics = &self.intrinsics;
        let (width, height) = (intrinsics.width as f32, intrinsics.height as f32);
        let (mut u0, mut u1, mut v0, mut v1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        let mut include = |in_camera: &Point3<f32>| {
            let u = intrinsics.optical_center_px[0]
                - intrinsics.focal_length_px[0] * in_camera.y / in_camera.x;
            let v = intrinsics.optical_center_px[1]
                - intrinsics.focal_length_px[1] * in_camera.z / in_camera.x;
            u0 = u0.min(u);
            u1 = u1.max(u);
            v0 = v0.min(v);
            v1 = v1.max(v);
        };
        let mut in_front = 0;
        for (index, corner) in corners.iter().enumerate() {
            if corner.x > NEAR_PLANE_M {
                include(corner);
                in_front += 1;
            }
            // The three edges from this corner to a corner with one coordinate larger.
            for bit in [1, 2, 4] {
                if index & bit != 0 {
                    continue;
                }
                let other = &corners[index | bit];
                if (corner.x > NEAR_PLANE_M) != (other.x > NEAR_PLANE_M) {
                    let share = (NEAR_PLANE_M - corner.x) / (other.x - corner.x);
                    include(&(corner + (other - corner) * share));
                }
            }
        }
        if in_front == 0 {
            return None;
        }
        let clamp = |value: f32, limit: f32| value.clamp(0.0, limit) as usize;
        let rect = [
            clamp(u0.floor() - 1.0, width),
            clamp(u1.ceil() + 2.0, width),
            clamp(v0.floor() - 1.0, height),
            clamp(v1.ceil() + 2.0, height),
        ];
        (rect[0] < rect[1] && rect[2] < rect[3]).then_some(rect)
    }

    /// Renders the frame into `out` (YUYV, `2·width·height` bytes).
    pub fn render(&self, noise: &mut impl PixelNoise, chroma: ChromaSampling, out: &mut [u8]) {
        let Intrinsics {
            width,
            height,
            focal_length_px: [fx, fy],
            optical_center_px: [cx, cy],
        } = self.intrinsics;
        assert_eq!(out.len(), 2 * width * height, "the YUYV buffer's size");
        let [axis, left, up] = self.axes;
        let step = -left / fx;
        let mut active: Vec<RowObject> = Vec::with_capacity(self.objects.len());
        for (v, row) in out.chunks_exact_mut(2 * width).enumerate() {
            let b = (cy - (v as f32 + 0.5)) / fy;
            let a0 = (cx - 0.5) / fx;
            let row_start = axis + up * b + left * a0;
            active.clear();
            active.extend(
                self.objects
                    .iter()
                    .filter(|object| (object.rect[2]..object.rect[3]).contains(&v))
                    .map(|object| match &object.shape {
                        Shape::Box { field_to_box, .. } => RowObject {
                            object,
                            direction_in_box: field_to_box.rotation * row_start,
                            step_in_box: field_to_box.rotation * step,
                        },
                        _ => RowObject {
                            object,
                            direction_in_box: Vector3::zeros(),
                            step_in_box: Vector3::zeros(),
                        },
                    }),
            );
            for (pair, bytes) in row.chunks_exact_mut(4).enumerate() {
                let u = 2 * pair;
                let first = self.shade(&(row_start + step * u as f32), u, &active);
                let second = self.shade(&(row_start + step * (u + 1) as f32), u + 1, &active);
                let (cb, cr) = match chroma {
                    ChromaSampling::PairMean => {
                        (0.5 * (first.cb + second.cb), 0.5 * (first.cr + second.cr))
                    }
                    ChromaSampling::FirstOfPair => (first.cb, first.cr),
                };
                bytes[0] = to_byte(first.y + noise.luma());
                bytes[1] = to_byte(cb + self.lighting.cast_cb + noise.chroma());
                bytes[2] = to_byte(second.y + noise.luma());
                bytes[3] = to_byte(cr + self.lighting.cast_cr + noise.chroma());
            }
        }
    }

    /// The colour seen along `direction` from the camera, at pixel column `u`: a moving ball
    /// is the mean over its positions during the exposure of what the pixel sees.
    fn shade(&self, direction: &Vector3<f32>, u: usize, active: &[RowObject]) -> Ycbcr {
        let (behind, distance) = self.shade_sharp(direction, u, active);
        let blurred = active.iter().any(|RowObject { object, .. }| {
            object.material == Material::BlurredBall
                && (object.rect[0]..object.rect[1]).contains(&u)
        });
        if !blurred {
            return behind;
        }
        let mut sum = Ycbcr {
            y: 0.0,
            cb: 0.0,
            cr: 0.0,
        };
        for sample in 0..self.blur_samples {
            let along = (sample as f32 + 0.5) / self.blur_samples as f32 - 0.5;
            let ball = Shape::Sphere {
                center: self.ball_center + self.ball_sweep * along,
                radius: BALL_RADIUS_M,
            };
            let colour = match intersect(&ball, &self.origin, direction) {
                Some((hit, normal)) if hit < distance => self.ball_colour(&normal),
                _ => behind,
            };
            sum.y += colour.y;
            sum.cb += colour.cb;
            sum.cr += colour.cr;
        }
        let share = 1.0 / self.blur_samples as f32;
        Ycbcr {
            y: sum.y * share,
            cb: sum.cb * share,
            cr: sum.cr * share,
        }
    }

    /// The ball's colour where its outward normal is `normal`, lit.
    fn ball_colour(&self, normal: &Vector3<f32>) -> Ycbcr {
        let light = AMBIENT + SKY * (0.5 + 0.5 * normal.z);
        let colour = if self.pattern.is_black(normal) {
            palette::BALL_BLACK
        } else {
            palette::BALL_WHITE
        };
        colour.shaded(light * self.lighting.brightness)
    }

    /// The own body's colour where the ray along `direction` meets its box at `in_box` (box
    /// coordinates), on the face with outward `normal`, under `light`: the paint's dark grey or
    /// white there, lit like every shape. The white plastic is glossy: where the view ray, mirrored
    /// at the face, points up into the hall's light, the shell gets a sheen (white, so luma
    /// only), strongest on faces seen from above (the tops of the feet and hands).
    fn shell_colour(
        &self,
        paint: &ShellPaint,
        in_box: &Point3<f32>,
        direction: &Vector3<f32>,
        normal: &Vector3<f32>,
        light: f32,
    ) -> Ycbcr {
        if paint.is_dark(in_box) {
            return palette::BODY_TRIM.shaded(light);
        }
        let mut colour = palette::BODY_SHELL.shaded(light);
        let mirrored_up = (direction.z - 2.0 * direction.dot(normal) * normal.z) / direction.norm();
        if mirrored_up > 0.0 {
            let squared = mirrored_up * mirrored_up;
            colour.y += SHEEN_LUMA * self.lighting.brightness * squared * squared;
        }
        colour
    }

    /// The colour seen along `direction` without a moving ball, and how far away that is
    /// (in units of `direction`; infinite for the walls).
    fn shade_sharp(
        &self,
        direction: &Vector3<f32>,
        u: usize,
        active: &[RowObject],
    ) -> (Ycbcr, f32) {
        let origin = &self.origin;
        let mut nearest = f32::INFINITY;
        // The object hit, the normal there and, for a box, the ray in its coordinates.
        let mut hit: Option<(&Object, Vector3<f32>, Vector3<f32>)> = None;
        for row_object in active {
            let object = row_object.object;
            if u < object.rect[0] || u >= object.rect[1] || object.material == Material::BlurredBall
            {
                continue;
            }
            let (found, direction_in_box) = match &object.shape {
                Shape::Box {
                    field_to_box,
                    min,
                    max,
                } => {
                    let in_box = row_object.direction_in_box + row_object.step_in_box * u as f32;
                    let found = intersect_box(
                        &field_to_box.rotation,
                        min,
                        max,
                        &object.camera_in_box,
                        &in_box,
                    );
                    (found, in_box)
                }
                shape => (intersect(shape, origin, direction), Vector3::zeros()),
            };
            if let Some((distance, normal)) = found {
                if distance < nearest {
                    nearest = distance;
                    hit = Some((object, normal, direction_in_box));
                }
            }
        }
        let brightness = self.lighting.brightness;
        if let Some((object, normal, direction_in_box)) = hit {
            let light = (AMBIENT + SKY * (0.5 + 0.5 * normal.z)) * brightness;
            let colour = match object.material {
                Material::Plain(colour) => colour.shaded(light),
                Material::Shell(paint) => {
                    let in_box = object.camera_in_box + direction_in_box * nearest;
                    self.shell_colour(&paint, &in_box, direction, &normal, light)
                }
                Material::Ball | Material::BlurredBall => self.ball_colour(&normal),
            };
            return (colour, nearest);
        }
        if direction.z < 0.0 {
            let distance = -origin.z / direction.z;
            if distance < MAX_GROUND_DISTANCE_M {
                let point = origin + direction * distance;
                let (x, y) = (point.x, point.y);
                // How far one pixel reaches along the ground in the viewing direction: where it
                // is wider than a line, the line is widened to it and blended into the carpet
                // by the share it covers, so that far lines stay whole instead of breaking up
                // into dashes.
                let metres = distance * direction.norm();
                let footprint = metres * metres * self.pixel_angle_rad / origin.z;
                let half_width = (0.5 * footprint).max(0.5 * LINE_WIDTH_M);
                let ground = if !is_on_carpet(x, y) {
                    palette::FLOOR
                } else if is_near_line(x, y, half_width) {
                    palette::LINE.mixed(palette::CARPET, LINE_WIDTH_M / (2.0 * half_width))
                } else {
                    palette::CARPET
                };
                // Ground lit from above, and a soft contact shadow under the ball.
                let light = AMBIENT + SKY;
                let to_ball = (x - self.ball_center.x).powi(2) + (y - self.ball_center.y).powi(2);
                let shadow = (to_ball / (BALL_RADIUS_M * BALL_RADIUS_M)).min(1.0);
                return (
                    ground.shaded(light * brightness * (0.55 + 0.45 * shadow)),
                    distance,
                );
            }
        }
        // The walls: a little darker towards the top.
        let elevation = direction.z / direction.norm();
        (
            palette::WALL.shaded(brightness * (1.0 - 0.3 * elevation.max(0.0))),
            f32::INFINITY,
        )
    }
}

fn to_byte(value: f32) -> u8 {
    value.clamp(0.0, 255.0) as u8
}

/// How close to the camera a point may be and still be projected onto the image (in front of
/// the lens, m): nearer, its pixel runs off to infinity; nothing in the scene comes this close.
const NEAR_PLANE_M: f32 = 0.01;

/// The eight corners of a box holding the shape, in field coordinates, in the order of
/// `kinematics::body_shape::LinkBox::corners` (bit 0: x, bit 1: y, bit 2: z at the high end).
fn bounding_box_corners(shape: &Shape) -> [Point3<f32>; 8] {
    let (low, high, box_to_field) = match *shape {
        Shape::Sphere { center, radius } => (
            center - Vector3::repeat(radius),
            center + Vector3::repeat(radius),
            IsometryMatrix3::identity(),
        ),
        Shape::UprightCylinder {
            center_x,
            center_y,
            radius,
            bottom,
            top,
        } => (
            Vector3::new(center_x - radius, center_y - radius, bottom),
            Vector3::new(center_x + radius, center_y + radius, top),
            IsometryMatrix3::identity(),
        ),
        Shape::CylinderAlongY {
            x,
            z,
            radius,
            y0,
            y1,
        } => (
            Vector3::new(x - radius, y0, z - radius),
            Vector3::new(x + radius, y1, z + radius),
            IsometryMatrix3::identity(),
        ),
        Shape::Box {
            field_to_box,
            min,
            max,
        } => (min, max, field_to_box.inverse()),
    };
    std::array::from_fn(|corner| {
        box_to_field
            * Point3::new(
                if corner & 1 == 0 { low.x } else { high.x },
                if corner & 2 == 0 { low.y } else { high.y },
                if corner & 4 == 0 { low.z } else { high.z },
            )
    })
}

/// The renderer's shape of an oriented box.
fn box_shape(oriented: &OrientedBox) -> Shape {
    let field_to_box = oriented.box_to_field.inverse();
    Shape::Box {
        field_to_box: IsometryMatrix3::from_parts(
            field_to_box.translation,
            field_to_box.rotation.to_rotation_matrix(),
        ),
        min: oriented.min,
        max: oriented.max,
    }
}

/// A NAO standing at `pose`: a body (cylinder) and a head (sphere).
fn robot_shapes(pose: &RobotPose) -> [(Shape, Material); 2] {
    [
        (
            Shape::UprightCylinder {
                center_x: pose.x,
                center_y: pose.y,
                radius: ROBOT_BODY_RADIUS_M,
                bottom: 0.0,
                top: ROBOT_BODY_HEIGHT_M,
            },
            Material::Plain(palette::ROBOT_BODY),
        ),
        (
            Shape::Sphere {
                center: Vector3::new(pose.x, pose.y, ROBOT_HEAD_CENTER_Z_M),
                radius: ROBOT_HEAD_RADIUS_M,
            },
            Material::Plain(palette::ROBOT_HEAD),
        ),
    ]
}

/// The nearest intersection of the ray `origin + t·direction` (t > 0) with a shape: t and the
/// outward unit normal there.
fn intersect(
    shape: &Shape,
    origin: &Vector3<f32>,
    direction: &Vector3<f32>,
) -> Option<(f32, Vector3<f32>)> {
    match *shape {
        Shape::Sphere { center, radius } => {
            let offset = origin - center;
            let a = direction.norm_squared();
            let half_b = offset.dot(direction);
            let c = offset.norm_squared() - radius * radius;
            let discriminant = half_b * half_b - a * c;
            if discriminant < 0.0 {
                return None;
            }
            let t = (-half_b - discriminant.sqrt()) / a;
            (t > 0.0).then(|| (t, (origin + direction * t - center) / radius))
        }
        Shape::UprightCylinder {
            center_x,
            center_y,
            radius,
            bottom,
            top,
        } => {
            let (ox, oy) = (origin.x - center_x, origin.y - center_y);
            let a = direction.x * direction.x + direction.y * direction.y;
            let mut best: Option<(f32, Vector3<f32>)> = None;
            if a > 1e-12 {
                let half_b = ox * direction.x + oy * direction.y;
                let c = ox * ox + oy * oy - radius * radius;
                let discriminant = half_b * half_b - a * c;
                if discriminant >= 0.0 {
                    let t = (-half_b - discriminant.sqrt()) / a;
                    let z = origin.z + direction.z * t;
                    if t > 0.0 && (bottom..=top).contains(&z) {
                        let normal = Vector3::new(
                            (ox + direction.x * t) / radius,
                            (oy + direction.y * t) / radius,
                            0.0,
                        );
                        best = Some((t, normal));
                    }
                }
            }
            // The flat top, seen from above.
            if direction.z < 0.0 && origin.z > top {
                let t = (top - origin.z) / direction.z;
                let (x, y) = (ox + direction.x * t, oy + direction.y * t);
                if x * x + y * y <= radius * radius && best.is_none_or(|(other, _)| t < other) {
                    best = Some((t, Vector3::z()));
                }
            }
            best
        }
        Shape::CylinderAlongY {
            x,
            z,
            radius,
            y0,
            y1,
        } => {
            let (ox, oz) = (origin.x - x, origin.z - z);
            let a = direction.x * direction.x + direction.z * direction.z;
            if a <= 1e-12 {
                return None;
            }
            let half_b = ox * direction.x + oz * direction.z;
            let c = ox * ox + oz * oz - radius * radius;
            let discriminant = half_b * half_b - a * c;
            if discriminant < 0.0 {
                return None;
            }
            let t = (-half_b - discriminant.sqrt()) / a;
            let y = origin.y + direction.y * t;
            (t > 0.0 && (y0..=y1).contains(&y)).then(|| {
                (
                    t,
                    Vector3::new(
                        (ox + direction.x * t) / radius,
                        0.0,
                        (oz + direction.z * t) / radius,
                    ),
                )
            })
        }
        Shape::Box {
            field_to_box,
            min,
            max,
        } => intersect_box(
            &field_to_box.rotation,
            &min,
            &max,
            &(field_to_box * Point3::from(*origin)),
            &(field_to_box.rotation * direction),
        ),
    }
}

/// The slab method in the box's own coordinates: the ray is inside the box between where it
/// has entered all three pairs of parallel faces and where it leaves the first of them. Hit
/// from outside, it enters through the face of the slab it enters last; that face's outward
/// normal is turned back into field coordinates. A ray from inside sees nothing of the box (as
/// with the sphere). The ray is given in box coordinates, from `origin` along `direction`;
/// `into_box` turns field directions into them (and the normal back).
fn intersect_box(
    into_box: &nalgebra::Rotation3<f32>,
    min: &Vector3<f32>,
    max: &Vector3<f32>,
    origin: &Point3<f32>,
    direction: &Vector3<f32>,
) -> Option<(f32, Vector3<f32>)> {
    let (mut enter, mut leave) = (f32::NEG_INFINITY, f32::INFINITY);
    let mut entry_face = (0, 0.0);
    for axis in 0..3 {
        let (start, step) = (origin[axis], direction[axis]);
        if step == 0.0 {
            // Parallel to this slab: inside it all along or never.
            if start < min[axis] || start > max[axis] {
                return None;
            }
            continue;
        }
        let inverse_step = 1.0 / step;
        let (to_min, to_max) = (
            (min[axis] - start) * inverse_step,
            (max[axis] - start) * inverse_step,
        );
        // Moving up this axis, the ray enters through the min face (outward normal −axis).
        let (near, far, outward) = if step > 0.0 {
            (to_min, to_max, -1.0)
        } else {
            (to_max, to_min, 1.0)
        };
        if near > enter {
            enter = near;
            entry_face = (axis, outward);
        }
        leave = leave.min(far);
        if enter > leave {
            return None;
        }
    }
    if enter <= 0.0 {
        return None;
    }
    let mut normal = Vector3::zeros();
    normal[entry_face.0] = entry_face.1;
    Some((enter, into_box.inverse_transform_vector(&normal)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body_paint::{Band, BoxAxis};

    #[test]
    fn a_ray_meets_the_near_side_of_a_sphere() {
        let shape = Shape::Sphere {
            center: Vector3::new(2.0, 0.0, 0.0),
            radius: 0.5,
        };
        let (t, normal) =
            intersect(&shape, &Vector3::zeros(), &Vector3::new(2.0, 0.0, 0.0)).expect("a hit");
        assert!((t - 0.75).abs() < 1e-6);
        assert!((normal - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-6);
        let behind = intersect(&shape, &Vector3::zeros(), &Vector3::new(-1.0, 0.0, 0.0));
        assert!(behind.is_none());
    }

    #[test]
    fn posts_have_a_height_and_crossbars_a_length() {
        let post = Shape::UprightCylinder {
            center_x: 3.0,
            center_y: 0.0,
            radius: 0.05,
            bottom: 0.0,
            top: 0.8,
        };
        let origin = Vector3::new(0.0, 0.0, 0.5);
        assert!(intersect(&post, &origin, &Vector3::new(1.0, 0.0, 0.0)).is_some());
        // Aimed above the top.
        assert!(intersect(&post, &origin, &Vector3::new(1.0, 0.0, 0.2)).is_none());
        let bar = Shape::CylinderAlongY {
            x: 3.0,
            z: 0.75,
            radius: 0.05,
            y0: -0.8,
            y1: 0.8,
        };
        assert!(intersect(&bar, &origin, &Vector3::new(3.0, 0.5, 0.25)).is_some());
        assert!(intersect(&bar, &origin, &Vector3::new(3.0, 1.5, 0.25)).is_none());
    }

    /// A box 0.2 × 0.4 × 0.3 m turned by `yaw_rad` about z, its centre at `center`.
    fn turned_box(center: Vector3<f32>, yaw_rad: f32) -> OrientedBox {
        OrientedBox {
            box_to_field: Isometry3::new(center, Vector3::z() * yaw_rad),
            min: Vector3::new(-0.1, -0.2, -0.15),
            max: Vector3::new(0.1, 0.2, 0.15),
            paint: ShellPaint::WHITE,
        }
    }

    #[test]
    fn a_ray_meets_the_face_of_a_box_it_enters_first() {
        let shape = box_shape(&turned_box(Vector3::new(2.0, 0.0, 0.0), 0.0));
        let origin = Vector3::zeros();
        // Straight at the near face (x = 1.9), with a direction of length 2: t = 0.95.
        let (t, normal) = intersect(&shape, &origin, &Vector3::new(2.0, 0.0, 0.0)).expect("a hit");
        assert!((t - 0.95).abs() < 1e-6, "{t}");
        assert!((normal - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-6);
        // From above, looking down: the top face, its normal up.
        let (t, normal) = intersect(
            &shape,
            &Vector3::new(2.0, 0.0, 1.0),
            &Vector3::new(0.0, 0.0, -1.0),
        )
        .expect("a hit");
        assert!((t - 0.85).abs() < 1e-6 && (normal - Vector3::z()).norm() < 1e-6);
        // Beside it, parallel to a face, away from it and from inside: nothing.
        assert!(intersect(&shape, &origin, &Vector3::new(2.0, 0.3, 0.0)).is_none());
        assert!(intersect(&shape, &Vector3::new(0.0, 0.5, 0.0), &Vector3::x()).is_none());
        assert!(intersect(&shape, &origin, &Vector3::new(-1.0, 0.0, 0.0)).is_none());
        assert!(intersect(&shape, &Vector3::new(2.0, 0.0, 0.0), &Vector3::x()).is_none());
    }

    #[test]
    fn a_turned_box_is_hit_on_its_turned_face() {
        // Turned by 90°: 0.4 m deep along x now, its near face at x = 1.8 facing −x.
        let shape = box_shape(&turned_box(
            Vector3::new(2.0, 0.0, 0.0),
            std::f32::consts::FRAC_PI_2,
        ));
        let (t, normal) = intersect(&shape, &Vector3::zeros(), &Vector3::x()).expect("a hit");
        assert!((t - 1.8).abs() < 1e-5, "{t}");
        assert!(
            (normal - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-5,
            "{normal:?}"
        );
        // Turned by 45°: its near edge (box x −0.1, y +0.2) lies 7 cm left of the x axis.
        // Along the axis the ray meets the box's −x face, 14 cm left of it the +y face; each
        // normal half-way between −x and ∓y.
        let shape = box_shape(&turned_box(
            Vector3::new(2.0, 0.0, 0.0),
            std::f32::consts::FRAC_PI_4,
        ));
        for (direction, expected) in [
            (Vector3::x(), Vector3::new(-1.0, -1.0, 0.0)),
            (Vector3::new(1.0, 0.1, 0.0), Vector3::new(-1.0, 1.0, 0.0)),
        ] {
            let (_, normal) = intersect(&shape, &Vector3::zeros(), &direction).expect("a hit");
            assert!(
                (normal - expected.normalize()).norm() < 1e-5,
                "{direction:?}: {normal:?}"
            );
        }
    }

    /// The pixel at the image's centre, seen from 1 m behind the field's origin at the ball's
    /// height looking along x, with the ball at `ball_x` (rolling across at `ball_speed` during
    /// a 15 ms exposure) and `boxes` as the own body.
    fn centre_pixel(ball_x: f32, ball_speed: f32, boxes: &[OrientedBox]) -> [u8; 4] {
        let camera = Isometry3::translation(-1.0, 0.0, BALL_RADIUS_M);
        let mut truth = GroundTruth::default();
        truth.ball.position = nalgebra::Vector2::new(ball_x, 0.0);
        truth.ball.velocity = nalgebra::Vector2::new(0.0, ball_speed);
        let intrinsics = Intrinsics::nao_v6(64, 48);
        let geometry =
            FrameGeometry::new(&camera, &truth, boxes, intrinsics, Lighting::NEUTRAL, 0.015);
        let mut bytes = vec![0; 2 * 64 * 48];
        geometry.render(&mut NoNoise, ChromaSampling::PairMean, &mut bytes);
        let start = 2 * (24 * 64 + 32);
        std::array::from_fn(|index| bytes[start + index])
    }

    #[test]
    fn the_nearest_of_the_ball_and_a_box_is_seen() {
        let near_box = [turned_box(Vector3::new(-0.5, 0.0, 0.15), 0.0)];
        let far_box = [turned_box(Vector3::new(1.0, 0.0, 0.15), 0.0)];
        let box_alone = centre_pixel(-5.0, 0.0, &near_box);
        for speed in [0.0, 3.0] {
            let ball_alone = centre_pixel(0.0, speed, &[]);
            assert_ne!(ball_alone, box_alone, "speed {speed}");
            // The box between the camera and the ball hides it, sharp or smeared.
            assert_eq!(
                centre_pixel(0.0, speed, &near_box),
                box_alone,
                "speed {speed}"
            );
            // The box behind the ball: the ball is in front of it.
            assert_eq!(
                centre_pixel(0.0, speed, &far_box),
                ball_alone,
                "speed {speed}"
            );
        }
        // The box's colour: the shells' white on a face lit from the side (0.8), without sheen
        // (the view ray, mirrored at the face, runs level).
        let [luma, cb, _, cr] = box_alone;
        let shell = palette::BODY_SHELL.shaded(AMBIENT + 0.5 * SKY);
        assert_eq!(
            (luma, cb, cr),
            (to_byte(shell.y), to_byte(shell.cb), to_byte(shell.cr))
        );
    }

    /// The luma of a 64×48 frame (YUYV: every other byte) from `camera`, with `own_body` and
    /// the ball out of view behind the camera.
    fn luma_of_frame(camera: &Isometry3<f32>, own_body: &[OrientedBox]) -> Vec<u8> {
        let mut truth = GroundTruth::default();
        truth.ball.position = nalgebra::Vector2::new(-4.0, 0.0);
        let geometry = FrameGeometry::new(
            camera,
            &truth,
            own_body,
            Intrinsics::nao_v6(64, 48),
            Lighting::NEUTRAL,
            0.0,
        );
        let mut bytes = vec![0; 2 * 64 * 48];
        geometry.render(&mut NoNoise, ChromaSampling::PairMean, &mut bytes);
        bytes.iter().step_by(2).copied().collect()
    }

    #[test]
    fn a_painted_box_is_dark_in_its_band_white_elsewhere_and_keeps_its_outline() {
        // The box 0.3 m tall, 0.9 m ahead of a level camera at its height; the top third dark.
        let camera = Isometry3::translation(0.0, 0.0, 1.0);
        let white = turned_box(Vector3::new(1.0, 0.0, 1.0), 0.0);
        let band = Band {
            axis: BoxAxis::Z,
            from_m: 0.05,
            to_m: 0.15,
        };
        let painted = OrientedBox {
            paint: ShellPaint {
                dark_bands: [None, Some(band)],
            },
            ..white
        };
        let empty = luma_of_frame(&camera, &[]);
        let [white_frame, painted_frame] =
            [white, painted].map(|link| luma_of_frame(&camera, &[link]));
        // The same pixels show the box: the paint does not change the outline.
        let covered =
            |frame: &[u8]| -> Vec<bool> { frame.iter().zip(&empty).map(|(a, b)| a != b).collect() };
        assert_eq!(covered(&white_frame), covered(&painted_frame));
        // Row 17 looks 0.095 m above the centre on the near face (x = 0.9): in the band; row 24
        // at its middle: white. Both on a face lit from the side (0.8).
        let side_light = AMBIENT + 0.5 * SKY;
        let (dark, light) = (painted_frame[17 * 64 + 32], painted_frame[24 * 64 + 32]);
        assert_eq!(dark, to_byte(palette::BODY_TRIM.shaded(side_light).y));
        assert_eq!(light, to_byte(palette::BODY_SHELL.shaded(side_light).y));
        assert_eq!(white_frame[17 * 64 + 32], light);
    }

    #[test]
    fn the_white_shell_is_glossy_seen_from_above() {
        // Looking straight down (the camera's x axis along −z) at the top of the box from 1 m:
        // the view ray is mirrored straight up, into the hall's light.
        let camera = Isometry3::new(
            Vector3::new(1.0, 0.0, 2.15),
            Vector3::y() * std::f32::consts::FRAC_PI_2,
        );
        let frame = luma_of_frame(&camera, &[turned_box(Vector3::new(1.0, 0.0, 1.0), 0.0)]);
        let matte_top = palette::BODY_SHELL.shaded(AMBIENT + SKY).y;
        let centre = f32::from(frame[24 * 64 + 32]);
        assert!(
            centre >= (matte_top + SHEEN_LUMA).min(255.0) - 1.0,
            "the top's centre {centre}, matte {matte_top}"
        );
    }

    #[test]
    fn colours_convert_as_bt601() {
        let white = Ycbcr::from_rgb(255.0, 255.0, 255.0);
        assert!((white.y - 255.0).abs() < 0.01);
        assert!((white.cb - 128.0).abs() < 0.01 && (white.cr - 128.0).abs() < 0.01);
        let green = palette::CARPET;
        assert!(green.cb < 128.0 && green.cr < 128.0, "{green:?}");
    }
}
