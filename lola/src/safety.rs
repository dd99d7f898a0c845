//! The bridge's decisions, without sockets: given the newest measurement and motion's newest
//! request, what to send LoLA.
//!
//! ```text
//!  WaitingForMotion ──request for this epoch──► Following ──stale──► Holding
//!        │ (holds the measured pose                 ▲                    │ sit_after_ms
//!        │  at the measured stiffness)              │ request for        ▼
//!        └──────────── sit_after_ms ───────────► Sitting ──done──► Limp
//!                                                   (new epoch)   (stiffness 0)
//! ```
//!
//! The **pose epoch** changes whenever the pose may change behind motion's back: a new bridge,
//! a reconnect, LoLA silent for a while, sitting down. Motion re-plans from the measured pose
//! when it sees a new epoch and echoes it; a request for an older epoch is not applied (it was
//! planned for a pose the robot is no longer in). On top, no joint target moves more than
//! `max_target_step_rad` from one command to the next while the joint is stiff.

use super::parameters::{ms, BridgeParameters};
use ipc::health::monotonic_ns;
use std::time::Instant;
use types::{JointId, JointRequest, Joints, SensorData};

/// Stiffness below which a joint is limp and its target does not matter.
const LIMP_STIFFNESS: f32 = 0.05;

/// What the bridge sends when motion's request is missing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mode {
    /// No request for this epoch yet: hold the measured pose at the measured stiffness.
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

/// Whether a request of motion was taken.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Offer {
    Taken,
    /// Planned for another pose epoch.
    WrongEpoch {
        planned: u64,
    },
    /// A position or stiffness is not a finite number.
    NotFinite,
}

#[derive(Debug)]
pub(crate) struct Safety {
    parameters: BridgeParameters,
    sit_pose: Joints<f32>,
    pub(crate) mode: Mode,
    last_request: Option<JointRequest>,
    /// When the last request was taken, or when waiting began.
    last_fresh: Instant,
    epoch: u64,
    last_sent: Option<JointRequest>,
}

