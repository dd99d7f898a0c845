//! `BallModelProvider`: one [`BallModel`] from both cameras' [`BallPercept`]s (B-Human's
//! `BallLocator`, HULKs' `BallFilter`): a Kalman filter over the ball's position and velocity in
//! the robot frame, fed by every new percept of either camera at the time its frame was taken,
//! and predicted to the tick's time.
//!
//! Per axis (x forward, y left) the state is position and velocity with a constant-velocity
//! model whose velocity decays (rolling friction, `velocity_decay_s`), and white acceleration
//! noise (`acceleration_deviation_m_per_s2`). A measurement's deviation grows with the ball's
//! distance (`measurement_deviation_m` + `measurement_deviation_per_m` × distance): the ground
//! position of a far ball moves a lot with a pixel. A measurement further than
//! `reset_distance_m` from the prediction, while the ball has not been seen for
//! `reset_after_s`, restarts the filter there (the ball was moved, or the robot turned).
//!
//! **Odometry:** the robot frame moves with the robot. Every tick the filter is moved by the
//! robot's own motion since the last tick ([`OdometryData`] from motion's walk): the position
//! and velocity are turned by −Δθ about the robot and shifted by −Δ, so that a ball at rest on the
//! field stays at rest while the robot walks and turns (B-Human's `BallLocator` does the same
//! with its odometry offset). The per-axis covariances are turned by their diagonal (the
//! filter keeps no cross terms between x and y). A step of more than
//! [`MAX_ODOMETRY_STEP_M`] or [`MAX_ODOMETRY_STEP_RAD`] between two ticks is not a walk (motion
//! restarted and counts from zero again): it is skipped.

use framework::debug_output::{Color, Space};
use framework::Update;
use serde::Deserialize;
use types::{BallModel, BallPercept, CameraName, OdometryData};

/// Odometry steps between two ticks beyond these are a restarted count, not a motion.
pub const MAX_ODOMETRY_STEP_M: f32 = 0.5;
pub const MAX_ODOMETRY_STEP_RAD: f32 = 1.0;

/// Parameters (`BallModelProvider.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BallModelProviderParameters {
    pub acceleration_deviation_m_per_s2: f32,
    pub measurement_deviation_m: f32,
    pub measurement_deviation_per_m: f32,
    pub velocity_decay_s: f32,
    /// Balls less sure than this are not measured.
    pub min_confidence: f32,
    pub reset_distance_m: f32,
    pub reset_after_s: f32,
}

impl config::Validate for BallModelProviderParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        use config::in_range;
        in_range(
            "acceleration_deviation_m_per_s2",
            self.acceleration_deviation_m_per_s2,
            0.001..=100.0,
        )?;
        in_range(
            "measurement_deviation_m",
            self.measurement_deviation_m,
            0.001..=10.0,
        )?;
        in_range(
            "measurement_deviation_per_m",
            self.measurement_deviation_per_m,
            0.0..=10.0,
        )?;
        in_range("velocity_decay_s", self.velocity_decay_s, 0.01..=1000.0)?;
        in_range("min_confidence", self.min_confidence, 0.0..=1.0)?;
        in_range("reset_distance_m", self.reset_distance_m, 0.01..=100.0)?;
        in_range("reset_after_s", self.reset_after_s, 0.0..=100.0)
    }
}

/// Position and velocity along one axis, with their covariance.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Axis {
    position: f32,
    velocity: f32,
    /// [[pp, pv], [vp, vv]].
    covariance: [[f32; 2]; 2],
}

impl Axis {
    fn at(position: f32, deviation: f32) -> Axis {
        Axis {
            position,
            velocity: 0.0,
            covariance: [[deviation * deviation, 0.0], [0.0, 1.0]],
        }
    }

    fn predict(&mut self, dt: f32, decay: f32, acceleration_deviation: f32) {
        let [[pp, pv], [vp, vv]] = self.covariance;
        self.position += self.velocity * dt;
        self.velocity *= decay;
        // F = [[1, dt], [0, decay]]; P = F P Fᵀ + Q.
        let q = acceleration_deviation * acceleration_deviation;
        let pp = pp + dt * (pv + vp) + dt * dt * vv + q * dt.powi(4) / 4.0;
        let pv = decay * (pv + dt * vv) + q * dt.powi(3) / 2.0;
        let vv = decay * decay * vv + q * dt * dt;
        self.covariance = [[pp, pv], [pv, vv]];
    }

