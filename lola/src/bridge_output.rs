//! The command side of the `lola` bridge (see `bridge.rs`): the bounded wait
//! for motion's request, the command sent for every frame (good or bad), and the last command
//! when the bridge stops.

use super::bridge::{BridgeError, BridgeOutcome};
use super::bridge_pass::{Bridge, Trouble};
use super::codec::{self, Command};
use super::frame_stream::FrameStream;
use super::parameters::ms;
use super::safety::Offer;
use ipc::health::ProcessState;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use types::{EyeLeds, JointRequest, LedRequest, Rgb, SensorData};

pub(super) fn eyes(colour: Rgb) -> (EyeLeds, EyeLeds) {
    (EyeLeds::uniform(colour), EyeLeds::uniform(colour))
}

impl<'a> Bridge<'a> {
    /// Waits (bounded) for motion's request for this frame; whether one was taken.
    pub(super) fn wait_for_motion(&mut self, now: Instant) -> Result<bool, BridgeError> {
        let Some(mut reader) = self.joint_reader.take() else {
            return Ok(false);
        };
        let result = self.wait_on(&mut reader, now);
        self.joint_reader = Some(reader);
        result
    }

    pub(super) fn wait_on(
        &mut self,
        reader: &mut ipc::Reader<'a>,
        now: Instant,
    ) -> Result<bool, BridgeError> {
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
    pub(super) fn send_command(
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
    pub(super) fn finish(
        &mut self,
        stream: Option<FrameStream>,
    ) -> Result<BridgeOutcome, BridgeError> {
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