impl Safety {
    pub(crate) fn new(parameters: BridgeParameters, now: Instant) -> Self {
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
            last_fresh: now,
            epoch: monotonic_ns(),
            last_sent: None,
        }
    }

    /// The current pose epoch.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The pose may change (or have changed) behind motion's back: motion must re-plan.
    ///
    /// A robot that motion was moving waits for the re-planned request, with `sit_after_ms`
    /// counted from now: after a LoLA outage motion gets its full time to answer.
    pub(crate) fn new_epoch(&mut self, now: Instant) {
        self.epoch = monotonic_ns().max(self.epoch + 1);
        if matches!(self.mode, Mode::Following | Mode::Holding) {
            self.mode = Mode::WaitingForMotion;
            self.last_fresh = now;
        }
    }

    fn is_sitting(&self, sensors: &SensorData) -> bool {
        let knees = [JointId::LeftKneePitch, JointId::RightKneePitch];
        let stiff = knees
            .iter()
            .any(|&knee| sensors.joint_stiffnesses[knee] > LIMP_STIFFNESS);
        let bent = knees.iter().all(|&knee| {
            sensors.joint_positions_rad[knee] > self.parameters.sitting_knee_pitch_rad
        });
        !stiff || bent
    }

    pub(crate) fn start_sitting(&mut self, sensors: &SensorData, now: Instant) {
        if matches!(self.mode, Mode::Sitting { .. } | Mode::Limp) {
            return;
        }
        self.mode = if self.is_sitting(sensors) {
            Mode::Limp
        } else {
            Mode::Sitting {
                from: self
                    .last_sent
                    .as_ref()
                    .map_or(sensors.joint_positions_rad, |sent| sent.positions_rad),
                started: now,
            }
        };
        self.new_epoch(now);
    }

    /// Motion's newest request; taken only when it was planned for the current epoch.
    pub(crate) fn offer(&mut self, request: JointRequest, now: Instant) -> Offer {
        if request.pose_epoch != self.epoch {
            return Offer::WrongEpoch {
                planned: request.pose_epoch,
            };
        }
        let finite = |joints: &Joints<f32>| joints.values.iter().all(|value| value.is_finite());
        if !finite(&request.positions_rad) || !finite(&request.stiffnesses) {
            return Offer::NotFinite;
        }
        self.last_request = Some(request);
        self.last_fresh = now;
        self.mode = Mode::Following;
        Offer::Taken
    }

    /// No request taken this frame: update the mode from the time since the last one.
    pub(crate) fn stale(&mut self, sensors: &SensorData, now: Instant) {
        let since = now.saturating_duration_since(self.last_fresh);
        if matches!(self.mode, Mode::Following) && since >= ms(self.parameters.stale_after_ms) {
            tracing::warn!("motion's JointRequest is stale ({since:?}): holding the last pose");
            self.mode = Mode::Holding;
        }
        if matches!(self.mode, Mode::Holding | Mode::WaitingForMotion)
            && since >= ms(self.parameters.sit_after_ms)
        {
            tracing::warn!(
                "no request from motion for {since:?} (limit {:?}): sitting down",
                ms(self.parameters.sit_after_ms)
            );
            self.start_sitting(sensors, now);
        }
    }

    /// Whether the sit-down (if any) is complete.
    pub(crate) fn sat(&self) -> bool {
        matches!(self.mode, Mode::Limp)
    }

    /// The joints to send now (call once per command).
    pub(crate) fn joints(&mut self, sensors: &SensorData, now: Instant) -> JointRequest {
        let wanted = match &self.mode {
            Mode::WaitingForMotion => JointRequest {
                positions_rad: sensors.joint_positions_rad,
                stiffnesses: sensors.joint_stiffnesses.map(|s| s.clamp(0.0, 1.0)),
                pose_epoch: self.epoch,
            },
            Mode::Limp => JointRequest {
                positions_rad: sensors.joint_positions_rad,
                stiffnesses: Joints::filled(0.0),
                pose_epoch: self.epoch,
            },
            Mode::Following | Mode::Holding => self.last_request.clone().unwrap_or_default(),
            Mode::Sitting { from, started } => {
                let duration = ms(self.parameters.sit_duration_ms);
                let phase = (now.saturating_duration_since(*started).as_secs_f32()
                    / duration.as_secs_f32().max(1e-3))
                .min(1.0);
                // Smooth start and end (cosine), from where the joints were to the sitting pose.
                let blend = 0.5 - 0.5 * (std::f32::consts::PI * phase).cos();
                let positions = Joints::from_fn(|joint| {
                    from[joint] + (self.sit_pose[joint] - from[joint]) * blend
                });
                if phase >= 1.0 {
                    self.mode = Mode::Limp;
                    self.new_epoch(now);
                }
                JointRequest {
                    positions_rad: positions,
                    stiffnesses: Joints::filled(self.parameters.sit_stiffness),
                    pose_epoch: self.epoch,
                }
            }
        };
        let command = self.limited(wanted);
        self.last_sent = Some(command.clone());
        command
    }

    /// `wanted` with stiffness within 0..=1 and every stiff joint's target at most
    /// `max_target_step_rad` from the last command's.
    fn limited(&self, wanted: JointRequest) -> JointRequest {
        let step = self.parameters.max_target_step_rad;
        let stiffnesses = wanted.stiffnesses.map(|s| s.clamp(0.0, 1.0));
        let positions = match &self.last_sent {
            None => wanted.positions_rad,
            Some(last) => Joints::from_fn(|joint| {
                let target = wanted.positions_rad[joint];
                if stiffnesses[joint] <= LIMP_STIFFNESS {
                    target
                } else {
                    let from = last.positions_rad[joint];
                    from + (target - from).clamp(-step, step)
                }
            }),
        };
        JointRequest {
            positions_rad: positions,
            stiffnesses,
            pose_epoch: wanted.pose_epoch,
        }
    }
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

    fn request(knee: f32, epoch: u64) -> JointRequest {
        let mut request = JointRequest {
            stiffnesses: Joints::filled(0.8),
            pose_epoch: epoch,
            ..Default::default()
        };
        request.positions_rad[JointId::LeftKneePitch] = knee;
        request.positions_rad[JointId::RightKneePitch] = knee;
        request
    }

    fn knee(request: &JointRequest) -> f32 {
        request.positions_rad[JointId::LeftKneePitch]
    }

    #[test]
    fn waits_holding_the_measured_pose_then_follows_a_request_for_its_epoch() {
        let now = Instant::now();
        let mut safety = Safety::new(BridgeParameters::default(), now);
        let sensors = standing();
        let held = safety.joints(&sensors, now);
        assert_eq!(held.positions_rad, sensors.joint_positions_rad);
        assert_eq!(
            held.stiffnesses,
            Joints::filled(0.8),
            "no sag while waiting"
        );
        let old = safety.epoch() - 1;
        assert_eq!(
            safety.offer(request(0.95, old), now),
            Offer::WrongEpoch { planned: old }
        );
        assert_eq!(safety.mode, Mode::WaitingForMotion);
        let mut nan = request(0.95, safety.epoch());
        nan.stiffnesses[JointId::HeadYaw] = f32::NAN;
        assert_eq!(safety.offer(nan, now), Offer::NotFinite);
        assert_eq!(
            safety.offer(request(0.95, safety.epoch()), now),
            Offer::Taken
        );
        assert!((knee(&safety.joints(&sensors, now)) - 0.95).abs() < 1e-6);
    }

    #[test]
    fn a_stiff_target_never_jumps_more_than_the_step() {
        let now = Instant::now();
        let mut safety = Safety::new(BridgeParameters::default(), now);
        let mut sitting = SensorData::default();
        sitting.joint_positions_rad[JointId::LeftKneePitch] = 2.13;
        sitting.joint_positions_rad[JointId::RightKneePitch] = 2.13;
        assert_eq!(knee(&safety.joints(&sitting, now)), 2.13);
        // The stand pose at 0.8, as the issue saw it after `cortex restart lola`.
        safety.offer(request(0.87, safety.epoch()), now);
        let mut previous = 2.13;
        for _ in 0..12 {
            let sent = knee(&safety.joints(&sitting, now));
            assert!((previous - sent - 0.1).abs() < 1e-5, "{previous} -> {sent}");
            previous = sent;
        }
        assert!((previous - 0.93).abs() < 1e-5);
        assert!((knee(&safety.joints(&sitting, now)) - 0.87).abs() < 1e-5);
        // Stiffness is kept within 0..=1.
        let mut strong = request(0.87, safety.epoch());
        strong.stiffnesses = Joints::filled(5.0);
        safety.offer(strong, now);
        assert_eq!(
            safety.joints(&sitting, now).stiffnesses,
            Joints::filled(1.0)
        );
    }

    #[test]
    fn holds_a_stale_pose_then_sits_smoothly_then_goes_limp_each_in_a_new_epoch() {
        let parameters = BridgeParameters::default();
        let start = Instant::now();
        let mut safety = Safety::new(parameters.clone(), start);
        let sensors = standing();
        let epoch = safety.epoch();
        safety.offer(request(0.9, epoch), start);
        safety.joints(&sensors, start);
        let at = |ms_: f32| start + ms(ms_);
        safety.stale(&sensors, at(50.0));
        assert_eq!(safety.mode, Mode::Holding);
        assert_eq!(safety.joints(&sensors, at(50.0)), request(0.9, epoch));
        safety.stale(&sensors, at(parameters.sit_after_ms + 1.0));
        assert!(matches!(safety.mode, Mode::Sitting { .. }));
        let sitting_epoch = safety.epoch();
        assert!(sitting_epoch > epoch, "sitting down is a new epoch");
        assert_eq!(
            safety.offer(request(0.9, epoch), at(parameters.sit_after_ms + 2.0)),
            Offer::WrongEpoch { planned: epoch },
            "motion's old plan is not applied onto a sitting robot"
        );
        let mut previous = 0.9f32;
        let mut time = parameters.sit_after_ms + 1.0;
        while !safety.sat() {
            let joints = safety.joints(&sensors, at(time));
            let knee = knee(&joints);
            assert!(
                knee >= previous - 1e-6 && knee - previous < 0.05,
                "smooth: {previous} -> {knee}"
            );
            previous = knee;
            time += 12.0;
        }
        assert!((previous - 2.13).abs() < 1e-3, "ends in the sitting pose");
        assert!(safety.epoch() > sitting_epoch, "limp is a new epoch");
        assert_eq!(
            safety.joints(&sensors, at(time)).stiffnesses,
            Joints::filled(0.0)
        );
        // Motion re-planned for the new epoch: follow again.
        assert_eq!(
            safety.offer(request(2.1, safety.epoch()), at(time + 12.0)),
            Offer::Taken
        );
        assert_eq!(safety.mode, Mode::Following);
    }

    #[test]
    fn a_new_epoch_after_an_outage_gives_motion_its_full_time_to_answer() {
        let parameters = BridgeParameters::default();
        let start = Instant::now();
        let mut safety = Safety::new(parameters.clone(), start);
        let sensors = standing();
        safety.offer(request(0.9, safety.epoch()), start);
        // LoLA was silent for longer than sit_after_ms; the epoch changes when it is back.
        let back = start + ms(parameters.sit_after_ms + 2000.0);
        safety.new_epoch(back);
        safety.stale(&sensors, back + ms(parameters.sit_after_ms / 2.0));
        assert_eq!(safety.mode, Mode::WaitingForMotion, "not sat down at once");
        assert_eq!(
            safety.offer(request(0.9, safety.epoch()), back),
            Offer::Taken
        );
    }

    #[test]
    fn waiting_too_long_sits_a_standing_robot_down_and_a_sitting_one_is_left_limp() {
        let parameters = BridgeParameters::default();
        let start = Instant::now();
        let mut safety = Safety::new(parameters.clone(), start);
        safety.stale(&standing(), start + ms(parameters.sit_after_ms + 1.0));
        assert!(matches!(safety.mode, Mode::Sitting { .. }));

        let mut safety = Safety::new(parameters.clone(), start);
        let mut sensors = SensorData::default();
        sensors.joint_positions_rad[JointId::LeftKneePitch] = 2.1;
        sensors.joint_positions_rad[JointId::RightKneePitch] = 2.1;
        sensors.joint_stiffnesses = Joints::filled(0.6);
        safety.start_sitting(&sensors, start);
        assert!(safety.sat());
    }
}
