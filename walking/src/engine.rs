//! The walking engine: the state machine (stand, start, walk, stop), the step clock with the
//! support switch, the gyro feedback, and the joint angles of one tick.

use kinematics::{legs_inverse, sole_in_torso, LegJoints, Side};
use nalgebra::Isometry2;

use crate::feet::{smooth, Feet, StepPlan, SETTLE_FRACTION};
use crate::interface::{WalkOutput, WalkRequest, WalkState, WalkingSensors};
use crate::joints::{self, JOINT_COUNT, LEFT_LEG, RIGHT_LEG};
use crate::odometry::OdometryDelta;
use crate::parameters::WalkingEngineParameters;
use crate::planner::{plan_step, RelativeTarget};
use crate::step::{next_step, within_step_limits, Step};
use crate::step_adjustment::{PlannedStep, StepAdjustment};
use crate::support::{lateral_centre_of_pressure, weight_on};

/// The walking engine. One [`WalkingEngine::tick`] per LoLA frame.
#[derive(Debug, Clone)]
pub struct WalkingEngine {
    parameters: WalkingEngineParameters,
    state: WalkState,
    /// Time in `Starting` or `Stopping`, s.
    transition_s: f64,
    plan: StepPlan,
    step_elapsed_s: f64,
    /// The last step size chosen before the lead/follow rule (the acceleration limits' base).
    last_chosen: Step,
    filtered_gyro_rad_per_s: [f64; 2],
    odometry: Isometry2<f64>,
    /// The feet's lift (left, right) when the walk stopped, and the time since.
    settle_lift_m: [f64; 2],
    settle_elapsed_s: f64,
    /// The kick of the current `Kick` request has been stepped (reset by any other request).
    kicked: bool,
    /// The swing foot's shift after a push.
    adjustment: StepAdjustment,
    /// Resumed from measured feet: the step is planned at the first tick (with its request).
    resumed: Option<Resumed>,
}

/// The feet a walk resumes from, and the foot in the air with its lift.
#[derive(Debug, Clone, Copy)]
struct Resumed {
    feet: Feet,
    lifted: Option<(Side, f64)>,
}

/// A foot at least this high is in the air: a resumed walk finishes its step.
const RESUME_LIFTED_M: f64 = 0.005;
/// Feet this far from standing side by side (forward or sideways, m) are in a step.
const RESUME_APART_M: f64 = 0.01;
/// Feet yawed this much apart (each foot's yaw, rad) are in a turning step.
const RESUME_YAWED_RAD: f64 = 0.03;
/// One foot is ahead of the other along the requested step when it leads by more than this
/// part of the largest step.
const RESUME_AHEAD: f64 = 0.1;
/// A centre of pressure this far to one side (m) has the weight on that foot.
const RESUME_LOADED_M: f64 = 0.01;
/// Hips this much lower than the walk's, or higher than the stand's (m): not a walking pose.
const RESUME_HIP_MARGIN_M: f64 = 0.02;

fn finite_or_zero(value: f32) -> f64 {
    let value = f64::from(value);
    if value.is_finite() {
        value
    } else {
        0.0
    }
}

impl WalkingEngine {
    /// An engine standing still. `parameters` must have passed `config::Validate`.
    pub fn new(parameters: WalkingEngineParameters) -> WalkingEngine {
        WalkingEngine {
            parameters,
            state: WalkState::Standing,
            transition_s: 0.0,
            plan: StepPlan::from_feet(&Feet::STAND, Side::Right, Step::ZERO),
            step_elapsed_s: 0.0,
            last_chosen: Step::ZERO,
            filtered_gyro_rad_per_s: [0.0; 2],
            odometry: Isometry2::identity(),
            settle_lift_m: [0.0; 2],
            settle_elapsed_s: 0.0,
            kicked: false,
            adjustment: StepAdjustment::default(),
            resumed: None,
        }
    }

