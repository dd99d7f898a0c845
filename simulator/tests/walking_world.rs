//! The robot walks in the simulated world: the walking engine's joint targets drive the
//! simulated body (at its joint speed limits, as the LoLA simulator does) and the world moves the
//! robot by those legs alone (`KinematicWalker`, the lower foot fixed on the field). The pose
//! must advance as the engine's own odometry says it walked.

use std::time::Duration;

use lola::codec::Command;
use simulator::lola_simulator::SimulatorConfig;
use simulator::simulated_body::{SimulatedBody, SITTING_POSE_RAD};
use simulator::world::World;
use types::{JointRequest, Joints};
use walking::{WalkRequest, WalkingEngine, WalkingEngineParameters, WalkingSensors};

const CYCLE: Duration = Duration::from_millis(12);

/// Walks with `request` for `seconds`, starting with the legs in the engine's stand pose;
/// returns the world's and the engine's displacement (x, y, turn) in the robot's start frame.
fn walk(request: &WalkRequest, seconds: f64) -> ([f64; 3], [f64; 3]) {
    let defaults = SimulatorConfig::new("/unused");
    let mut body = SimulatedBody::new(
        SITTING_POSE_RAD,
        defaults.max_joint_speed_rad_per_s,
        defaults.sag_speed_rad_per_s,
    );
    let mut engine = WalkingEngine::new(WalkingEngineParameters::default());
    let mut world = World::new();
    world.place_robot(0.0, 0.0, 0.0).unwrap();
    let stand = WalkRequest::Stand;
    let command = |body: &mut SimulatedBody, engine: &mut WalkingEngine, request| {
        let sensors = WalkingSensors {
            joint_positions_rad: body.positions_rad.values,
            cycle_time: CYCLE,
            ..WalkingSensors::default()
        };
        let output = engine.tick(request, &sensors);
        body.apply(&Command::joints(&JointRequest {
            positions_rad: Joints::from_lola_order(output.positions_rad),
            stiffnesses: Joints::from_lola_order(output.stiffnesses),
            pose_epoch: 0,
        }));
        body.step(CYCLE);
    };
    // Stand up first (the world does not move yet: the robot is placed once it stands).
    for _ in 0..300 {
        command(&mut body, &mut engine, &stand);
    }
    world.place_robot(0.0, 0.0, 0.0).unwrap();
    let start_odometry = engine.odometry();
    for _ in 0..(seconds / CYCLE.as_secs_f64()) as usize {
        command(&mut body, &mut engine, request);
        world.step(CYCLE.as_secs_f64(), Some(&body.positions_rad));
    }
    let pose = world.robot();
    let odometry = start_odometry.inverse() * engine.odometry();
    (
        [f64::from(pose.x), f64::from(pose.y), f64::from(pose.theta)],
        [
            odometry.translation.x,
            odometry.translation.y,
            odometry.rotation.angle(),
        ],
    )
}

#[test]
fn walking_forward_carries_the_robot_as_far_as_the_odometry_says() {
    let (world, odometry) = walk(
        &WalkRequest::Walk {
            forward_m_per_s: 0.15,
            left_m_per_s: 0.0,
            turn_rad_per_s: 0.0,
        },
        6.0,
    );
    eprintln!("world {world:?}, odometry {odometry:?}");
    assert!(world[0] > 0.3, "walked forward: {world:?}");
    assert!(
        (world[0] / odometry[0] - 1.0).abs() < 0.15,
        "world {world:?}, odometry {odometry:?}"
    );
    assert!(
        world[1].abs() < 0.1 * world[0],
        "no drift sideways: {world:?}"
    );
    assert!(world[2].abs() < 0.1, "no turn: {world:?}");
}

#[test]
fn turning_on_the_spot_turns_the_robot_and_standing_keeps_it_still() {
    let (world, odometry) = walk(
        &WalkRequest::Walk {
            forward_m_per_s: 0.0,
            left_m_per_s: 0.0,
            turn_rad_per_s: 0.4,
        },
        6.0,
    );
    eprintln!("world {world:?}, odometry {odometry:?}");
    assert!(world[2] > 0.5, "turned left: {world:?}");
    assert!(
        (world[2] / odometry[2] - 1.0).abs() < 0.15,
        "world {world:?}, odometry {odometry:?}"
    );
    let (still, _) = walk(&WalkRequest::Stand, 3.0);
    assert!(still.iter().all(|value| value.abs() < 1e-3), "{still:?}");
}
