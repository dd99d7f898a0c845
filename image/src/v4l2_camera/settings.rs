//! `CameraSettings`: what a camera's parameter file says about its device, format and controls,
//! with the ranges each value must lie in.

use serde::Deserialize;
use std::path::PathBuf;

/// One camera's device, format and controls. A control left out (`None`) keeps the driver's
/// value; every value given is set when the camera opens, in the order of the fields.
///
/// ```toml
/// device = "/dev/video-top"
/// width = 640
/// height = 480
/// exposure_auto = false
/// exposure = 2000
/// gain = 160
/// horizontal_flip = true
/// vertical_flip = true
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraSettings {
    /// The device node (the robot's udev rules make `/dev/video-top` and `/dev/video-bottom`).
    pub device: PathBuf,
    /// Frame size in pixels: 320×240, 640×480 or 1280×960.
    #[serde(default = "default_width")]
    pub width: u32,
    #[serde(default = "default_height")]
    pub height: u32,
    /// Frames per second asked of the driver (1–30).
    #[serde(default = "default_frames_per_second")]
    pub frames_per_second: u32,
    /// Memory-mapped buffers (2–8; 3 on the robot: one being filled, one queued, one in use).
    #[serde(default = "default_buffers")]
    pub buffers: u32,
    /// A frame not delivered within this time is a stalled camera (100–10000 ms).
    #[serde(default = "default_frame_timeout_ms")]
    pub frame_timeout_ms: u32,
    /// Automatic exposure (the driver's auto mode) or manual (`exposure` then applies).
    pub exposure_auto: Option<bool>,
    /// Manual exposure time in the driver's units (0–1048575).
    pub exposure: Option<i32>,
    /// Analogue gain (0–1023).
    pub gain: Option<i32>,
    pub white_balance_auto: Option<bool>,
    /// Manual white balance in kelvin (2500–6500).
    pub white_balance_temperature: Option<i32>,
    /// −255–255.
    pub brightness: Option<i32>,
    /// 0–255.
    pub contrast: Option<i32>,
    /// 0–255.
    pub saturation: Option<i32>,
    /// −180–180.
    pub hue: Option<i32>,
    /// 0–9.
    pub sharpness: Option<i32>,
    /// Mirror the image left–right (the NAO's upper sensor is mounted upside down: both flips).
    #[serde(default)]
    pub horizontal_flip: bool,
    /// Mirror the image top–bottom.
    #[serde(default)]
    pub vertical_flip: bool,
}

fn default_width() -> u32 {
    640
}
fn default_height() -> u32 {
    480
}
fn default_frames_per_second() -> u32 {
    30
}
fn default_buffers() -> u32 {
    3
}
fn default_frame_timeout_ms() -> u32 {
    1000
}

/// A setting outside what a NAO camera (and this driver code) accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CameraSettingsError {
    #[error("camera setting `{key}` = {value} is out of range: expected {min} to {max}")]
    OutOfRange {
        key: &'static str,
        value: i64,
        min: i64,
        max: i64,
    },
    #[error(
        "camera settings `width` × `height` = {width}×{height}: a NAO camera delivers 320×240, \
         640×480 or 1280×960"
    )]
    Resolution { width: u32, height: u32 },
    #[error("camera setting `device` is empty: expected a device path such as /dev/video-top")]
    NoDevice,
    #[error(
        "camera setting `exposure` = {exposure} has no effect with `exposure_auto = true`: set \
         `exposure_auto = false` or leave `exposure` out"
    )]
    ExposureWithAuto { exposure: i32 },
    #[error(
        "camera setting `white_balance_temperature` = {temperature} has no effect with \
         `white_balance_auto = true`: set `white_balance_auto = false` or leave it out"
    )]
    TemperatureWithAuto { temperature: i32 },
}

/// The NAO's frame sizes.
pub const RESOLUTIONS: [(u32, u32); 3] = [(320, 240), (640, 480), (1280, 960)];

impl CameraSettings {
    /// The upper camera of a NAO v6 (`/dev/video-top`, 640×480, both flips: its sensor is
    /// mounted upside down); the driver's controls left as they are.
    pub fn upper() -> Self {
        Self {
            horizontal_flip: true,
            vertical_flip: true,
            ..Self::with_device("/dev/video-top")
        }
    }

    /// The lower camera of a NAO v6 (`/dev/video-bottom`, 640×480).
    pub fn lower() -> Self {
        Self::with_device("/dev/video-bottom")
    }

