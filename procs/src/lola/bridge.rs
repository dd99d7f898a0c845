//! The `lola` bridge process (ARCHITECTURE §1): owns the one LoLA connection.
//!
//! Every frame (12 ms): decode it, publish `SensorData` (and `RobotIdentity` from the first
//! frame), wait a bounded time for motion's `JointRequest` for this frame, and send it with the
//! newest `LedRequest`. It runs no modules and never waits on anything but LoLA and that bounded
//! wait, so it keeps the link when every other process is down:
//!
//! - motion's request is stale: hold the last pose with stiffness; after `sit_after_ms`, sit the
//!   robot down and let it go limp; resume when motion publishes again;
//! - `SIGUSR1` from the supervisor (restart limit reached): sit down, stiffness off, red eyes,
//!   for good;
//! - `SIGTERM`: sit down if standing, stiffness off, eyes blue (red after a crash or the safe
//!   state), exit;
//! - LoLA goes away: reconnect; no LoLA at start: a clear error after a bounded retry.

use super::codec::{self, Command};
use crate::framework::graph::ProcessPlan;
use crate::framework::runtime::{apply_scheduling, Channels};
use crate::representations::{
    EyeLeds, JointId, JointRequest, Joints, LedRequest, Rgb, RobotIdentity, SensorData,
};
use config::ProcessSpec;
use ipc::health::{monotonic_ns, ExitReason, HealthRecord, ProcessState, TickStats};
use ipc::HealthBoard;
use serde::Deserialize;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes of one LoLA sensor frame.
pub const FRAME_SIZE: usize = 896;

/// The bridge's parameters (`LolaBridge.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BridgeParameters {
    /// Longest wait for motion's request after publishing a frame, ms.
    pub motion_wait_ms: f32,
    /// Motion's request counts as stale after this long without a new one, ms.
    pub stale_after_ms: f32,
    /// A stale request is held with stiffness this long; then the robot sits down, ms.
    pub sit_after_ms: f32,
    /// Duration of the sit-down motion, ms.
    pub sit_duration_ms: f32,
    /// Stiffness while sitting down.
    pub sit_stiffness: f32,
    /// Knee pitch above which the robot counts as sitting (no sit-down needed), rad.
    pub sitting_knee_pitch_rad: f32,
    /// How long to retry connecting to LoLA at start, ms.
    pub connect_timeout_ms: f32,
    /// The sitting pose, rad, by joint name (`LeftKneePitch` …); joints not named keep 0.
    pub sit_pose_rad: std::collections::BTreeMap<String, f32>,
}

impl Default for BridgeParameters {
    fn default() -> Self {
        let sit_pose = [
            ("LeftShoulderPitch", 1.4),
            ("LeftShoulderRoll", 0.2),
            ("LeftElbowYaw", -1.4),
            ("LeftElbowRoll", -0.5),
            ("LeftHipPitch", -0.87),
            ("LeftKneePitch", 2.13),
            ("LeftAnklePitch", -1.22),
            ("RightHipPitch", -0.87),
            ("RightKneePitch", 2.13),
            ("RightAnklePitch", -1.22),
            ("RightShoulderPitch", 1.4),
            ("RightShoulderRoll", -0.2),
            ("RightElbowYaw", 1.4),
            ("RightElbowRoll", 0.5),
        ];
        BridgeParameters {
            motion_wait_ms: 6.0,
            stale_after_ms: 36.0,
            sit_after_ms: 1000.0,
            sit_duration_ms: 1500.0,
            sit_stiffness: 0.6,
            sitting_knee_pitch_rad: 1.8,
            connect_timeout_ms: 5000.0,
            sit_pose_rad: sit_pose
                .into_iter()
                .map(|(name, angle)| (name.to_owned(), angle))
                .collect(),
        }
    }
}

fn ms(value: f32) -> Duration {
    Duration::from_secs_f32(value.max(0.0) / 1000.0)
}

