//! Step adjustment after a push: where the swing foot must land so that the robot can stop,
//! from the torso's tilt and rate (B-Human's `WalkStepAdjustment`, the capture point of the
//! linear inverted pendulum).
//!
//! The centre of mass, `com_height_m` above the ground, moves with the torso: a tilt `θ` puts it
//! `h·sin θ` beside the point the legs are commanded from, a rate `ω` moves it at `h·ω`. The
//! pendulum comes to rest over its **capture point**, `x + ẋ/ω₀` with `ω₀ = √(g/h)`. While the
//! capture point stays between the feet (widened by a dead band) the walk is left alone (a quiet
//! walk rocks its capture point from foot to foot at every step); beyond them the swing foot's
//! landing point moves by the excess (times a gain), within the leg's reach and without
//! crossing the other foot, no faster than a foot can follow. The feet's sideways positions:
//!
//! ```text
//!    pushed left, left foot swinging:      pushed left, right foot swinging:
//!        L ·→ L'                              R may not cross L: it steps in to the
//!            ·torso                           gap's edge, and the step ends on time
//!        R                                    so that L can step out next
//! ```
//!
//! The tilt is measured against its slow average (the walk's own lean is no push).

use kinematics::{Side, HIP_OFFSET_Y_M};
use serde::{Deserialize, Serialize};

use crate::feet::FootOffset;

/// Standard gravity, m/s².
const GRAVITY_M_PER_S2: f64 = 9.81;

/// The step adjustment's parameters (`[step_adjustment]` in `WalkingEngine.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepAdjustmentParameters {
    /// Off: the walk places its feet where the step plan says, whatever the torso does.
    pub enabled: bool,
    /// Height of the centre of mass above the ground while walking (the pendulum's length).
    pub com_height_m: f64,
    /// The capture point may stray this far beyond the feet (forward or backward, sideways)
    /// before the swing foot moves (`swing_shift`).
    pub dead_band_forward_m: f64,
    pub dead_band_left_m: f64,
    /// Swing foot shift per metre of capture point beyond the dead band.
    pub gain: f64,
    /// Largest shift of the swing foot's landing point: forward, backward, sideways away from
    /// the other foot.
    pub max_forward_m: f64,
    pub max_backward_m: f64,
    pub max_outward_m: f64,
    /// The feet's centres stay at least this far apart sideways (the feet are 0.09 m wide).
    pub min_foot_separation_m: f64,
    /// The feet stay within this distance of each other forward and backward (the legs' reach).
    pub max_foot_distance_forward_m: f64,
    /// The landing point moves no faster than this (a change late in the swing moves the foot
    /// at once).
    pub max_speed_m_per_s: f64,
    /// The landing point is left alone after this fraction of the step (the foot is landing).
    pub latest_phase: f64,
    /// Weight of a new sample in the slow average of the torso's tilt.
    pub tilt_average_weight: f64,
    /// Steps that turn more than this are walked as planned (the feet's yaw is not in the
    /// shift's frame, and turning rocks the torso more).
    pub max_turn_step_rad: f64,
    /// While the capture point lies outside the support foot (where the swing foot cannot go),
    /// the step's clock runs this many times faster (1: not at all), so the other foot steps
    /// out sooner.
    pub blocked_step_speedup: f64,
}

impl Default for StepAdjustmentParameters {
    /// The values of the shipped `WalkingEngine.toml`.
    fn default() -> Self {
        Self {
            enabled: true,
            com_height_m: 0.26,
            dead_band_forward_m: 0.02,
            dead_band_left_m: 0.02,
            gain: 1.5,
            max_forward_m: 0.05,
            max_backward_m: 0.05,
            max_outward_m: 0.05,
            min_foot_separation_m: 0.095,
            max_foot_distance_forward_m: 0.14,
            max_speed_m_per_s: 1.0,
            latest_phase: 0.8,
            tilt_average_weight: 0.01,
            max_turn_step_rad: 0.1,
            blocked_step_speedup: 2.0,
        }
    }
}

