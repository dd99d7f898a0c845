//! Where the feet are during one step: the support foot slides back under the moving torso,
//! the swing foot travels forward on a smooth curve and lifts on a sine, and the torso sways over
//! the support foot (rUNSWift's 2014 walk).
//!
//! Feet are described relative to the **torso ground point** (the torso origin projected onto
//! the ground): each foot's offset from its stand position (`forward_m`, `left_m`), its yaw, and
//! its lift. The two yaws are always opposite (left `+ψ`, right `−ψ`) because both legs share the
//! hip yaw-pitch joint.
//!
//! A step of size `(f, l, t)` with swing side `s` moves the swing foot to `(f/2, l/2)` and yaw
//! `s·t/2`, the support foot to `(−f/2, −l/2)`; so the torso moves by half of the previous step
//! and half of this one, and a walk from stand to stand moves by the sum of its steps.

use kinematics::{Side, HIP_OFFSET_Y_M, HIP_OFFSET_Z_M};
use nalgebra::{Isometry2, Isometry3, Vector2, Vector3};

use crate::parameters::WalkingEngineParameters;
use crate::step::Step;

/// A foot's offset from its stand position, in the torso ground frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FootOffset {
    pub forward_m: f64,
    pub left_m: f64,
}

impl FootOffset {
    fn lerp(self, end: FootOffset, fraction: f64) -> FootOffset {
        FootOffset {
            forward_m: self.forward_m + (end.forward_m - self.forward_m) * fraction,
            left_m: self.left_m + (end.left_m - self.left_m) * fraction,
        }
    }

    /// Within a micrometre of the stand position.
    pub fn is_home(&self) -> bool {
        self.forward_m.abs() < 1e-6 && self.left_m.abs() < 1e-6
    }
}

/// One foot at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FootPose {
    pub offset: FootOffset,
    pub yaw_rad: f64,
    /// Height of the sole above the ground.
    pub lift_m: f64,
}

/// Both feet and the torso's sideways sway at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Feet {
    pub left: FootPose,
    pub right: FootPose,
    /// The torso's shift to the left over the ground, m (the feet move the other way).
    pub sway_m: f64,
}

impl Feet {
    /// The feet standing: offsets zero, no yaw, no lift, no sway.
    pub const STAND: Feet = Feet {
        left: FootPose {
            offset: FootOffset {
                forward_m: 0.0,
                left_m: 0.0,
            },
            yaw_rad: 0.0,
            lift_m: 0.0,
        },
        right: FootPose {
            offset: FootOffset {
                forward_m: 0.0,
                left_m: 0.0,
            },
            yaw_rad: 0.0,
            lift_m: 0.0,
        },
        sway_m: 0.0,
    };

