//! Tuning aid: drives the walk alone against a LoLA socket (the physics simulator), without the
//! rest of the system, and prints the odometry every second.
//!
//! ```sh
//! python3 simulator/physics/lola_physics.py /tmp/walk.sock --fast --initial-pose stand \
//!     --ground-truth /tmp/truth.jsonl --seconds 20 &
//! cargo run --release -p motion --example physics_walk -- /tmp/walk.sock \
//!     config/data/default/WalkingEngine.toml 0.25 0 0 15
//! ```
//!
//! Arguments: socket, parameter file, forward m/s, left m/s, turn rad/s, seconds of walking
//! (after one second of standing; the walk stops after it). `kick:left` or `kick:right` instead
//! of the forward speed kicks, with the direction (rad) and strength in place of left and turn.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use anyhow::{bail, Context};
use lola::codec::{decode_sensor_frame, encode_command, Command};
use motion::walking_engine::{walking_sensors, Walk, WalkingEngineParameters};
use types::{JointRequest, Joints};
use walking::WalkRequest;

const FRAME_SIZE: usize = 896;

fn main() -> anyhow::Result<()> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.len() != 6 {
        bail!("usage: physics_walk SOCKET PARAMETERS.toml FORWARD LEFT TURN SECONDS");
    }
    let text = std::fs::read_to_string(&arguments[1]).context("reading the parameters")?;
    let parameters: WalkingEngineParameters = toml::from_str(&text).context("parameters")?;
    config::Validate::validate(&parameters).map_err(|error| anyhow::anyhow!("{error}"))?;
    let number = |index: usize| -> anyhow::Result<f64> {
        arguments[index]
            .parse()
            .with_context(|| format!("argument {index}: {}", arguments[index]))
    };
    // `kick:left` / `kick:right` as the forward speed kicks (LEFT is the direction, TURN the
    // strength).
    let request = match arguments[2].as_str() {
        "kick:left" | "kick:right" => WalkRequest::Kick {
            foot: if arguments[2] == "kick:left" {
                walking::Side::Left
            } else {
                walking::Side::Right
            },
            direction_rad: number(3)?,
            strength: number(4)?,
        },
        _ => WalkRequest::Walk {
            forward_m_per_s: number(2)?,
            left_m_per_s: number(3)?,
            turn_rad_per_s: number(4)?,
        },
    };
    let seconds = number(5)?;
    let mut stream = UnixStream::connect(&arguments[0]).context("connecting")?;
    let mut walk = Walk::new(parameters);
    let mut frame = vec![0u8; FRAME_SIZE];
    let mut started = false;
    let cycle = Duration::from_millis(12);
    let ticks = ((seconds + 3.0) / 0.012) as usize;
    for tick in 0..ticks {
        stream.read_exact(&mut frame).context("reading a frame")?;
        let sensor_data = decode_sensor_frame(&frame)
            .map_err(|error| anyhow::anyhow!("{error}"))?
            .sensor_data;
        if !started {
            walk.begin(sensor_data.joint_positions_rad, Joints::filled(0.6));
            started = true;
        }
        let time_s = tick as f64 * 0.012;
        let now = if (1.0..1.0 + seconds).contains(&time_s) {
            request
        } else {
            WalkRequest::Stand
        };
        let command = walk.step(&now, &walking_sensors(&sensor_data, cycle));
        let joints = JointRequest {
            positions_rad: command.positions,
            stiffnesses: command.stiffnesses,
            pose_epoch: 0,
        };
        let bytes = encode_command(&Command::joints(&joints))
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        stream.write_all(&bytes).context("writing a command")?;
        // Tuning pushes: PHYSICS_WALK_PUSH="FX FY FZ MS" through PHYSICS_WALK_CONTROL 3 s in.
        if tick == 250 {
            if let (Ok(push), Ok(control)) = (
                std::env::var("PHYSICS_WALK_PUSH"),
                std::env::var("PHYSICS_WALK_CONTROL"),
            ) {
                let mut control = UnixStream::connect(control).context("control socket")?;
                control.write_all(format!("push {push}\n").as_bytes())?;
                let mut reply = String::new();
                control.read_to_string(&mut reply)?;
                println!("{}", reply.trim());
            }
        }
        if tick % 83 == 0 {
            let odometry = walk.odometry();
            let imu = &sensor_data.inertial_measurement;
            println!(
                "t {time_s:5.2} {:?} odometry {:6.3} {:6.3} {:6.3} angles {:6.3} {:6.3}",
                command.state,
                odometry.translation_m.x,
                odometry.translation_m.y,
                odometry.rotation_rad,
                imu.torso_angles_rad.x,
                imu.torso_angles_rad.y
            );
        }
    }
    Ok(())
}
