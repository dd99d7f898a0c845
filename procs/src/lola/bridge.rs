//! The `lola` bridge process (ARCHITECTURE §1): owns the one LoLA connection.
//!
//! Every frame (12 ms): check it, publish `SensorData` (and `RobotIdentity` from the first
//! frame), wait a bounded time for motion's `JointRequest` for this frame, and send it with the
//! newest `LedRequest`. It runs no modules and never waits on anything but LoLA (in slices of
//! [`SLICE`], with a heartbeat after each) and that bounded wait, so it keeps the link when every
//! other process is down, and no LoLA outage looks like a freeze to the supervisor:
//!
//! - motion's request is stale: hold the last pose with stiffness; after `sit_after_ms`, sit the
//!   robot down and let it go limp; resume when motion publishes again — a request planned for
//!   the current pose epoch ([`safety`](super::safety)), rate-limited;
//! - a malformed frame ([`frame_stream`](super::frame_stream)): counted in the health record's
//!   `rejected_inputs`, logged (once a second), answered with a hold (or sit) command computed
//!   from the last good frame; a non-finite or impossible value in an otherwise good frame takes
//!   its last good value ([`sensor_check`](super::sensor_check)); `reconnect_after_bad_frames`
//!   bad inputs in a row: reconnect;
//! - LoLA silent: heartbeats only, for as long as it takes; after `replan_after_silence_ms` the
//!   pose epoch changes so that motion re-plans from where the robot really is;
//! - `SIGUSR1` from the supervisor (restart limit reached): sit down, stiffness off, red eyes,
//!   for good;
//! - `SIGTERM`: sit down if standing, stiffness off, eyes blue (red after a crash or the safe
//!   state), exit — also while LoLA is silent (after [`STOP_WITHOUT_LOLA`]);
//! - LoLA goes away: reconnect; no LoLA at start: a clear error after a bounded retry.

use super::codec::{self, Command};
use super::frame_stream::{FrameStream, Received};
use super::parameters::ms;
pub use super::parameters::BridgeParameters;
use super::safety::{Mode, Offer, Safety};
use super::sensor_check::SensorCheck;
use crate::framework::graph::ProcessPlan;
use crate::framework::runtime::{apply_scheduling, Channels};
use crate::representations::{
    EyeLeds, JointRequest, Joints, LedRequest, Rgb, RobotIdentity, SensorData,
};
use config::ProcessSpec;
use ipc::health::{monotonic_ns, ExitReason, HealthRecord, ProcessState, TickStats};
use ipc::HealthBoard;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes of one LoLA sensor frame.
pub const FRAME_SIZE: usize = 896;
/// Longest wait for LoLA between two heartbeats.
pub const SLICE: Duration = Duration::from_millis(10);
/// Longest time writing one command may take; longer: LoLA does not read, reconnect.
pub const WRITE_TIMEOUT: Duration = Duration::from_millis(50);
/// Asked to stop while LoLA is silent: give up waiting for frames (to sit down) after this.
pub const STOP_WITHOUT_LOLA: Duration = Duration::from_millis(1000);
/// Log lines about bad input at most this often.
const LOG_INTERVAL: Duration = Duration::from_secs(1);

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

fn eyes(colour: Rgb) -> (EyeLeds, EyeLeds) {
    (EyeLeds::uniform(colour), EyeLeds::uniform(colour))
}

/// The bridge between two frames: its channels, health record and decisions.
struct Bridge<'a> {
    setup: &'a BridgeSetup<'a>,
    parameters: BridgeParameters,
    safe_state: Arc<AtomicBool>,
    sensor_writer: ipc::Writer<'a>,
    identity_writer: ipc::Writer<'a>,
    joint_reader: Option<ipc::Reader<'a>>,
    led_reader: Option<ipc::Reader<'a>>,
    health: ipc::health::HealthWriter<'a>,
    record: HealthRecord,
    safety: Safety,
    check: SensorCheck,
    identity: Option<RobotIdentity>,
    joints_seen: u64,
    leds: LedRequest,
    scratch: Vec<u8>,
    stats: TickStats,
    stopping: bool,
    /// When the last good frame arrived (or the connection was made).
    last_frame: Instant,
    /// When the last bytes arrived, frame or not (or the connection was made).
    last_input: Instant,
    /// The current silence of LoLA has been reported.
    silence_reported: bool,
    /// Bad inputs since the last good frame.
    bad_in_a_row: u32,
    /// Last log line per kind of trouble (rate limit).
    logged: [Option<Instant>; 4],
}