    /// An engine that walks on from legs measured mid-walk (the motion process restarted, or
    /// its standby took over, while the robot walked), or `None` when the legs are not in a step
    /// (feet side by side on the ground at the stand's height, or hips outside the walk's
    /// heights), where [`new`] and its smooth start apply.
    ///
    /// The feet are where the legs' forward kinematics put them; the step is planned at the
    /// first tick, with its request ([`WalkingEngine::tick`]). Starting afresh instead would
    /// pull the feet together on the ground (a twist of the whole robot) or put a foot in the
    /// air down wherever the stand pose has it.
    ///
    /// [`new`]: WalkingEngine::new
    pub fn resume(
        parameters: WalkingEngineParameters,
        legs: [&LegJoints<f64>; 2],
    ) -> Option<WalkingEngine> {
        let soles = [
            sole_in_torso(Side::Left, legs[0]),
            sole_in_torso(Side::Right, legs[1]),
        ];
        let (feet, hip_height) = Feet::from_soles(&soles[0], &soles[1], &parameters);
        let upright = hip_height > parameters.walk_hip_height_m - RESUME_HIP_MARGIN_M
            && hip_height < parameters.stand_hip_height_m + RESUME_HIP_MARGIN_M;
        let lift = feet.left.lift_m.max(feet.right.lift_m);
        let apart = (feet.left.offset.forward_m - feet.right.offset.forward_m)
            .abs()
            .max((feet.left.offset.left_m - feet.right.offset.left_m).abs());
        // Feet side by side at the walk's height (between two steps of a sideways walk) are in
        // the walk too; at the stand's height they are a robot standing.
        let crouched =
            hip_height < 0.5 * (parameters.walk_hip_height_m + parameters.stand_hip_height_m);
        let in_step = lift >= RESUME_LIFTED_M
            || apart >= RESUME_APART_M
            || feet.left.yaw_rad.abs() >= RESUME_YAWED_RAD
            || crouched;
        if !upright || !in_step || !feet_finite(&feet) {
            return None;
        }
        let lifted = (lift >= RESUME_LIFTED_M).then(|| {
            let swing = if feet.left.lift_m > feet.right.lift_m {
                Side::Left
            } else {
                Side::Right
            };
            (swing, lift)
        });
        let mut engine = WalkingEngine::new(parameters);
        engine.state = WalkState::Walking;
        engine.resumed = Some(Resumed { feet, lifted });
        Some(engine)
    }

    /// The duration of the step being walked.
    fn period_s(&self) -> f64 {
        if self.plan.kick {
            self.parameters.kick_period_s
        } else {
            self.parameters.step_period_s
        }
    }

    pub fn parameters(&self) -> &WalkingEngineParameters {
        &self.parameters
    }

    /// New parameters (`config::Validate`d) from the next tick on; the step being walked goes
    /// on with them.
    pub fn set_parameters(&mut self, parameters: WalkingEngineParameters) {
        self.parameters = parameters;
    }

    pub fn state(&self) -> WalkState {
        self.state
    }

    /// The robot's pose in the frame it had when the engine was made, from all odometry deltas.
    pub fn odometry(&self) -> Isometry2<f64> {
        self.odometry
    }

    fn wants_to_walk(&self, request: &WalkRequest) -> bool {
        match request {
            WalkRequest::Stand => false,
            WalkRequest::Walk { .. } => true,
            WalkRequest::WalkTo { target } => plan_step(*target, &self.parameters) != Step::ZERO,
            WalkRequest::Kick { .. } => !self.kicked,
        }
    }

