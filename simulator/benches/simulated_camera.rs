//! How long a simulated camera takes to render one frame, per resolution and per way of making
//! the sensor's noise and chroma, side by side (median over the frames; the frame budget is
//! 33 ms at 30 Hz). The last column looks down at the robot's own feet (head pitched to its
//! limit), where the own legs cover the bottom of the lower camera's image and the hanging hands
//! its lower corners. Each cell is the thread's CPU time per frame, then the wall time in
//! brackets: on a loaded machine the wall time includes the time other processes ran.
//!
//! `cargo bench -p simulator --bench simulated_camera [-- FRAMES]`

use std::time::{Duration, Instant};

use cortex_image::Resolution;
use simulator::render::ChromaSampling;
use simulator::scene::{CameraPosition, SimulatedScene};
use simulator::simulated_camera::{NoiseSource, SensorModel, SimulatedCamera};
use types::{GroundTruth, RobotPose};

/// A scene with everything in view of the upper camera: the ball 1.5 m ahead, the centre
/// circle, a goal and two other robots; the head turned a little and pitched by
/// `head_pitch_rad`.
fn scene(frame: usize, head_pitch_rad: f32) -> SimulatedScene {
    let truth = GroundTruth {
        robot: RobotPose {
            x: 2.0,
            y: 0.3,
            theta: 0.1,
        },
        other_robots: vec![
            RobotPose {
                x: 3.5,
                y: -0.6,
                theta: 3.0,
            },
            RobotPose {
                x: 4.2,
                y: 0.5,
                theta: 3.0,
            },
        ],
        ..GroundTruth::default()
    };
    let mut scene = SimulatedScene::standing(truth);
    scene.ground_truth.ball.position.x = 3.5 + 0.001 * frame as f32;
    scene.ground_truth.ball.position.y = 0.2;
    scene.head_yaw_rad = 0.05;
    scene.head_pitch_rad = head_pitch_rad;
    scene
}

/// CPU time of this thread.
fn thread_cpu_time() -> Duration {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let frames: usize = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse().ok())
        .unwrap_or(40);
    let default = SensorModel::default();
    let variants: [(&str, SensorModel); 5] = [
        ("noise table, pair-mean chroma (default)", default),
        (
            "noise generator, pair-mean chroma",
            SensorModel {
                noise: NoiseSource::Generator,
                ..default
            },
        ),
        (
            "noise table, first-of-pair chroma",
            SensorModel {
                chroma: ChromaSampling::FirstOfPair,
                ..default
            },
        ),
        (
            "no noise, varying light",
            SensorModel {
                noise_sigma: 0.0,
                ..default
            },
        ),
        ("ideal (no noise, neutral light)", SensorModel::ideal()),
    ];
    /// The head's pitch in the usual columns: looking a little down the field.
    const HEAD_PITCH_RAD: f32 = 0.15;
    let looking_down = kinematics::limits::HEAD_PITCH.max_rad as f32;
    let cameras = [
        (CameraPosition::Upper, Resolution::Vga, HEAD_PITCH_RAD, ""),
        (CameraPosition::Upper, Resolution::Quad, HEAD_PITCH_RAD, ""),
        (CameraPosition::Lower, Resolution::Vga, HEAD_PITCH_RAD, ""),
        (
            CameraPosition::Lower,
            Resolution::Vga,
            looking_down,
            " at the feet",
        ),
    ];
    println!(
        "simulated camera: median CPU time (wall time) to render one frame, over {frames} frames"
    );
    println!();
    print!("| sensor model |");
    for (camera, resolution, _, looking) in cameras {
        let (width, height) = resolution.size();
        print!(" {} {width}×{height}{looking} |", camera.name());
    }
    println!(" ratio to default (upper 640×480) |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut reference = None;
    for (name, model) in variants {
        print!("| {name} |");
        let mut first = Duration::ZERO;
        for (index, (camera, resolution, head_pitch_rad, _)) in cameras.into_iter().enumerate() {
            let mut renderer = SimulatedCamera::with_sensor_model(camera, resolution, 11, model);
            // Warm up (page faults of the first buffers, caches).
            renderer.render(&scene(0, head_pitch_rad));
            let (cpu, wall): (Vec<Duration>, Vec<Duration>) = (0..frames)
                .map(|frame| {
                    let scene = scene(frame, head_pitch_rad);
                    let (start, start_cpu) = (Instant::now(), thread_cpu_time());
                    let image = renderer.render(&scene);
                    let elapsed = (thread_cpu_time() - start_cpu, start.elapsed());
                    std::hint::black_box(image);
                    elapsed
                })
                .unzip();
            let (cpu, wall) = (median(cpu), median(wall));
            if index == 0 {
                first = cpu;
            }
            print!(
                " {:.2} ms ({:.2}) |",
                cpu.as_secs_f64() * 1e3,
                wall.as_secs_f64() * 1e3
            );
        }
        let reference = *reference.get_or_insert(first);
        println!(" {:.2} |", first.as_secs_f64() / reference.as_secs_f64());
    }
}
