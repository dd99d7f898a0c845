//! Getting up after a fall (B-Human's `GetUpEngine`, with keyframe motions): the state machine
//! that decides, tick by tick, whether the body protects itself, plays a stand-up motion, or
//! stays down.
//!
//! ```text
//!  upright ──FallState falling──► Protecting ──fallen and still `settle_ms`──► Playing(attempt)
//!     ▲                               ▲                                            │ motion ends
//!     │                               └────── not upright within `check_ms` ◄── Checking
//!     └──────────── FallState upright again ◄──────────────────────────────────────┘
//!  after `max_attempts` failed attempts: StayingDown (soft) until the robot is upright again
//! ```
//!
//! - The motion is chosen by the way the robot lies (`FallState::direction`, from the IMU):
//!   on its front `stand_up_front`, on its back `stand_up_back`, each followed by `stand`. On a
//!   side it plays a roll (an attempt of its own, without `stand` and without the upright
//!   check): `roll_to_back`, and `roll_to_front` when the attempt before left it on the side
//!   too; the next attempt starts from wherever the roll left it.
//! - `stand_up_front` opens by lifting the arms off the floor behind the back, sweeping them out
//!   and forward and propping the chest on the forearms (so it starts alike however long the
//!   robot lay: after a few seconds limp the chest lies flat on the arms), then pushes up onto
//!   the hands, swings the legs forward in a wide split (hip yaw-pitch far negative) until the
//!   feet stand flat under the chest, and closes the legs into a crouch. `stand_up_back` is one
//!   plan in one file: `roll_to_front`, a moment to come to rest (the chest propped), then
//!   `stand_up_front` after its opening (the file is composed from those two by
//!   `simulator/physics/stand_up.py back --compose`). Both were found in the MuJoCo model
//!   (docs/decisions.md, "Getting up after a fall").
//! - Success is judged by the IMU, through the `FallState`: upright again (its upright
//!   confirmation included) within `check_ms` of the motion's end. Anything else is a failed
//!   attempt: the body goes soft (fall protection), lies still for `settle_ms`, and tries again.
//! - While the robot is down, the behaviour's requests wait (only `Unstiff` goes first: a
//!   penalised robot is not made to get up).

use serde::Deserialize;
use types::{FallDirection, FallPhase};

/// The stand-up motion for lying on the front.
pub const STAND_UP_FRONT: &str = "stand_up_front";
/// The stand-up motion for lying on the back.
pub const STAND_UP_BACK: &str = "stand_up_back";
/// The motion that rolls the robot from a side onto its back.
pub const ROLL_TO_BACK: &str = "roll_to_back";
/// The motion that rolls the robot from its back or a side onto its front (the second roll
/// tried from a side, after `roll_to_back` left the robot where it was).
pub const ROLL_TO_FRONT: &str = "roll_to_front";

/// A roll: an attempt of its own, without `stand` and without the upright check.
pub fn is_roll(motion: &str) -> bool {
    motion == ROLL_TO_BACK || motion == ROLL_TO_FRONT
}

/// Parameters (`GetUp.toml`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetUpParameters {
    /// Attempts before the robot stays down; 1 ..= 10.
    pub max_attempts: u32,
    /// How long the robot lies still (fallen) before an attempt, ms; 0 ..= 10 000.
    pub settle_ms: f32,
    /// How long after the motion's end the robot must be upright again, ms; 0 ..= 10 000
    /// (at least the FallStateProvider's `upright_confirm_ms`, or no attempt ever succeeds).
    pub check_ms: f32,
}

impl Default for GetUpParameters {
    fn default() -> Self {
        GetUpParameters {
            max_attempts: 5,
            settle_ms: 300.0,
            check_ms: 1500.0,
        }
    }
}

impl config::Validate for GetUpParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        use config::in_range;
        in_range("max_attempts", self.max_attempts as f32, 1.0..=10.0)?;
        in_range("settle_ms", self.settle_ms, 0.0..=10_000.0)?;
        in_range("check_ms", self.check_ms, 0.0..=10_000.0)
    }
}

