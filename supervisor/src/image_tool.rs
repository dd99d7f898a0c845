//! `cortex image upper --out FILE.png`: saves the newest frame of a camera of a running instance.
//!
//! The frame is read from the camera's image channel (`perception::image_channel`), which the
//! perception process holds and publishes into only while it is watched: this tool finds the
//! process's pid in the status, opens the channel from it, watches it and takes the next frame
//! (within one camera tick), then writes it as an RGB PNG.
//!
//! Exit statuses: 69 (`EX_UNAVAILABLE`) when no instance answers, the camera's process is not
//! running or has no image channel, or no frame comes within [`FRAME_WAIT`]; 73
//! (`EX_CANTCREAT`) when the PNG cannot be written.

use crate::control;
use crate::exit_code::{Failure, EX_CANTCREAT, EX_UNAVAILABLE};
use anyhow::Result;
use cortex_image::{write_png, ColorRange, YuyvImage};
use framework::plain::PlainReader;
use perception::image_channel::{self, ImageHeader};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use types::CameraName;

/// How long to wait for the next frame after asking for them.
pub const FRAME_WAIT: Duration = Duration::from_secs(2);

/// Which camera.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageCamera {
    Upper,
    Lower,
}

/// Runs `cortex image CAMERA --out FILE`.
pub fn run(run_dir: &Path, camera: ImageCamera, out: &Path) -> Result<ExitCode> {
    let camera = match camera {
        ImageCamera::Upper => CameraName::Upper,
        ImageCamera::Lower => CameraName::Lower,
    };
    let process = format!("perception.{}", camera.as_str());
    let status = control::status(run_dir)?;
    let Some(entry) = status.processes.iter().find(|p| p.name == process) else {
        return Err(Failure::error(
            EX_UNAVAILABLE,
            format!("this instance has no process `{process}` (see cortex status)"),
        ));
    };
    let Some(pid) = entry.pid else {
        return Err(Failure::error(
            EX_UNAVAILABLE,
            format!("`{process}` is not running (see cortex status)"),
        ));
    };
    let channel = image_channel::open_of_process(pid, camera)
        .map_err(|error| Failure::error(EX_UNAVAILABLE, format!("{process}: {error}")))?;
    let (header, pixels) = newest_frame(&channel)
        .map_err(|error| Failure::error(EX_UNAVAILABLE, format!("{process}: {error}")))?;
    let image = YuyvImage::new(header.width as usize, header.height as usize, pixels)
        .map_err(|error| Failure::error(EX_UNAVAILABLE, format!("{process}: {error}")))?;
    write_png(out, &image.to_rgb(ColorRange::Full))
        .map_err(|error| Failure::error(EX_CANTCREAT, format!("{}: {error}", out.display())))?;
    println!(
        "{}: frame {} of the {} camera, {}x{}",
        out.display(),
        header.sequence,
        camera.as_str(),
        header.width,
        header.height
    );
    Ok(ExitCode::SUCCESS)
}

/// Watches the channel and copies the first frame published after that.
fn newest_frame(channel: &ipc::PodChannel<ImageHeader>) -> Result<(ImageHeader, Vec<u8>), String> {
    let mut watcher = channel.buffer().reader();
    let before = watcher.published();
    watcher.watch(ipc::health::monotonic_ns() + 2 * FRAME_WAIT.as_nanos() as u64);
    let fresh = watcher
        .wait_newer(before, FRAME_WAIT)
        .map_err(|error| error.to_string())?;
    if fresh.is_none() {
        return Err(format!(
            "no frame within {FRAME_WAIT:?} (the camera delivers none: see cortex status)"
        ));
    }
    let mut reader = PlainReader::new(channel);
    let read = reader
        .read_in_place(|header, payload| {
            let length = header.payload_bytes()?;
            let mut pixels = vec![0u8; length];
            payload.copy_to(0, &mut pixels).then_some((*header, pixels))
        })
        .map_err(|error| error.to_string())?;
    match read {
        Some((_, Some(frame))) => Ok(frame),
        Some((_, None)) => Err("the image channel holds a frame of no camera size".to_owned()),
        None => Err("no frame has been published".to_owned()),
    }
}