    /// The step size the request asks for now, given the motion already committed by the feet.
    fn requested_step(&self, request: &WalkRequest, feet: &Feet, support: Side) -> Step {
        let period = self.parameters.step_period_s;
        match request {
            WalkRequest::Stand | WalkRequest::Kick { .. } => Step::ZERO,
            WalkRequest::Walk {
                forward_m_per_s,
                left_m_per_s,
                turn_rad_per_s,
            } => Step {
                forward_m: forward_m_per_s * period,
                // Only every other step moves sideways.
                left_m: 2.0 * left_m_per_s * period,
                turn_rad: turn_rad_per_s * period,
            },
            WalkRequest::WalkTo { target } => {
                // The support foot's offset is still to be walked before any new step counts.
                let committed = feet.foot(support);
                plan_step(
                    RelativeTarget {
                        forward_m: target.forward_m - committed.offset.forward_m,
                        left_m: target.left_m - committed.offset.left_m,
                        turn_rad: target.turn_rad - committed.yaw_rad,
                    },
                    &self.parameters,
                )
            }
        }
    }

    /// Ends the current step (or starts the first) with the feet at `feet`; returns whether the
    /// walk stops here.
    fn begin_step(&mut self, request: &WalkRequest, feet: &Feet, first: bool) -> bool {
        let swing = if first {
            first_swing(request)
        } else {
            self.plan.swing.opposite()
        };
        let support = swing.opposite();
        if let WalkRequest::Kick {
            foot,
            direction_rad,
            strength,
        } = request
        {
            let at_home = feet.left.offset.is_home() && feet.right.offset.is_home();
            if !first && !self.kicked && *foot == swing && at_home {
                let length = self.parameters.kick_step_m * strength.clamp(0.0, 1.0);
                let direction = direction_rad.clamp(-0.8, 0.8);
                let kick = Step {
                    forward_m: length * direction.cos(),
                    left_m: length * direction.sin(),
                    turn_rad: 0.0,
                };
                self.kicked = true;
                // The step after the kick brings the feet together.
                self.last_chosen = Step::ZERO;
                self.plan = StepPlan::from_feet(feet, swing, kick);
                self.plan.kick = true;
                self.step_elapsed_s = 0.0;
                self.adjustment.begin_step();
                return false;
            }
        } else {
            self.kicked = false;
        }
        let wanted = self.requested_step(request, feet, support);
        let chosen = next_step(self.last_chosen, wanted, &self.parameters);
        self.last_chosen = chosen;
        let executed = led(chosen, swing);
        let at_home = feet.left.offset.is_home()
            && feet.right.offset.is_home()
            && feet.left.yaw_rad.abs() < 1e-6;
        if !first && !self.wants_to_walk(request) && chosen.is_zero() && at_home {
            // A foot that came down early is still up in the plan: it settles while the robot
            // rises.
            self.settle_lift_m = [feet.left.lift_m, feet.right.lift_m];
            self.settle_elapsed_s = 0.0;
            return true;
        }
        self.plan = StepPlan::from_feet(feet, swing, executed);
        self.step_elapsed_s = 0.0;
        self.adjustment.begin_step();
        false
    }

