//! The `MotionCombinator`: executes the `MotionRequest` on every `SensorData` and provides the
//! `JointRequest` and the `MotionInfo` (B-Human's `MotionSelector` + `SpecialActions` +
//! `MotionCombinator`, for the motions that exist so far).
//!
//! - A new motion starts from the current pose: the last command for joints that hold it (at
//!   least `holding_stiffness`), the measured angle for the others. No joint ever jumps.
//! - Stand, sit and unstiff can be left at any time; a special action plays to its end
//!   (`can_be_left` is false until then) unless the request is unstiff.
//! - The head joints that the current keyframe leaves `"*"` follow the head request.
//! - Falling or lying (`FallState`): `fall_protection` (arms in, stiffness down) interrupts
//!   whatever runs, the walk too; once the robot lies still, [`GetUp`] plays the stand-up motion
//!   for its front or back (then `stand`), checks with the IMU that it is upright and retries,
//!   up to `GetUp.toml`'s `max_attempts`, then stays down soft and says so in `MotionInfo::note`.
//!   Requests wait until the robot is upright again (only `Unstiff` goes first).
//! - `is_stable`: the robot is upright (`FallState`) and has reached its stand or sit.
//! - A new `SensorData::pose_epoch` (the bridge sat the robot down, let it go limp, restarted,
//!   or LoLA was away) drops the plan: the motion starts again from the measured pose and
//!   stiffness, and every `JointRequest` carries the epoch it was planned for.

use super::get_up::{is_roll, GetUp, GetUpParameters, GetUpPlan};
use super::head_motion::{is_head, step_head, HeadAngles};
use super::library::{MotionLibrary, FALL_PROTECTION, SIT, STAND, STAND_UP_FROM_SIT};
use super::player::KeyframePlayer;
use super::selection::{select, Plan, Selection};
use super::walking_engine::{is_leg, walk_request, walking_sensors, Walk, WalkingEngineParameters};
use framework::{LoadParameters, Update};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;
use types::{
    BodyMotion, FallPhase, FallState, JointId, JointRequest, Joints, MotionInfo, MotionKind,
    MotionRequest, OdometryData, SensorData,
};
use walking::{WalkRequest, WalkState};

/// Parameters (`MotionCombinator.toml`) and the keyframe motions (`motions/*.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionCombinatorParameters {
    /// Time between two ticks (LoLA frames), ms; 1 ..= 100.
    pub cycle_time_ms: f32,
    /// A joint with at least this stiffness holds its last commanded position; 0 ..= 1.
    pub holding_stiffness: f32,
    /// Stand from a pose with both knees bent more than this plays `stand_up_from_sit` first,
    /// degrees; 0 ..= 125 (the knee's range).
    pub sitting_knee_pitch_deg: f32,
    /// The fastest head speed a request may ask for, rad/s; 0.01 ..= 20.
    pub head_speed_limit_rad_per_s: f32,
    /// The keyframe motions, loaded from `motions/` along the search path.
    #[serde(skip)]
    pub motions: MotionLibrary,
    /// The walking engine's parameters, from `WalkingEngine.toml` along the search path.
    #[serde(skip)]
    pub walking: WalkingEngineParameters,
    /// Getting up after a fall, from `GetUp.toml` along the search path.
    #[serde(skip)]
    pub get_up: GetUpParameters,
}

impl config::Validate for MotionCombinatorParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        use config::in_range;
        in_range("cycle_time_ms", self.cycle_time_ms, 1.0..=100.0)?;
        in_range("holding_stiffness", self.holding_stiffness, 0.0..=1.0)?;
        in_range(
            "sitting_knee_pitch_deg",
            self.sitting_knee_pitch_deg,
            0.0..=125.0,
        )?;
        in_range(
            "head_speed_limit_rad_per_s",
            self.head_speed_limit_rad_per_s,
            0.01..=20.0,
        )
    }
}

