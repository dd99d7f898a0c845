//! `CameraProvider`: owns this process's camera and provides each frame as [`CameraImage`]
//! (B-Human's module of that name). Its pixels also go to the camera's image channel
//! ([`crate::image_channel`]) while someone watches it (`cortex image`, the debug link).
//!
//! Where frames come from (`CameraProvider.toml`, one table per camera):
//!
//! | `source` | frames |
//! |---|---|
//! | `files` | a folder of PNG or raw YUYV frames (`cortex_image::FileCamera`), played once, or looped with `loop_files` |
//! | `simulated` | rendered by the simulator from `GroundTruth` and the head joints in `SensorData` |
//! | `v4l2` | the robot's camera device, opened at the first tick (not in this build: refused then, exit 78) |
//! | `auto` | `v4l2` in the robot build (`--features robot`), else `simulated` (`cortex run --sim`); no frames where the build has neither |
//!
//! The process's rate (`processes.toml`, 30 Hz) paces the frames: each tick takes the next
//! frame of the folder, or renders the simulated scene for the head's posture now, and the
//! stages after it run on it at once. (The V4L2 camera, when it comes, delivers at its own
//! 30 Hz: its process then waits for the frame instead.) A source that ends (a folder played to
//! its end) or fails `max_consecutive_errors` frames in a row ends the process with status 69
//! and a message naming the camera and the cause: the supervisor restarts it, and cognition goes
//! on with the other camera meanwhile.
//!
//! A V4L2 device is opened lazily, at the first tick, never when the module is built: a warm
//! standby (issue 11) builds this module but does not tick until it takes over, and two
//! processes cannot both stream from one device. Files and simulated cameras open at once (a
//! missing folder is refused at start).

use super::this_camera;
use crate::image_channel::{self, ImageHeader};
use cortex_image::{Camera, ColorRange, FileCamera, Frame, Pacing, Resolution};
use framework::plain::PlainWriter;
use framework::Update;
use ipc::PodChannel;
use serde::Deserialize;
use simulator::scene::SimulatedScene;
use simulator::simulated_camera::SimulatedCamera;
use std::path::PathBuf;
use std::time::Instant;
use types::{CameraImage, CameraName, GroundTruth, ProcessLocal, SensorData};

/// Exit status of a perception process whose camera ended or kept failing (`EX_UNAVAILABLE`:
/// the supervisor restarts it).
pub const EXIT_CAMERA_FAILED: i32 = 69;
/// Exit status of a perception process whose camera cannot be opened (a folder that is not
/// there, a camera this build lacks; `EX_CONFIG`: not restarted, the configuration must change).
pub const EXIT_CAMERA_UNAVAILABLE: i32 = 78;

/// Where a camera's frames come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CameraSource {
    Auto,
    Files,
    Simulated,
    V4l2,
}

/// One camera's settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraSettings {
    pub source: CameraSource,
    /// The folder of frames for `files` (absolute, or relative to the working directory).
    #[serde(default)]
    pub folder: String,
    /// `files`: start again after the last frame instead of ending.
    #[serde(default)]
    pub loop_files: bool,
}

/// Parameters (`CameraProvider.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraProviderParameters {
    /// This many failed frames in a row end the process.
    pub max_consecutive_errors: u32,
    pub upper: CameraSettings,
    pub lower: CameraSettings,
}

impl config::Validate for CameraProviderParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range(
            "max_consecutive_errors",
            self.max_consecutive_errors as f32,
            1.0..=10_000.0,
        )?;
        for (key, settings) in [("upper", &self.upper), ("lower", &self.lower)] {
            if settings.source == CameraSource::Files && settings.folder.trim().is_empty() {
                return Err(config::Invalid::new(
                    format!("{key}.folder"),
                    "source \"files\" needs the folder of frames".to_owned(),
                ));
            }
        }
        Ok(())
    }
}

/// Why a camera could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum CameraOpenError {
    #[error("camera {camera}: {source}")]
    Files {
        camera: &'static str,
        source: cortex_image::FileCameraOpenError,
    },
    #[error(
        "camera {camera}: source \"v4l2\" needs the robot build (`--features robot`) with a V4L2 camera; this build has none. Use source \"files\" or \"simulated\" in CameraProvider.toml"
    )]
    NoV4l2 { camera: &'static str },
    #[error("camera {camera}: its image channel: {source}")]
    Channel {
        camera: &'static str,
        source: framework::plain::PlainError,
    },
}

enum Source {
    Files(FileCamera),
    Simulated(Box<SimulatedCamera>),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Files(files) => write!(formatter, "Files({} frames)", files.files().len()),
            Source::Simulated(_) => formatter.write_str("Simulated"),
        }
    }
}