/// What the body does this tick, as far as falling and getting up are concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetUpPlan {
    /// Nothing to do with a fall: execute the behaviour's request.
    Request,
    /// Falling, lying, or between attempts: arms in, stiffness down.
    Protect,
    /// Play this get-up motion (a new `attempt` starts it afresh), then hold the stand.
    Play { motion: &'static str, attempt: u32 },
    /// Every attempt failed: soft on the ground until somebody puts the robot upright.
    StayDown { attempts: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Upright,
    /// Down; `lying_ms`: how long it has been fallen and still since the last attempt.
    Protecting {
        attempts: u32,
        lying_ms: f32,
    },
    Playing {
        attempt: u32,
        motion: &'static str,
    },
    /// The motion ended `since_ms` ago; waiting for the FallState to say upright.
    Checking {
        attempt: u32,
        motion: &'static str,
        since_ms: f32,
    },
    StayingDown {
        attempts: u32,
    },
}

/// The get-up state machine; see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct GetUp {
    parameters: GetUpParameters,
    state: State,
}

impl GetUp {
    pub fn new(parameters: GetUpParameters) -> GetUp {
        GetUp {
            parameters,
            state: State::Upright,
        }
    }

    /// New parameters; the attempt under way goes on.
    pub fn retune(&mut self, parameters: GetUpParameters) {
        self.parameters = parameters;
    }

    /// Whether the robot is down or getting up (the behaviour's requests wait).
    pub fn is_active(&self) -> bool {
        self.state != State::Upright
    }

    /// One tick of `cycle_ms`: `phase` and `direction` from the `FallState`, `motion_finished`
    /// whether the get-up motion being played (if any) has reached its end.
    pub fn step(
        &mut self,
        phase: FallPhase,
        direction: FallDirection,
        motion_finished: bool,
        cycle_ms: f32,
    ) -> GetUpPlan {
        let p = &self.parameters;
        let down = matches!(phase, FallPhase::Falling | FallPhase::Fallen);
        self.state = match self.state {
            State::Upright if down => State::Protecting {
                attempts: 0,
                lying_ms: 0.0,
            },
            State::Upright => State::Upright,
            // Caught before lying (staggering again after falling) or put upright.
            State::Protecting { .. }
                if matches!(phase, FallPhase::Upright | FallPhase::Staggering) =>
            {
                State::Upright
            }
            State::StayingDown { .. } if phase == FallPhase::Upright => State::Upright,
            State::Protecting { attempts, lying_ms } => {
                let lying_ms = if phase == FallPhase::Fallen {
                    lying_ms + cycle_ms
                } else {
                    0.0
                };
                if attempts >= p.max_attempts {
                    tracing::info!(
                        "getting up failed {attempts} times: staying down soft until upright"
                    );
                    State::StayingDown { attempts }
                } else if lying_ms >= p.settle_ms {
                    let motion = motion_for(direction, attempts);
                    tracing::info!(
                        "lying {direction:?}: playing {motion} (attempt {} of {})",
                        attempts + 1,
                        p.max_attempts
                    );
                    State::Playing {
                        attempt: attempts + 1,
                        motion,
                    }
                } else {
                    State::Protecting { attempts, lying_ms }
                }
            }
            // Rolled from a side: the next attempt starts from the back or the front (or
            // wherever it lies).
            State::Playing { attempt, motion } if motion_finished && is_roll(motion) => {
                State::Protecting {
                    attempts: attempt,
                    lying_ms: 0.0,
                }
            }
            State::Playing { attempt, motion } if motion_finished => State::Checking {
                attempt,
                motion,
                since_ms: 0.0,
            },
            playing @ State::Playing { .. } => playing,
            State::Checking { .. } if phase == FallPhase::Upright => {
                tracing::info!("got up: upright again");
                State::Upright
            }
            State::Checking {
                attempt,
                motion,
                since_ms,
            } => {
                let since_ms = since_ms + cycle_ms;
                if since_ms >= p.check_ms {
                    tracing::info!(
                        "{motion} (attempt {attempt}): not upright {since_ms} ms after its end"
                    );
                    State::Protecting {
                        attempts: attempt,
                        lying_ms: 0.0,
                    }
                } else {
                    State::Checking {
                        attempt,
                        motion,
                        since_ms,
                    }
                }
            }
            State::StayingDown { attempts } => State::StayingDown { attempts },
        };
        match self.state {
            State::Upright => GetUpPlan::Request,
            State::Protecting { .. } => GetUpPlan::Protect,
            State::Playing { attempt, motion }
            | State::Checking {
                attempt, motion, ..
            } => GetUpPlan::Play { motion, attempt },
            State::StayingDown { attempts } => GetUpPlan::StayDown { attempts },
        }
    }
}

