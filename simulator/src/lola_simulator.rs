//! A LoLA simulator: the same bytes as the robot's LoLA on a Unix socket, from a
//! [`SimulatedBody`].
//!
//! ```no_run
//! use simulator::lola_simulator::{Button, LolaSimulator, SimulatorConfig};
//! use std::time::Duration;
//! let simulator = LolaSimulator::start(SimulatorConfig::new("/tmp/cortex-run/lola")).unwrap();
//! let handle = simulator.handle();
//! handle.press(Button::Chest, Duration::from_millis(300));
//! println!("{:?}", handle.last_command());
//! ```
//!
//! Behaviour, as LoLA's:
//! - one sensor frame of exactly 896 bytes every 12 ms, paced by absolute deadlines (no drift);
//! - **one client at a time.** A second client's `connect` succeeds (the kernel queues it in the
//!   listen backlog) but it receives nothing until the first client is gone; then it is served;
//! - commands are read without blocking between frames; several maps per frame, partial maps and
//!   maps split across reads are fine; each key keeps its last value;
//! - a client that sends bytes that are not a command map, stops reading (a frame cannot be
//!   written within [`WRITE_TIMEOUT`]) or disconnects is dropped with a log line, and the next
//!   client is accepted. Nothing a client sends can stop the simulator.
//!
//! One std thread runs the loop; [`SimulatorHandle`] is the thread-safe way in from outside
//! (buttons, the last command, counters). Dropping [`LolaSimulator`] stops the thread and removes
//! the socket file.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::simulated_body::{SimulatedBody, SITTING_POSE_RAD};
use lola::codec::{
    decode_command_prefix, encode_sensor_frame, Command, EncodeError, SENSOR_FRAME_SIZE,
};
use types::{BatteryState, Joints, RobotIdentity, SonarReadings, TouchSensors};

/// LoLA's frame period.
pub const FRAME_PERIOD: Duration = Duration::from_millis(12);
/// How long writing one frame may take before the client counts as not reading.
pub const WRITE_TIMEOUT: Duration = Duration::from_millis(500);
/// Unparsed command bytes beyond which a client counts as sending garbage (4 full commands).
pub const MAX_PENDING_COMMAND_BYTES: usize = 4 * 786;

/// How the simulated robot looks and moves.
#[derive(Debug, Clone)]
pub struct SimulatorConfig {
    /// Where to listen (LoLA: `/tmp/robocup`). A stale socket file there is replaced.
    pub socket_path: PathBuf,
    /// Sent as `RobotConfig`; serials of 20 characters and versions of 5 keep the frame at 896 bytes.
    pub robot_identity: RobotIdentity,
    pub frame_period: Duration,
    pub battery: BatteryState,
    /// Reported by both sonars, m.
    pub sonar_distance_m: f32,
    /// Joint speed at stiffness 1, rad/s.
    pub max_joint_speed_rad_per_s: f32,
    /// Speed at which limp joints sag toward `rest_pose_rad`, rad/s.
    pub sag_speed_rad_per_s: f32,
    /// Where limp joints end up and where the robot starts: sitting.
    pub rest_pose_rad: Joints<f32>,
}

impl SimulatorConfig {
    /// A NAO v6 with nao_lola's test serials, a full battery, not charging.
    pub fn new(socket_path: impl Into<PathBuf>) -> Self {
        Self {
            socket_path: socket_path.into(),
            robot_identity: RobotIdentity {
                body_id: "P0000073A07S94700012".into(),
                body_version: "6.0.0".into(),
                head_id: "P0000074A05S93M00061".into(),
                head_version: "6.0.0".into(),
            },
            frame_period: FRAME_PERIOD,
            // Status −32708 (0x803C) is the Webots emulator's default: charging bit 0x80 clear.
            battery: BatteryState::new(1.0, -32708, -1.2, 32.0),
            sonar_distance_m: 2.55,
            max_joint_speed_rad_per_s: 5.0,
            sag_speed_rad_per_s: 1.0,
            rest_pose_rad: SITTING_POSE_RAD,
        }
    }
}

