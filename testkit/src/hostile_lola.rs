//! A LoLA peer of our own for fault tests (shared by `simulator/tests/lola_hostile.rs` and the system
//! tests in `tests/hardening_lola.rs`): it serves a simulated body like LoLA — one 896-byte
//! frame every 12 ms, commands applied as they come — records every command it receives, and
//! injects the faults a test queues, for real, on the socket:
//!
//! ```text
//!   peer.inject(Fault::Replace(vec![0; 896]));          // a zero-filled frame instead of one
//!   peer.inject(Fault::NonFinite { key: "Position", index: 10, value: f32::NAN });
//!   peer.inject(Fault::Stall(Duration::from_secs(3)));  // silent, then frames again
//! ```
//!
//! The body model is `simulator::simulated_body`: stiff joints move to their target at a
//! bounded speed, limp joints sag into the crouch the robot starts in.

use lola::codec::{decode_command_prefix, encode_sensor_frame, Command, SENSOR_FRAME_SIZE};
use simulator::simulated_body::{SimulatedBody, SITTING_POSE_RAD};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use types::{BatteryState, JointId, Joints, RobotIdentity, SonarReadings, TouchSensors};

/// LoLA's frame period.
pub const PERIOD: Duration = Duration::from_millis(12);

/// One fault, applied at the next frame (in the order queued).
#[derive(Debug, Clone)]
pub enum Fault {
    /// These bytes instead of the next frame.
    Replace(Vec<u8>),
    /// The next frame, then these bytes (a 900-byte "frame").
    Append(Vec<u8>),
    /// Only the first `n` bytes of the next frame.
    Truncate(usize),
    /// The next frame with `key[index]` (a float32 array) set to `value` (NaN, ∞, 1e30…).
    NonFinite {
        key: &'static str,
        index: usize,
        value: f32,
    },
    /// The next frame with every value of `key` (a float32 array of `length`) set to `value`.
    NonFiniteArray {
        key: &'static str,
        length: usize,
        value: f32,
    },
    /// The next frame with the array of `key` replaced by a string.
    WrongType { key: &'static str },
    /// The next `count` frames replaced by zeros.
    ZeroFrames(usize),
    /// No frames for this long, then frames again.
    Stall(Duration),
    /// Close the connection (the client may connect again).
    Disconnect,
}

/// A command as the peer received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// When it was read.
    pub at: Instant,
    /// The frame count at that time.
    pub frame: u64,
    /// Which connection (1 = the first client).
    pub client: u64,
    pub command: Command,
    /// Every key's last value after this command (what LoLA applies).
    pub actuators: Command,
}

#[derive(Debug, Default)]
struct State {
    faults: VecDeque<Fault>,
    received: Vec<Received>,
    frames_sent: u64,
    clients: u64,
    dropped: Vec<String>,
    stalled: bool,
    positions_rad: Joints<f32>,
    actuators: Command,
}

/// A running peer; dropping it stops it and removes its socket.
#[derive(Debug)]
pub struct HostileLola {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    path: PathBuf,
}

