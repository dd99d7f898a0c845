//! The keyframe player: plays a chain of keyframe motions (e.g. `stand_up_from_sit` then
//! `stand`) from the current pose, one tick at a time.
//!
//! Each keyframe starts where the previous one ended; the first starts from the pose the
//! player is given, and a joint that the previous keyframe kept (`"*"`) starts from where it
//! actually is (the head motion may have moved it). At the end the last pose is held.

use super::interpolation::{interpolate_positions, interpolate_stiffnesses, resolve_targets};
use super::keyframes::{JointTarget, Keyframe, Motion};
use std::sync::Arc;
use types::Joints;

/// What the player commands in one tick.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerOutput {
    /// Joint positions, rad (hands: opening).
    pub positions: Joints<f32>,
    /// Joint stiffnesses, 0 ..= 1.
    pub stiffnesses: Joints<f32>,
    /// The joints the current keyframe keeps (`"*"`): others (the head motion) may move them.
    pub kept: Joints<bool>,
}

/// Plays a chain of motions.
#[derive(Debug, Clone)]
pub struct KeyframePlayer {
    chain: Vec<Arc<Motion>>,
    /// Index into `chain`.
    motion: usize,
    /// Index into the current motion's keyframes.
    frame: usize,
    /// Time spent in the current keyframe, ms.
    elapsed_ms: f32,
    start_positions: Joints<f32>,
    start_stiffnesses: Joints<f32>,
    end_positions: Joints<f32>,
    finished: bool,
}

impl KeyframePlayer {
    /// A player of `chain` (at least one motion; an empty chain holds the current pose) that
    /// starts from `positions` with `stiffnesses`.
    pub fn new(chain: Vec<Arc<Motion>>, positions: Joints<f32>, stiffnesses: Joints<f32>) -> Self {
        let mut player = KeyframePlayer {
            chain,
            motion: 0,
            frame: 0,
            elapsed_ms: 0.0,
            start_positions: positions,
            start_stiffnesses: stiffnesses,
            end_positions: positions,
            finished: false,
        };
        match player.keyframe() {
            Some(frame) => player.end_positions = resolve_targets(&positions, &frame.positions),
            None => player.finished = true,
        }
        player
    }

    /// The motion being played (the last one once finished); `None` for an empty chain.
    pub fn motion(&self) -> Option<&Arc<Motion>> {
        self.chain.get(self.motion)
    }

