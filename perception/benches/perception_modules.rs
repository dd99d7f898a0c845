//! The perception process's tick, module by module, on 640×480 frames: each module's update as
//! the process runs it (one after another on the same values), beside the same work done by
//! `perception::perceive_with_camera_matrix` in one call, so that the cost of cutting the
//! pipeline into modules shows. Minimum, median and 95th percentile per module, ms, as a table
//! (the minimum is a tick with the core to itself; the median carries a shared machine's load).
//!
//! Frames: the real NAO frames under `$CORTEX_DATA_DIR/vision` (if there) and frames of the
//! simulated camera with the ball 0.5 to 4 m ahead (always), each as the process sees it
//! (`CameraProvider`'s work, reading or rendering, is not part of the tick measured here: it is
//! the camera's; the simulated camera's rendering has its own bench in `simulator`).
//!
//! ```sh
//! cargo bench -p perception --bench perception_modules
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use cortex_image::{Frame, Resolution, YuyvImage};
use framework::{Blackboard, Module, NoParameters};
use perception::camera_matrix::{CameraMatrix as Matrix, CameraPosition, KinematicState};
use perception::modules::*;
use simulator::scene::SimulatedScene;
use simulator::simulated_camera::SimulatedCamera;
use std::time::{Duration, Instant};
use types::{BallTruth, CameraImage, CameraName, GroundTruth, ProcessLocal, SensorData};

const ROUNDS: usize = 30;

/// The real NAO frames of 640×480 (none, with a SKIPPED line, where the shared data is absent).
fn real_frames() -> Vec<YuyvImage> {
    let Some(vision) = support::vision_dir("perception_modules") else {
        return Vec::new();
    };
    support::labelled_frames(&vision)
        .iter()
        .map(|frame| support::to_yuyv(&frame.image))
        .filter(|image| image.width() == 640)
        .collect()
}

fn simulated_frames() -> Vec<YuyvImage> {
    let mut camera =
        SimulatedCamera::new(simulator::scene::CameraPosition::Upper, Resolution::Vga, 7);
    [0.5f32, 1.0, 2.0, 3.0, 4.0]
        .iter()
        .map(|&distance| {
            let truth = GroundTruth {
                ball: BallTruth {
                    position: nalgebra::Vector2::new(distance, 0.1),
                    ..BallTruth::default()
                },
                ..GroundTruth::default()
            };
            let mut scene = SimulatedScene::standing(truth);
            scene.head_pitch_rad = (0.5f32).atan2(distance).min(0.5);
            camera.render(&scene)
        })
        .collect()
}

type Stage = (&'static str, Box<dyn FnMut(&mut Blackboard)>);

fn stage<M: Module<Parameters = NoParameters> + 'static>(representation: &'static str) -> Stage {
    let mut module = M::construct(NoParameters {});
    (
        M::NAME,
        Box::new(move |blackboard| {
            module.update_named(representation, blackboard).unwrap();
        }),
    )
}

fn percentile(samples: &mut [Duration], fraction: f64) -> f64 {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * fraction).round() as usize;
    samples[index].as_secs_f64() * 1e3
}

fn main() {
    let mut frames = real_frames();
    let real = frames.len();
    frames.extend(simulated_frames());
    println!(
        "{} frames (640x480): {real} real NAO frames, {} simulated; {ROUNDS} rounds\n",
        frames.len(),
        frames.len() - real
    );

    let mut blackboard = Blackboard::new();
    let registry = framework::registry();
    for name in registry.names() {
        registry.get(name).unwrap().insert_default(&mut blackboard);
    }
    blackboard.insert(SensorData::default());
    let mut matrix_provider = CameraMatrixProvider::construct(CameraMatrixProviderParameters {
        torso_height_m: 0.31,
    });
    let mut stages: Vec<Stage> = vec![
        (
            "CameraMatrixProvider",
            Box::new(move |blackboard: &mut Blackboard| {
                matrix_provider
                    .update_named("CameraMatrix", blackboard)
                    .unwrap();
            }),
        ),
        stage::<BodyContourProvider>("BodyContour"),
        stage::<ECImageProvider>("ECImage"),
        stage::<FieldColorProvider>("FieldColors"),
        stage::<ColorClassifier>("ColorClassImage"),
        stage::<ScanLineRegionizer>("ColorScanLineRegions"),
        stage::<FieldBoundaryProvider>("FieldBoundary"),
        stage::<BallSpotsProvider>("BallSpots"),
        stage::<BallPerceptor>("BallPercept"),
        stage::<LinePerceptor>("LinesPercept"),
        stage::<PenaltyMarkPerceptor>("PenaltyMarkPercept"),
    ];
    let mut module_times: Vec<Vec<Duration>> = vec![Vec::new(); stages.len()];
    let mut tick_times = Vec::new();
    let mut pipeline_times = Vec::new();
    let matrix = Matrix::nao_v6(CameraPosition::Upper, &KinematicState::standing(), 640, 480);
    for round in 0..ROUNDS {
        for (index, image) in frames.iter().enumerate() {
            blackboard.insert(CameraImage {
                camera: CameraName::Upper,
                width: 640,
                height: 480,
                sequence: (round * frames.len() + index) as u64,
                posture_known: true,
                frame: ProcessLocal::new(Frame {
                    image: image.clone(),
                    sequence: 0,
                    captured_at: Instant::now(),
                    source: String::new(),
                }),
                ..CameraImage::default()
            });
            let tick = Instant::now();
            for ((_, run), times) in stages.iter_mut().zip(&mut module_times) {
                let started = Instant::now();
                run(&mut blackboard);
                times.push(started.elapsed());
            }
            tick_times.push(tick.elapsed());
            let started = Instant::now();
            std::hint::black_box(perception::perceive_with_camera_matrix(image, &matrix));
            pipeline_times.push(started.elapsed());
        }
    }
    println!(
        "| {:<40} | {:>9} | {:>9} | {:>9} |",
        "module", "min ms", "median ms", "p95 ms"
    );
    println!("|{:-<42}|{:->11}|{:->11}|{:->11}|", "", "", "", "");
    let row = |name: &str, times: &mut [Duration]| {
        println!(
            "| {name:<40} | {:>9.3} | {:>9.3} | {:>9.3} |",
            percentile(times, 0.0),
            percentile(times, 0.5),
            percentile(times, 0.95)
        );
    };
    for ((name, _), times) in stages.iter().zip(&mut module_times) {
        row(name, times);
    }
    row("whole tick, as modules", &mut tick_times);
    row(
        "whole tick, perceive_with_camera_matrix",
        &mut pipeline_times,
    );
}