    fn measure(&mut self, measured: f32, deviation: f32) {
        let [[pp, pv], [_, vv]] = self.covariance;
        let innovation = measured - self.position;
        let s = pp + deviation * deviation;
        let (k_position, k_velocity) = (pp / s, pv / s);
        self.position += k_position * innovation;
        self.velocity += k_velocity * innovation;
        self.covariance = [
            [(1.0 - k_position) * pp, (1.0 - k_position) * pv],
            [(1.0 - k_position) * pv, vv - k_velocity * pv],
        ];
    }
}

/// Provides [`BallModel`].
#[derive(Debug)]
pub struct BallModelProvider {
    parameters: BallModelProviderParameters,
    axes: Option<[Axis; 2]>,
    /// The filter's time, monotonic ns.
    time_ns: u64,
    last_seen_ns: Option<u64>,
    last_seen_by: Option<CameraName>,
    started_ns: u64,
    /// The frame time of the last percept taken from each camera (upper, lower).
    taken_ns: [u64; 2],
    /// The newest frame taken: (captured, perceived, taken), monotonic ns.
    newest_frame: (u64, u64, u64),
    /// The ball on the field view (robot frame), drawn only while the debug link subscribes.
    drawing: framework::debug_output::DebugOutput,
    /// The odometry the filter was last moved to.
    odometry: Option<OdometryData>,
}

framework::module! {
    BallModelProvider {
        inputs: BallModelProviderInputs,
        parameters: BallModelProviderParameters,
        set_parameters: retune,
        requires: {},
        uses: {
            ball_upper from upper: BallPercept,
            ball_lower from lower: BallPercept,
            odometry: OdometryData,
        },
        provides: { BallModel },
    }
}

impl BallModelProvider {
    fn new(parameters: BallModelProviderParameters) -> Self {
        BallModelProvider {
            parameters,
            axes: None,
            time_ns: 0,
            last_seen_ns: None,
            last_seen_by: None,
            started_ns: framework::clock::now_ns(),
            drawing: framework::debug_output::DebugOutput::field_drawing("BallModelProvider.ball"),
            taken_ns: [0; 2],
            newest_frame: (0, 0, 0),
            odometry: None,
        }
    }

    /// Moves the estimate by the robot's motion since the last odometry (see the file's doc).
    pub fn apply_odometry(&mut self, odometry: &OdometryData) {
        let Some(previous) = self.odometry.replace(odometry.clone()) else {
            return;
        };
        let turn = wrap_angle(odometry.rotation_rad - previous.rotation_rad);
        let moved = odometry.translation_m - previous.translation_m;
        let (sin, cos) = (-previous.rotation_rad).sin_cos();
        // The step in the robot frame of the previous tick.
        let step = [cos * moved.x - sin * moved.y, sin * moved.x + cos * moved.y];
        let finite = turn.is_finite() && step.iter().all(|value| value.is_finite());
        if !finite
            || step[0].hypot(step[1]) > MAX_ODOMETRY_STEP_M
            || turn.abs() > MAX_ODOMETRY_STEP_RAD
        {
            if !finite {
                self.odometry = Some(previous);
            }
            return;
        }
        let Some([ax, ay]) = &mut self.axes else {
            return;
        };
        let (sin, cos) = (-turn).sin_cos();
        let rotate = |x: f32, y: f32| (cos * x - sin * y, sin * x + cos * y);
        let (px, py) = rotate(ax.position - step[0], ay.position - step[1]);
        let (vx, vy) = rotate(ax.velocity, ay.velocity);
        let (c2, s2) = (cos * cos, sin * sin);
        let mut covariance_x = [[0.0; 2]; 2];
        let mut covariance_y = [[0.0; 2]; 2];
        for row in 0..2 {
            for column in 0..2 {
                let (x, y) = (ax.covariance[row][column], ay.covariance[row][column]);
                covariance_x[row][column] = c2 * x + s2 * y;
                covariance_y[row][column] = s2 * x + c2 * y;
            }
        }
        *ax = Axis {
            position: px,
            velocity: vx,
            covariance: covariance_x,
        };
        *ay = Axis {
            position: py,
            velocity: vy,
            covariance: covariance_y,
        };
    }

    fn retune(&mut self, parameters: BallModelProviderParameters) {
        self.parameters = parameters;
    }