/// Why the simulator could not start.
#[derive(Debug, Error)]
pub enum SimulatorError {
    #[error("cannot listen on {path}: {source}")]
    Bind {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} exists and is not a socket; refusing to replace it")]
    PathNotASocket { path: PathBuf },
    #[error("cannot remove the stale socket {path}: {source}")]
    RemoveStale {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the configured robot makes a {found}-byte sensor frame; LoLA clients read exactly {SENSOR_FRAME_SIZE} (serials must have 20 characters, versions 5)")]
    FrameSize { found: usize },
    #[error("the configured robot cannot be encoded: {0}")]
    Encode(#[from] EncodeError),
    #[error("cannot start the simulator thread: {0}")]
    Spawn(std::io::Error),
}

/// A button or touch sensor that can be pressed from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    Chest,
    HeadFront,
    HeadMiddle,
    HeadRear,
    LeftFootBumperLeft,
    LeftFootBumperRight,
    LeftHandBack,
    LeftHandLeft,
    LeftHandRight,
    RightFootBumperLeft,
    RightFootBumperRight,
    RightHandBack,
    RightHandLeft,
    RightHandRight,
}

const BUTTON_COUNT: usize = 14;

/// Counters of what happened, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimulatorStatistics {
    pub frames_sent: u64,
    pub commands_received: u64,
    pub clients_accepted: u64,
    /// Clients dropped for garbage or for not reading.
    pub clients_dropped: u64,
    pub clients_disconnected: u64,
    /// Cycles that started more than a period late.
    pub overruns: u64,
}

#[derive(Debug)]
struct Shared {
    pressed_until: [Option<Instant>; BUTTON_COUNT],
    last_command: Option<Command>,
    actuators: Command,
    joint_positions_rad: Joints<f32>,
    statistics: SimulatorStatistics,
}

/// Thread-safe access to a running simulator. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SimulatorHandle {
    shared: Arc<Mutex<Shared>>,
}

impl SimulatorHandle {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic elsewhere cannot leave this plain data inconsistent: keep going.
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Holds `button` pressed for `duration` from now.
    pub fn press(&self, button: Button, duration: Duration) {
        self.lock().pressed_until[button as usize] = Some(Instant::now() + duration);
    }

    /// Releases `button` now.
    pub fn release(&self, button: Button) {
        self.lock().pressed_until[button as usize] = None;
    }

    /// The newest command map received, exactly as decoded (maybe partial).
    pub fn last_command(&self) -> Option<Command> {
        self.lock().last_command.clone()
    }

    /// Every key's last value over all commands received so far (what LoLA applies).
    pub fn actuators(&self) -> Command {
        self.lock().actuators.clone()
    }

    /// The simulated joint angles after the latest step, rad.
    pub fn joint_positions_rad(&self) -> Joints<f32> {
        self.lock().joint_positions_rad
    }

    pub fn statistics(&self) -> SimulatorStatistics {
        self.lock().statistics
    }
}

/// A running simulator; dropping it stops it.
#[derive(Debug)]
pub struct LolaSimulator {
    handle: SimulatorHandle,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    socket_path: PathBuf,
}

impl LolaSimulator {
    /// Binds the socket and starts serving frames.
    pub fn start(config: SimulatorConfig) -> Result<Self, SimulatorError> {
        let body = SimulatedBody::new(
            config.rest_pose_rad,
            config.max_joint_speed_rad_per_s,
            config.sag_speed_rad_per_s,
        );
        let probe = body.sensor_data(
            TouchSensors::default(),
            config.battery.clone(),
            SonarReadings::default(),
        );
        let found = encode_sensor_frame(&probe, &config.robot_identity)?.len();
        if found != SENSOR_FRAME_SIZE {
            return Err(SimulatorError::FrameSize { found });
        }
        let listener = bind(&config.socket_path)?;
        let shared = Arc::new(Mutex::new(Shared {
            pressed_until: [None; BUTTON_COUNT],
            last_command: None,
            actuators: Command::default(),
            joint_positions_rad: body.positions_rad,
            statistics: SimulatorStatistics::default(),
        }));
        let handle = SimulatorHandle { shared };
        let stop = Arc::new(AtomicBool::new(false));
        let socket_path = config.socket_path.clone();
        let mut server = Server {
            config,
            listener,
            client: None,
            body,
            handle: handle.clone(),
            stop: stop.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("lola-simulator".into())
            .spawn(move || server.run())
            .map_err(SimulatorError::Spawn)?;
        Ok(Self {
            handle,
            stop,
            thread: Some(thread),
            socket_path,
        })
    }

    pub fn handle(&self) -> SimulatorHandle {
        self.handle.clone()
    }

    pub fn socket_path(&self) -> &Path {
        &self.socket_path
    }
}

impl Drop for LolaSimulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the LoLA simulator thread panicked");
            }
        }
        let _ = std::fs::remove_file(&self.socket_path);
    }
}