    /// The step a resumed walk is in, planned from the measured feet and the request (as
    /// [`begin_step`] plans one).
    ///
    /// - A foot in the air finishes its step, from the phase that has its lift: on the way up
    ///   while it is behind the other foot (in the direction the request walks), else on the
    ///   way down.
    /// - With both feet down the foot behind swings next; with no direction, the one without
    ///   the weight (by the foot sole sensors), else as a start chooses.
    /// - The robot was walking as asked: that is the last step's size, for the acceleration
    ///   limits (the feet do not show it between two steps of a sideways walk, and a step
    ///   shorter than the robot's speed would stumble).
    ///
    /// [`begin_step`]: WalkingEngine::begin_step
    fn plan_resumed_step(
        &mut self,
        resumed: Resumed,
        request: &WalkRequest,
        sensors: &WalkingSensors,
    ) {
        let Resumed { mut feet, lifted } = resumed;
        let parameters = &self.parameters;
        let wanted = self.requested_step(request, &feet, Side::Left);
        let ahead_left = lead_of_left(&feet, &wanted, parameters);
        let (swing, start_phase) = if let Some((swing, lift)) = lifted {
            // The lift is `L (1 − cos 2πφ) / 2`: the phase with this lift on the way up while
            // the foot is behind the other, else on the way down.
            let cosine = (1.0 - 2.0 * lift / parameters.foot_lift_m).clamp(-1.0, 1.0);
            let rising = cosine.acos() / std::f64::consts::TAU;
            if ahead_left * swing.sign() < 0.0 {
                (swing, rising)
            } else {
                (swing, 1.0 - rising)
            }
        } else {
            let centre = lateral_centre_of_pressure(
                &sensors.force_sensitive_resistors_kg,
                parameters.min_pressure_kg,
            );
            // The right foot swings when the left one leads, or carries the weight.
            let other_than_left =
                |left_side: bool| if left_side { Side::Right } else { Side::Left };
            let swing = if ahead_left.abs() > RESUME_AHEAD {
                other_than_left(ahead_left > 0.0)
            } else {
                match centre {
                    Some(y) if y.abs() > RESUME_LOADED_M => other_than_left(y > 0.0),
                    _ => first_swing(request),
                }
            };
            (swing, 0.0)
        };
        let support = swing.opposite();
        // The plan puts the torso's sway at the start phase between the feet: the offsets were
        // measured with none.
        let sway = support.sign()
            * parameters.sway_amplitude_m
            * (std::f64::consts::PI * start_phase).sin();
        feet.left.offset.left_m += sway;
        feet.right.offset.left_m += sway;
        let wanted = self.requested_step(request, &feet, support);
        // The robot was walking as asked (the request outlives the process that died): that is
        // the last step's size, for the acceleration limits.
        self.last_chosen = within_step_limits(wanted, parameters);
        let chosen = next_step(self.last_chosen, wanted, parameters);
        self.last_chosen = chosen;
        self.plan = StepPlan::from_feet(&feet, swing, led(chosen, swing));
        self.plan.start_phase = start_phase;
        self.step_elapsed_s = start_phase * parameters.step_period_s;
    }

    fn hip_height_m(&self) -> f64 {
        let parameters = &self.parameters;
        let (stand, walk) = (parameters.stand_hip_height_m, parameters.walk_hip_height_m);
        match self.state {
            WalkState::Standing => stand,
            WalkState::Walking => walk,
            WalkState::Starting => {
                let fraction = transition_fraction(self.transition_s, parameters.start_duration_s);
                stand + (walk - stand) * smooth(fraction)
            }
            WalkState::Stopping => {
                let fraction = transition_fraction(self.transition_s, parameters.stop_duration_s);
                walk + (stand - walk) * smooth(fraction)
            }
        }
    }

    fn feet_now(&self) -> Feet {
        match self.state {
            WalkState::Walking => self
                .plan
                .feet_at(self.step_elapsed_s / self.period_s(), &self.parameters),
            _ => {
                let settle_s = SETTLE_FRACTION * self.parameters.step_period_s;
                let remaining = 1.0 - smooth(self.settle_elapsed_s / settle_s);
                let mut feet = Feet::STAND;
                feet.left.lift_m = self.settle_lift_m[0] * remaining;
                feet.right.lift_m = self.settle_lift_m[1] * remaining;
                feet
            }
        }
    }

