//! `SimpleBallModelProvider`: the alternative to [`crate::BallModelProvider`] for `BallModel`
//! (the process table's `[process.alternatives]`, switched at run time by the debug link): the
//! newest confident ball of either camera as it was seen, unfiltered, with no velocity. What it
//! is for: telling a filter problem from a perception problem on a running robot. Where the
//! Kalman filter lags or jumps, and this does not, the filter is to blame; where both do, the
//! percepts are.

use framework::Update;
use types::{BallModel, BallPercept, CameraName};

/// Balls less sure than this are not taken (the filter's default `min_confidence`).
const MIN_CONFIDENCE: f32 = 0.5;

/// Provides [`BallModel`] from the newest percept alone.
#[derive(Debug)]
pub struct SimpleBallModelProvider {
    /// The newest ball taken: where, when it was captured, by which camera.
    seen: Option<([f32; 2], u64, CameraName)>,
    started_ns: u64,
    /// The newest frame taken: (captured, perceived, taken), monotonic ns.
    newest_frame: (u64, u64, u64),
}

framework::module! {
    SimpleBallModelProvider {
        inputs: SimpleBallModelProviderInputs,
        requires: {},
        uses: { ball_upper from upper: BallPercept, ball_lower from lower: BallPercept },
        provides: { BallModel },
    }
}

impl SimpleBallModelProvider {
    fn new(_: framework::NoParameters) -> Self {
        SimpleBallModelProvider {
            seen: None,
            started_ns: framework::clock::now_ns(),
            newest_frame: (0, 0, 0),
        }
    }

    /// The model at `now_ns` after the newest percepts of both cameras.
    pub fn step(&mut self, upper: &BallPercept, lower: &BallPercept, now_ns: u64) -> BallModel {
        for (percept, camera) in [(upper, CameraName::Upper), (lower, CameraName::Lower)] {
            if percept.captured_ns > self.newest_frame.0 {
                self.newest_frame = (percept.captured_ns, percept.perceived_ns, now_ns);
            }
            let ball = percept
                .balls
                .iter()
                .filter(|ball| ball.confidence >= MIN_CONFIDENCE)
                .find_map(|ball| ball.position_m)
                .filter(|[x, y]| x.is_finite() && y.is_finite());
            let newer = self
                .seen
                .is_none_or(|(_, captured, _)| percept.captured_ns > captured);
            if let (Some(position), true) = (ball, newer) {
                self.seen = Some((position, percept.captured_ns, camera));
            }
        }
        let seconds_since = |since_ns: u64| (now_ns.saturating_sub(since_ns) as f64 * 1e-9) as f32;
        let (frame_captured_ns, frame_perceived_ns, frame_taken_ns) = self.newest_frame;
        match self.seen {
            Some((position, captured, camera)) => BallModel {
                position,
                velocity: [0.0, 0.0],
                seconds_since_seen: seconds_since(captured),
                ever_seen: true,
                last_seen_by: Some(camera),
                position_deviation_m: 0.0,
                frame_captured_ns,
                frame_perceived_ns,
                frame_taken_ns,
            },
            None => BallModel {
                seconds_since_seen: seconds_since(self.started_ns),
                frame_captured_ns,
                frame_perceived_ns,
                frame_taken_ns,
                ..BallModel::default()
            },
        }
    }
}

impl Update<BallModel> for SimpleBallModelProvider {
    fn update(&mut self, inputs: &SimpleBallModelProviderInputs, output: &mut BallModel) {
        *output = self.step(
            inputs.ball_upper,
            inputs.ball_lower,
            framework::clock::now_ns(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::SeenBallPercept;

    fn percept(camera: CameraName, captured_ns: u64, position: Option<[f32; 2]>) -> BallPercept {
        BallPercept {
            camera,
            sequence: 1,
            captured_ns,
            perceived_ns: captured_ns + 1,
            balls: position
                .map(|position| SeenBallPercept {
                    x: 10.0,
                    y: 10.0,
                    radius: 5.0,
                    confidence: 0.9,
                    position_m: Some(position),
                })
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn the_newest_ball_of_either_camera_is_the_model_unfiltered() {
        let mut model = SimpleBallModelProvider::new(framework::NoParameters {});
        let none = percept(CameraName::Lower, 0, None);
        let first = model.step(
            &percept(CameraName::Upper, 1_000, Some([2.0, 0.5])),
            &none,
            2_000,
        );
        assert_eq!(first.position, [2.0, 0.5]);
        assert!(first.ever_seen);
        assert_eq!(first.velocity, [0.0, 0.0]);
        // A newer ball of the lower camera replaces it at once (no filter).
        let second = model.step(
            &percept(CameraName::Upper, 1_000, Some([2.0, 0.5])),
            &percept(CameraName::Lower, 3_000, Some([0.3, -0.1])),
            1_000_003_000,
        );
        assert_eq!(second.position, [0.3, -0.1]);
        assert_eq!(second.last_seen_by, Some(CameraName::Lower));
        assert!((second.seconds_since_seen - 1.0).abs() < 1e-3);
        // Nothing seen since: the ball stays where it was last seen.
        let later = model.step(
            &none,
            &percept(CameraName::Lower, 5_000, None),
            2_000_000_000,
        );
        assert_eq!(later.position, [0.3, -0.1]);
        assert!(later.seconds_since_seen > 1.9);
    }
}