    /// Whether the last keyframe of the chain has been reached.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    fn keyframe(&self) -> Option<&Keyframe> {
        self.chain.get(self.motion)?.keyframes.get(self.frame)
    }

    /// The cursor after the current keyframe, if there is one.
    fn next_cursor(&self) -> Option<(usize, usize)> {
        let motion = self.chain.get(self.motion)?;
        if self.frame + 1 < motion.keyframes.len() {
            return Some((self.motion, self.frame + 1));
        }
        (self.motion + 1..self.chain.len())
            .find(|&index| !self.chain[index].keyframes.is_empty())
            .map(|index| (index, 0))
    }

    /// Advances by `cycle_ms` and returns the command of this tick. `current` is the pose that
    /// was commanded last (the start of keyframes after a kept joint).
    pub fn step(&mut self, cycle_ms: f32, current: &Joints<f32>) -> PlayerOutput {
        if !self.finished {
            self.elapsed_ms += cycle_ms.max(0.0);
        }
        while let Some(frame) = self.keyframe().cloned() {
            if self.elapsed_ms < frame.duration_ms {
                break;
            }
            let Some((motion, next)) = self.next_cursor() else {
                self.finished = true;
                self.elapsed_ms = frame.duration_ms;
                break;
            };
            let kept = frame.positions.map(|target| *target == JointTarget::Keep);
            self.elapsed_ms -= frame.duration_ms;
            self.start_positions = Joints::from_fn(|joint| {
                if kept[joint] {
                    current[joint]
                } else {
                    self.end_positions[joint]
                }
            });
            self.start_stiffnesses = frame.stiffnesses;
            (self.motion, self.frame) = (motion, next);
            if let Some(frame) = self.keyframe() {
                self.end_positions = resolve_targets(&self.start_positions, &frame.positions);
            }
        }
        match self.keyframe() {
            Some(frame) => {
                let fraction = self.elapsed_ms / frame.duration_ms;
                PlayerOutput {
                    positions: interpolate_positions(
                        &self.start_positions,
                        &self.end_positions,
                        fraction,
                    ),
                    stiffnesses: interpolate_stiffnesses(
                        &self.start_stiffnesses,
                        &frame.stiffnesses,
                        fraction,
                    ),
                    kept: frame.positions.map(|target| *target == JointTarget::Keep),
                }
            }
            None => PlayerOutput {
                positions: self.start_positions,
                stiffnesses: self.start_stiffnesses,
                kept: Joints::filled(true),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::JointId;

    fn motion(name: &str, frames: Vec<(f32, Joints<JointTarget>, f32)>) -> Arc<Motion> {
        Arc::new(Motion {
            name: name.to_owned(),
            file: format!("{name}.toml").into(),
            description: None,
            keyframes: frames
                .into_iter()
                .map(|(duration_ms, positions, stiffness)| Keyframe {
                    duration_ms,
                    positions,
                    stiffnesses: Joints::filled(stiffness),
                })
                .collect(),
        })
    }

    fn all(position: f32) -> Joints<JointTarget> {
        Joints::filled(JointTarget::Position(position))
    }

    /// Runs the player like the combinator does (the command is the next tick's `current`).
    fn run(player: &mut KeyframePlayer, start: Joints<f32>, ticks: usize) -> Vec<PlayerOutput> {
        let mut current = start;
        (0..ticks)
            .map(|_| {
                let output = player.step(10.0, &current);
                current = output.positions;
                output
            })
            .collect()
    }

    #[test]
    fn plays_a_chain_of_motions_from_the_current_pose_and_holds_the_end() {
        let chain = vec![
            motion("up", vec![(100.0, all(1.0), 0.5), (50.0, all(2.0), 1.0)]),
            motion("down", vec![(100.0, all(0.5), 0.2)]),
        ];
        let start = Joints::filled(-1.0);
        let mut player = KeyframePlayer::new(chain, start, Joints::filled(0.0));
        let outputs = run(&mut player, start, 40);
        // The first tick moves only a little from the start pose.
        assert!((outputs[0].positions[JointId::HeadYaw] + 1.0).abs() < 0.05);
        assert!((outputs[0].stiffnesses[JointId::HeadYaw] - 0.05).abs() < 1e-6);
        // Keyframe ends are reached: 100 ms → 1.0, 150 ms → 2.0, 250 ms → 0.5.
        assert!((outputs[9].positions[JointId::LeftKneePitch] - 1.0).abs() < 1e-6);
        assert_eq!(outputs[9].stiffnesses[JointId::LeftKneePitch], 0.5);
        assert!((outputs[14].positions[JointId::LeftKneePitch] - 2.0).abs() < 1e-6);
        assert_eq!(player.motion().unwrap().name, "down");
        assert!((outputs[24].positions[JointId::LeftKneePitch] - 0.5).abs() < 1e-6);
        assert!(player.is_finished());
        assert_eq!(outputs[39], outputs[24]);
        assert!((outputs[39].stiffnesses[JointId::RightHand] - 0.2).abs() < 1e-6);
        // No jumps: the cosine ramp's peak speed is π/2 · distance / duration, here at most
        // π/2 · 2 rad / 100 ms = 0.314 rad per 10 ms.
        for pair in outputs.windows(2) {
            for joint in JointId::ALL {
                assert!((pair[1].positions[joint] - pair[0].positions[joint]).abs() < 0.315);
            }
        }
    }

    #[test]
    fn kept_joints_continue_from_where_another_controller_moved_them() {
        let mut first = all(1.0);
        first[JointId::HeadYaw] = JointTarget::Keep;
        let chain = vec![motion(
            "look",
            vec![(100.0, first, 1.0), (100.0, all(1.0), 1.0)],
        )];
        let start = Joints::filled(0.0);
        let mut player = KeyframePlayer::new(chain, start, Joints::filled(1.0));
        let mut current = start;
        for tick in 0..9 {
            let output = player.step(10.0, &current);
            assert!(output.kept[JointId::HeadYaw] && !output.kept[JointId::HeadPitch]);
            assert_eq!(
                output.positions[JointId::HeadYaw],
                0.0,
                "kept at tick {tick}"
            );
            current = output.positions;
            // The head motion moves the kept joint to 0.6.
            current[JointId::HeadYaw] = 0.6;
        }
        // The second keyframe starts the head from 0.6, not from where the first kept it.
        let output = player.step(10.0, &current);
        assert!(!output.kept[JointId::HeadYaw]);
        assert_eq!(output.positions[JointId::HeadYaw], 0.6);
        let head = player.step(10.0, &output.positions).positions[JointId::HeadYaw];
        assert!(head > 0.6 && head < 0.62, "{head}");
    }

    #[test]
    fn an_empty_chain_holds_the_start_pose() {
        let start = Joints::filled(0.3);
        let mut player = KeyframePlayer::new(Vec::new(), start, Joints::filled(0.7));
        assert!(player.is_finished());
        let output = player.step(10.0, &start);
        assert_eq!(output.positions, start);
        assert_eq!(output.stiffnesses, Joints::filled(0.7));
        assert!(player.motion().is_none());
    }
}