fn bind(path: &Path) -> Result<UnixListener, SimulatorError> {
    if let Ok(metadata) = std::fs::symlink_metadata(path) {
        if !metadata.file_type().is_socket() {
            return Err(SimulatorError::PathNotASocket {
                path: path.to_path_buf(),
            });
        }
        std::fs::remove_file(path).map_err(|source| SimulatorError::RemoveStale {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let listener = UnixListener::bind(path).map_err(|source| SimulatorError::Bind {
        path: path.to_path_buf(),
        source,
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|source| SimulatorError::Bind {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(listener)
}

#[derive(Debug)]
struct Client {
    stream: UnixStream,
    pending: Vec<u8>,
    id: u64,
}

/// Why a client is no longer served.
#[derive(Debug)]
enum ClientEnd {
    Disconnected,
    Dropped(String),
}

#[derive(Debug)]
struct Server {
    config: SimulatorConfig,
    listener: UnixListener,
    client: Option<Client>,
    body: SimulatedBody,
    handle: SimulatorHandle,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn run(&mut self) {
        let period = self.config.frame_period;
        let mut deadline = Instant::now();
        while !self.stop.load(Ordering::Relaxed) {
            self.accept();
            if let Some(mut client) = self.client.take() {
                match self.receive(&mut client) {
                    Ok(()) => self.client = Some(client),
                    Err(end) => self.end_client(&client, end),
                }
            }
            self.body.step(period);
            if let Some(mut client) = self.client.take() {
                match self.send_frame(&mut client) {
                    Ok(()) => self.client = Some(client),
                    Err(end) => self.end_client(&client, end),
                }
            }
            self.handle.lock().joint_positions_rad = self.body.positions_rad;

            deadline += period;
            let now = Instant::now();
            if now > deadline + period {
                // Far behind (the machine stalled): count it and restart the schedule from now
                // instead of sending a burst of frames.
                self.handle.lock().statistics.overruns += 1;
                deadline = now;
            } else if deadline > now {
                std::thread::sleep(deadline - now);
            }
        }
    }

    fn accept(&mut self) {
        if self.client.is_some() {
            return;
        }
        match self.listener.accept() {
            Ok((stream, _)) => {
                if let Err(error) = stream.set_nonblocking(true) {
                    tracing::warn!("LoLA simulator: cannot configure a new client: {error}");
                    return;
                }
                let mut shared = self.handle.lock();
                shared.statistics.clients_accepted += 1;
                let id = shared.statistics.clients_accepted;
                drop(shared);
                tracing::info!("LoLA simulator: client {id} connected");
                self.client = Some(Client {
                    stream,
                    pending: Vec::new(),
                    id,
                });
            }
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            Err(error) => tracing::warn!("LoLA simulator: accept failed: {error}"),
        }
    }

    /// Reads what the client sent since the last frame and applies every complete command.
    fn receive(&mut self, client: &mut Client) -> Result<(), ClientEnd> {
        let mut chunk = [0_u8; 4096];
        let mut disconnected = false;
        loop {
            match client.stream.read(&mut chunk) {
                Ok(0) => {
                    // Apply what the client sent before it closed, then let it go.
                    disconnected = true;
                    break;
                }
                Ok(count) => client.pending.extend_from_slice(&chunk[..count]),
                Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                // A client that closes with frames still unread resets the connection.
                Err(error) if error.kind() == ErrorKind::ConnectionReset => {
                    disconnected = true;
                    break;
                }
                Err(error) => return Err(ClientEnd::Dropped(format!("read failed: {error}"))),
            }
            if client.pending.len() > MAX_PENDING_COMMAND_BYTES {
                break;
            }
        }
        let mut used = 0;
        while used < client.pending.len() {
            match decode_command_prefix(&client.pending[used..]) {
                Ok((command, length)) => {
                    used += length;
                    self.body.apply(&command);
                    let mut shared = self.handle.lock();
                    shared.statistics.commands_received += 1;
                    shared.actuators = self.body.actuators.clone();
                    shared.last_command = Some(command);
                }
                Err(error) if error.is_truncated() => break,
                Err(error) => {
                    return Err(ClientEnd::Dropped(format!(
                        "invalid command at stream byte {used}: {error}"
                    )))
                }
            }
        }
        client.pending.drain(..used);
        if disconnected {
            return Err(ClientEnd::Disconnected);
        }
        if client.pending.len() > MAX_PENDING_COMMAND_BYTES {
            return Err(ClientEnd::Dropped(format!(
                "{} bytes without a complete command",
                client.pending.len()
            )));
        }
        Ok(())
    }

    fn send_frame(&mut self, client: &mut Client) -> Result<(), ClientEnd> {
        let now = Instant::now();
        let touch = {
            let shared = self.handle.lock();
            let pressed = shared
                .pressed_until
                .map(|until| until.is_some_and(|until| now < until));
            touch_sensors(pressed)
        };
        let sonar = SonarReadings {
            left_m: self.config.sonar_distance_m,
            right_m: self.config.sonar_distance_m,
        };
        let data = self
            .body
            .sensor_data(touch, self.config.battery.clone(), sonar);
        let frame = match encode_sensor_frame(&data, &self.config.robot_identity) {
            Ok(frame) => frame,
            Err(error) => {
                // Commands are finite and the model keeps them so; skip the frame if not.
                tracing::error!("LoLA simulator: cannot encode a frame: {error}");
                return Ok(());
            }
        };
        let write = |stream: &mut UnixStream| -> std::io::Result<()> {
            stream.set_nonblocking(false)?;
            stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
            stream.write_all(&frame)?;
            stream.set_nonblocking(true)
        };
        match write(&mut client.stream) {
            Ok(()) => {
                self.handle.lock().statistics.frames_sent += 1;
                Ok(())
            }
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::BrokenPipe | ErrorKind::ConnectionReset
                ) =>
            {
                Err(ClientEnd::Disconnected)
            }
            Err(error) => Err(ClientEnd::Dropped(format!("cannot send a frame: {error}"))),
        }
    }

    fn end_client(&mut self, client: &Client, end: ClientEnd) {
        let mut shared = self.handle.lock();
        match end {
            ClientEnd::Disconnected => {
                shared.statistics.clients_disconnected += 1;
                tracing::info!("LoLA simulator: client {} disconnected", client.id);
            }
            ClientEnd::Dropped(reason) => {
                shared.statistics.clients_dropped += 1;
                tracing::warn!("LoLA simulator: dropping client {}: {reason}", client.id);
            }
        }
    }
}

fn touch_sensors(pressed: [bool; BUTTON_COUNT]) -> TouchSensors {
    TouchSensors {
        chest_button: pressed[Button::Chest as usize],
        head_front: pressed[Button::HeadFront as usize],
        head_middle: pressed[Button::HeadMiddle as usize],
        head_rear: pressed[Button::HeadRear as usize],
        left_foot_bumper_left: pressed[Button::LeftFootBumperLeft as usize],
        left_foot_bumper_right: pressed[Button::LeftFootBumperRight as usize],
        left_hand_back: pressed[Button::LeftHandBack as usize],
        left_hand_left: pressed[Button::LeftHandLeft as usize],
        left_hand_right: pressed[Button::LeftHandRight as usize],
        right_foot_bumper_left: pressed[Button::RightFootBumperLeft as usize],
        right_foot_bumper_right: pressed[Button::RightFootBumperRight as usize],
        right_hand_back: pressed[Button::RightHandBack as usize],
        right_hand_left: pressed[Button::RightHandLeft as usize],
        right_hand_right: pressed[Button::RightHandRight as usize],
    }
}