/// The camera of a [`CameraProvider`]: open, failed to open, or (a device) not opened yet.
#[derive(Debug)]
enum CameraState {
    /// Opened when the module was built (files, simulated) or at the first tick (a device).
    Open(Source),
    /// Could not be opened.
    Failed(CameraOpenError),
    /// A device, opened at the first tick of an active instance (a standby holds none).
    Deferred,
}

/// Provides [`CameraImage`] from this process's camera.
#[derive(Debug)]
pub struct CameraProvider {
    camera: CameraName,
    source: CameraState,
    max_consecutive_errors: u32,
    consecutive_errors: u32,
    sequence: u64,
    /// The image channel (leaked: it lives as long as the process, and the writer borrows it).
    writer: Option<PlainWriter<'static, ImageHeader>>,
}

framework::module! {
    CameraProvider {
        inputs: CameraProviderInputs,
        parameters: CameraProviderParameters,
        requires: { sensor_data: SensorData },
        // The simulated world (written by `cortex simulator`; default without `--sim`).
        uses: { ground_truth: GroundTruth },
        provides: { CameraImage },
    }
}

/// One image channel per camera and process, made at the first `CameraProvider` (a module
/// rebuilt after a panic or new parameters keeps publishing into the same channel).
fn image_writer(camera: CameraName) -> Result<PlainWriter<'static, ImageHeader>, CameraOpenError> {
    static CHANNELS: std::sync::OnceLock<[std::sync::OnceLock<PodChannel<ImageHeader>>; 2]> =
        std::sync::OnceLock::new();
    let channels = CHANNELS.get_or_init(Default::default);
    let cell = &channels[camera as usize];
    let channel_error = |source| CameraOpenError::Channel {
        camera: camera.as_str(),
        source,
    };
    let channel = match cell.get() {
        Some(channel) => channel,
        None => {
            let made = image_channel::create(camera).map_err(channel_error)?;
            cell.get_or_init(|| made)
        }
    };
    PlainWriter::new(channel).map_err(channel_error)
}

impl CameraProvider {
    fn new(parameters: CameraProviderParameters) -> Self {
        let camera = this_camera();
        let provider = Self::open(parameters, camera);
        if let CameraState::Failed(error) = &provider.source {
            exit_unavailable(error);
        }
        provider
    }

    /// Whether the camera is still to be opened at the first tick (a device; a standby that
    /// never ticks holds none).
    pub fn is_deferred(&self) -> bool {
        matches!(self.source, CameraState::Deferred)
    }

    /// Opens a deferred device now (the first tick); an error stays in the module.
    fn open_deferred(&mut self) -> Result<(), &CameraOpenError> {
        if matches!(self.source, CameraState::Deferred) {
            self.source = match open_device(self.camera) {
                Ok(source) => CameraState::Open(source),
                Err(error) => CameraState::Failed(error),
            };
        }
        match &self.source {
            CameraState::Failed(error) => Err(error),
            _ => Ok(()),
        }
    }

    /// Opens the camera `camera` as the parameters say (a device only at the first tick); an
    /// error stays in the module and ends the process when it is built (`new`) or at its first
    /// tick (a device), or is inspected by tests.
    pub fn open(parameters: CameraProviderParameters, camera: CameraName) -> Self {
        let settings = match camera {
            CameraName::Upper => &parameters.upper,
            CameraName::Lower => &parameters.lower,
        };
        let name = camera.as_str();
        let source = match settings.source {
            CameraSource::Files => {
                // The process's rate paces the frames (processes.toml).
                FileCamera::open(
                    &PathBuf::from(&settings.folder),
                    Pacing::AsFastAsAsked,
                    ColorRange::Full,
                )
                .map(|files| CameraState::Open(Source::Files(files.looping(settings.loop_files))))
                .unwrap_or_else(|source| {
                    CameraState::Failed(CameraOpenError::Files {
                        camera: name,
                        source,
                    })
                })
            }
            CameraSource::V4l2 => CameraState::Deferred,
            CameraSource::Auto if cfg!(feature = "robot") => CameraState::Deferred,
            CameraSource::Simulated | CameraSource::Auto => {
                let position = match camera {
                    CameraName::Upper => simulator::scene::CameraPosition::Upper,
                    CameraName::Lower => simulator::scene::CameraPosition::Lower,
                };
                // Each camera its own lighting and noise, the same in every run.
                let seed = 0x5eed_0000 + camera as u64;
                CameraState::Open(Source::Simulated(Box::new(SimulatedCamera::new(
                    position,
                    Resolution::Vga,
                    seed,
                ))))
            }
        };
        let writer = match image_writer(camera) {
            Ok(writer) => Some(writer),
            Err(error) => {
                tracing::error!("{error}; `cortex image {name}` will not see this camera");
                None
            }
        };
        CameraProvider {
            camera,
            source,
            max_consecutive_errors: parameters.max_consecutive_errors,
            consecutive_errors: 0,
            sequence: 0,
            writer,
        }
    }