/// The motion for lying towards `direction`.
/// The motion for the way the robot lies after `attempts` attempts. On a side the rolls
/// alternate, `roll_to_back` first: a pose one roll cannot move (a fall from walking can leave
/// the legs and the arm underneath so that the arms swinging back only rock the robot) is
/// tried the other way next.
fn motion_for(direction: FallDirection, attempts: u32) -> &'static str {
    match direction {
        FallDirection::Forward => STAND_UP_FRONT,
        FallDirection::Backward => STAND_UP_BACK,
        FallDirection::Left | FallDirection::Right | FallDirection::None if attempts % 2 == 1 => {
            ROLL_TO_FRONT
        }
        FallDirection::Left | FallDirection::Right | FallDirection::None => ROLL_TO_BACK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get_up() -> GetUp {
        GetUp::new(GetUpParameters {
            max_attempts: 2,
            settle_ms: 100.0,
            check_ms: 200.0,
        })
    }

    /// `ticks` ticks of 10 ms; returns the last plan.
    fn run(
        get_up: &mut GetUp,
        phase: FallPhase,
        direction: FallDirection,
        finished: bool,
        ticks: usize,
    ) -> GetUpPlan {
        let mut plan = GetUpPlan::Request;
        for _ in 0..ticks {
            plan = get_up.step(phase, direction, finished, 10.0);
        }
        plan
    }

    #[test]
    fn a_robot_on_its_front_protects_settles_and_plays_the_front_motion_until_upright() {
        let mut get_up = get_up();
        use FallDirection::*;
        use FallPhase::*;
        assert_eq!(
            run(&mut get_up, Upright, None, false, 5),
            GetUpPlan::Request
        );
        assert!(!get_up.is_active());
        assert_eq!(
            run(&mut get_up, Falling, Forward, false, 30),
            GetUpPlan::Protect
        );
        // Fallen and still: 100 ms (10 ticks) of settling, not one tick less.
        assert_eq!(
            run(&mut get_up, Fallen, Forward, false, 9),
            GetUpPlan::Protect
        );
        let playing = GetUpPlan::Play {
            motion: STAND_UP_FRONT,
            attempt: 1,
        };
        assert_eq!(run(&mut get_up, Fallen, Forward, false, 1), playing);
        // The torso swings through every angle on the way up: the motion plays on.
        assert_eq!(run(&mut get_up, Fallen, Backward, false, 50), playing);
        assert_eq!(run(&mut get_up, Fallen, None, true, 5), playing);
        assert!(get_up.is_active());
        assert_eq!(run(&mut get_up, Upright, None, true, 1), GetUpPlan::Request);
        assert!(!get_up.is_active());
    }

    #[test]
    fn a_failed_attempt_is_retried_then_the_robot_stays_down_until_picked_up() {
        let mut get_up = get_up();
        use FallDirection::*;
        use FallPhase::*;
        run(&mut get_up, Fallen, Backward, false, 10);
        assert_eq!(
            run(&mut get_up, Fallen, Backward, false, 1),
            GetUpPlan::Play {
                motion: STAND_UP_BACK,
                attempt: 1
            }
        );
        // The motion ended but the robot lies on its front now: 200 ms later it is a failure.
        assert!(matches!(
            run(&mut get_up, Fallen, Forward, true, 20),
            GetUpPlan::Play { attempt: 1, .. }
        ));
        assert_eq!(
            run(&mut get_up, Fallen, Forward, true, 1),
            GetUpPlan::Protect
        );
        run(&mut get_up, Fallen, Forward, false, 9);
        assert_eq!(
            run(&mut get_up, Fallen, Forward, false, 1),
            GetUpPlan::Play {
                motion: STAND_UP_FRONT,
                attempt: 2
            }
        );
        run(&mut get_up, Fallen, Forward, true, 20);
        assert_eq!(
            run(&mut get_up, Fallen, Forward, false, 100),
            GetUpPlan::StayDown { attempts: 2 }
        );
        assert!(get_up.is_active());
        // Put upright by a person: back to the behaviour's requests, the count starts again.
        assert_eq!(
            run(&mut get_up, Upright, None, false, 1),
            GetUpPlan::Request
        );
        run(&mut get_up, Fallen, Left, false, 10);
        assert_eq!(
            run(&mut get_up, Fallen, Left, false, 1),
            GetUpPlan::Play {
                motion: ROLL_TO_BACK,
                attempt: 1
            }
        );
        // The roll ends: no upright check, straight to settling on the back, then attempt 2.
        assert_eq!(
            run(&mut get_up, Fallen, Backward, true, 1),
            GetUpPlan::Protect
        );
        run(&mut get_up, Fallen, Backward, false, 9);
        assert_eq!(
            run(&mut get_up, Fallen, Backward, false, 1),
            GetUpPlan::Play {
                motion: STAND_UP_BACK,
                attempt: 2
            }
        );
    }

    #[test]
    fn a_roll_that_leaves_the_robot_on_its_side_is_followed_by_the_other_roll() {
        let mut get_up = GetUp::new(GetUpParameters {
            max_attempts: 3,
            settle_ms: 100.0,
            check_ms: 200.0,
        });
        use FallDirection::*;
        use FallPhase::*;
        run(&mut get_up, Fallen, Right, false, 10);
        assert_eq!(
            run(&mut get_up, Fallen, Right, false, 1),
            GetUpPlan::Play {
                motion: ROLL_TO_BACK,
                attempt: 1
            }
        );
        // The roll ends with the robot still on its side: the other roll comes next.
        run(&mut get_up, Fallen, Right, true, 1);
        run(&mut get_up, Fallen, Right, false, 9);
        assert_eq!(
            run(&mut get_up, Fallen, Right, false, 1),
            GetUpPlan::Play {
                motion: ROLL_TO_FRONT,
                attempt: 2
            }
        );
        // That one worked: the front stand-up, with the check.
        run(&mut get_up, Fallen, Forward, true, 1);
        run(&mut get_up, Fallen, Forward, false, 9);
        assert_eq!(
            run(&mut get_up, Fallen, Forward, false, 1),
            GetUpPlan::Play {
                motion: STAND_UP_FRONT,
                attempt: 3
            }
        );
    }

    #[test]
    fn settling_restarts_while_the_robot_still_moves() {
        let mut get_up = get_up();
        use FallDirection::*;
        use FallPhase::*;
        run(&mut get_up, Fallen, Forward, false, 8);
        // Rolling again (the FallStateProvider says falling): the settling time starts over.
        run(&mut get_up, Falling, Forward, false, 1);
        assert_eq!(
            run(&mut get_up, Fallen, Forward, false, 9),
            GetUpPlan::Protect
        );
        assert!(matches!(
            run(&mut get_up, Fallen, Forward, false, 1),
            GetUpPlan::Play { .. }
        ));
    }

    #[test]
    fn the_shipped_get_up_motions_load_within_the_joint_limits() {
        let folder = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../config/data/default/motions"
        ));
        for name in [STAND_UP_FRONT, STAND_UP_BACK, ROLL_TO_BACK, ROLL_TO_FRONT] {
            let motion = crate::keyframes::Motion::load(name, &folder.join(format!("{name}.toml")))
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            // Stiff throughout: a soft get-up is no get-up.
            for frame in &motion.keyframes {
                assert!(
                    frame.stiffnesses[types::JointId::LeftKneePitch] >= 0.9,
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn parameters_out_of_range_are_rejected() {
        use config::Validate;
        let bad = GetUpParameters {
            max_attempts: 0,
            ..GetUpParameters::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "max_attempts");
        let bad = GetUpParameters {
            check_ms: f32::NAN,
            ..GetUpParameters::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "check_ms");
        assert!(GetUpParameters::default().validate().is_ok());
    }
}