    fn predict_to(&mut self, time_ns: u64) {
        if time_ns <= self.time_ns {
            return;
        }
        let dt = ((time_ns - self.time_ns) as f64 * 1e-9) as f32;
        self.time_ns = time_ns;
        let decay = (-dt / self.parameters.velocity_decay_s).exp();
        if let Some(axes) = &mut self.axes {
            for axis in axes {
                axis.predict(dt, decay, self.parameters.acceleration_deviation_m_per_s2);
            }
        }
    }

    /// Takes one percept if it is new; returns whether it measured a ball.
    fn take(&mut self, percept: &BallPercept, camera: CameraName, now_ns: u64) -> bool {
        let index = camera as usize;
        if percept.captured_ns == 0 || percept.captured_ns == self.taken_ns[index] {
            return false;
        }
        self.taken_ns[index] = percept.captured_ns;
        if percept.captured_ns > self.newest_frame.0 {
            self.newest_frame = (percept.captured_ns, percept.perceived_ns, now_ns);
        }
        let p = self.parameters.clone();
        let Some((ball, [x, y])) = percept
            .balls
            .iter()
            .filter(|ball| ball.confidence >= p.min_confidence)
            .find_map(|ball| ball.position_m.map(|position| (ball, position)))
        else {
            return false;
        };
        if !(x.is_finite() && y.is_finite()) || ball.confidence.is_nan() {
            return false;
        }
        let deviation = p.measurement_deviation_m + p.measurement_deviation_per_m * x.hypot(y);
        self.predict_to(percept.captured_ns);
        let lost_s = self.last_seen_ns.map_or(f32::INFINITY, |seen| {
            (percept.captured_ns.saturating_sub(seen) as f64 * 1e-9) as f32
        });
        let far = self
            .axes
            .is_some_and(|[ax, ay]| (ax.position - x).hypot(ay.position - y) > p.reset_distance_m);
        match &mut self.axes {
            Some([ax, ay]) if !(far && lost_s >= p.reset_after_s) => {
                ax.measure(x, deviation);
                ay.measure(y, deviation);
            }
            _ => self.axes = Some([Axis::at(x, deviation), Axis::at(y, deviation)]),
        }
        if self.time_ns < percept.captured_ns {
            self.time_ns = percept.captured_ns;
        }
        self.last_seen_ns = Some(self.last_seen_ns.unwrap_or(0).max(percept.captured_ns));
        self.last_seen_by = Some(camera);
        true
    }

    /// The model at `now_ns` after the newest percepts of both cameras.
    pub fn step(&mut self, upper: &BallPercept, lower: &BallPercept, now_ns: u64) -> BallModel {
        // The older frame first, so that the filter runs forward in time.
        let mut percepts = [(upper, CameraName::Upper), (lower, CameraName::Lower)];
        percepts.sort_by_key(|(percept, _)| percept.captured_ns);
        for (percept, camera) in percepts {
            self.take(percept, camera, now_ns);
        }
        self.predict_to(now_ns);
        let seconds_since = |since_ns: u64| (now_ns.saturating_sub(since_ns) as f64 * 1e-9) as f32;
        let seconds_since_seen = match self.last_seen_ns {
            Some(seen) => seconds_since(seen),
            None => seconds_since(self.started_ns),
        };
        match self.axes {
            Some([ax, ay]) => BallModel {
                position: [ax.position, ay.position],
                velocity: [ax.velocity, ay.velocity],
                seconds_since_seen,
                ever_seen: true,
                last_seen_by: self.last_seen_by,
                position_deviation_m: (ax.covariance[0][0] + ay.covariance[0][0]).max(0.0).sqrt(),
                frame_captured_ns: self.newest_frame.0,
                frame_perceived_ns: self.newest_frame.1,
                frame_taken_ns: self.newest_frame.2,
            },
            None => BallModel {
                seconds_since_seen,
                frame_captured_ns: self.newest_frame.0,
                frame_perceived_ns: self.newest_frame.1,
                frame_taken_ns: self.newest_frame.2,
                ..BallModel::default()
            },
        }
    }
}

/// An angle in (−π, π].
fn wrap_angle(angle: f32) -> f32 {
    let wrapped = (angle + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU);
    wrapped - std::f32::consts::PI
}