    /// The step adjustment's tick: the capture point from the torso's tilt and the filtered gyro,
    /// and the swing foot's landing point shifted towards it (not in a kick step).
    fn adjust_step(
        &mut self,
        request: &WalkRequest,
        sensors: &WalkingSensors,
        phase: f64,
        cycle_s: f64,
    ) {
        let tilt = [
            finite_or_zero(sensors.torso_angles_rad[0]),
            finite_or_zero(sensors.torso_angles_rad[1]),
        ];
        let planned = PlannedStep {
            swing: self.plan.swing,
            swing_end: self.plan.planned_swing_end(),
            support_end: self.plan.support_end(),
        };
        // Turning steps rock the torso more and yaw the feet out of the frame the shift is
        // computed in: they are walked as planned. So is every step of a kick request (the weight
        // shift, the kick, the step that closes the feet): the kick swings the torso on
        // purpose, and read as a push it kept the feet from ever coming home (in the physics
        // simulator the walk stepped on the spot without stopping).
        let turning =
            self.plan.step.turn_rad.abs() > self.parameters.step_adjustment.max_turn_step_rad;
        let kicking = self.plan.kick || matches!(request, WalkRequest::Kick { .. });
        let walking =
            (self.state == WalkState::Walking && !kicking && !turning).then_some((&planned, phase));
        self.adjustment.update(
            tilt,
            self.filtered_gyro_rad_per_s,
            walking,
            cycle_s,
            &self.parameters.step_adjustment,
        );
        self.plan.shift = self.adjustment.shift;
    }

    /// The capture point the step adjustment sees (forward, left from the torso ground point, m)
    /// and the current step's shift of the swing foot.
    pub fn step_adjustment(&self) -> &StepAdjustment {
        &self.adjustment
    }

    /// One tick: advance the walk by the cycle time and compute the joint targets.
    pub fn tick(&mut self, request: &WalkRequest, sensors: &WalkingSensors) -> WalkOutput {
        let cycle_s = sensors.cycle_time.as_secs_f64().min(0.1);
        if !matches!(request, WalkRequest::Kick { .. }) {
            self.kicked = false;
        }
        let weight = self.parameters.gyro_filter_weight;
        for (filtered, measured) in self
            .filtered_gyro_rad_per_s
            .iter_mut()
            .zip(&sensors.gyroscope_rad_per_s[..2])
        {
            *filtered += weight * (finite_or_zero(*measured) - *filtered);
        }

        if self.state != WalkState::Walking {
            self.settle_elapsed_s += cycle_s;
            // Only the tilt's average moves.
            self.adjust_step(request, sensors, 0.0, cycle_s);
        }
        let mut odometry_delta = OdometryDelta::default();
        match self.state {
            WalkState::Standing => {
                if self.wants_to_walk(request) {
                    self.state = WalkState::Starting;
                    self.transition_s = 0.0;
                }
            }
            WalkState::Starting => {
                if !self.wants_to_walk(request) {
                    self.state = WalkState::Stopping;
                    self.transition_s = mirrored_transition(
                        self.transition_s,
                        self.parameters.start_duration_s,
                        self.parameters.stop_duration_s,
                    );
                } else {
                    self.transition_s += cycle_s;
                    if self.transition_s >= self.parameters.start_duration_s {
                        self.state = WalkState::Walking;
                        self.last_chosen = Step::ZERO;
                        self.begin_step(request, &Feet::STAND, true);
                    }
                }
            }
            WalkState::Walking => {
                if let Some(resumed) = self.resumed.take() {
                    self.plan_resumed_step(resumed, request, sensors);
                }
                let period = self.period_s();
                let support = self.plan.support();
                let before = self
                    .plan
                    .feet_at(self.step_elapsed_s / period, &self.parameters)
                    .placement(support, &self.parameters);
                // A push towards the support foot's side: the swing foot cannot go where the
                // robot falls, so its step is hurried to let the other foot step out sooner.
                let hurry = if self.adjustment.blocked {
                    self.parameters.step_adjustment.blocked_step_speedup
                } else {
                    1.0
                };
                self.step_elapsed_s += cycle_s * hurry;
                let phase = self.step_elapsed_s / period;
                self.adjust_step(request, sensors, phase, cycle_s);
                let feet = self.plan.feet_at(phase, &self.parameters);
                let after = feet.placement(support, &self.parameters);
                let planned = OdometryDelta::from_support(&before, &after);
                odometry_delta = OdometryDelta {
                    forward_m: planned.forward_m * self.parameters.odometry_scale_forward,
                    left_m: planned.left_m * self.parameters.odometry_scale_left,
                    turn_rad: planned.turn_rad * self.parameters.odometry_scale_turn,
                };
                let centre = lateral_centre_of_pressure(
                    &sensors.force_sensitive_resistors_kg,
                    self.parameters.min_pressure_kg,
                );
                let pressure_switch = phase >= self.parameters.min_step_fraction
                    && weight_on(self.plan.swing, centre);
                // A push towards the support foot's side: the swing foot cannot go where the
                // robot falls, so it lands on time for the other foot to step out.
                let latest = if self.adjustment.blocked {
                    1.0
                } else {
                    self.parameters.max_step_fraction
                };
                if pressure_switch || phase >= latest {
                    let stop = self.begin_step(request, &feet, false);
                    if stop {
                        self.state = WalkState::Stopping;
                        self.transition_s = 0.0;
                    }
                }
            }
            WalkState::Stopping => {
                if self.wants_to_walk(request) {
                    self.state = WalkState::Starting;
                    self.transition_s = mirrored_transition(
                        self.transition_s,
                        self.parameters.stop_duration_s,
                        self.parameters.start_duration_s,
                    );
                } else {
                    self.transition_s += cycle_s;
                    if self.transition_s >= self.parameters.stop_duration_s {
                        self.state = WalkState::Standing;
                    }
                }
            }
        }
        self.odometry *= odometry_delta.to_isometry();
        self.joint_targets(sensors, odometry_delta)
    }