impl StepAdjustmentParameters {
    /// Range checks (called by `WalkingEngineParameters::validate`).
    pub fn validate(&self) -> Result<(), config::Invalid> {
        use config::in_range;
        in_range("step_adjustment.com_height_m", self.com_height_m, 0.1..=0.5)?;
        in_range(
            "step_adjustment.dead_band_forward_m",
            self.dead_band_forward_m,
            0.0..=0.2,
        )?;
        in_range(
            "step_adjustment.dead_band_left_m",
            self.dead_band_left_m,
            0.0..=0.2,
        )?;
        in_range("step_adjustment.gain", self.gain, 0.0..=3.0)?;
        in_range(
            "step_adjustment.max_forward_m",
            self.max_forward_m,
            0.0..=0.1,
        )?;
        in_range(
            "step_adjustment.max_backward_m",
            self.max_backward_m,
            0.0..=0.1,
        )?;
        in_range(
            "step_adjustment.max_outward_m",
            self.max_outward_m,
            0.0..=0.1,
        )?;
        in_range(
            "step_adjustment.min_foot_separation_m",
            self.min_foot_separation_m,
            0.05..=0.2,
        )?;
        in_range(
            "step_adjustment.max_foot_distance_forward_m",
            self.max_foot_distance_forward_m,
            0.05..=0.25,
        )?;
        in_range(
            "step_adjustment.max_speed_m_per_s",
            self.max_speed_m_per_s,
            0.01..=5.0,
        )?;
        in_range("step_adjustment.latest_phase", self.latest_phase, 0.0..=1.0)?;
        in_range(
            "step_adjustment.tilt_average_weight",
            self.tilt_average_weight,
            0.0001..=1.0,
        )?;
        in_range(
            "step_adjustment.max_turn_step_rad",
            self.max_turn_step_rad,
            0.0..=1.0,
        )?;
        in_range(
            "step_adjustment.blocked_step_speedup",
            self.blocked_step_speedup,
            1.0..=4.0,
        )
    }
}

/// The capture point relative to the torso ground point (forward, left; m) from the torso's
/// deviation from its average tilt (roll, pitch; rad, LoLA's signs: pitch forward and roll to
/// the right positive) and its rates (gyro x, y; rad/s).
pub fn capture_point(
    tilt_deviation_rad: [f64; 2],
    tilt_rate_rad_per_s: [f64; 2],
    parameters: &StepAdjustmentParameters,
) -> FootOffset {
    let height = parameters.com_height_m;
    let time_constant_s = (height / GRAVITY_M_PER_S2).sqrt();
    let along = |angle: f64, rate: f64| height * angle.sin() + height * rate * time_constant_s;
    FootOffset {
        forward_m: along(tilt_deviation_rad[1], tilt_rate_rad_per_s[1]),
        left_m: -along(tilt_deviation_rad[0], tilt_rate_rad_per_s[0]),
    }
}

/// Where the step goes without adjustment: the swing foot's planned landing offset and the
/// support foot's offset at the step's end (both from their stand positions, torso ground
/// frame), and which foot swings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedStep {
    pub swing: Side,
    pub swing_end: FootOffset,
    pub support_end: FootOffset,
}

/// The swing foot's wanted shift for `capture` (see [`capture_point`]). A quiet walk's capture
/// point swings between the feet: between the support foot's and the swing foot's landing
/// point (forward), and between the feet (sideways). Beyond that region widened by the dead
/// band, the shift is the excess times the gain, limited by the largest shifts, the legs' reach
/// and the other foot. The second value says the capture point lies outside the support foot
/// where the swing foot cannot go (the step should end on time so that the other foot can
/// step).
pub fn swing_shift(
    capture: FootOffset,
    planned: &PlannedStep,
    parameters: &StepAdjustmentParameters,
) -> (FootOffset, bool) {
    let gain = parameters.gain;
    let band = parameters.dead_band_forward_m;
    let (swing_x, support_x) = (planned.swing_end.forward_m, planned.support_end.forward_m);
    let ahead = swing_x.max(support_x) + band;
    let behind = swing_x.min(support_x) - band;
    let wanted_forward = if capture.forward_m > ahead {
        gain * (capture.forward_m - ahead)
    } else if capture.forward_m < behind {
        gain * (capture.forward_m - behind)
    } else {
        0.0
    };
    let mut forward = wanted_forward.clamp(-parameters.max_backward_m, parameters.max_forward_m);
    let reach = parameters.max_foot_distance_forward_m;
    let landing = (swing_x + forward).clamp(support_x - reach, support_x + reach);
    forward = landing - swing_x;
    // Sideways, in the swing side's sense (positive: away from the other foot).
    let sign = planned.swing.sign();
    let band = parameters.dead_band_left_m;
    let swing_y = HIP_OFFSET_Y_M + sign * planned.swing_end.left_m;
    let support_y = HIP_OFFSET_Y_M - sign * planned.support_end.left_m;
    let towards_swing = sign * capture.left_m;
    let outward_wanted = if towards_swing > swing_y + band {
        gain * (towards_swing - swing_y - band)
    } else if towards_swing < -support_y - band {
        gain * (towards_swing + support_y + band)
    } else {
        0.0
    };
    let inward_room = (swing_y + support_y - parameters.min_foot_separation_m).max(0.0);
    let outward = outward_wanted.clamp(-inward_room, parameters.max_outward_m);
    let blocked = outward_wanted < 0.0;
    (
        FootOffset {
            forward_m: forward,
            left_m: outward * sign,
        },
        blocked,
    )
}