impl Update<BallModel> for BallModelProvider {
    fn update(&mut self, inputs: &BallModelProviderInputs, output: &mut BallModel) {
        self.apply_odometry(inputs.odometry);
        *output = self.step(
            inputs.ball_upper,
            inputs.ball_lower,
            framework::clock::now_ns(),
        );
        self.drawing.draw(Space::Robot, |drawing| {
            let [x, y] = output.position;
            let [vx, vy] = output.velocity;
            let color = if output.seconds_since_seen < 1.0 {
                Color::ORANGE
            } else {
                Color::BLACK
            };
            drawing
                .circle([x, y], 0.05 + output.position_deviation_m, color)
                .line([x, y], [x + vx, y + vy], 0.01, Color::RED)
                .text(
                    [x, y + 0.1],
                    format!("{:.1} s", output.seconds_since_seen),
                    color,
                );
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::SeenBallPercept;

    fn parameters() -> BallModelProviderParameters {
        BallModelProviderParameters {
            acceleration_deviation_m_per_s2: 1.0,
            measurement_deviation_m: 0.05,
            measurement_deviation_per_m: 0.05,
            velocity_decay_s: 2.0,
            min_confidence: 0.5,
            reset_distance_m: 1.0,
            reset_after_s: 1.0,
        }
    }

    fn percept(camera: CameraName, time_ns: u64, position: Option<[f32; 2]>) -> BallPercept {
        BallPercept {
            camera,
            sequence: time_ns / 33_000_000,
            captured_ns: time_ns,
            perceived_ns: time_ns,
            balls: position
                .map(|position| SeenBallPercept {
                    confidence: 0.9,
                    position_m: Some(position),
                    ..SeenBallPercept::default()
                })
                .into_iter()
                .collect(),
        }
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn noisy_percepts_of_both_cameras_converge_and_a_rolling_ball_gets_its_velocity() {
        let mut model = BallModelProvider::new(parameters());
        let start = 10_000 * MS;
        let mut state = BallModel::default();
        // A ball rolling from (2, 1) at (-0.5, 0.2) m/s, seen alternately by the cameras with
        // ±3 cm noise (a fixed pseudo-random sequence).
        let mut noise = 0.37f32;
        for frame in 0..90u64 {
            let t = frame as f32 / 30.0;
            noise = (noise * 97.13).fract();
            let offset = (noise - 0.5) * 0.06;
            let truth = [2.0 - 0.5 * t, 1.0 + 0.2 * t];
            let camera = if frame % 2 == 0 {
                CameraName::Upper
            } else {
                CameraName::Lower
            };
            let seen = percept(
                camera,
                start + frame * 33 * MS,
                Some([truth[0] + offset, truth[1] - offset]),
            );
            let (upper, lower) = match camera {
                CameraName::Upper => (seen, percept(CameraName::Lower, 0, None)),
                CameraName::Lower => (percept(CameraName::Upper, 0, None), seen),
            };
            state = model.step(&upper, &lower, start + frame * 33 * MS + 5 * MS);
        }
        let t = 89.0 * 0.033 + 0.005;
        assert!(
            (state.position[0] - (2.0 - 0.5 * t)).abs() < 0.05,
            "{state:?}"
        );
        assert!(
            (state.position[1] - (1.0 + 0.2 * t)).abs() < 0.05,
            "{state:?}"
        );
        assert!((state.velocity[0] + 0.5).abs() < 0.15, "{state:?}");
        assert!((state.velocity[1] - 0.2).abs() < 0.15, "{state:?}");
        assert!(state.ever_seen);
        assert!(state.seconds_since_seen < 0.01);
        assert_eq!(state.last_seen_by, Some(CameraName::Lower));
    }

    #[test]
    fn an_old_percept_is_not_taken_twice_and_time_since_seen_grows() {
        let mut model = BallModelProvider::new(parameters());
        let none = percept(CameraName::Lower, 0, None);
        let seen = percept(CameraName::Upper, 1_000 * MS, Some([1.0, 0.0]));
        let first = model.step(&seen, &none, 1_000 * MS);
        assert_eq!(first.position, [1.0, 0.0]);
        assert_eq!(
            (first.frame_captured_ns, first.frame_taken_ns),
            (1_000 * MS, 1_000 * MS)
        );
        let later = model.step(&seen, &none, 3_000 * MS);
        assert_eq!(later.frame_taken_ns, 1_000 * MS, "taken once");
        assert!((later.seconds_since_seen - 2.0).abs() < 1e-3, "{later:?}");
        assert_eq!(later.position, [1.0, 0.0]);
        assert!(later.position_deviation_m > first.position_deviation_m);
    }

    #[test]
    fn a_ball_moved_while_unseen_restarts_the_filter_and_nonsense_is_ignored() {
        let mut model = BallModelProvider::new(parameters());
        let none = percept(CameraName::Lower, 0, None);
        model.step(
            &percept(CameraName::Upper, 1_000 * MS, Some([1.0, 0.0])),
            &none,
            1_000 * MS,
        );
        let moved = model.step(
            &percept(CameraName::Upper, 4_000 * MS, Some([3.0, -2.0])),
            &none,
            4_000 * MS,
        );
        assert_eq!(moved.position, [3.0, -2.0]);
        let nonsense = model.step(
            &percept(CameraName::Upper, 4_100 * MS, Some([f32::NAN, 1.0])),
            &none,
            4_100 * MS,
        );
        assert!(nonsense.position[0].is_finite());
        assert!((nonsense.seconds_since_seen - 0.1).abs() < 1e-3);
    }

    #[test]
    fn a_resting_ball_stays_put_in_the_world_while_the_robot_turns_and_walks() {
        let mut model = BallModelProvider::new(parameters());
        let none = percept(CameraName::Lower, 0, None);
        model.step(
            &percept(CameraName::Upper, 1_000 * MS, Some([2.0, 0.0])),
            &none,
            1_000 * MS,
        );
        // Turning left by 90° at 1 rad/s, odometry every 12 ms (motion's rate), from a heading
        // of 3 rad (the count wraps past π on the way).
        let start = OdometryData {
            translation_m: [0.4, -0.2].into(),
            rotation_rad: 3.0,
        };
        model.apply_odometry(&start);
        let steps = 131;
        for step in 1..=steps {
            let turned = std::f32::consts::FRAC_PI_2 * step as f32 / steps as f32;
            model.apply_odometry(&OdometryData {
                rotation_rad: wrap_angle(3.0 + turned),
                ..start.clone()
            });
        }
        let turned = model.step(
            &percept(CameraName::Upper, 1_000 * MS, Some([2.0, 0.0])),
            &none,
            1_000 * MS,
        );
        // The ball was ahead; after a left turn of 90° it is on the right.
        assert!((turned.position[0]).abs() < 0.01, "{turned:?}");
        assert!((turned.position[1] + 2.0).abs() < 0.01, "{turned:?}");
        // Walking 0.5 m towards it (now to the robot's right, −y) in small steps.
        let heading = wrap_angle(3.0 + std::f32::consts::FRAC_PI_2);
        let (right_y, right_x) = (heading - std::f32::consts::FRAC_PI_2).sin_cos();
        for step in 1..=50 {
            let walked = 0.01 * step as f32;
            model.apply_odometry(&OdometryData {
                translation_m: [0.4 + right_x * walked, -0.2 + right_y * walked].into(),
                rotation_rad: heading,
            });
        }
        let walked = model.step(&none, &none, 1_000 * MS);
        assert!((walked.position[1] + 1.5).abs() < 0.01, "{walked:?}");
        assert!(walked.position[0].abs() < 0.01, "{walked:?}");
        // Motion restarted (its count back at zero): not a step of the robot.
        model.apply_odometry(&OdometryData::default());
        let after_restart = model.step(&none, &none, 1_000 * MS);
        assert!(
            (after_restart.position[1] + 1.5).abs() < 0.01,
            "{after_restart:?}"
        );
        // Nonsense is ignored.
        model.apply_odometry(&OdometryData {
            rotation_rad: f32::NAN,
            ..OdometryData::default()
        });
        assert!(model.step(&none, &none, 1_000 * MS).position[1].is_finite());
    }

    #[test]
    fn never_seen_is_said_and_the_parameters_are_checked() {
        let mut model = BallModelProvider::new(parameters());
        let none = percept(CameraName::Upper, 0, None);
        let state = model.step(
            &none,
            &percept(CameraName::Lower, 0, None),
            model.started_ns + 2_000 * MS,
        );
        assert!(!state.ever_seen);
        assert!(state.seconds_since_seen >= 2.0);
        let mut bad = parameters();
        bad.velocity_decay_s = 0.0;
        assert!(config::Validate::validate(&bad).is_err());
    }
}