/// Kinds of log lines that are rate-limited.
#[derive(Clone, Copy)]
enum Trouble {
    BadFrame = 0,
    ReplacedValues = 1,
    WrongEpoch = 2,
    BadRequest = 3,
}

/// How one pass of the loop ended.
enum Pass {
    Continue,
    /// The connection is unusable: connect again.
    Reconnect,
    /// Done (sat down after a stop, or stopped while LoLA was silent).
    Finish,
}

impl<'a> Bridge<'a> {
    fn beat(&mut self) -> Result<(), BridgeError> {
        self.record.last_tick_ns = monotonic_ns();
        self.health.publish(&self.record)?;
        Ok(())
    }

    fn may_log(&mut self, trouble: Trouble) -> bool {
        let slot = &mut self.logged[trouble as usize];
        if slot.is_some_and(|at| at.elapsed() < LOG_INTERVAL) {
            return false;
        }
        *slot = Some(Instant::now());
        true
    }

    fn stop_requested(&self) -> bool {
        self.setup.stop.load(Ordering::Relaxed)
    }

    /// Connects, retrying for `timeout` (with heartbeats); `None` when asked to stop first.
    fn connect(&mut self, timeout: Duration) -> Result<Option<FrameStream>, BridgeError> {
        let started = Instant::now();
        loop {
            self.beat()?;
            if self.stop_requested() {
                return Ok(None);
            }
            let attempt = UnixStream::connect(self.setup.socket)
                .and_then(|stream| FrameStream::new(stream, SLICE, WRITE_TIMEOUT));
            match attempt {
                Ok(stream) => {
                    install_crash_eyes(stream.socket());
                    self.last_frame = Instant::now();
                    self.last_input = self.last_frame;
                    self.silence_reported = false;
                    self.bad_in_a_row = 0;
                    return Ok(Some(stream));
                }
                Err(error) if started.elapsed() >= timeout => {
                    return Err(BridgeError::NoLola {
                        path: self.setup.socket.display().to_string(),
                        waited: started.elapsed(),
                        source: error,
                    })
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// One pass: bytes from LoLA (or a slice of silence), and the command they call for.
    fn pass(
        &mut self,
        stream: &mut FrameStream,
        events: &mut Vec<Received>,
    ) -> Result<Pass, BridgeError> {
        if let Err(error) = stream.receive() {
            tracing::error!("LoLA connection lost ({error}); reconnecting");
            return Ok(Pass::Reconnect);
        }
        events.clear();
        stream.parse(events);
        let now = Instant::now();
        if !events.is_empty() {
            self.last_input = now;
            if std::mem::take(&mut self.silence_reported) {
                self.record.set_fault("");
            }
        }
        let mut newest = None;
        let mut rejected = 0_u32;
        for event in events.drain(..) {
            match event {
                // Several frames in one read: the bridge was late; only the newest counts.
                Received::Frame {
                    frame, non_finite, ..
                } => newest = Some((frame, non_finite)),
                Received::Rejected {
                    stream_offset,
                    length,
                    frames,
                    reason,
                } => {
                    rejected = rejected.saturating_add(frames);
                    self.report_bad_input(
                        frames,
                        &format!(
                            "{length} bytes from LoLA at stream byte {stream_offset} are not a frame: {reason}"
                        ),
                    );
                }
            }
        }
        let mut good = None;
        if let Some((mut frame, non_finite)) = newest {
            match self
                .check
                .check(&mut frame.sensor_data, self.parameters.max_replaced_values)
            {
                Ok(replaced) if replaced.is_empty() => good = Some(frame),
                Ok(replaced) => {
                    self.record.faults += 1;
                    if self.may_log(Trouble::ReplacedValues) {
                        let names: Vec<String> = replaced.iter().map(ToString::to_string).collect();
                        let offsets: Vec<String> = non_finite
                            .iter()
                            .map(|value| {
                                format!(
                                    "{}[{}] at frame byte {}",
                                    value.key, value.index, value.offset
                                )
                            })
                            .collect();
                        tracing::warn!(
                            "LoLA frame with values that are not finite or not plausible ({}): the last good values are used{}",
                            names.join(", "),
                            if offsets.is_empty() { String::new() } else { format!(" (non-finite: {})", offsets.join(", ")) }
                        );
                    }
                    self.record
                        .set_fault(&format!("replaced {} sensor values", names_text(&replaced)));
                    good = Some(frame);
                }
                Err(error) => {
                    rejected += 1;
                    self.report_bad_input(1, &format!("a LoLA frame is rejected: {error}"));
                }
            }
        }
        let sensors = match good {
            Some(frame) => {
                self.bad_in_a_row = 0;
                self.good_frame(*frame, now)?
            }
            None if rejected == 0 => return self.silence(now),
            None => {
                self.bad_in_a_row = self.bad_in_a_row.saturating_add(rejected);
                // Hold (or sit) from the last good frame; nothing to hold before the first.
                let Some(last) = self.check.last_good().cloned() else {
                    self.beat()?;
                    return Ok(self.after_bad_input());
                };
                self.safety.stale(&last, now);
                last
            }
        };
        if !self.send_command(stream, &sensors, now)? {
            return Ok(Pass::Reconnect);
        }
        if self.stopping && self.safety.sat() {
            return Ok(Pass::Finish);
        }
        Ok(self.after_bad_input())
    }

    fn after_bad_input(&mut self) -> Pass {
        // While sitting down for good the sit goes on by time; a reconnect would cut it short.
        let finishing = self.stopping || self.safe_state.load(Ordering::Relaxed);
        if self.bad_in_a_row >= self.parameters.reconnect_after_bad_frames && !finishing {
            tracing::error!(
                "{} bad inputs from LoLA in a row: reconnecting",
                self.bad_in_a_row
            );
            return Pass::Reconnect;
        }
        Pass::Continue
    }

    fn report_bad_input(&mut self, frames: u32, text: &str) {
        self.record.rejected_inputs += u64::from(frames);
        self.record.set_fault(text);
        if self.may_log(Trouble::BadFrame) {
            tracing::error!(
                "{text}; holding the last pose from the last good frame ({} rejected so far)",
                self.record.rejected_inputs
            );
        }
    }

    /// A slice without bytes from LoLA.
    fn silence(&mut self, now: Instant) -> Result<Pass, BridgeError> {
        let silent = now.saturating_duration_since(self.last_input);
        if silent >= ms(self.parameters.replan_after_silence_ms) && !self.silence_reported {
            self.silence_reported = true;
            self.record.faults += 1;
            self.record.set_fault("LoLA is silent");
            tracing::warn!("LoLA silent for {silent:.1?}: waiting for it (heartbeats go on)");
        }
        self.beat()?;
        if self.stop_requested() && silent >= STOP_WITHOUT_LOLA {
            tracing::warn!(
                "asked to stop while LoLA is silent ({silent:.1?}): stopping without sitting down"
            );
            return Ok(Pass::Finish);
        }
        Ok(Pass::Continue)
    }

    /// A good frame: publish it (in the current pose epoch) and wait for motion's answer.
    fn good_frame(
        &mut self,
        frame: codec::SensorFrame,
        now: Instant,
    ) -> Result<SensorData, BridgeError> {
        let silent = now.saturating_duration_since(self.last_frame);
        self.last_frame = now;
        if silent >= ms(self.parameters.replan_after_silence_ms) {
            tracing::info!(
                "LoLA is back after {silent:.1?}: motion re-plans from the measured pose"
            );
            self.safety.new_epoch();
        }
        let mut sensors = frame.sensor_data;
        sensors.pose_epoch = self.safety.epoch();
        if self.identity.as_ref() != Some(&frame.robot_identity) {
            ipc::channel::encode(&frame.robot_identity, &mut self.scratch).map_err(|source| {
                ipc::Error::Encode {
                    schema: "RobotIdentity",
                    source,
                }
            })?;
            self.identity_writer.publish(&self.scratch)?;
            self.identity = Some(frame.robot_identity);
        }
        ipc::channel::encode(&sensors, &mut self.scratch).map_err(|source| ipc::Error::Encode {
            schema: "SensorData",
            source,
        })?;
        self.sensor_writer.publish(&self.scratch)?;
        let fresh = self.wait_for_motion(now)?;
        if !fresh {
            self.record.overruns += u64::from(matches!(self.safety.mode, Mode::Following));
            self.safety.stale(&sensors, now);
        }
        Ok(sensors)
    }

    /// Waits (bounded) for motion's request for this frame; whether one was taken.
    fn wait_for_motion(&mut self, now: Instant) -> Result<bool, BridgeError> {
        let Some(mut reader) = self.joint_reader.take() else {
            return Ok(false);
        };
        let result = self.wait_on(&mut reader, now);
        self.joint_reader = Some(reader);
        result
    }

    fn wait_on(&mut self, reader: &mut ipc::Reader<'a>, now: Instant) -> Result<bool, BridgeError> {
        let deadline = Instant::now() + ms(self.parameters.motion_wait_ms);
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let Some(count) = reader.wait_newer(self.joints_seen, remaining)? else {
                return Ok(false);
            };
            self.joints_seen = count;
            if reader.read_latest(&mut self.scratch)?.is_none() {
                return Ok(false);
            }
            let request = match ipc::channel::decode::<JointRequest>(&self.scratch) {
                Ok(request) => request,
                Err(error) => {
                    if self.may_log(Trouble::BadRequest) {
                        tracing::error!("an undecodable JointRequest: {error}");
                    }
                    return Ok(false);
                }
            };
            if self.stopping || self.safe_state.load(Ordering::Relaxed) {
                // Sitting down for good: motion is not followed any more.
                return Ok(false);
            }
            match self.safety.offer(request, now) {
                Offer::Taken => return Ok(true),
                Offer::WrongEpoch { planned } => {
                    if self.may_log(Trouble::WrongEpoch) {
                        tracing::info!(
                            "motion's JointRequest was planned for pose epoch {planned}, the pose is at {}: waiting for motion to re-plan",
                            self.safety.epoch()
                        );
                    }
                    if remaining.is_zero() {
                        return Ok(false);
                    }
                }
                Offer::NotFinite => {
                    self.record.rejected_inputs += 1;
                    if self.may_log(Trouble::BadRequest) {
                        tracing::error!(
                            "motion's JointRequest has a value that is not finite: not sent"
                        );
                    }
                    return Ok(false);
                }
            }
        }
    }

    /// Sends the command for this pass; `false` when the connection is unusable.
    fn send_command(
        &mut self,
        stream: &mut FrameStream,
        sensors: &SensorData,
        now: Instant,
    ) -> Result<bool, BridgeError> {
        let tick_start = Instant::now();
        if let Some(reader) = self.led_reader.as_mut() {
            if reader.read_latest(&mut self.scratch)?.is_some() {
                if let Ok(request) = ipc::channel::decode::<LedRequest>(&self.scratch) {
                    self.leds = request;
                }
            }
        }
        let in_safe_state = self.safe_state.load(Ordering::Relaxed);
        if in_safe_state || self.stop_requested() {
            if !self.stopping && self.stop_requested() {
                tracing::info!("stopping: sitting down, then stiffness off");
                self.stopping = true;
            }
            self.safety.start_sitting(sensors, now);
        }
        let joints = self.safety.joints(sensors, now);
        let mut command = Command::joints_and_leds(&joints, &self.leds);
        if in_safe_state {
            let (left, right) = eyes(Rgb::RED);
            (command.left_eye, command.right_eye) = (Some(left), Some(right));
        }
        let sent = match codec::encode_command(&command) {
            Ok(bytes) => match stream.send(&bytes) {
                Ok(()) => true,
                Err(error) => {
                    tracing::error!("writing to LoLA: {error}; reconnecting");
                    false
                }
            },
            Err(error) => {
                // LED values from another process that are not finite: send the joints alone.
                if self.may_log(Trouble::BadRequest) {
                    tracing::error!(
                        "a command cannot be encoded ({error}): sending the joints only"
                    );
                }
                let bytes = codec::encode_command(&Command::joints(&joints))?;
                stream.send(&bytes).is_ok()
            }
        };
        self.stats.record(tick_start.elapsed(), Instant::now());
        self.stats.fill(&mut self.record);
        self.record.ticks += 1;
        self.beat()?;
        Ok(sent)
    }

    /// The last command: stiffness off, the eyes saying how the bridge ended.
    fn finish(&mut self, stream: Option<FrameStream>) -> Result<BridgeOutcome, BridgeError> {
        let in_safe_state = self.safe_state.load(Ordering::Relaxed);
        let colour = if in_safe_state { Rgb::RED } else { Rgb::BLUE };
        if let Some(mut stream) = stream {
            let mut final_leds = self.leds.clone();
            (final_leds.left_eye, final_leds.right_eye) = eyes(colour);
            let positions = self
                .check
                .last_good()
                .map(|sensors| sensors.joint_positions_rad)
                .unwrap_or_default();
            let limp = JointRequest {
                positions_rad: positions,
                ..JointRequest::default()
            };
            let bytes = codec::encode_command(&Command::joints_and_leds(&limp, &final_leds))?;
            if let Err(error) = stream.send(&bytes) {
                tracing::error!("writing the last command to LoLA: {error}");
            }
            // LoLA reads commands between frames: the next frame shows that the last command
            // was taken before the connection closes (a close with unread frames resets it).
            let deadline = Instant::now() + Duration::from_millis(100);
            while Instant::now() < deadline {
                self.beat()?;
                if !matches!(stream.receive(), Ok(0)) {
                    break;
                }
            }
            let _ = stream.socket().shutdown(std::net::Shutdown::Both);
        }
        self.record.state = ProcessState::Stopped as u32;
        self.beat()?;
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
}

fn names_text(values: &[crate::representations::sensing::SensorValue]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the bridge until SIGTERM; then sits the robot down and sets the eyes.
pub fn run(setup: BridgeSetup<'_>) -> Result<BridgeOutcome, BridgeError> {
    let parameters = BridgeParameters::load(setup.config).map_err(Box::new)?;
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
    let inbound = |representation: &str| {
        setup
            .plan
            .inbound
            .iter()
            .find(|i| i.representation == representation)
            .map(|i| channel(&i.channel))
            .transpose()
            .map(|found| found.map(|c| c.reader()))
    };
    let joint_reader = inbound("JointRequest")?;
    let led_reader = inbound("LedRequest")?;
    let (board, slot) = setup.health;
    let mut record = HealthRecord::named(&setup.plan.name);
    record.pid = std::process::id();
    record.state = ProcessState::Starting as u32;
    record.restarts = setup.restarts;
    (record.last_exit_kind, record.last_exit_value) = setup.last_exit.to_raw();
    record.started_ns = monotonic_ns();
    let now = Instant::now();
    let mut bridge = Bridge {
        setup: &setup,
        safe_state,
        sensor_writer: channel(&name("SensorData"))?.writer()?,
        identity_writer: channel(&name("RobotIdentity"))?.writer()?,
        joints_seen: joint_reader.as_ref().map_or(0, |r| r.published()),
        joint_reader,
        led_reader,
        health: board.slot_writer(slot)?,
        record,
        safety: Safety::new(parameters.clone(), now),
        parameters,
        check: SensorCheck::default(),
        identity: None,
        leds: LedRequest::default(),
        scratch: Vec::new(),
        stats: TickStats::new(Duration::from_secs(1)),
        stopping: false,
        last_frame: now,
        last_input: now,
        silence_reported: false,
        bad_in_a_row: 0,
        logged: [None; 4],
    };
    bridge.beat()?;
    apply_scheduling(setup.spec);

    let timeout = ms(bridge.parameters.connect_timeout_ms);
    let Some(mut stream) = bridge.connect(timeout)? else {
        return bridge.finish(None);
    };
    tracing::info!("connected to LoLA at {}", setup.socket.display());
    bridge.record.state = ProcessState::Running as u32;
    let mut events = Vec::new();
    loop {
        match bridge.pass(&mut stream, &mut events)? {
            Pass::Continue => {}
            Pass::Finish => return bridge.finish(Some(stream)),
            Pass::Reconnect => {
                bridge.record.faults += 1;
                bridge.record.set_fault("reconnecting to LoLA");
                let _ = stream.socket().shutdown(std::net::Shutdown::Both);
                match bridge.connect(Duration::MAX)? {
                    Some(new) => {
                        tracing::info!(
                            "reconnected to LoLA: motion re-plans from the measured pose"
                        );
                        bridge.safety.new_epoch();
                        stream = new;
                    }
                    None => return bridge.finish(None),
                }
            }
        }
    }
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