    /// The next frame (`None`: the camera has none this tick), or why the camera gave up (the
    /// source ended, or failed too often).
    pub fn next_frame(
        &mut self,
        sensor_data: &SensorData,
        ground_truth: &GroundTruth,
    ) -> Result<Option<Frame>, String> {
        let name = self.camera.as_str();
        self.open_deferred().map_err(|error| error.to_string())?;
        let CameraState::Open(source) = &mut self.source else {
            unreachable!("opened above, or returned its error");
        };
        loop {
            let result = match source {
                Source::Files(files) => files.next_frame().map_err(|error| error.to_string()),
                Source::Simulated(camera) => {
                    // Rendered now, without the camera's own 30 Hz pacing: the process's rate
                    // paces the frames (two clocks would beat against each other).
                    let captured_at = Instant::now();
                    let scene = SimulatedScene::from_sensor_data(ground_truth.clone(), sensor_data);
                    let image = camera.render(&scene);
                    Ok(Some(Frame {
                        image,
                        sequence: self.sequence,
                        captured_at,
                        source: format!("simulated {name} camera"),
                    }))
                }
            };
            match result {
                Ok(Some(frame)) => {
                    self.consecutive_errors = 0;
                    return Ok(Some(frame));
                }
                Ok(None) => {
                    return Err(format!(
                        "camera {name}: its source ended after {} frames",
                        self.sequence
                    ))
                }
                Err(error) => {
                    self.consecutive_errors += 1;
                    tracing::warn!("camera {name}: {error}");
                    if self.consecutive_errors >= self.max_consecutive_errors {
                        return Err(format!(
                            "camera {name}: {} frames in a row failed, the last: {error}",
                            self.consecutive_errors
                        ));
                    }
                }
            }
        }
    }

    fn publish_pixels(&mut self, image: &CameraImage, frame: &Frame) {
        let Some(writer) = &mut self.writer else {
            return;
        };
        if !writer.watched(ipc::health::monotonic_ns()) {
            return;
        }
        let header = ImageHeader {
            width: image.width,
            height: image.height,
            sequence: image.sequence,
            captured_ns: image.captured_ns,
            camera: self.camera as u32,
            reserved: 0,
        };
        if let Err(error) = writer.publish(&header, frame.image.data()) {
            tracing::warn!("camera {}: image channel: {error}", self.camera.as_str());
        }
    }
}

/// Opens the robot's camera device `camera` (`v4l2`, `auto` in the robot build): this build has
/// no V4L2 camera yet (the image crate lacks one), so it is refused with a clear error.
fn open_device(camera: CameraName) -> Result<Source, CameraOpenError> {
    Err(CameraOpenError::NoV4l2 {
        camera: camera.as_str(),
    })
}

/// Ends the process for a camera that cannot be opened: a folder that is not there or a camera
/// this build lacks; the configuration must change, a restart would not help.
fn exit_unavailable(error: &CameraOpenError) -> ! {
    tracing::error!("{error}");
    eprintln!("{error}");
    std::process::exit(EXIT_CAMERA_UNAVAILABLE);
}

/// `captured_at` on the monotonic clock the processes share.
fn monotonic_ns_of(instant: Instant) -> u64 {
    let now_ns = ipc::health::monotonic_ns();
    now_ns.saturating_sub(instant.elapsed().as_nanos() as u64)
}

