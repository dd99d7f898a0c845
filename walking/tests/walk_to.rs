//! The walk-to-target planner drives the real engine in a kinematic simulation: the robot moves
//! exactly by the engine's odometry, and the target is given relative to where it is now.

mod support;

use std::f64::consts::PI;

use nalgebra::{Isometry2, Vector2};
use support::run;
use walking::{RelativeTarget, WalkRequest, WalkState, WalkingEngine, WalkingEngineParameters};

/// Walks to `goal` (in the start frame); returns the final pose and the seconds it took.
fn walk_to(goal: Isometry2<f64>) -> (Isometry2<f64>, f64) {
    let parameters = WalkingEngineParameters::default();
    let mut engine = WalkingEngine::new(parameters);
    let mut walked = false;
    let mut finished_tick = None;
    // 60 simulated seconds at most.
    let outputs = run(&mut engine, 5000, |tick, engine| {
        if engine.state() != WalkState::Standing {
            walked = true;
        } else if walked && finished_tick.is_none() {
            finished_tick = Some(tick);
        }
        let relative = engine.odometry().inverse() * goal;
        WalkRequest::WalkTo {
            target: RelativeTarget {
                forward_m: relative.translation.x,
                left_m: relative.translation.y,
                turn_rad: relative.rotation.angle(),
            },
        }
    });
    assert_eq!(
        outputs.last().unwrap().state,
        WalkState::Standing,
        "still walking after 60 s towards {goal:?}"
    );
    let seconds = finished_tick.expect("the robot walked and stopped") as f64 * 0.012;
    (engine.odometry(), seconds)
}

#[test]
fn the_planner_reaches_targets_all_around_including_behind_the_robot() {
    let goals = [
        (1.0, 0.0, 0.0),
        (0.3, 0.3, 1.0),
        (0.0, -0.25, 0.0),
        (-1.0, 0.2, PI),
        (-1.5, -0.5, 0.0),
        (0.5, 0.5, -1.5),
        (0.0, 0.0, PI / 2.0),
    ];
    for (x, y, angle) in goals {
        let goal = Isometry2::new(Vector2::new(x, y), angle);
        let (reached, seconds) = walk_to(goal);
        let error = reached.inverse() * goal;
        let distance = error.translation.vector.norm();
        let angle_error = error.rotation.angle().abs();
        eprintln!(
            "goal ({x}, {y}, {angle:.2}): {:.1} s, off by {:.1} mm and {:.3} rad",
            seconds,
            distance * 1000.0,
            angle_error
        );
        assert!(distance < 0.03, "{goal:?}: {distance} m away");
        assert!(angle_error < 0.06, "{goal:?}: {angle_error} rad off");
    }
}

#[test]
fn a_far_target_behind_is_reached_by_turning_first() {
    let parameters = WalkingEngineParameters::default();
    let mut engine = WalkingEngine::new(parameters);
    let goal = Isometry2::new(Vector2::new(-2.0, 0.0), 0.0);
    let mut poses = Vec::new();
    run(&mut engine, 5000, |_, engine| {
        poses.push(engine.odometry());
        let relative = engine.odometry().inverse() * goal;
        WalkRequest::WalkTo {
            target: RelativeTarget {
                forward_m: relative.translation.x,
                left_m: relative.translation.y,
                turn_rad: relative.rotation.angle(),
            },
        }
    });
    // Before the robot has moved 20 cm it has turned by more than 90°: it did not walk backwards.
    let turned_first = poses
        .iter()
        .take_while(|pose| pose.translation.vector.norm() < 0.2)
        .any(|pose| pose.rotation.angle().abs() > PI / 2.0);
    assert!(turned_first);
    let error = engine.odometry().inverse() * goal;
    assert!(error.translation.vector.norm() < 0.03);
}