/// The step adjustment's state: the slow average of the tilt and the shift of the step being
/// walked.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepAdjustment {
    average_tilt_rad: Option<[f64; 2]>,
    /// The current step's landing point shift.
    pub shift: FootOffset,
    /// The capture point lies where the swing foot cannot go.
    pub blocked: bool,
    /// The last capture point (for plots and tests).
    pub capture: FootOffset,
}

impl StepAdjustment {
    /// A new step begins: its landing point is the plan's until the torso says otherwise.
    pub fn begin_step(&mut self) {
        self.shift = FootOffset::default();
        self.blocked = false;
    }

    /// One tick: updates the average tilt and, at `phase` of the step `planned`, moves the
    /// shift towards the wanted one. `tilt_rad` (roll, pitch) and `rate_rad_per_s` (gyro x, y)
    /// must be finite.
    pub fn update(
        &mut self,
        tilt_rad: [f64; 2],
        rate_rad_per_s: [f64; 2],
        planned: Option<(&PlannedStep, f64)>,
        cycle_s: f64,
        parameters: &StepAdjustmentParameters,
    ) {
        let average = self.average_tilt_rad.get_or_insert(tilt_rad);
        let deviation = [tilt_rad[0] - average[0], tilt_rad[1] - average[1]];
        for (average, tilt) in average.iter_mut().zip(tilt_rad) {
            *average += parameters.tilt_average_weight * (tilt - *average);
        }
        self.capture = capture_point(deviation, rate_rad_per_s, parameters);
        let Some((planned, phase)) = planned else {
            self.begin_step();
            return;
        };
        if !parameters.enabled || phase > parameters.latest_phase {
            return;
        }
        let (wanted, blocked) = swing_shift(self.capture, planned, parameters);
        self.blocked |= blocked;
        let largest = parameters.max_speed_m_per_s * cycle_s;
        // The shift grows towards what is wanted and never shrinks within a step: a torso
        // swinging back is no reason to pull the foot in again.
        let towards = |held: f64, wanted: f64| {
            if wanted.abs() > held.abs() || wanted * held < 0.0 {
                held + (wanted - held).clamp(-largest, largest)
            } else {
                held
            }
        };
        self.shift = FootOffset {
            forward_m: towards(self.shift.forward_m, wanted.forward_m),
            left_m: towards(self.shift.left_m, wanted.left_m),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn straight(swing: Side) -> PlannedStep {
        PlannedStep {
            swing,
            swing_end: FootOffset {
                forward_m: 0.03,
                left_m: 0.0,
            },
            support_end: FootOffset {
                forward_m: -0.03,
                left_m: 0.0,
            },
        }
    }

    /// Ticks `adjustment` for half a step with a constant tilt and rate.
    fn walk_half_a_step(
        tilt: [f64; 2],
        rate: [f64; 2],
        planned: &PlannedStep,
        parameters: &StepAdjustmentParameters,
    ) -> StepAdjustment {
        let mut adjustment = StepAdjustment::default();
        // The average is taken upright first.
        adjustment.update([0.0; 2], [0.0; 2], None, 0.012, parameters);
        for tick in 0..10 {
            let phase = tick as f64 * 0.012 / 0.25;
            adjustment.update(tilt, rate, Some((planned, phase)), 0.012, parameters);
        }
        adjustment
    }

    #[test]
    fn a_quiet_walk_moves_no_foot() {
        let parameters = StepAdjustmentParameters::default();
        // The rocking of a quiet walk: 1.5° and 0.15 rad/s.
        for (tilt, rate) in [
            ([0.0, 0.0], [0.0, 0.0]),
            ([0.025, -0.025], [0.15, -0.15]),
            ([-0.025, 0.025], [-0.15, 0.15]),
        ] {
            for swing in [Side::Left, Side::Right] {
                let adjustment = walk_half_a_step(tilt, rate, &straight(swing), &parameters);
                assert_eq!(adjustment.shift, FootOffset::default(), "{tilt:?} {rate:?}");
                assert!(!adjustment.blocked);
            }
        }
    }

    #[test]
    fn a_forward_tilt_moves_the_foot_forward_within_its_limits() {
        let parameters = StepAdjustmentParameters::default();
        let planned = straight(Side::Left);
        let small = walk_half_a_step([0.0, 0.15], [0.0, 0.8], &planned, &parameters);
        assert!(small.capture.forward_m > 0.06, "{:?}", small.capture);
        assert!(small.shift.forward_m > 0.01, "{:?}", small.shift);
        assert!(small.shift.left_m.abs() < 1e-12);
        let backward = walk_half_a_step([0.0, -0.15], [0.0, -0.8], &planned, &parameters);
        assert!(backward.shift.forward_m < -0.01, "{:?}", backward.shift);
        // A fall forward: the foot goes as far as allowed and no farther.
        let huge = walk_half_a_step([0.0, 0.6], [0.0, 3.0], &planned, &parameters);
        assert!((huge.shift.forward_m - parameters.max_forward_m).abs() < 1e-9);
        let huge_back = walk_half_a_step([0.0, -0.6], [0.0, -3.0], &planned, &parameters);
        assert!((huge_back.shift.forward_m + parameters.max_backward_m).abs() < 1e-9);
        // The reach: a long step ahead leaves less room.
        let long = PlannedStep {
            swing_end: FootOffset {
                forward_m: 0.06,
                left_m: 0.0,
            },
            support_end: FootOffset {
                forward_m: -0.06,
                left_m: 0.0,
            },
            ..planned
        };
        let reaching = walk_half_a_step([0.0, 0.6], [0.0, 3.0], &long, &parameters);
        let distance =
            long.swing_end.forward_m + reaching.shift.forward_m - long.support_end.forward_m;
        assert!(
            (distance - parameters.max_foot_distance_forward_m).abs() < 1e-9,
            "{distance}"
        );
    }

    #[test]
    fn a_sideways_push_moves_the_outer_foot_out_and_never_crosses_the_feet() {
        let parameters = StepAdjustmentParameters::default();
        // Pushed to the left: the torso rolls left (negative roll) and keeps rolling.
        let (tilt, rate) = ([-0.2, 0.0], [-1.0, 0.0]);
        let left = walk_half_a_step(tilt, rate, &straight(Side::Left), &parameters);
        assert!(left.capture.left_m > 0.08, "{:?}", left.capture);
        assert!(left.shift.left_m > 0.01, "{:?}", left.shift);
        assert!(left.shift.left_m <= parameters.max_outward_m + 1e-12);
        assert!(!left.blocked);
        // The right foot may move in only to the gap's edge, and says it is blocked.
        let right = walk_half_a_step(tilt, rate, &straight(Side::Right), &parameters);
        let separation = 2.0 * HIP_OFFSET_Y_M - right.shift.left_m;
        assert!(right.shift.left_m > 0.0);
        assert!(
            separation >= parameters.min_foot_separation_m - 1e-9,
            "{separation}"
        );
        assert!(right.blocked);
        // Switched off: nothing moves, but the capture point is still estimated.
        let off = StepAdjustmentParameters {
            enabled: false,
            ..parameters
        };
        let idle = walk_half_a_step(tilt, rate, &straight(Side::Left), &off);
        assert_eq!(idle.shift, FootOffset::default());
        assert!(idle.capture.left_m > 0.04);
    }

    #[test]
    fn the_shift_moves_no_faster_than_allowed_and_not_after_the_latest_phase() {
        let parameters = StepAdjustmentParameters::default();
        let planned = straight(Side::Left);
        let mut adjustment = StepAdjustment::default();
        adjustment.update([0.0; 2], [0.0; 2], None, 0.012, &parameters);
        adjustment.update(
            [0.0, 0.5],
            [0.0, 3.0],
            Some((&planned, 0.1)),
            0.012,
            &parameters,
        );
        let largest = parameters.max_speed_m_per_s * 0.012;
        assert!((adjustment.shift.forward_m - largest).abs() < 1e-12);
        let late = adjustment.shift;
        adjustment.update(
            [0.0, 0.5],
            [0.0, 3.0],
            Some((&planned, 0.9)),
            0.012,
            &parameters,
        );
        assert_eq!(adjustment.shift, late);
        adjustment.begin_step();
        assert_eq!(adjustment.shift, FootOffset::default());
    }
}