    /// 640×480 at 30 fps with 3 buffers on `device`, controls untouched.
    pub fn with_device(device: impl Into<PathBuf>) -> Self {
        Self {
            device: device.into(),
            width: default_width(),
            height: default_height(),
            frames_per_second: default_frames_per_second(),
            buffers: default_buffers(),
            frame_timeout_ms: default_frame_timeout_ms(),
            exposure_auto: None,
            exposure: None,
            gain: None,
            white_balance_auto: None,
            white_balance_temperature: None,
            brightness: None,
            contrast: None,
            saturation: None,
            hue: None,
            sharpness: None,
            horizontal_flip: false,
            vertical_flip: false,
        }
    }

    /// Checks every value against its range; the first one outside names its key.
    pub fn validate(&self) -> Result<(), CameraSettingsError> {
        if self.device.as_os_str().is_empty() {
            return Err(CameraSettingsError::NoDevice);
        }
        if !RESOLUTIONS.contains(&(self.width, self.height)) {
            return Err(CameraSettingsError::Resolution {
                width: self.width,
                height: self.height,
            });
        }
        check("frames_per_second", self.frames_per_second.into(), 1, 30)?;
        check("buffers", self.buffers.into(), 2, 8)?;
        check(
            "frame_timeout_ms",
            self.frame_timeout_ms.into(),
            100,
            10_000,
        )?;
        for (key, value, min, max) in self.control_ranges() {
            if let Some(value) = value {
                check(key, value.into(), min, max)?;
            }
        }
        if let (Some(true), Some(exposure)) = (self.exposure_auto, self.exposure) {
            return Err(CameraSettingsError::ExposureWithAuto { exposure });
        }
        if let (Some(true), Some(temperature)) =
            (self.white_balance_auto, self.white_balance_temperature)
        {
            return Err(CameraSettingsError::TemperatureWithAuto { temperature });
        }
        Ok(())
    }

    /// (key, value, min, max) of the numeric controls.
    fn control_ranges(&self) -> [(&'static str, Option<i32>, i64, i64); 8] {
        [
            ("exposure", self.exposure, 0, 1_048_575),
            ("gain", self.gain, 0, 1023),
            (
                "white_balance_temperature",
                self.white_balance_temperature,
                2500,
                6500,
            ),
            ("brightness", self.brightness, -255, 255),
            ("contrast", self.contrast, 0, 255),
            ("saturation", self.saturation, 0, 255),
            ("hue", self.hue, -180, 180),
            ("sharpness", self.sharpness, 0, 9),
        ]
    }
}

fn check(key: &'static str, value: i64, min: i64, max: i64) -> Result<(), CameraSettingsError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(CameraSettingsError::OutOfRange {
            key,
            value,
            min,
            max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_of_both_cameras_are_valid() {
        assert_eq!(CameraSettings::upper().validate(), Ok(()));
        assert_eq!(CameraSettings::lower().validate(), Ok(()));
        assert!(CameraSettings::upper().vertical_flip && !CameraSettings::lower().vertical_flip);
    }

    #[test]
    fn each_range_names_its_key() {
        type Change = fn(&mut CameraSettings);
        let cases: [(&str, Change); 8] = [
            ("gain", |s| s.gain = Some(1024)),
            ("exposure", |s| s.exposure = Some(-1)),
            ("brightness", |s| s.brightness = Some(-256)),
            ("hue", |s| s.hue = Some(181)),
            ("sharpness", |s| s.sharpness = Some(10)),
            ("frames_per_second", |s| s.frames_per_second = 60),
            ("buffers", |s| s.buffers = 1),
            ("frame_timeout_ms", |s| s.frame_timeout_ms = 50),
        ];
        for (key, change) in cases {
            let mut settings = CameraSettings::lower();
            change(&mut settings);
            match settings.validate() {
                Err(CameraSettingsError::OutOfRange { key: named, .. }) => assert_eq!(named, key),
                other => panic!("{key}: {other:?}"),
            }
        }
        let mut settings = CameraSettings::lower();
        settings.width = 800;
        let error = settings.validate().unwrap_err().to_string();
        assert!(
            error.contains("800×480") && error.contains("640×480"),
            "{error}"
        );
    }

    #[test]
    fn a_manual_value_with_its_automatic_mode_on_is_refused() {
        let mut settings = CameraSettings::lower();
        settings.exposure_auto = Some(true);
        settings.exposure = Some(100);
        assert_eq!(
            settings.validate(),
            Err(CameraSettingsError::ExposureWithAuto { exposure: 100 })
        );
        settings.exposure_auto = Some(false);
        assert_eq!(settings.validate(), Ok(()));
    }
}