/// Everything the bridge needs.
#[derive(Debug)]
pub struct BridgeSetup<'a> {
    /// Its plan (channels).
    pub plan: &'a ProcessPlan,
    /// Its process-table entry.
    pub spec: &'a ProcessSpec,
    /// The configuration (`LolaBridge.toml`).
    pub config: &'a config::Config,
    /// Its channels: SensorData, RobotIdentity out; JointRequest, LedRequest in.
    pub channels: &'a Channels,
    /// Health board and slot.
    pub health: (&'a HealthBoard, usize),
    /// The LoLA socket.
    pub socket: &'a Path,
    /// SIGTERM / SIGINT.
    pub stop: Arc<AtomicBool>,
    /// Given by the supervisor, for the health board.
    pub restarts: u32,
    /// Given by the supervisor, for the health board.
    pub last_exit: ExitReason,
}

/// How the bridge ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeOutcome {
    /// Stopped on request after sitting the robot down; eyes blue.
    Stopped,
    /// Stopped after the safe state; eyes red.
    StoppedInSafeState,
}

impl BridgeOutcome {
    /// The process exit status.
    pub fn exit_status(self) -> u8 {
        0
    }
}

/// What can stop the bridge from running.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// No LoLA answered at the socket.
    #[error("no LoLA at {path} after {waited:?} of retrying: {source}")]
    NoLola {
        /// The socket path.
        path: String,
        /// How long it retried.
        waited: Duration,
        /// The last error.
        source: std::io::Error,
    },
    /// `sit_pose_rad` names no joint.
    #[error("LolaBridge.toml: sit_pose_rad.{name} is not a joint; joints: {known}")]
    UnknownJoint {
        /// The key.
        name: String,
        /// The joint names.
        known: String,
    },
    /// A channel the bridge needs was not handed to it.
    #[error("the bridge needs channel `{0}`")]
    MissingChannel(String),
    /// The bridge's parameters.
    #[error(transparent)]
    Config(#[from] Box<config::ConfigError>),
    /// Shared memory.
    #[error(transparent)]
    Ipc(#[from] ipc::Error),
    /// Encoding a command.
    #[error("encoding a LoLA command: {0}")]
    Encode(#[from] super::msgpack::EncodeError),
}

/// What the bridge sends when motion's request is missing.
#[derive(Debug, Clone, PartialEq)]
enum Mode {
    /// Motion has not published yet: measured angles, stiffness 0 (B-Human's "off").
    WaitingForMotion,
    /// Motion's requests arrive.
    Following,
    /// Motion is stale: the last request is held.
    Holding,
    /// Sitting down from `from` since `started`.
    Sitting { from: Joints<f32>, started: Instant },
    /// Sat down: stiffness 0.
    Limp,
}

/// The decision logic, without sockets: given the newest inputs, what to send.
#[derive(Debug)]
struct Safety {
    parameters: BridgeParameters,
    sit_pose: Joints<f32>,
    mode: Mode,
    last_request: Option<JointRequest>,
    last_fresh: Option<Instant>,
}

impl Safety {
    fn new(parameters: BridgeParameters) -> Self {
        let sit_pose = Joints::from_fn(|joint| {
            parameters
                .sit_pose_rad
                .get(&format!("{joint:?}"))
                .copied()
                .unwrap_or(0.0)
        });
        Safety {
            parameters,
            sit_pose,
            mode: Mode::WaitingForMotion,
            last_request: None,
            last_fresh: None,
        }
    }

    fn is_sitting(&self, sensors: &SensorData) -> bool {
        let knees = [JointId::LeftKneePitch, JointId::RightKneePitch];
        let stiff = knees
            .iter()
            .any(|&knee| sensors.joint_stiffnesses[knee] > 0.05);
        let bent = knees.iter().all(|&knee| {
            sensors.joint_positions_rad[knee] > self.parameters.sitting_knee_pitch_rad
        });
        !stiff || bent
    }

    fn start_sitting(&mut self, sensors: &SensorData, now: Instant) {
        if matches!(self.mode, Mode::Sitting { .. } | Mode::Limp) {
            return;
        }
        self.mode = if self.is_sitting(sensors) {
            Mode::Limp
        } else {
            Mode::Sitting {
                from: sensors.joint_positions_rad,
                started: now,
            }
        };
    }

    /// A fresh request from motion arrived (unless in safe state).
    fn fresh(&mut self, request: JointRequest, now: Instant) {
        self.last_request = Some(request);
        self.last_fresh = Some(now);
        self.mode = Mode::Following;
    }

    /// No fresh request this frame: update the mode from the time since the last one.
    fn stale(&mut self, sensors: &SensorData, now: Instant) {
        let Some(last) = self.last_fresh else { return };
        let since = now.duration_since(last);
        if matches!(self.mode, Mode::Following) && since >= ms(self.parameters.stale_after_ms) {
            tracing::warn!("motion's JointRequest is stale ({since:?}): holding the last pose");
            self.mode = Mode::Holding;
        }
        if matches!(self.mode, Mode::Holding) && since >= ms(self.parameters.sit_after_ms) {
            tracing::warn!(
                "motion did not return within {:?}: sitting down",
                ms(self.parameters.sit_after_ms)
            );
            self.start_sitting(sensors, now);
        }
    }

    /// Whether the sit-down (if any) is complete.
    fn sat(&self) -> bool {
        matches!(self.mode, Mode::Limp)
    }

    /// The joints to send now.
    fn joints(&mut self, sensors: &SensorData, now: Instant) -> JointRequest {
        match &self.mode {
            Mode::WaitingForMotion | Mode::Limp => JointRequest {
                positions_rad: sensors.joint_positions_rad,
                stiffnesses: Joints::filled(0.0),
            },
            Mode::Following | Mode::Holding => self.last_request.clone().unwrap_or_default(),
            Mode::Sitting { from, started } => {
                let duration = ms(self.parameters.sit_duration_ms);
                let phase = (now.duration_since(*started).as_secs_f32()
                    / duration.as_secs_f32().max(1e-3))
                .min(1.0);
                // Smooth start and end (cosine), from where the joints were to the sitting pose.
                let blend = 0.5 - 0.5 * (std::f32::consts::PI * phase).cos();
                let positions = Joints::from_fn(|joint| {
                    from[joint] + (self.sit_pose[joint] - from[joint]) * blend
                });
                let request = JointRequest {
                    positions_rad: positions,
                    stiffnesses: Joints::filled(self.parameters.sit_stiffness),
                };
                if phase >= 1.0 {
                    self.mode = Mode::Limp;
                }
                request
            }
        }
    }
}

fn eyes(colour: Rgb) -> (EyeLeds, EyeLeds) {
    (EyeLeds::uniform(colour), EyeLeds::uniform(colour))
}

struct Connection {
    stream: UnixStream,
    frame: [u8; FRAME_SIZE],
}

fn connect(path: &Path, timeout: Duration) -> Result<UnixStream, BridgeError> {
    let started = Instant::now();
    loop {
        match UnixStream::connect(path) {
            Ok(stream) => {
                stream
                    .set_read_timeout(Some(Duration::from_millis(500)))
                    .ok();
                return Ok(stream);
            }
            Err(error) if started.elapsed() >= timeout => {
                return Err(BridgeError::NoLola {
                    path: path.display().to_string(),
                    waited: started.elapsed(),
                    source: error,
                })
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Runs the bridge until SIGTERM; then sits the robot down and sets the eyes.
pub fn run(setup: BridgeSetup<'_>) -> Result<BridgeOutcome, BridgeError> {
    let parameters: BridgeParameters = setup
        .config
        .parameters_or_default("LolaBridge")
        .map_err(Box::new)?;
    let joint_names: Vec<String> = JointId::ALL
        .iter()
        .map(|joint| format!("{joint:?}"))
        .collect();
    if let Some(name) = parameters
        .sit_pose_rad
        .keys()
        .find(|name| !joint_names.contains(name))
    {
        return Err(BridgeError::UnknownJoint {
            name: name.clone(),
            known: joint_names.join(", "),
        });
    }
    let safe_state = Arc::new(AtomicBool::new(false));
    if let Err(error) =
        signal_hook::flag::register(signal_hook::consts::SIGUSR1, safe_state.clone())
    {
        tracing::error!("cannot install the SIGUSR1 (safe state) handler: {error}");
    }
    let channel = |name: &str| {
        setup
            .channels
            .get(name)
            .ok_or_else(|| BridgeError::MissingChannel(name.to_owned()))
    };
    let name = |representation: &str| {
        crate::framework::graph::channel_name(&setup.plan.name, representation)
    };
    let mut sensor_writer = channel(&name("SensorData"))?.writer()?;
    let mut identity_writer = channel(&name("RobotIdentity"))?.writer()?;
    let joint_channel = setup
        .plan
        .inbound
        .iter()
        .find(|i| i.representation == "JointRequest");
    let led_channel = setup
        .plan
        .inbound
        .iter()
        .find(|i| i.representation == "LedRequest");
    let mut joint_reader = joint_channel
        .map(|i| channel(&i.channel))
        .transpose()?
        .map(|c| c.reader());
    let mut led_reader = led_channel
        .map(|i| channel(&i.channel))
        .transpose()?
        .map(|c| c.reader());

    let (board, slot) = setup.health;
    let mut health = board.slot_writer(slot)?;
    let mut record = HealthRecord::named(&setup.plan.name);
    record.pid = std::process::id();
    record.state = ProcessState::Starting as u32;
    record.restarts = setup.restarts;
    (record.last_exit_kind, record.last_exit_value) = setup.last_exit.to_raw();
    record.started_ns = monotonic_ns();
    health.publish(&record)?;
    apply_scheduling(setup.spec);

    let stream = connect(setup.socket, ms(parameters.connect_timeout_ms))?;
    tracing::info!("connected to LoLA at {}", setup.socket.display());
    let mut connection = Connection {
        stream,
        frame: [0; FRAME_SIZE],
    };
    let mut safety = Safety::new(parameters.clone());
    let mut identity: Option<RobotIdentity> = None;
    let mut joints_seen = joint_reader.as_ref().map_or(0, |r| r.published());
    let mut leds = LedRequest::default();
    let mut scratch = Vec::new();
    let mut stats = TickStats::new(Duration::from_secs(1));
    let mut last_decode_error: Option<Instant> = None;
    let mut stopping = false;
    record.state = ProcessState::Running as u32;

    loop {
        // 1. A frame from LoLA (reconnect if LoLA went away).
        if let Err(error) = connection.stream.read_exact(&mut connection.frame) {
            tracing::error!("LoLA connection lost ({error}); reconnecting");
            loop {
                record.last_tick_ns = monotonic_ns();
                health.publish(&record)?;
                if setup.stop.load(Ordering::Relaxed) {
                    return Ok(BridgeOutcome::Stopped);
                }
                if let Ok(stream) = connect(setup.socket, Duration::from_millis(100)) {
                    tracing::info!("reconnected to LoLA");
                    install_crash_eyes(&stream);
                    connection.stream = stream;
                    break;
                }
            }
            continue;
        }
        let tick_start = Instant::now();
        let now = tick_start;
        let frame = match codec::decode_sensor_frame(&connection.frame) {
            Ok(frame) => frame,
            Err(error) => {
                if last_decode_error.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
                    tracing::error!("a malformed LoLA frame: {error}; holding the last command");
                    last_decode_error = Some(Instant::now());
                }
                continue;
            }
        };
        let sensors = frame.sensor_data;
        if identity.as_ref() != Some(&frame.robot_identity) {
            identity = Some(frame.robot_identity.clone());
            ipc::channel::encode(&frame.robot_identity, &mut scratch).map_err(|source| {
                ipc::Error::Encode {
                    schema: "RobotIdentity",
                    source,
                }
            })?;
            identity_writer.publish(&scratch)?;
        }
        ipc::channel::encode(&sensors, &mut scratch).map_err(|source| ipc::Error::Encode {
            schema: "SensorData",
            source,
        })?;
        sensor_writer.publish(&scratch)?;

        // 2. Motion's answer for this frame (bounded wait), the newest LEDs.
        let mut fresh = false;
        if let Some(reader) = joint_reader.as_mut() {
            if let Some(count) = reader.wait_newer(joints_seen, ms(parameters.motion_wait_ms))? {
                joints_seen = count;
                if reader.read_latest(&mut scratch)?.is_some() {
                    match ipc::channel::decode::<JointRequest>(&scratch) {
                        Ok(request) => {
                            fresh = true;
                            safety_fresh(&mut safety, request, now, &safe_state, stopping);
                        }
                        Err(error) => tracing::error!("an undecodable JointRequest: {error}"),
                    }
                }
            }
        }
        if !fresh {
            record.overruns += u64::from(matches!(safety.mode, Mode::Following));
            safety.stale(&sensors, now);
        }
        if let Some(reader) = led_reader.as_mut() {
            if reader.read_latest(&mut scratch)?.is_some() {
                if let Ok(request) = ipc::channel::decode::<LedRequest>(&scratch) {
                    leds = request;
                }
            }
        }
        let in_safe_state = safe_state.load(Ordering::Relaxed);
        if in_safe_state || setup.stop.load(Ordering::Relaxed) {
            if !stopping && setup.stop.load(Ordering::Relaxed) {
                tracing::info!("stopping: sitting down, then stiffness off");
                stopping = true;
            }
            safety.start_sitting(&sensors, now);
        }

        // 3. The command.
        let joints = safety.joints(&sensors, now);
        let mut command = Command::joints_and_leds(&joints, &leds);
        if in_safe_state {
            (command.left_eye, command.right_eye) = {
                let (left, right) = eyes(Rgb::RED);
                (Some(left), Some(right))
            };
        }
        let bytes = codec::encode_command(&command)?;
        if let Err(error) = connection.stream.write_all(&bytes) {
            tracing::error!("writing to LoLA: {error}");
        }

        // 4. Heartbeat.
        stats.record(tick_start.elapsed(), Instant::now());
        stats.fill(&mut record);
        record.ticks += 1;
        record.last_tick_ns = monotonic_ns();
        health.publish(&record)?;

        if stopping && safety.sat() {
            break;
        }
    }

    // Stiffness off and the exit status in the eyes: blue after a clean stop, red after the
    // safe state.
    let in_safe_state = safe_state.load(Ordering::Relaxed);
    let colour = if in_safe_state { Rgb::RED } else { Rgb::BLUE };
    let mut final_leds = leds;
    (final_leds.left_eye, final_leds.right_eye) = eyes(colour);
    let mut frame_sensors = SensorData::default();
    if connection.stream.read_exact(&mut connection.frame).is_ok() {
        if let Ok(frame) = codec::decode_sensor_frame(&connection.frame) {
            frame_sensors = frame.sensor_data;
        }
    }
    let limp = JointRequest {
        positions_rad: frame_sensors.joint_positions_rad,
        stiffnesses: Joints::filled(0.0),
    };
    let bytes = codec::encode_command(&Command::joints_and_leds(&limp, &final_leds))?;
    if let Err(error) = connection.stream.write_all(&bytes) {
        tracing::error!("writing the last command to LoLA: {error}");
    }
    // LoLA reads commands between frames: the next frame shows that the last command was taken
    // before the connection closes (a close with unread frames resets the connection).
    let _ = connection.stream.read_exact(&mut connection.frame);
    let _ = connection.stream.shutdown(std::net::Shutdown::Both);
    record.state = ProcessState::Stopped as u32;
    health.publish(&record)?;
    tracing::info!(
        "stopped: stiffness off, eyes {}",
        if in_safe_state { "red" } else { "blue" }
    );
    Ok(if in_safe_state {
        BridgeOutcome::StoppedInSafeState
    } else {
        BridgeOutcome::Stopped
    })
}

/// The connection the panic hook uses to leave the robot limp with red eyes.
static CRASH_STREAM: std::sync::Mutex<Option<UnixStream>> = std::sync::Mutex::new(None);

/// On a panic anywhere in the bridge, the last thing it sends LoLA is stiffness zero and red
/// eyes (B-Human's crash signal), then the default hook reports the panic.
fn install_crash_eyes(stream: &UnixStream) {
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let first = CRASH_STREAM
        .lock()
        .map(|mut slot| slot.replace(clone).is_none())
        .unwrap_or(false);
    if !first {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut slot) = CRASH_STREAM.try_lock() {
            if let Some(stream) = slot.as_mut() {
                let (left, right) = eyes(Rgb::RED);
                let command = Command {
                    stiffnesses: Some(Joints::filled(0.0)),
                    left_eye: Some(left),
                    right_eye: Some(right),
                    ..Command::default()
                };
                if let Ok(bytes) = codec::encode_command(&command) {
                    let _ = stream.write_all(&bytes);
                }
            }
        }
        previous(info);
    }));
}

/// Takes a fresh request unless the robot is being sat down for good.
fn safety_fresh(
    safety: &mut Safety,
    request: JointRequest,
    now: Instant,
    safe_state: &AtomicBool,
    stopping: bool,
) {
    if safe_state.load(Ordering::Relaxed) || stopping {
        return;
    }
    safety.fresh(request, now);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing() -> SensorData {
        let mut sensors = SensorData {
            joint_stiffnesses: Joints::filled(0.8),
            ..Default::default()
        };
        sensors.joint_positions_rad[JointId::LeftKneePitch] = 0.9;
        sensors.joint_positions_rad[JointId::RightKneePitch] = 0.9;
        sensors
    }

    fn request(knee: f32) -> JointRequest {
        let mut request = JointRequest {
            stiffnesses: Joints::filled(0.8),
            ..Default::default()
        };
        request.positions_rad[JointId::LeftKneePitch] = knee;
        request
    }

    #[test]
    fn waits_limp_then_follows_motion() {
        let mut safety = Safety::new(BridgeParameters::default());
        let now = Instant::now();
        let sensors = standing();
        assert_eq!(
            safety.joints(&sensors, now).stiffnesses,
            Joints::filled(0.0)
        );
        safety.fresh(request(1.0), now);
        assert_eq!(safety.joints(&sensors, now), request(1.0));
    }

    #[test]
    fn holds_a_stale_pose_then_sits_smoothly_then_goes_limp() {
        let parameters = BridgeParameters::default();
        let mut safety = Safety::new(parameters.clone());
        let start = Instant::now();
        let sensors = standing();
        safety.fresh(request(0.9), start);
        let at = |ms_: f32| start + ms(ms_);
        safety.stale(&sensors, at(50.0));
        assert_eq!(safety.mode, Mode::Holding);
        assert_eq!(
            safety.joints(&sensors, at(50.0)),
            request(0.9),
            "holds with stiffness"
        );
        safety.stale(&sensors, at(parameters.sit_after_ms + 1.0));
        assert!(matches!(safety.mode, Mode::Sitting { .. }));
        let mut previous = 0.9f32;
        let mut time = parameters.sit_after_ms + 1.0;
        while !safety.sat() {
            let joints = safety.joints(&sensors, at(time));
            let knee = joints.positions_rad[JointId::LeftKneePitch];
            assert!(
                knee >= previous - 1e-6 && knee - previous < 0.05,
                "smooth: {previous} -> {knee}"
            );
            previous = knee;
            time += 12.0;
        }
        assert!((previous - 2.13).abs() < 1e-3, "ends in the sitting pose");
        assert_eq!(
            safety.joints(&sensors, at(time)).stiffnesses,
            Joints::filled(0.0)
        );
        // Motion returns: follow again.
        safety.fresh(request(1.0), at(time + 12.0));
        assert_eq!(safety.mode, Mode::Following);
    }

    #[test]
    fn a_sitting_robot_is_not_sat_down_again() {
        let mut safety = Safety::new(BridgeParameters::default());
        let mut sensors = SensorData::default();
        sensors.joint_positions_rad[JointId::LeftKneePitch] = 2.1;
        sensors.joint_positions_rad[JointId::RightKneePitch] = 2.1;
        sensors.joint_stiffnesses = Joints::filled(0.6);
        safety.start_sitting(&sensors, Instant::now());
        assert!(safety.sat());
    }
}