impl Update<CameraImage> for CameraProvider {
    fn update(&mut self, inputs: &CameraProviderInputs, output: &mut CameraImage) {
        // A device opens at the first tick; one that cannot be opened ends the process as a
        // missing folder does at start (exit 78: the configuration must change).
        if let Err(error) = self.open_deferred() {
            exit_unavailable(error);
        }
        let frame = match self.next_frame(inputs.sensor_data, inputs.ground_truth) {
            Ok(Some(frame)) => frame,
            Ok(None) => {
                *output = CameraImage {
                    camera: self.camera,
                    ..CameraImage::default()
                };
                return;
            }
            Err(message) => {
                tracing::error!("{message}; ending the process (the supervisor restarts it)");
                eprintln!("{message}; ending the process (the supervisor restarts it)");
                std::process::exit(EXIT_CAMERA_FAILED);
            }
        };
        *output = CameraImage {
            camera: self.camera,
            width: frame.image.width() as u32,
            height: frame.image.height() as u32,
            sequence: self.sequence,
            captured_ns: monotonic_ns_of(frame.captured_at),
            source: frame.source.clone(),
            posture_known: !matches!(self.source, CameraState::Open(Source::Files(_))),
            frame: ProcessLocal::default(),
        };
        self.sequence += 1;
        self.publish_pixels(output, &frame);
        output.frame = ProcessLocal::new(frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameters(folder: &str, loop_files: bool) -> CameraProviderParameters {
        let settings = CameraSettings {
            source: CameraSource::Files,
            folder: folder.to_owned(),
            loop_files,
        };
        CameraProviderParameters {
            max_consecutive_errors: 2,
            upper: settings.clone(),
            lower: settings,
        }
    }

    fn write_frames(folder: &std::path::Path, count: usize) {
        for index in 0..count {
            let bytes = vec![(index * 40) as u8; 320 * 240 * 2];
            std::fs::write(folder.join(format!("{index:03}.yuyv")), bytes).unwrap();
        }
    }

    #[test]
    fn a_folder_is_played_and_its_end_is_an_error_naming_the_camera() {
        let folder = tempfile::tempdir().unwrap();
        write_frames(folder.path(), 2);
        let mut provider = CameraProvider::open(
            parameters(folder.path().to_str().unwrap(), false),
            CameraName::Lower,
        );
        let sensor_data = SensorData::default();
        assert_eq!(
            provider
                .next_frame(&sensor_data, &GroundTruth::default())
                .unwrap()
                .unwrap()
                .image
                .width(),
            320
        );
        assert_eq!(
            provider
                .next_frame(&sensor_data, &GroundTruth::default())
                .unwrap()
                .unwrap()
                .sequence,
            1
        );
        let end = provider
            .next_frame(&sensor_data, &GroundTruth::default())
            .unwrap_err();
        assert!(end.contains("camera lower: its source ended"), "{end}");
    }

    #[test]
    fn broken_frames_in_a_row_give_up_and_a_good_one_resets_the_count() {
        let folder = tempfile::tempdir().unwrap();
        write_frames(folder.path(), 1);
        std::fs::write(folder.path().join("001.yuyv"), b"short").unwrap();
        std::fs::write(folder.path().join("002.yuyv"), b"short").unwrap();
        let mut provider = CameraProvider::open(
            parameters(folder.path().to_str().unwrap(), true),
            CameraName::Upper,
        );
        let sensor_data = SensorData::default();
        assert!(provider
            .next_frame(&sensor_data, &GroundTruth::default())
            .is_ok());
        let error = provider
            .next_frame(&sensor_data, &GroundTruth::default())
            .unwrap_err();
        assert!(error.contains("2 frames in a row failed"), "{error}");
        assert!(
            error.contains("002.yuyv") || error.contains("frame 2"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_folder_and_a_missing_v4l2_camera_are_clear_errors() {
        let provider =
            CameraProvider::open(parameters("/nonexistent/frames", false), CameraName::Upper);
        let CameraState::Failed(error) = &provider.source else {
            panic!("a missing folder fails when built: {:?}", provider.source);
        };
        let error = error.to_string();
        assert!(
            error.contains("camera upper") && error.contains("/nonexistent/frames"),
            "{error}"
        );
        let mut settings = parameters("x", false);
        settings.upper.source = CameraSource::V4l2;
        let mut provider = CameraProvider::open(settings, CameraName::Upper);
        let error = provider
            .next_frame(&SensorData::default(), &GroundTruth::default())
            .unwrap_err();
        assert!(
            error.contains("camera upper")
                && error.contains("v4l2")
                && error.contains("robot build"),
            "{error}"
        );
    }

    #[test]
    fn a_v4l2_camera_is_opened_at_the_first_tick_not_when_built() {
        // A warm standby builds the module and waits: it must not hold the device, which only
        // one process can stream from. This build has no V4L2 camera, so opening it is an
        // error: building is not, only the first tick (where `update` ends the process with
        // exit 78, as a missing folder does at start).
        let mut settings = parameters("x", false);
        settings.lower.source = CameraSource::V4l2;
        let mut provider = CameraProvider::open(settings, CameraName::Lower);
        assert!(provider.is_deferred(), "{:?}", provider.source);
        let error = provider
            .next_frame(&SensorData::default(), &GroundTruth::default())
            .unwrap_err();
        assert!(!provider.is_deferred(), "opened at the first tick");
        assert!(
            error.contains("camera lower") && error.contains("v4l2"),
            "{error}"
        );
        // A folder (and the simulated camera) still opens when built.
        let folder = tempfile::tempdir().unwrap();
        write_frames(folder.path(), 1);
        let provider = CameraProvider::open(
            parameters(folder.path().to_str().unwrap(), false),
            CameraName::Lower,
        );
        assert!(matches!(
            provider.source,
            CameraState::Open(Source::Files(_))
        ));
    }

    #[test]
    fn files_without_a_folder_are_refused_by_the_check() {
        let mut settings = parameters("", false);
        settings.lower.folder = "x".into();
        let error = config::Validate::validate(&settings).unwrap_err();
        assert!(format!("{error:?}").contains("upper.folder"), "{error:?}");
    }
}
