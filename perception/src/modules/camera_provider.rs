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
//! | `v4l2` | the robot's camera device (`cortex_image::V4l2Camera`, the robot build only), opened at the first tick with the camera's `v4l2` table: device, size, rate, buffers, stall timeout and controls (exposure, gain, white balance, flips…) |
//! | `auto` | `v4l2` in the robot build (`--features robot`), else `simulated` (`cortex run --sim`); no frames where the build has neither |
//!
//! The process's rate (`processes.toml`, 30 Hz) paces the frames: each tick takes the next
//! frame of the folder, or renders the simulated scene for the head's posture now, and the
//! stages after it run on it at once. The V4L2 camera delivers at its own 30 Hz: its process
//! waits for the frame, whose time is the driver's timestamp. A source that ends (a folder
//! played to its end) or fails `max_consecutive_errors` frames in a row ends the process with
//! status 69 and a message naming the camera and the cause: the supervisor restarts it, and
//! cognition goes on with the other camera meanwhile. A camera device that vanishes (unplugged,
//! its driver reset) or stalls (no frame within its `frame_timeout_ms`) ends the process at
//! once, the same way: waiting for the next frame would only stall the process into its
//! watchdog.
//!
//! Each camera's device settings are its `v4l2` table in `CameraProvider.toml`
//! (`[upper.v4l2]`, `[lower.v4l2]`; left out: `cortex_image::CameraSettings::upper()` or
//! `lower()`), checked with the rest of the file (`cortex check`: file, line and key of a value
//! out of range); a robot's own exposure or gain goes in `robots/<head>/CameraProvider.toml`,
//! merged key by key.
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
    /// `v4l2` (and `auto` in the robot build): the device, format and controls; None: the
    /// NAO v6 defaults of this camera.
    #[serde(default)]
    pub v4l2: Option<cortex_image::CameraSettings>,
}

impl CameraSettings {
    /// The device settings of camera `camera`: the `v4l2` table, or the NAO v6 defaults.
    pub fn device_settings(&self, camera: CameraName) -> cortex_image::CameraSettings {
        self.v4l2.clone().unwrap_or_else(|| match camera {
            CameraName::Upper => cortex_image::CameraSettings::upper(),
            CameraName::Lower => cortex_image::CameraSettings::lower(),
        })
    }
}

/// The key in the parameter file of a device setting that is out of range.
fn device_setting_key(error: &cortex_image::CameraSettingsError) -> &'static str {
    use cortex_image::CameraSettingsError::*;
    match error {
        OutOfRange { key, .. } => key,
        Resolution { .. } => "width",
        NoDevice => "device",
        ExposureWithAuto { .. } => "exposure",
        TemperatureWithAuto { .. } => "white_balance_temperature",
    }
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
            if let Some(device) = &settings.v4l2 {
                device.validate().map_err(|error| {
                    config::Invalid::new(
                        format!("{key}.v4l2.{}", device_setting_key(&error)),
                        error.to_string(),
                    )
                })?;
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
    #[cfg(feature = "robot")]
    #[error("camera {camera}: {source}")]
    V4l2 {
        camera: &'static str,
        source: cortex_image::V4l2OpenError,
    },
    #[error("camera {camera}: its image channel: {source}")]
    Channel {
        camera: &'static str,
        source: framework::plain::PlainError,
    },
}