    fn joint_targets(&self, sensors: &WalkingSensors, odometry_delta: OdometryDelta) -> WalkOutput {
        let parameters = &self.parameters;
        let feet = self.feet_now();
        let hip_height = self.hip_height_m();
        let left_target = feet.sole_in_torso(Side::Left, hip_height, parameters);
        let right_target = feet.sole_in_torso(Side::Right, hip_height, parameters);
        let walking = self.state == WalkState::Walking;
        let (mut left, mut right, clamped) = match legs_inverse(&left_target, &right_target) {
            Ok(solution) => (
                solution.left.joints,
                solution.right.joints,
                !(solution.left.is_exact() && solution.right.is_exact()),
            ),
            // Unreachable with validated parameters: the targets are finite. Hold the measured
            // legs rather than produce nonsense.
            Err(_) => (
                joints::leg_from_lola(&sensors.joint_positions_rad, LEFT_LEG),
                joints::leg_from_lola(&sensors.joint_positions_rad, RIGHT_LEG),
                true,
            ),
        };
        let support = if walking {
            self.plan.support()
        } else {
            Side::Left
        };
        let pitch_correction = parameters.gyro_pitch_gain * self.filtered_gyro_rad_per_s[1];
        let roll_correction = parameters.gyro_roll_gain * self.filtered_gyro_rad_per_s[0];
        let balance = |leg: &mut LegJoints<f64>| {
            leg.ankle_pitch += pitch_correction;
            leg.ankle_roll += roll_correction;
        };
        match (walking, support) {
            (true, Side::Left) => balance(&mut left),
            (true, Side::Right) => balance(&mut right),
            (false, _) => {
                balance(&mut left);
                balance(&mut right);
            }
        }

        let mut positions_rad = [0.0f32; JOINT_COUNT];
        let mut stiffnesses = [parameters.leg_stiffness as f32; JOINT_COUNT];
        for (index, angle) in LEFT_LEG.iter().zip(left.to_array()) {
            positions_rad[*index] = angle as f32;
        }
        for (index, angle) in RIGHT_LEG.iter().zip(right.to_array()).skip(1) {
            positions_rad[*index] = angle as f32;
        }
        let swing = parameters.arm_swing_rad_per_m;
        joints::set_arms(
            &mut positions_rad,
            -swing * feet.right.offset.forward_m,
            -swing * feet.left.offset.forward_m,
        );
        for index in [
            joints::LEFT_SHOULDER_PITCH,
            joints::LEFT_SHOULDER_ROLL,
            joints::LEFT_ELBOW_YAW,
            joints::LEFT_ELBOW_ROLL,
            joints::LEFT_WRIST_YAW,
            joints::RIGHT_SHOULDER_PITCH,
            joints::RIGHT_SHOULDER_ROLL,
            joints::RIGHT_ELBOW_YAW,
            joints::RIGHT_ELBOW_ROLL,
            joints::RIGHT_WRIST_YAW,
            joints::LEFT_HAND,
            joints::RIGHT_HAND,
        ] {
            stiffnesses[index] = parameters.arm_stiffness as f32;
        }
        for index in [joints::HEAD_YAW, joints::HEAD_PITCH] {
            // The head holds where it is; the head motion overrides it.
            positions_rad[index] = finite_or_zero(sensors.joint_positions_rad[index]) as f32;
            stiffnesses[index] = parameters.head_stiffness as f32;
        }
        WalkOutput {
            positions_rad,
            stiffnesses,
            odometry_delta,
            state: self.state,
            support,
            step_phase: if walking {
                self.step_elapsed_s / self.period_s()
            } else {
                0.0
            },
            step: if walking { self.plan.step } else { Step::ZERO },
            clamped,
        }
    }
}