impl LoadParameters for MotionCombinatorParameters {
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError> {
        let mut parameters: Self = config.validated_parameters(module)?;
        parameters.motions = MotionLibrary::load(config)?;
        parameters.walking = config.validated_parameters("WalkingEngine")?;
        parameters.get_up = config.validated_parameters("GetUp")?;
        Ok(parameters)
    }
}

/// The motion being executed.
#[derive(Debug)]
struct Active {
    selection: Selection,
    request: MotionRequest,
    /// `None` while unstiff.
    player: Option<KeyframePlayer>,
}

impl Active {
    /// Whether a different motion may take over now; `walk` is the walking engine's state.
    fn can_be_left(&self, walk: WalkState) -> bool {
        match (&self.selection.plan, &self.player) {
            (Plan::SpecialAction(_) | Plan::GetUp { .. }, Some(player)) => player.is_finished(),
            // The walk stops (back in its stand pose) before anything else starts.
            (Plan::Walk, _) => walk == WalkState::Standing,
            _ => true,
        }
    }
}

/// Executes the motion request; see the `motion_combinator` module's documentation.
#[derive(Debug)]
pub struct MotionCombinator {
    parameters: MotionCombinatorParameters,
    active: Option<Active>,
    last_command: Option<JointRequest>,
    info: MotionInfo,
    /// The `SensorData::pose_epoch` the current plan starts from.
    planned_epoch: Option<u64>,
    walk: Walk,
    get_up: GetUp,
    odometry: OdometryData,
    /// The measured joint positions, gyroscope and accelerometer of the previous tick: the same
    /// again is a tick without a new LoLA frame (the trigger timed out), in which the walk does
    /// not advance (its step clock and odometry count frames) — for at most
    /// `MAX_HELD_TICKS` in a row, so that a simulation whose sensors can repeat exactly
    /// (the kinematic simulator of a robot standing still) never stalls the walk.
    previous_sensors: Option<([f32; 25], [f32; 6])>,
    held_ticks: u32,
}

/// Ticks in a row in which the walk holds its command for want of a new frame.
const MAX_HELD_TICKS: u32 = 2;

/// A new pose epoch leaves the walk going while every leg joint is within this of its last
/// command (servo lag while walking is below 0.1 rad in the physics simulation).
const WALK_HOLD_TOLERANCE_RAD: f32 = 0.15;

framework::module! {
    MotionCombinator {
        inputs: MotionCombinatorInputs,
        loaded_parameters: MotionCombinatorParameters,
        // `cortex set` does not interrupt the motion being played.
        set_parameters: retune,
        requires: {
            sensor_data: SensorData,
            motion_request: MotionRequest,
            fall_state: FallState,
        },
        uses: {},
        provides: { JointRequest, MotionInfo, OdometryData },
    }
}

impl MotionCombinator {
    fn new(parameters: MotionCombinatorParameters) -> Self {
        MotionCombinator {
            walk: Walk::new(parameters.walking.clone()),
            get_up: GetUp::new(parameters.get_up.clone()),
            odometry: OdometryData::default(),
            previous_sensors: None,
            held_ticks: 0,
            parameters,
            active: None,
            last_command: None,
            info: MotionInfo::default(),
            planned_epoch: None,
        }
    }

    /// New parameters while the robot runs (`cortex set`, `cortex reload`): the motion being
    /// played, the last command and the pose epoch stay; the new values (and keyframe motions)
    /// apply from this tick on. A special action already started plays on from the library it
    /// started with.
    fn retune(&mut self, parameters: MotionCombinatorParameters) {
        self.walk.retune(parameters.walking.clone());
        self.get_up.retune(parameters.get_up.clone());
        self.parameters = parameters;
    }

    /// The measured joint positions; a value that is not a number is replaced by the last
    /// command (or 0).
    fn measured(&self, sensor_data: &SensorData) -> Joints<f32> {
        Joints::from_fn(|joint| {
            let value = sensor_data.joint_positions_rad[joint];
            match &self.last_command {
                _ if value.is_finite() => value,
                Some(command) => command.positions_rad[joint],
                None => 0.0,
            }
        })
    }