impl HostileLola {
    /// Listens on `path` and serves frames of a robot sitting limp.
    pub fn start(path: &Path) -> HostileLola {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path).expect("binding the hostile LoLA socket");
        listener.set_nonblocking(true).unwrap();
        let state = Arc::new(Mutex::new(State {
            positions_rad: SITTING_POSE_RAD,
            ..State::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::Builder::new()
                .name("hostile-lola".into())
                .spawn(move || serve(listener, state, stop))
                .unwrap()
        };
        HostileLola {
            state,
            stop,
            thread: Some(thread),
            path: path.to_owned(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queues a fault for the next frame (after those queued before).
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push_back(fault);
    }

    /// Whether every queued fault has been applied (a stall: has ended).
    pub fn faults_done(&self) -> bool {
        let state = self.lock();
        state.faults.is_empty() && !state.stalled
    }

    /// Every command received so far.
    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    pub fn frames_sent(&self) -> u64 {
        self.lock().frames_sent
    }

    /// Clients accepted so far.
    pub fn clients(&self) -> u64 {
        self.lock().clients
    }

    /// Why clients were dropped (commands that were not command maps…).
    pub fn dropped(&self) -> Vec<String> {
        self.lock().dropped.clone()
    }

    /// The body's joint angles now.
    pub fn positions_rad(&self) -> Joints<f32> {
        self.lock().positions_rad
    }

    /// What the body applies now.
    pub fn actuators(&self) -> Command {
        self.lock().actuators.clone()
    }

    /// Waits until `condition` holds, or panics after `timeout` naming `what`.
    pub fn wait_until(&self, what: &str, timeout: Duration, condition: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + timeout;
        while !condition(self) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; knee {}, stiffness {:?}",
                self.positions_rad()[JointId::LeftKneePitch],
                self.actuators()
                    .stiffnesses
                    .map(|s| s[JointId::LeftKneePitch])
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether the robot stands: knees straighter than 1.3 rad with stiffness.
    pub fn standing(&self) -> bool {
        let knee = self.positions_rad()[JointId::LeftKneePitch];
        let stiffness = self
            .actuators()
            .stiffnesses
            .map_or(0.0, |s| s[JointId::LeftKneePitch]);
        knee < 1.3 && stiffness > 0.3
    }
}

/// The largest change of a stiff joint's target between two commands in `received`: (step,
/// joint, index of the later command). A joint counts as stiff when both commands give it more
/// than `stiff`.
pub fn largest_stiff_step(received: &[Received], stiff: f32) -> (f32, JointId, usize) {
    let mut largest = (0.0, JointId::HeadYaw, 0);
    let mut previous: Option<&Command> = None;
    for (index, entry) in received.iter().enumerate() {
        let now = &entry.actuators;
        if let (Some(before), Some(positions), Some(stiffnesses)) =
            (previous, now.positions_rad, now.stiffnesses)
        {
            if let (Some(before_positions), Some(before_stiffnesses)) =
                (before.positions_rad, before.stiffnesses)
            {
                for joint in JointId::ALL {
                    if stiffnesses[joint] > stiff && before_stiffnesses[joint] > stiff {
                        let step = (positions[joint] - before_positions[joint]).abs();
                        if step > largest.0 {
                            largest = (step, joint, index);
                        }
                    }
                }
            }
        }
        previous = Some(now);
    }
    largest
}

impl Drop for HostileLola {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

fn identity() -> RobotIdentity {
    RobotIdentity {
        body_id: "P0000073A07S94700012".into(),
        body_version: "6.0.0".into(),
        head_id: "P0000074A05S93M00061".into(),
        head_version: "6.0.0".into(),
    }
}

/// The byte offset of the array of `key` in an encoded frame (its header's first byte).
fn array_of(frame: &[u8], key: &str) -> usize {
    let mut pattern = vec![0xa0 | key.len() as u8];
    pattern.extend_from_slice(key.as_bytes());
    frame
        .windows(pattern.len())
        .position(|window| window == pattern.as_slice())
        .unwrap_or_else(|| panic!("no key {key} in the frame"))
        + pattern.len()
}

/// Applies a byte-level fault to an encoded frame.
fn corrupt(mut frame: Vec<u8>, fault: &Fault) -> Vec<u8> {
    match fault {
        Fault::Replace(bytes) => bytes.clone(),
        Fault::Append(bytes) => {
            frame.extend_from_slice(bytes);
            frame
        }
        Fault::Truncate(length) => {
            frame.truncate(*length);
            frame
        }
        Fault::NonFinite { key, index, value } => {
            let header = array_of(&frame, key);
            let first = header + if frame[header] == 0xdc { 3 } else { 1 };
            let at = first + index * 5;
            assert_eq!(frame[at], 0xca, "{key}[{index}] is a float32");
            frame[at + 1..at + 5].copy_from_slice(&value.to_be_bytes());
            frame
        }
        Fault::NonFiniteArray { key, length, value } => (0..*length).fold(frame, |frame, index| {
            corrupt(
                frame,
                &Fault::NonFinite {
                    key,
                    index,
                    value: *value,
                },
            )
        }),
        Fault::WrongType { key } => {
            let header = array_of(&frame, key);
            frame[header] = 0xa0 | (frame[header] & 0x0f).min(2);
            frame
        }
        Fault::ZeroFrames(_) => vec![0; SENSOR_FRAME_SIZE],
        Fault::Stall(_) | Fault::Disconnect => frame,
    }
}

struct Client {
    stream: UnixStream,
    pending: Vec<u8>,
    id: u64,
}

fn serve(listener: UnixListener, state: Arc<Mutex<State>>, stop: Arc<AtomicBool>) {
    let lock = || {
        state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    let mut body = SimulatedBody::new(SITTING_POSE_RAD, 5.0, 1.0);
    let mut client: Option<Client> = None;
    let mut stalled_until: Option<Instant> = None;
    let mut deadline = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        if client.is_none() {
            if let Ok((stream, _)) = listener.accept() {
                stream.set_nonblocking(true).unwrap();
                let mut state = lock();
                state.clients += 1;
                client = Some(Client {
                    stream,
                    pending: Vec::new(),
                    id: state.clients,
                });
            }
        }
        if let Some(mut connected) = client.take() {
            match receive(&mut connected, &mut body, &state) {
                Ok(()) => client = Some(connected),
                Err(reason) => lock().dropped.push(reason),
            }
        }
        body.step(PERIOD);
        let now = Instant::now();
        if stalled_until.is_some_and(|until| now >= until) {
            stalled_until = None;
            lock().stalled = false;
        }
        let sending = if stalled_until.is_none() {
            client.take()
        } else {
            None
        };
        if let Some(mut connected) = sending {
            let fault = {
                let mut state = lock();
                match state.faults.front_mut() {
                    Some(Fault::ZeroFrames(count)) if *count > 1 => {
                        *count -= 1;
                        Some(Fault::ZeroFrames(1))
                    }
                    _ => state.faults.pop_front(),
                }
            };
            match fault {
                Some(Fault::Stall(duration)) => {
                    stalled_until = Some(now + duration);
                    lock().stalled = true;
                    client = Some(connected);
                }
                Some(Fault::Disconnect) => drop(connected),
                fault => {
                    let data = body.sensor_data(
                        TouchSensors::default(),
                        BatteryState::new(1.0, -32708, -1.2, 32.0),
                        SonarReadings {
                            left_m: 2.55,
                            right_m: 2.55,
                        },
                    );
                    let mut bytes = encode_sensor_frame(&data, &identity()).unwrap();
                    if let Some(fault) = fault {
                        bytes = corrupt(bytes, &fault);
                    }
                    if send(&mut connected.stream, &bytes) {
                        lock().frames_sent += 1;
                        client = Some(connected);
                    } else {
                        lock().dropped.push(format!(
                            "client {}: a frame could not be sent",
                            connected.id
                        ));
                    }
                }
            }
        }
        {
            let mut state = lock();
            state.positions_rad = body.positions_rad;
            state.actuators = body.actuators.clone();
        }
        continue_after(&mut deadline);
    }
}

fn continue_after(deadline: &mut Instant) {
    *deadline += PERIOD;
    let now = Instant::now();
    if *deadline > now {
        std::thread::sleep(*deadline - now);
    } else if now - *deadline > PERIOD {
        *deadline = now;
    }
}

fn send(stream: &mut UnixStream, bytes: &[u8]) -> bool {
    let write = |stream: &mut UnixStream| -> std::io::Result<()> {
        stream.set_nonblocking(false)?;
        stream.set_write_timeout(Some(Duration::from_millis(500)))?;
        stream.write_all(bytes)?;
        stream.set_nonblocking(true)
    };
    write(stream).is_ok()
}

fn receive(
    client: &mut Client,
    body: &mut SimulatedBody,
    state: &Mutex<State>,
) -> Result<(), String> {
    let mut chunk = [0_u8; 4096];
    let mut closed = false;
    loop {
        match client.stream.read(&mut chunk) {
            Ok(0) => {
                closed = true;
                break;
            }
            Ok(count) => client.pending.extend_from_slice(&chunk[..count]),
            Err(error) if error.kind() == ErrorKind::WouldBlock => break,
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(_) => {
                closed = true;
                break;
            }
        }
    }
    let mut used = 0;
    while used < client.pending.len() {
        match decode_command_prefix(&client.pending[used..]) {
            Ok((command, length)) => {
                used += length;
                body.apply(&command);
                let mut state = state
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let frame = state.frames_sent;
                state.received.push(Received {
                    at: Instant::now(),
                    frame,
                    client: client.id,
                    command,
                    actuators: body.actuators.clone(),
                });
            }
            Err(error) if error.is_truncated() => break,
            Err(error) => return Err(format!("client {}: not a command: {error}", client.id)),
        }
    }
    client.pending.drain(..used);
    if closed {
        return Err(format!("client {} closed the connection", client.id));
    }
    Ok(())
}