/// How far the left foot is ahead of the right along `wanted` (each axis in its largest step;
/// the yaw counts as the turn the feet are apart); zero without a step.
fn lead_of_left(feet: &Feet, wanted: &Step, parameters: &WalkingEngineParameters) -> f64 {
    let direction = [
        wanted.forward_m / parameters.max_forward_step_m,
        wanted.left_m / parameters.max_left_step_m,
        wanted.turn_rad / parameters.max_turn_step_rad,
    ];
    let apart = [
        (feet.left.offset.forward_m - feet.right.offset.forward_m) / parameters.max_forward_step_m,
        (feet.left.offset.left_m - feet.right.offset.left_m) / parameters.max_left_step_m,
        2.0 * feet.left.yaw_rad / parameters.max_turn_step_rad,
    ];
    let length = direction
        .iter()
        .map(|value| value * value)
        .sum::<f64>()
        .sqrt();
    if length > 1e-6 {
        apart.iter().zip(direction).map(|(a, d)| a * d).sum::<f64>() / length
    } else {
        0.0
    }
}

/// The step `chosen` as the `swing` foot walks it: the foot on the side of a sideways walk
/// leads, the other only follows (its step has no sideways part).
fn led(chosen: Step, swing: Side) -> Step {
    let mut executed = chosen;
    if executed.left_m * swing.sign() <= 0.0 {
        executed.left_m = 0.0;
    }
    executed
}

/// The foot that swings first in a walk that starts with `request`.
fn first_swing(request: &WalkRequest) -> Side {
    match request {
        WalkRequest::Walk { left_m_per_s, .. } if *left_m_per_s < 0.0 => Side::Right,
        WalkRequest::WalkTo { target } if target.left_m < 0.0 => Side::Right,
        // The other foot steps first and takes the weight.
        WalkRequest::Kick { foot, .. } => foot.opposite(),
        _ => Side::Left,
    }
}

fn feet_finite(feet: &Feet) -> bool {
    [feet.left, feet.right].iter().all(|foot| {
        foot.offset.forward_m.is_finite()
            && foot.offset.left_m.is_finite()
            && foot.yaw_rad.is_finite()
            && foot.lift_m.is_finite()
    })
}

fn transition_fraction(elapsed_s: f64, duration_s: f64) -> f64 {
    if duration_s <= 0.0 {
        1.0
    } else {
        (elapsed_s / duration_s).clamp(0.0, 1.0)
    }
}

/// The time in the reverse transition that has the same hip height.
fn mirrored_transition(elapsed_s: f64, duration_s: f64, reverse_duration_s: f64) -> f64 {
    (1.0 - transition_fraction(elapsed_s, duration_s)) * reverse_duration_s
}