enum Source {
    Files(FileCamera),
    Simulated(Box<SimulatedCamera>),
    #[cfg(feature = "robot")]
    Device(cortex_image::V4l2Camera),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Files(files) => write!(formatter, "Files({} frames)", files.files().len()),
            Source::Simulated(_) => formatter.write_str("Simulated"),
            #[cfg(feature = "robot")]
            Source::Device(camera) => write!(formatter, "{camera:?}"),
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
    /// A device, opened at the first tick of an active instance (a standby holds none), with
    /// these settings.
    Deferred(cortex_image::CameraSettings),
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
        matches!(self.source, CameraState::Deferred(_))
    }

    /// Opens a deferred device now (the first tick); an error stays in the module.
    fn open_deferred(&mut self) -> Result<(), &CameraOpenError> {
        if let CameraState::Deferred(settings) = &self.source {
            let settings = settings.clone();
            self.source = match open_device(self.camera, &settings) {
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
            CameraSource::V4l2 => CameraState::Deferred(settings.device_settings(camera)),
            CameraSource::Auto if cfg!(feature = "robot") => {
                CameraState::Deferred(settings.device_settings(camera))
            }
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
                #[cfg(feature = "robot")]
                Source::Device(device) => match cortex_image::Camera::next_frame(device) {
                    // Gone or stalled: waiting again would stall the process into its watchdog.
                    Err(
                        error @ (cortex_image::V4l2FrameError::Vanished { .. }
                        | cortex_image::V4l2FrameError::Stalled { .. }),
                    ) => return Err(format!("camera {name}: {error}")),
                    other => other.map_err(|error| error.to_string()),
                },
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

/// Opens the robot's camera device `camera` (`v4l2`, `auto` in the robot build) with its
/// settings: format, rate, controls, buffers, streaming.
#[cfg(feature = "robot")]
fn open_device(
    camera: CameraName,
    settings: &cortex_image::CameraSettings,
) -> Result<Source, CameraOpenError> {
    cortex_image::V4l2Camera::open(settings)
        .map(Source::Device)
        .map_err(|source| CameraOpenError::V4l2 {
            camera: camera.as_str(),
            source,
        })
}

/// Without the robot build there is no V4L2 camera: refused with a clear error.
#[cfg(not(feature = "robot"))]
fn open_device(
    camera: CameraName,
    _settings: &cortex_image::CameraSettings,
) -> Result<Source, CameraOpenError> {
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
            v4l2: None,
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
        if cfg!(feature = "robot") {
            // The robot build opens the upper camera's device, which this machine lacks.
            assert!(
                error.contains("camera upper") && error.contains("/dev/video-top"),
                "{error}"
            );
        } else {
            assert!(
                error.contains("camera upper")
                    && error.contains("v4l2")
                    && error.contains("robot build"),
                "{error}"
            );
        }
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
            error.contains("camera lower")
                && (error.contains("v4l2") || error.contains("/dev/video-bottom")),
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
    fn device_settings_out_of_range_name_their_key_in_the_file() {
        let mut settings = parameters("x", false);
        settings.upper.source = CameraSource::V4l2;
        let mut device = cortex_image::CameraSettings::upper();
        device.gain = Some(5000);
        settings.upper.v4l2 = Some(device);
        let error = config::Validate::validate(&settings).unwrap_err();
        assert_eq!(error.key, "upper.v4l2.gain", "{error:?}");
        assert!(error.message.contains("5000"), "{error:?}");
        let mut device = cortex_image::CameraSettings::lower();
        device.width = 800;
        settings.upper.v4l2 = None;
        settings.lower.v4l2 = Some(device);
        let error = config::Validate::validate(&settings).unwrap_err();
        assert_eq!(error.key, "lower.v4l2.width", "{error:?}");
        // Left out: the NAO v6 defaults of each camera (the upper one flipped).
        assert!(
            settings
                .upper
                .device_settings(CameraName::Upper)
                .vertical_flip
        );
        assert_eq!(
            settings.upper.device_settings(CameraName::Lower),
            cortex_image::CameraSettings::lower()
        );
    }

    #[test]
    fn the_shipped_file_loads_and_a_bad_device_value_names_file_line_and_key() {
        let shipped = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../config/data/default/CameraProvider.toml"
        );
        let text = std::fs::read_to_string(shipped).unwrap();
        let root = tempfile::tempdir().unwrap();
        let table = "[[process]]\nname = \"motion\"\nkind = \"motion\"\nrate_hz = 83.33\n";
        config::scaffold::write_minimal(root.path(), table, &[("CameraProvider.toml", &text)])
            .unwrap();
        let loaded = config::Config::load(root.path(), None, &[]).unwrap();
        let parameters: CameraProviderParameters =
            loaded.validated_parameters("CameraProvider").unwrap();
        let upper = parameters.upper.device_settings(CameraName::Upper);
        assert_eq!(upper.device, std::path::Path::new("/dev/video-top"));
        assert!(upper.horizontal_flip && upper.vertical_flip);
        assert_eq!(upper.frame_timeout_ms, 500);
        // A scenario's file changes one key of the lower camera: merged, then checked.
        std::fs::write(
            root.path().join("scenarios/default/CameraProvider.toml"),
            "[lower.v4l2]\n\ngain = 4000\n",
        )
        .unwrap();
        let loaded = config::Config::load(root.path(), None, &[]).unwrap();
        let error = loaded
            .validated_parameters::<CameraProviderParameters>("CameraProvider")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("scenarios/default/CameraProvider.toml")
                && error.contains(":3")
                && error.contains("lower.v4l2.gain")
                && error.contains("4000"),
            "{error}"
        );
    }

    /// The robot build: a camera device that is not there, or not a camera, is an error naming
    /// the camera and the device, at the first tick.
    #[cfg(feature = "robot")]
    #[test]
    fn a_missing_or_wrong_device_is_an_error_naming_camera_and_device() {
        let directory = tempfile::tempdir().unwrap();
        let missing = directory.path().join("video-top");
        for (device, expected) in [
            (missing.as_path(), "cannot open the device"),
            (std::path::Path::new("/dev/null"), "not a V4L2 device"),
        ] {
            let mut settings = parameters("x", false);
            settings.upper.source = CameraSource::V4l2;
            settings.upper.v4l2 = Some(cortex_image::CameraSettings::with_device(device));
            let mut provider = CameraProvider::open(settings, CameraName::Upper);
            assert!(provider.is_deferred());
            let error = provider
                .next_frame(&SensorData::default(), &GroundTruth::default())
                .unwrap_err();
            assert!(
                error.contains("camera upper")
                    && error.contains(&device.display().to_string())
                    && error.contains(expected),
                "{error}"
            );
        }
    }

    #[test]
    fn files_without_a_folder_are_refused_by_the_check() {
        let mut settings = parameters("", false);
        settings.lower.folder = "x".into();
        let error = config::Validate::validate(&settings).unwrap_err();
        assert!(format!("{error:?}").contains("upper.folder"), "{error:?}");
    }
}