    /// Where the joints are now: the positions and stiffnesses a new motion starts from. A
    /// motion process that was just restarted has no command of its own yet: it starts from the
    /// measured stiffness, so the pose the bridge held keeps its stiffness (no sag on restart).
    fn current_pose(
        &self,
        measured: &Joints<f32>,
        measured_stiffnesses: &Joints<f32>,
    ) -> (Joints<f32>, Joints<f32>) {
        let Some(command) = &self.last_command else {
            let stiffnesses = measured_stiffnesses.map(|s| {
                if s.is_finite() {
                    s.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            });
            return (*measured, stiffnesses);
        };
        let holding =
            |joint: JointId| command.stiffnesses[joint] >= self.parameters.holding_stiffness;
        (
            Joints::from_fn(|joint| {
                if holding(joint) {
                    command.positions_rad[joint]
                } else {
                    measured[joint]
                }
            }),
            command.stiffnesses,
        )
    }

    /// Whether the walk is active and every leg joint is measured within
    /// `WALK_HOLD_TOLERANCE_RAD` of its last command, with the legs still stiff.
    fn walk_still_holds(&self, sensor_data: &SensorData) -> bool {
        let (Some(active), Some(command)) = (&self.active, &self.last_command) else {
            return false;
        };
        active.selection.plan == Plan::Walk
            && JointId::ALL
                .into_iter()
                .filter(|joint| is_leg(*joint))
                .all(|joint| {
                    let measured = sensor_data.joint_positions_rad[joint];
                    let stiffness = sensor_data.joint_stiffnesses[joint];
                    (measured - command.positions_rad[joint]).abs() < WALK_HOLD_TOLERANCE_RAD
                        && stiffness >= self.parameters.holding_stiffness
                })
    }

    /// The motions that execute `plan` from `positions`.
    fn chain(&self, plan: &Plan, positions: &Joints<f32>) -> Vec<Arc<super::keyframes::Motion>> {
        let sitting_knee = self.parameters.sitting_knee_pitch_deg.to_radians();
        let sitting = positions[JointId::LeftKneePitch] > sitting_knee
            && positions[JointId::RightKneePitch] > sitting_knee;
        let names: Vec<&str> = match plan {
            Plan::Unstiff => Vec::new(),
            Plan::Stand if sitting => vec![STAND_UP_FROM_SIT, STAND],
            Plan::Stand => vec![STAND],
            Plan::Sit => vec![SIT],
            Plan::SpecialAction(name) => vec![name.as_str()],
            Plan::Walk => Vec::new(),
            Plan::GetUp { motion, .. } if is_roll(motion) => vec![motion.as_str()],
            Plan::GetUp { motion, .. } => vec![motion.as_str(), STAND],
        };
        names
            .into_iter()
            .filter_map(|name| self.parameters.motions.get(name).cloned())
            .collect()
    }

    /// The selection for `plan` while the robot is down or getting up (`None`: upright, the
    /// request is executed).
    fn fall_selection(&self, plan: &GetUpPlan, request: &BodyMotion) -> Option<Selection> {
        let protect = |note: Option<String>| Selection {
            plan: Plan::SpecialAction(FALL_PROTECTION.to_owned()),
            kind: MotionKind::FallProtection,
            note,
        };
        match plan {
            GetUpPlan::Request => None,
            GetUpPlan::Protect => Some(protect(None)),
            GetUpPlan::Play { motion, attempt } => {
                let missing = if self.parameters.motions.get(motion).is_none() {
                    format!(" (there is no motions/{motion}.toml: the attempt will fail)")
                } else {
                    String::new()
                };
                Some(Selection {
                    plan: Plan::GetUp {
                        motion: (*motion).to_owned(),
                        attempt: *attempt,
                    },
                    kind: MotionKind::GetUp,
                    note: Some(format!(
                        "getting up with {motion}{missing}, attempt {attempt} of {}; the request {request:?} waits",
                        self.parameters.get_up.max_attempts
                    )),
                })
            }
            GetUpPlan::StayDown { attempts } => Some(protect(Some(format!(
                "getting up failed {attempts} times: lying soft until put upright; the request {request:?} waits"
            )))),
        }
    }

    fn tick(&mut self, inputs: &MotionCombinatorInputs<'_>) -> JointRequest {
        let epoch = inputs.sensor_data.pose_epoch;
        if self.planned_epoch != Some(epoch) && self.walk_still_holds(inputs.sensor_data) {
            // LoLA was away for a moment and the bridge held the walk's last command: the legs
            // are where the walk put them, so the walk goes on (restarting it from a pose on
            // one foot would be the jerk the new epoch is meant to prevent).
            tracing::info!("pose epoch {epoch}: the legs are where the walk left them; walking on");
            self.planned_epoch = Some(epoch);
        }
        if self.planned_epoch != Some(epoch) {
            if self.planned_epoch.is_some() {
                tracing::info!(
                    "pose epoch {epoch}: the bridge moved the robot; re-planning from the measured pose"
                );
            }
            // Neither the plan nor the last command describe the robot any more.
            self.planned_epoch = Some(epoch);
            self.active = None;
            self.last_command = None;
        }
        let request = inputs.motion_request;
        let imu = &inputs.sensor_data.inertial_measurement;
        let sensors = (
            inputs.sensor_data.joint_positions_rad.values,
            [
                imu.gyroscope_rad_per_s.x,
                imu.gyroscope_rad_per_s.y,
                imu.gyroscope_rad_per_s.z,
                imu.accelerometer_m_per_s2.x,
                imu.accelerometer_m_per_s2.y,
                imu.accelerometer_m_per_s2.z,
            ],
        );
        let repeated = self.previous_sensors.as_ref() == Some(&sensors);
        let hold_walk = repeated && self.held_ticks < MAX_HELD_TICKS;
        self.held_ticks = if hold_walk { self.held_ticks + 1 } else { 0 };
        self.previous_sensors = Some(sensors);
        let measured = self.measured(inputs.sensor_data);
        let (positions, stiffnesses) =
            self.current_pose(&measured, &inputs.sensor_data.joint_stiffnesses);
        // Falling, lying or getting up: that goes first, whatever runs (only unstiff goes
        // before it: the get-up waits while unstiff is requested).
        let fall_plan = if request.body == BodyMotion::Unstiff {
            GetUpPlan::Request
        } else {
            let get_up_finished = self.active.as_ref().is_some_and(|active| {
                matches!(active.selection.plan, Plan::GetUp { .. })
                    && active
                        .player
                        .as_ref()
                        .is_none_or(KeyframePlayer::is_finished)
            });
            self.get_up.step(
                inputs.fall_state.phase,
                inputs.fall_state.direction,
                get_up_finished,
                self.parameters.cycle_time_ms,
            )
        };
        let falling = fall_plan != GetUpPlan::Request;
        let selection = self
            .fall_selection(&fall_plan, &request.body)
            .unwrap_or_else(|| select(&request.body, &self.parameters.motions));
        let wants_walk = selection.plan == Plan::Walk;
        let mut note = selection.note.clone();
        let mut active = match self.active.take() {
            Some(mut active) if active.selection.plan == selection.plan => {
                active.request = request.clone();
                active.selection.note = selection.note;
                active
            }
            Some(active)
                if !active.can_be_left(self.walk.state())
                    && selection.plan != Plan::Unstiff
                    && !falling =>
            {
                note = Some(match active.selection.plan {
                    Plan::Walk => format!(
                        "the walk stops in its stand pose before the request {:?} is executed",
                        request.body
                    ),
                    _ => format!(
                        "{:?} plays to its end before the request {:?} is executed",
                        active.selection.plan, request.body
                    ),
                });
                active
            }
            _ => {
                if wants_walk {
                    self.walk.begin(positions, stiffnesses);
                }
                Active {
                    player: (!matches!(selection.plan, Plan::Unstiff | Plan::Walk)).then(|| {
                        let chain = self.chain(&selection.plan, &positions);
                        KeyframePlayer::new(chain, positions, stiffnesses)
                    }),
                    selection,
                    request: request.clone(),
                }
            }
        };
        let head = step_head(
            HeadAngles {
                yaw_rad: positions[JointId::HeadYaw],
                pitch_rad: positions[JointId::HeadPitch],
            },
            &request.head,
            self.parameters.cycle_time_ms,
            self.parameters.head_speed_limit_rad_per_s,
        );
        let command = match &mut active.player {
            _ if active.selection.plan == Plan::Walk
                && hold_walk
                && self.last_command.is_some() =>
            {
                // No new frame: the walk holds its last command.
                let mut command = self.last_command.clone().unwrap_or_default();
                command.positions_rad[JointId::HeadYaw] = head.yaw_rad;
                command.positions_rad[JointId::HeadPitch] = head.pitch_rad;
                command
            }
            _ if active.selection.plan == Plan::Walk => {
                let walk_request = if wants_walk {
                    walk_request(&request.body)
                } else {
                    WalkRequest::Stand
                };
                let cycle = Duration::from_secs_f32(self.parameters.cycle_time_ms / 1000.0);
                let sensors = walking_sensors(inputs.sensor_data, cycle);
                let walk = self.walk.step(&walk_request, &sensors);
                let mut positions = walk.positions;
                positions[JointId::HeadYaw] = head.yaw_rad;
                positions[JointId::HeadPitch] = head.pitch_rad;
                JointRequest {
                    positions_rad: positions,
                    stiffnesses: walk.stiffnesses,
                    pose_epoch: epoch,
                }
            }
            None => JointRequest {
                positions_rad: measured,
                stiffnesses: Joints::filled(0.0),
                pose_epoch: epoch,
            },
            Some(player) => {
                let output = player.step(self.parameters.cycle_time_ms, &positions);
                let mut command = JointRequest {
                    positions_rad: output.positions,
                    stiffnesses: output.stiffnesses,
                    pose_epoch: epoch,
                };
                for joint in JointId::ALL.into_iter().filter(|joint| is_head(*joint)) {
                    if output.kept[joint] {
                        command.positions_rad[joint] = match joint {
                            JointId::HeadYaw => head.yaw_rad,
                            _ => head.pitch_rad,
                        };
                    }
                }
                command
            }
        };
        let finished = active
            .player
            .as_ref()
            .is_some_and(KeyframePlayer::is_finished);
        let upright = inputs.fall_state.phase == FallPhase::Upright;
        self.info = MotionInfo {
            current_motion: active.selection.kind,
            executed_request: active.request.clone(),
            can_be_left: active.can_be_left(self.walk.state()),
            is_stable: upright
                && (active.selection.plan == Plan::Walk
                    || finished
                        && matches!(active.selection.kind, MotionKind::Stand | MotionKind::Sit)),
            note: note.or_else(|| active.selection.note.clone()),
        };
        self.odometry = self.walk.odometry();
        self.last_command = Some(command.clone());
        self.active = Some(active);
        command
    }
}

impl Update<JointRequest> for MotionCombinator {
    fn update(&mut self, inputs: &MotionCombinatorInputs<'_>, joint_request: &mut JointRequest) {
        *joint_request = self.tick(inputs);
    }
}

impl Update<MotionInfo> for MotionCombinator {
    /// The state of this tick's `JointRequest` update (which runs first: it is declared first).
    fn update(&mut self, _: &MotionCombinatorInputs<'_>, motion_info: &mut MotionInfo) {
        *motion_info = self.info.clone();
    }
}

impl Update<OdometryData> for MotionCombinator {
    /// The walk's odometry after this tick's `JointRequest` update.
    fn update(&mut self, _: &MotionCombinatorInputs<'_>, odometry: &mut OdometryData) {
        *odometry = self.odometry.clone();
    }
}

#[cfg(test)]
#[path = "motion_combinator_tests.rs"]
mod tests;
