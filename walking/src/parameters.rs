//! The walking engine's parameters (`config/data/default/WalkingEngine.toml`) and their ranges.

use config::{in_range, ordered, Invalid, Validate};
use serde::{Deserialize, Serialize};

use crate::step_adjustment::StepAdjustmentParameters;

/// Everything that shapes the walk. Lengths in metres, angles in radians, times in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkingEngineParameters {
    /// Duration of one step (one swing of one foot).
    pub step_period_s: f64,
    /// Hip joint to sole while walking.
    pub walk_hip_height_m: f64,
    /// Hip joint to sole while standing (the engine's stand pose).
    pub stand_hip_height_m: f64,
    /// Time to lower from the stand to the walk height before the first step, and to rise after
    /// the last.
    pub start_duration_s: f64,
    pub stop_duration_s: f64,
    /// Highest point of the swing foot above the ground.
    pub foot_lift_m: f64,
    /// Each foot's distance from the torso's x-z plane beyond the hip's 0.05 m.
    pub foot_offset_y_m: f64,
    /// Torso ahead of the point between the feet (leans the body over the toes).
    pub torso_offset_x_m: f64,
    /// Sideways shift of the torso over the support foot at mid-step.
    pub sway_amplitude_m: f64,
    /// Largest step sizes: the executed step lies in the ellipsoid with these half axes.
    pub max_forward_step_m: f64,
    pub max_backward_step_m: f64,
    pub max_left_step_m: f64,
    pub max_turn_step_rad: f64,
    /// Largest change of the step size from one step to the next (acceleration limits).
    pub max_forward_change_m: f64,
    pub max_left_change_m: f64,
    pub max_turn_change_rad: f64,
    /// The support foot changes when the pressure centre crosses to the swing foot, but not
    /// before this fraction of the step period.
    pub min_step_fraction: f64,
    /// Without a pressure crossing the support foot changes at this fraction of the period.
    pub max_step_fraction: f64,
    /// Less weight than this on both feet together gives no pressure information (lifted
    /// robot, broken sensors): only the time decides.
    pub min_pressure_kg: f64,
    /// Weight of a new gyroscope sample in the low-pass filter (1: no filtering).
    pub gyro_filter_weight: f64,
    /// Support ankle pitch (roll) correction per rad/s of filtered torso pitch (roll) rate.
    pub gyro_pitch_gain: f64,
    pub gyro_roll_gain: f64,
    /// Arm swing: shoulder pitch change per metre of the opposite foot's forward offset.
    pub arm_swing_rad_per_m: f64,
    /// The odometry is the feet's planned motion times these factors: the feet slip and land
    /// a little short of the plan (calibrated in the physics simulation; B-Human has the same).
    pub odometry_scale_forward: f64,
    pub odometry_scale_left: f64,
    pub odometry_scale_turn: f64,
    /// The kick step: its length at full strength, the kicking foot's lift, its duration.
    pub kick_step_m: f64,
    pub kick_lift_m: f64,
    pub kick_period_s: f64,
    pub leg_stiffness: f64,
    pub arm_stiffness: f64,
    pub head_stiffness: f64,
    /// Walk-to-target: farther than this, turn towards the target and walk straight; nearer,
    /// walk omnidirectionally and turn to the target's orientation.
    pub planner_far_distance_m: f64,
    /// Walk-to-target: while far, walk forward only once the target lies within this angle of
    /// the robot's heading.
    pub planner_walk_heading_rad: f64,
    /// Walk-to-target: the target counts as reached within these tolerances.
    pub planner_reached_distance_m: f64,
    pub planner_reached_angle_rad: f64,
    /// Where the swing foot lands after a push (`[step_adjustment]`, at the end of the file).
    pub step_adjustment: StepAdjustmentParameters,
}

impl Default for WalkingEngineParameters {
    /// The values of the shipped `WalkingEngine.toml`.
    fn default() -> Self {
        Self {
            step_period_s: 0.25,
            walk_hip_height_m: 0.215,
            stand_hip_height_m: 0.229,
            start_duration_s: 0.3,
            stop_duration_s: 0.3,
            foot_lift_m: 0.02,
            foot_offset_y_m: 0.0,
            torso_offset_x_m: 0.0,
            sway_amplitude_m: 0.005,
            max_forward_step_m: 0.08,
            max_backward_step_m: 0.05,
            max_left_step_m: 0.06,
            max_turn_step_rad: 0.5,
            max_forward_change_m: 0.02,
            max_left_change_m: 0.02,
            max_turn_change_rad: 0.15,
            min_step_fraction: 0.75,
            max_step_fraction: 1.25,
            min_pressure_kg: 0.5,
            gyro_filter_weight: 0.2,
            gyro_pitch_gain: 0.05,
            gyro_roll_gain: 0.03,
            arm_swing_rad_per_m: 4.0,
            odometry_scale_forward: 0.83,
            odometry_scale_left: 0.82,
            odometry_scale_turn: 0.9,
            kick_step_m: 0.12,
            kick_lift_m: 0.03,
            kick_period_s: 0.4,
            leg_stiffness: 0.9,
            arm_stiffness: 0.3,
            head_stiffness: 0.5,
            planner_far_distance_m: 0.4,
            planner_walk_heading_rad: 0.35,
            planner_reached_distance_m: 0.01,
            planner_reached_angle_rad: 0.03,
            step_adjustment: StepAdjustmentParameters::default(),
        }
    }
}

