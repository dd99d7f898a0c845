//! One pass of the `lola` bridge's loop (see `bridge.rs`): what arrived from
//! LoLA — a frame, garbage, or a slice of silence — and what it means for the health record, the
//! pose epoch and the command. The command side is in `bridge_output.rs`.

use super::bridge::{
    install_crash_eyes, BridgeError, BridgeSetup, LOG_INTERVAL, SLICE, STOP_WITHOUT_LOLA,
    WRITE_TIMEOUT,
};
use super::codec;
use super::frame_stream::{FrameStream, Received};
use super::parameters::{ms, BridgeParameters};
use super::safety::{Mode, Safety};
use super::sensor_check::SensorCheck;
use ipc::health::{monotonic_ns, HealthRecord, TickStats};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use types::{LedRequest, RobotIdentity, SensorData};

/// The bridge between two frames: its channels, health record and decisions.
pub(super) struct Bridge<'a> {
    pub(super) setup: &'a BridgeSetup<'a>,
    pub(super) parameters: BridgeParameters,
    pub(super) safe_state: Arc<AtomicBool>,
    pub(super) sensor_writer: ipc::Writer<'a>,
    pub(super) identity_writer: ipc::Writer<'a>,
    pub(super) joint_reader: Option<ipc::Reader<'a>>,
    pub(super) led_reader: Option<ipc::Reader<'a>>,
    pub(super) health: ipc::health::HealthWriter<'a>,
    pub(super) record: HealthRecord,
    pub(super) safety: Safety,
    pub(super) check: SensorCheck,
    pub(super) identity: Option<RobotIdentity>,
    pub(super) joints_seen: u64,
    pub(super) leds: LedRequest,
    pub(super) scratch: Vec<u8>,
    pub(super) stats: TickStats,
    pub(super) stopping: bool,
    /// When the last good frame arrived (or the connection was made).
    pub(super) last_frame: Instant,
    /// When the last bytes arrived, frame or not (or the connection was made).
    pub(super) last_input: Instant,
    /// The current silence of LoLA has been reported.
    pub(super) silence_reported: bool,
    /// Bad inputs since the last good frame.
    pub(super) bad_in_a_row: u32,
    /// Last log line per kind of trouble (rate limit).
    pub(super) logged: [Option<Instant>; 4],
}

/// Kinds of log lines that are rate-limited.
#[derive(Clone, Copy)]
pub(super) enum Trouble {
    BadFrame = 0,
    ReplacedValues = 1,
    WrongEpoch = 2,
    BadRequest = 3,
}

/// How one pass of the loop ended.
pub(super) enum Pass {
    Continue,
    /// The connection is unusable: connect again.
    Reconnect,
    /// Done (sat down after a stop, or stopped while LoLA was silent).
    Finish,
}

impl<'a> Bridge<'a> {
    pub(super) fn beat(&mut self) -> Result<(), BridgeError> {
        self.record.last_tick_ns = monotonic_ns();
        self.health.publish(&self.record)?;
        Ok(())
    }

    pub(super) fn may_log(&mut self, trouble: Trouble) -> bool {
        let slot = &mut self.logged[trouble as usize];
        if slot.is_some_and(|at| at.elapsed() < LOG_INTERVAL) {
            return false;
        }
        *slot = Some(Instant::now());
        true
    }

    pub(super) fn stop_requested(&self) -> bool {
        self.setup.stop.load(Ordering::Relaxed)
    }

    /// Connects, retrying for `timeout` (with heartbeats); `None` when asked to stop first.
    pub(super) fn connect(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<FrameStream>, BridgeError> {
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
    pub(super) fn pass(
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

    pub(super) fn after_bad_input(&mut self) -> Pass {
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

    pub(super) fn report_bad_input(&mut self, frames: u32, text: &str) {
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
    pub(super) fn silence(&mut self, now: Instant) -> Result<Pass, BridgeError> {
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
    pub(super) fn good_frame(
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
            self.safety.new_epoch(now);
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
}

fn names_text(values: &[types::sensing::SensorValue]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