    pub fn foot(&self, side: Side) -> &FootPose {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    /// The foot's ground position and yaw in the torso ground frame.
    pub fn placement(&self, side: Side, parameters: &WalkingEngineParameters) -> Isometry2<f64> {
        let foot = self.foot(side);
        let stand_y = side.sign() * (HIP_OFFSET_Y_M + parameters.foot_offset_y_m);
        Isometry2::new(
            Vector2::new(
                foot.offset.forward_m - parameters.torso_offset_x_m,
                stand_y + foot.offset.left_m - self.sway_m,
            ),
            foot.yaw_rad,
        )
    }

    /// The feet whose soles are at `left` and `right` in the torso frame (from the forward
    /// kinematics of measured legs), with the hip height they imply: the inverse of
    /// [`Feet::sole_in_torso`] with no sway. The lower sole stands on the ground; the other's
    /// lift is how much higher it is. The yaws are the mean of the two opposite yaws (the legs
    /// share the hip yaw-pitch joint).
    pub fn from_soles(
        left: &Isometry3<f64>,
        right: &Isometry3<f64>,
        parameters: &WalkingEngineParameters,
    ) -> (Feet, f64) {
        let ground_z = left.translation.z.min(right.translation.z);
        let hip_height_m = -HIP_OFFSET_Z_M - ground_z;
        let pose = |side: Side, sole: &Isometry3<f64>| FootPose {
            offset: FootOffset {
                forward_m: sole.translation.x + parameters.torso_offset_x_m,
                left_m: sole.translation.y
                    - side.sign() * (HIP_OFFSET_Y_M + parameters.foot_offset_y_m),
            },
            yaw_rad: 0.0,
            lift_m: sole.translation.z - ground_z,
        };
        let left_yaw = 0.5 * (left.rotation.euler_angles().2 - right.rotation.euler_angles().2);
        let mut feet = Feet {
            left: pose(Side::Left, left),
            right: pose(Side::Right, right),
            sway_m: 0.0,
        };
        feet.left.yaw_rad = left_yaw;
        feet.right.yaw_rad = -left_yaw;
        (feet, hip_height_m)
    }

    /// The sole's pose in the torso frame with the hips `hip_height_m` above the ground.
    pub fn sole_in_torso(
        &self,
        side: Side,
        hip_height_m: f64,
        parameters: &WalkingEngineParameters,
    ) -> Isometry3<f64> {
        let placement = self.placement(side, parameters);
        let translation = placement.translation.vector;
        Isometry3::new(
            Vector3::new(
                translation.x,
                translation.y,
                -HIP_OFFSET_Z_M - hip_height_m + self.foot(side).lift_m,
            ),
            Vector3::z() * placement.rotation.angle(),
        )
    }
}

/// Smooth start and stop between 0 and 1: `(1 − cos πx)/2`.
pub fn smooth(fraction: f64) -> f64 {
    0.5 * (1.0 - (std::f64::consts::PI * fraction.clamp(0.0, 1.0)).cos())
}

/// The part of a step in which a support foot that came down early settles to the ground.
pub const SETTLE_FRACTION: f64 = 0.25;

/// One step: which foot swings, how far, and where the feet were when it began.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepPlan {
    pub swing: Side,
    /// The step being executed (its `left_m` is zero unless the swing foot leads sideways).
    pub step: Step,
    pub swing_start: FootOffset,
    pub support_start: FootOffset,
    /// The support foot's lift when the step began: a swing foot that met the ground early (the
    /// pressure switched before its lift was back to zero) is lowered during the first
    /// `SETTLE_FRACTION` of the step instead of jumping down.
    pub support_lift_start_m: f64,
    /// The left foot's yaw when the step began (the right foot's is its negative).
    pub left_yaw_start_rad: f64,
    /// A kick step: the swing foot draws back, then shoots forward past its landing point
    /// (`kick_curve`) with `kick_lift_m`.
    pub kick: bool,
    /// The step adjustment's shift of the swing foot's landing point (zero unless pushed).
    pub shift: FootOffset,
    /// The phase at which the feet are at their start offsets: 0, or where a walk that resumes
    /// from measured feet takes over a foot in the air ([`crate::WalkingEngine::resume`]); the
    /// feet travel to their ends over the rest of the step.
    pub start_phase: f64,
}

/// The swing foot's progress in a kick step at `phase`: back by a fifth of the way during the
/// first third, forward fast to 30 % beyond the landing point by 60 %, back to it at the end.
pub fn kick_curve(phase: f64) -> f64 {
    let phase = phase.clamp(0.0, 1.0);
    if phase < 0.35 {
        -0.2 * smooth(phase / 0.35)
    } else if phase < 0.6 {
        -0.2 + 1.5 * smooth((phase - 0.35) / 0.25)
    } else {
        1.3 - 0.3 * smooth((phase - 0.6) / 0.4)
    }
}

impl StepPlan {
    /// A step that starts from the feet at `feet` with `swing` swinging.
    pub fn from_feet(feet: &Feet, swing: Side, step: Step) -> StepPlan {
        StepPlan {
            swing,
            step,
            swing_start: feet.foot(swing).offset,
            support_start: feet.foot(swing.opposite()).offset,
            support_lift_start_m: feet.foot(swing.opposite()).lift_m,
            left_yaw_start_rad: feet.left.yaw_rad,
            kick: false,
            shift: FootOffset::default(),
            start_phase: 0.0,
        }
    }