impl Validate for WalkingEngineParameters {
    fn validate(&self) -> Result<(), Invalid> {
        in_range("step_period_s", self.step_period_s, 0.1..=1.0)?;
        in_range("walk_hip_height_m", self.walk_hip_height_m, 0.15..=0.245)?;
        in_range("stand_hip_height_m", self.stand_hip_height_m, 0.15..=0.245)?;
        in_range("start_duration_s", self.start_duration_s, 0.0..=5.0)?;
        in_range("stop_duration_s", self.stop_duration_s, 0.0..=5.0)?;
        in_range("foot_lift_m", self.foot_lift_m, 0.0..=0.05)?;
        in_range("foot_offset_y_m", self.foot_offset_y_m, -0.01..=0.05)?;
        in_range("torso_offset_x_m", self.torso_offset_x_m, -0.05..=0.05)?;
        in_range("sway_amplitude_m", self.sway_amplitude_m, 0.0..=0.04)?;
        in_range("max_forward_step_m", self.max_forward_step_m, 0.001..=0.12)?;
        in_range("max_backward_step_m", self.max_backward_step_m, 0.001..=0.1)?;
        in_range("max_left_step_m", self.max_left_step_m, 0.001..=0.1)?;
        in_range("max_turn_step_rad", self.max_turn_step_rad, 0.001..=0.8)?;
        in_range(
            "max_forward_change_m",
            self.max_forward_change_m,
            0.001..=0.12,
        )?;
        in_range("max_left_change_m", self.max_left_change_m, 0.001..=0.1)?;
        in_range("max_turn_change_rad", self.max_turn_change_rad, 0.001..=0.8)?;
        in_range("min_step_fraction", self.min_step_fraction, 0.3..=1.0)?;
        in_range("max_step_fraction", self.max_step_fraction, 1.0..=3.0)?;
        ordered(
            ("min_step_fraction", self.min_step_fraction),
            ("max_step_fraction", self.max_step_fraction),
        )?;
        in_range("min_pressure_kg", self.min_pressure_kg, 0.0..=10.0)?;
        in_range("gyro_filter_weight", self.gyro_filter_weight, 0.001..=1.0)?;
        in_range("gyro_pitch_gain", self.gyro_pitch_gain, -1.0..=1.0)?;
        in_range("gyro_roll_gain", self.gyro_roll_gain, -1.0..=1.0)?;
        in_range("arm_swing_rad_per_m", self.arm_swing_rad_per_m, 0.0..=20.0)?;
        for (key, value) in [
            ("odometry_scale_forward", self.odometry_scale_forward),
            ("odometry_scale_left", self.odometry_scale_left),
            ("odometry_scale_turn", self.odometry_scale_turn),
        ] {
            in_range(key, value, 0.5..=1.5)?;
        }
        in_range("kick_step_m", self.kick_step_m, 0.0..=0.16)?;
        in_range("kick_lift_m", self.kick_lift_m, 0.0..=0.06)?;
        in_range("kick_period_s", self.kick_period_s, 0.1..=1.5)?;
        in_range("leg_stiffness", self.leg_stiffness, 0.0..=1.0)?;
        in_range("arm_stiffness", self.arm_stiffness, 0.0..=1.0)?;
        in_range("head_stiffness", self.head_stiffness, 0.0..=1.0)?;
        in_range(
            "planner_far_distance_m",
            self.planner_far_distance_m,
            0.0..=10.0,
        )?;
        in_range(
            "planner_walk_heading_rad",
            self.planner_walk_heading_rad,
            0.01..=std::f64::consts::PI,
        )?;
        in_range(
            "planner_reached_distance_m",
            self.planner_reached_distance_m,
            0.001..=0.5,
        )?;
        in_range(
            "planner_reached_angle_rad",
            self.planner_reached_angle_rad,
            0.001..=1.0,
        )?;
        self.step_adjustment.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_valid_and_each_range_names_its_key() {
        WalkingEngineParameters::default().validate().unwrap();
        let nan_period = WalkingEngineParameters {
            step_period_s: f64::NAN,
            ..WalkingEngineParameters::default()
        };
        let error = nan_period.validate().unwrap_err();
        assert_eq!(error.key, "step_period_s");
        let inverted = WalkingEngineParameters {
            min_step_fraction: 1.0,
            max_step_fraction: 1.0,
            ..WalkingEngineParameters::default()
        };
        assert_eq!(inverted.validate().unwrap_err().key, "max_step_fraction");
        let too_stiff = WalkingEngineParameters {
            leg_stiffness: 1.5,
            ..WalkingEngineParameters::default()
        };
        assert!(too_stiff
            .validate()
            .unwrap_err()
            .to_string()
            .contains("key `leg_stiffness`: expected a number from 0 to 1, found 1.5"));
    }
}
