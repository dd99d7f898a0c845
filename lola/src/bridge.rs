//! The `lola` bridge process (`docs/architecture.md` §1): owns the one LoLA connection.
//!
//! Every frame (12 ms): check it, publish `SensorData` (and `RobotIdentity` from the first
//! frame), wait a bounded time for motion's `JointRequest` for this frame, and send it with the
//! newest `LedRequest`. It runs no modules and never waits on anything but LoLA (in slices of
//! [`SLICE`], with a heartbeat after each) and that bounded wait, so it keeps the link when every
//! other process is down, and no LoLA outage looks like a freeze to the supervisor:
//!
//! - motion's request is stale: hold the last pose with stiffness; after `sit_after_ms`, sit the
//!   robot down and let it go limp; resume when motion publishes again — a request planned for
//!   the current pose epoch (`safety.rs`), rate-limited;
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
//!
//! This file holds the interface and the loop; one pass of it (what arrived) is in
//! `bridge_pass.rs`, the command side (motion's request, the command, the last command) in
//! `bridge_output.rs`, the decisions without sockets in `safety.rs`.

use super::bridge_output::eyes;
use super::bridge_pass::{Bridge, Pass};
use super::codec::{self, Command};
use super::parameters::ms;
pub use super::parameters::BridgeParameters;
use super::safety::Safety;
use super::sensor_check::SensorCheck;
use config::ProcessSpec;
use framework::graph::ProcessPlan;
use framework::runtime::{apply_scheduling, Channels};
use ipc::health::{monotonic_ns, ExitReason, HealthRecord, ProcessState, TickStats};
use ipc::HealthBoard;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use types::{Joints, LedRequest, Rgb};

/// Bytes of one LoLA sensor frame.
pub const FRAME_SIZE: usize = 896;
/// Longest wait for LoLA between two heartbeats.
pub const SLICE: Duration = Duration::from_millis(10);
/// Longest time writing one command may take; longer: LoLA does not read, reconnect.
pub const WRITE_TIMEOUT: Duration = Duration::from_millis(50);
/// Asked to stop while LoLA is silent: give up waiting for frames (to sit down) after this.
pub const STOP_WITHOUT_LOLA: Duration = Duration::from_millis(1000);
/// Log lines about bad input at most this often.
pub(super) const LOG_INTERVAL: Duration = Duration::from_secs(1);

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
    let name =
        |representation: &str| framework::graph::channel_name(&setup.plan.name, representation);
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
                        bridge.safety.new_epoch(Instant::now());
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
pub(super) fn install_crash_eyes(stream: &UnixStream) {
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