    pub fn support(&self) -> Side {
        self.swing.opposite()
    }

    /// The swing foot's landing offset: half the step, plus the step adjustment's shift.
    pub fn swing_end(&self) -> FootOffset {
        FootOffset {
            forward_m: self.step.forward_m / 2.0 + self.shift.forward_m,
            left_m: self.step.left_m / 2.0 + self.shift.left_m,
        }
    }

    /// The swing foot's landing offset as planned, without the adjustment.
    pub fn planned_swing_end(&self) -> FootOffset {
        FootOffset {
            forward_m: self.step.forward_m / 2.0,
            left_m: self.step.left_m / 2.0,
        }
    }

    pub fn support_end(&self) -> FootOffset {
        FootOffset {
            forward_m: -self.step.forward_m / 2.0,
            left_m: -self.step.left_m / 2.0,
        }
    }

    fn left_yaw_end_rad(&self) -> f64 {
        self.swing.sign() * self.step.turn_rad / 2.0
    }

    /// The feet at `phase` (0 at the start of the step, 1 at its planned end; clamped).
    pub fn feet_at(&self, phase: f64, parameters: &WalkingEngineParameters) -> Feet {
        let phase = phase.clamp(0.0, 1.0);
        // The part of the way still to go that is done at `phase` (with no start phase: the
        // fraction itself).
        let start = self.start_phase.clamp(0.0, 0.99);
        let remaining = |fraction: f64, at_start: f64| {
            ((fraction - at_start) / (1.0 - at_start)).clamp(0.0, 1.0)
        };
        let swing_fraction = remaining(smooth(phase), smooth(start));
        let left_yaw = self.left_yaw_start_rad
            + (self.left_yaw_end_rad() - self.left_yaw_start_rad) * swing_fraction;
        let (travel, lift) = if self.kick {
            (kick_curve(phase), parameters.kick_lift_m)
        } else {
            (swing_fraction, parameters.foot_lift_m)
        };
        let swing = FootPose {
            offset: self.swing_start.lerp(self.swing_end(), travel),
            yaw_rad: self.swing.sign() * left_yaw,
            lift_m: lift * 0.5 * (1.0 - (std::f64::consts::TAU * phase).cos()),
        };
        let support = FootPose {
            offset: self
                .support_start
                .lerp(self.support_end(), remaining(phase, start)),
            yaw_rad: self.support().sign() * left_yaw,
            lift_m: self.support_lift_start_m * (1.0 - smooth(phase / SETTLE_FRACTION)),
        };
        let sway_m = self.support().sign()
            * parameters.sway_amplitude_m
            * (std::f64::consts::PI * phase).sin();
        match self.swing {
            Side::Left => Feet {
                left: swing,
                right: support,
                sway_m,
            },
            Side::Right => Feet {
                left: support,
                right: swing,
                sway_m,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_ends_with_the_feet_half_a_step_apart_and_opposite_yaws() {
        let parameters = WalkingEngineParameters::default();
        let step = Step {
            forward_m: 0.06,
            left_m: 0.0,
            turn_rad: 0.2,
        };
        let plan = StepPlan::from_feet(&Feet::STAND, Side::Left, step);
        let end = plan.feet_at(1.0, &parameters);
        assert!((end.left.offset.forward_m - 0.03).abs() < 1e-12);
        assert!((end.right.offset.forward_m + 0.03).abs() < 1e-12);
        assert!((end.left.yaw_rad - 0.1).abs() < 1e-12);
        assert!((end.left.yaw_rad + end.right.yaw_rad).abs() < 1e-12);
        assert!(end.left.lift_m.abs() < 1e-12 && end.sway_m.abs() < 1e-12);
        let middle = plan.feet_at(0.5, &parameters);
        assert!((middle.left.lift_m - parameters.foot_lift_m).abs() < 1e-12);
        assert!(
            middle.sway_m < 0.0,
            "the torso sways over the right (support) foot"
        );
        assert!((middle.left.yaw_rad + middle.right.yaw_rad).abs() < 1e-12);
    }
}
