//! A camera that plays a folder of frames (PNG RGB or raw `.yuyv`) in name order.

use crate::camera::{Camera, Frame};
use crate::color::ColorRange;
use crate::yuyv_file::{read_image_file, ImageFileError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How fast the file camera hands out frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pacing {
    /// Each call returns the next frame at once.
    AsFastAsAsked,
    /// One frame per period (a camera at 30 Hz: 33.3 ms); a call waits for the next one.
    Period(Duration),
}

/// Why a folder could not be opened as a camera.
#[derive(Debug, thiserror::Error)]
pub enum FileCameraOpenError {
    #[error("{path}: cannot list the folder: {source}")]
    List {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: no frames in the folder (looked for *.png, *.yuyv, *.yuv)")]
    Empty { path: PathBuf },
}

/// Why one frame of the folder could not be delivered.
#[derive(Debug, thiserror::Error)]
pub enum FileCameraError {
    #[error("frame {sequence}: {source}")]
    Frame {
        sequence: u64,
        source: ImageFileError,
    },
}

/// Plays the frames of a folder (`*.png`, `*.yuyv`, `*.yuv`, sorted by name).
#[derive(Debug)]
pub struct FileCamera {
    files: Vec<PathBuf>,
    next_index: usize,
    sequence: u64,
    looping: bool,
    pacing: Pacing,
    range: ColorRange,
    next_due: Option<Instant>,
}

fn is_frame_file(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| {
            matches!(
                extension.to_ascii_lowercase().as_str(),
                "png" | "yuyv" | "yuv"
            )
        })
}

impl FileCamera {
    /// Lists the frames of `folder`; PNGs are converted with `range`.
    pub fn open(
        folder: &Path,
        pacing: Pacing,
        range: ColorRange,
    ) -> Result<Self, FileCameraOpenError> {
        let list_error = |source| FileCameraOpenError::List {
            path: folder.to_owned(),
            source,
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(folder).map_err(list_error)? {
            let path = entry.map_err(list_error)?.path();
            if path.is_file() && is_frame_file(&path) {
                files.push(path);
            }
        }
        if files.is_empty() {
            return Err(FileCameraOpenError::Empty {
                path: folder.to_owned(),
            });
        }
        files.sort();
        Ok(Self {
            files,
            next_index: 0,
            sequence: 0,
            looping: false,
            pacing,
            range,
            next_due: None,
        })
    }

    /// Starts again at the first frame after the last one instead of ending.
    pub fn looping(mut self, looping: bool) -> Self {
        self.looping = looping;
        self
    }

    /// The frames it plays, in order.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    fn wait_until_due(&mut self) {
        if let Pacing::Period(period) = self.pacing {
            let now = Instant::now();
            let due = self.next_due.unwrap_or(now);
            if due > now {
                std::thread::sleep(due - now);
            }
            // A caller that fell behind does not get a burst of frames to catch up.
            self.next_due = Some(due.max(now) + period);
        }
    }
}

impl Camera for FileCamera {
    type Error = FileCameraError;

    fn next_frame(&mut self) -> Result<Option<Frame>, FileCameraError> {
        if self.next_index >= self.files.len() {
            if !self.looping {
                return Ok(None);
            }
            self.next_index = 0;
        }
        self.wait_until_due();
        let path = self.files[self.next_index].clone();
        self.next_index += 1;
        let sequence = self.sequence;
        self.sequence += 1;
        let image = read_image_file(&path, self.range)
            .map_err(|source| FileCameraError::Frame { sequence, source })?;
        Ok(Some(Frame {
            image,
            sequence,
            captured_at: Instant::now(),
            source: path.display().to_string(),
        }))
    }
}
