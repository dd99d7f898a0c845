//! `cortex perceive`: runs the perception stages on image files (PNG RGB or raw YUYV) and
//! prints the balls found in each, with the time the tick took.
//!
//! A file that cannot be read or decoded gets a message on stderr naming it; the other files
//! are still processed. Exit status: 0 when every file was processed, 66 (`EX_NOINPUT`) when a
//! file could not be opened or read, 65 (`EX_DATAERR`) when one was read but is not an image
//! of a camera resolution.

use crate::exit_code::{EX_DATAERR, EX_NOINPUT};
use anyhow::Result;
use cortex_image::{read_image_file, ColorRange, ImageFileError, YuyvImage};
use perception::camera_matrix::{CameraMatrix, CameraPosition, KinematicState};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// Which camera the images come from (sets the camera matrix for ground positions).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Camera {
    Upper,
    Lower,
}

/// The options of `cortex perceive`.
#[derive(clap::Args, Debug)]
pub struct PerceiveOptions {
    /// The camera the images were taken with (ground positions assume a standing robot with
    /// its head straight).
    #[arg(long, value_enum, default_value = "upper")]
    camera: Camera,
    /// One JSON object per file and line: {"file", "balls": [{"x", "y", "radius",
    /// "confidence"}], "time_ms"}.
    #[arg(long)]
    json: bool,
    /// Image files: PNG (RGB, RGBA or grey) or raw YUYV frames, at 320x240, 640x480 or 1280x960.
    #[arg(required = true, value_name = "IMAGE")]
    images: Vec<PathBuf>,
}

#[derive(Serialize)]
struct BallLine {
    x: f64,
    y: f64,
    radius: f64,
    confidence: f64,
}

#[derive(Serialize)]
struct FileLine {
    file: String,
    balls: Vec<BallLine>,
    time_ms: f64,
}

fn rounded(value: f32, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (f64::from(value) * scale).round() / scale
}

fn camera_matrix(camera: Camera, image: &YuyvImage) -> CameraMatrix {
    let position = match camera {
        Camera::Upper => CameraPosition::Upper,
        Camera::Lower => CameraPosition::Lower,
    };
    CameraMatrix::nao_v6(
        position,
        &KinematicState::standing(),
        image.width(),
        image.height(),
    )
}

/// Runs `cortex perceive`.
pub fn run(options: PerceiveOptions) -> Result<ExitCode> {
    let mut worst = 0u8;
    for path in &options.images {
        let image = match read_image_file(path, ColorRange::Full) {
            Ok(image) => image,
            Err(error) => {
                let code = match error {
                    ImageFileError::Read { .. }
                    | ImageFileError::Png(cortex_image::PngReadError::Open { .. }) => EX_NOINPUT,
                    _ => EX_DATAERR,
                };
                eprintln!("cortex perceive: {error}");
                worst = worst.max(code);
                continue;
            }
        };
        let matrix = camera_matrix(options.camera, &image);
        let percepts = perception::perceive(&image, Some(&matrix));
        let time_ms = percepts.total_time().as_secs_f64() * 1e3;
        if options.json {
            let line = FileLine {
                file: path.display().to_string(),
                balls: percepts
                    .balls
                    .iter()
                    .map(|ball| BallLine {
                        x: rounded(ball.x, 2),
                        y: rounded(ball.y, 2),
                        radius: rounded(ball.radius, 2),
                        confidence: rounded(ball.confidence, 3),
                    })
                    .collect(),
                time_ms: (time_ms * 1000.0).round() / 1000.0,
            };
            println!("{}", serde_json::to_string(&line)?);
        } else {
            println!(
                "{}: {} ball{} in {time_ms:.2} ms",
                path.display(),
                percepts.balls.len(),
                if percepts.balls.len() == 1 { "" } else { "s" }
            );
            for ball in &percepts.balls {
                let ground = ball
                    .position_on_ground_m
                    .map(|position| {
                        format!(
                            ", on the ground at ({:.2}, {:.2}) m if standing",
                            position.x, position.y
                        )
                    })
                    .unwrap_or_default();
                println!(
                    "  ball at ({:.1}, {:.1}) px, radius {:.1} px, confidence {:.2}{ground}",
                    ball.x, ball.y, ball.radius, ball.confidence
                );
            }
        }
    }
    Ok(if worst == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(worst)
    })
}
