//! `WhistleDetectorParameters`: the detector's TOML file (`WhistleDetector.toml`), read with
//! unknown keys refused and every value checked against its range.

use crate::frames::{MAX_CHANNELS, MAX_FRAMES};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// How the channels of a buffer become one spectrum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelMode {
    /// One FFT per channel, power spectra averaged: immune to phase differences between the
    /// microphones, one FFT per channel.
    AverageSpectra,
    /// Channels averaged sample by sample, one FFT: cheaper, but tones arriving out of phase
    /// at two microphones partly cancel.
    Mix,
}

/// Every parameter of the three stages. Sizes are for 48 kHz and scale with the rate.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhistleDetectorParameters {
    // Spectrum.
    /// FFT length at 48 kHz, frames.
    pub fft_size: usize,
    /// Frames between two spectra at 48 kHz.
    pub hop_size: usize,
    pub channel_mode: ChannelMode,

    // Detector (one spectrum).
    /// Where the whistle's fundamental may lie, Hz.
    pub band_low_hz: f32,
    pub band_high_hz: f32,
    /// The band whose median power is the noise floor, Hz.
    pub reference_low_hz: f32,
    pub reference_high_hz: f32,
    /// Bins within this distance of the peak count as the peak's own energy, Hz.
    pub peak_half_width_hz: f32,
    /// The peak must stand this far above the median of the reference band, dB.
    pub min_peak_over_floor_db: f32,
    /// The peak must stand this far above the median of the whistle band, dB.
    pub min_peak_over_band_db: f32,
    /// The peak's share of the whistle band's energy, 0..1.
    pub min_concentration: f32,
    /// The peak's level, dB relative to a full-scale sine.
    pub min_level_db: f32,
    /// The peak over the strongest bin from `reference_low_hz` to `low_gap_hz` below the band,
    /// dB (negative: the low bins may be that much stronger).
    pub min_peak_over_low_db: f32,
    /// The gap between the low range and the whistle band (the robot's motor tone), Hz.
    pub low_gap_hz: f32,
    /// Above the thresholds, this many dB more make a confidence of 1.
    pub confidence_span_db: f32,

    // Filter (over time).
    /// The span looked back over, ms.
    pub window_ms: f32,
    /// How much of the window must hold whistle-like spectra, ms.
    pub min_evidence_ms: f32,
    /// Two whistle-like spectra belong to one tone if their peaks are this close, Hz.
    pub max_frequency_jump_hz: f32,
    /// The peaks of one tone stay within this range, Hz.
    pub max_frequency_spread_hz: f32,
    /// A whistle ends after this long without a whistle-like spectrum, ms.
    pub release_ms: f32,
    /// A new whistle is reported no sooner than this after the last one began, ms.
    pub min_interval_ms: f32,

    /// Where the robot's microphones are read (the `[capture]` table; only the `robot` build
    /// opens it, and a file without the table gets the NAO's defaults).
    #[serde(default)]
    pub capture: CaptureParameters,
}

/// The ALSA capture device of the robot build (`[capture]` in `WhistleDetector.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureParameters {
    /// The ALSA device name: `"default"` (HULKs), `"PCH_input"` for all four channels (B-Human).
    pub device: String,
    /// Frames per second asked for (the device may grant the nearest it has).
    pub sample_rate_hz: u32,
    /// Channels asked for: the NAO v6 has four head microphones.
    pub channels: u32,
    /// Frames per read (ALSA's period); the device's buffer holds four.
    pub frames_per_buffer: usize,
    /// How long to wait before opening a device again that could not be opened or failed, ms.
    pub retry_interval_ms: u32,
}

impl Default for CaptureParameters {
    fn default() -> Self {
        CaptureParameters {
            device: "default".to_owned(),
            sample_rate_hz: 48_000,
            channels: 4,
            frames_per_buffer: 2048,
            retry_interval_ms: 3000,
        }
    }
}

/// Checks an ALSA device name from a configuration: not empty, at most 128 bytes, no control
/// characters (a NUL byte could not even be handed to alsa-lib).
pub fn check_device_name(key: &'static str, device: &str) -> Result<(), ParameterError> {
    let refused = |expected: &str| {
        Err(ParameterError::Refused {
            key,
            value: format!("{device:?}"),
            expected: expected.to_owned(),
        })
    };
    if device.trim().is_empty() {
        return refused("an ALSA device name such as \"default\" or \"hw:0,0\"");
    }
    if device.len() > 128 {
        return refused("at most 128 bytes");
    }
    if device.chars().any(char::is_control) {
        return refused("no control characters");
    }
    Ok(())
}

/// Reading or checking the detector's parameters failed.
#[derive(Debug, thiserror::Error)]
pub enum ParameterError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {key}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        key: String,
        message: String,
    },
    #[error("{key} = {value}: {expected}")]
    OutOfRange {
        key: &'static str,
        value: f64,
        expected: String,
    },
    /// A value that is not a number, refused.
    #[error("{key} = {value}: expected {expected}")]
    Refused {
        key: &'static str,
        value: String,
        expected: String,
    },
}

/// The shipped defaults, compiled in (the same file the configuration holds).
const SHIPPED: &str = include_str!("../../config/data/default/WhistleDetector.toml");

impl Default for WhistleDetectorParameters {
    /// The shipped `config/data/default/WhistleDetector.toml` (a unit test checks that it
    /// parses and validates).
    fn default() -> Self {
        match WhistleDetectorParameters::from_toml(SHIPPED, Path::new("WhistleDetector.toml")) {
            Ok(parameters) => parameters,
            Err(error) => unreachable!("the shipped WhistleDetector.toml is invalid: {error}"),
        }
    }
}

impl WhistleDetectorParameters {
    /// Reads and validates a parameter file.
    pub fn load(path: &Path) -> Result<Self, ParameterError> {
        let text = std::fs::read_to_string(path).map_err(|source| ParameterError::Read {
            path: path.to_owned(),
            source,
        })?;
        WhistleDetectorParameters::from_toml(&text, path)
    }

    /// Parses and validates `text`, naming `path`, the line and the key in errors.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, ParameterError> {
        let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        let deserializer =
            toml::de::Deserializer::parse(text).map_err(|error| ParameterError::Invalid {
                path: path.to_owned(),
                line: error.span().map_or(1, |span| line_of(span.start)),
                key: "(syntax)".to_owned(),
                message: error.message().to_owned(),
            })?;
        let parameters: WhistleDetectorParameters = serde_path_to_error::deserialize(deserializer)
            .map_err(|error| ParameterError::Invalid {
                path: path.to_owned(),
                line: error.inner().span().map_or(1, |span| line_of(span.start)),
                key: error.path().to_string(),
                message: error.inner().message().to_owned(),
            })?;
        parameters.validate().map_err(|error| match error {
            ParameterError::OutOfRange {
                key,
                value,
                expected,
            } => ParameterError::Invalid {
                path: path.to_owned(),
                line: line_of_key(text, key),
                key: key.to_owned(),
                message: format!("{value} is out of range: {expected}"),
            },
            ParameterError::Refused {
                key,
                value,
                expected,
            } => ParameterError::Invalid {
                path: path.to_owned(),
                line: line_of_key(text, key),
                key: key.to_owned(),
                message: format!("{value} is refused: expected {expected}"),
            },
            other => other,
        })?;
        Ok(parameters)
    }

    /// Checks every value against its range; the error names the key.
    pub fn validate(&self) -> Result<(), ParameterError> {
        fn check(
            key: &'static str,
            value: f64,
            low: f64,
            high: f64,
            unit: &str,
        ) -> Result<(), ParameterError> {
            if value.is_finite() && (low..=high).contains(&value) {
                Ok(())
            } else {
                Err(ParameterError::OutOfRange {
                    key,
                    value,
                    expected: format!("expected {low} to {high} {unit}"),
                })
            }
        }
        let p = self;
        check("fft_size", p.fft_size as f64, 64.0, 8192.0, "frames")?;
        check(
            "hop_size",
            p.hop_size as f64,
            16.0,
            p.fft_size as f64,
            "frames (at most fft_size)",
        )?;
        check(
            "band_low_hz",
            f64::from(p.band_low_hz),
            100.0,
            20_000.0,
            "Hz",
        )?;
        check(
            "band_high_hz",
            f64::from(p.band_high_hz),
            f64::from(p.band_low_hz) + 100.0,
            24_000.0,
            "Hz (at least band_low_hz + 100)",
        )?;
        check(
            "reference_low_hz",
            f64::from(p.reference_low_hz),
            0.0,
            20_000.0,
            "Hz",
        )?;
        check(
            "reference_high_hz",
            f64::from(p.reference_high_hz),
            f64::from(p.reference_low_hz) + 500.0,
            24_000.0,
            "Hz (at least reference_low_hz + 500)",
        )?;
        check(
            "peak_half_width_hz",
            f64::from(p.peak_half_width_hz),
            0.0,
            500.0,
            "Hz",
        )?;
        check(
            "min_peak_over_floor_db",
            f64::from(p.min_peak_over_floor_db),
            0.0,
            100.0,
            "dB",
        )?;
        check(
            "min_peak_over_band_db",
            f64::from(p.min_peak_over_band_db),
            0.0,
            100.0,
            "dB",
        )?;
        check(
            "min_concentration",
            f64::from(p.min_concentration),
            0.0,
            1.0,
            "(a share)",
        )?;
        check("min_level_db", f64::from(p.min_level_db), -200.0, 0.0, "dB")?;
        check(
            "confidence_span_db",
            f64::from(p.confidence_span_db),
            0.1,
            100.0,
            "dB",
        )?;
        check("window_ms", f64::from(p.window_ms), 10.0, 5000.0, "ms")?;
        check(
            "min_evidence_ms",
            f64::from(p.min_evidence_ms),
            1.0,
            f64::from(p.window_ms),
            "ms (at most window_ms)",
        )?;
        check(
            "max_frequency_jump_hz",
            f64::from(p.max_frequency_jump_hz),
            0.0,
            5000.0,
            "Hz",
        )?;
        check(
            "max_frequency_spread_hz",
            f64::from(p.max_frequency_spread_hz),
            0.0,
            10_000.0,
            "Hz",
        )?;
        check("release_ms", f64::from(p.release_ms), 0.0, 10_000.0, "ms")?;
        check(
            "min_interval_ms",
            f64::from(p.min_interval_ms),
            0.0,
            60_000.0,
            "ms",
        )?;
        let capture = &p.capture;
        check_device_name("capture.device", &capture.device)?;
        check(
            "capture.sample_rate_hz",
            f64::from(capture.sample_rate_hz),
            8000.0,
            192_000.0,
            "Hz",
        )?;
        check(
            "capture.channels",
            f64::from(capture.channels),
            1.0,
            MAX_CHANNELS as f64,
            "channels (the NAO v6 has 4)",
        )?;
        check(
            "capture.frames_per_buffer",
            capture.frames_per_buffer as f64,
            64.0,
            MAX_FRAMES as f64,
            "frames",
        )?;
        check(
            "capture.retry_interval_ms",
            f64::from(capture.retry_interval_ms),
            100.0,
            600_000.0,
            "ms",
        )?;
        Ok(())
    }
}

/// The line where `key` is assigned in `text`: at the top level, or for `table.key` in the
/// `[table]` (1 if it is not found).
fn line_of_key(text: &str, key: &str) -> usize {
    let (table, key) = key.split_once('.').unwrap_or(("", key));
    let mut current_table = "";
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if let Some(header) = line.strip_prefix('[') {
            current_table = header.split(']').next().unwrap_or("").trim();
            continue;
        }
        let assigns = line
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        if assigns && current_table == table {
            return index + 1;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<WhistleDetectorParameters, ParameterError> {
        WhistleDetectorParameters::from_toml(text, Path::new("WhistleDetector.toml"))
    }

    #[test]
    fn the_shipped_file_parses_and_validates() {
        let parameters = parse(SHIPPED).unwrap();
        assert_eq!(parameters, WhistleDetectorParameters::default());
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let text = format!("{SHIPPED}\nmin_peak_over_flor_db = 3.0\n");
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.contains("min_peak_over_flor_db"), "{error}");
        let line = text.lines().count();
        assert!(
            error.contains(&format!("WhistleDetector.toml:{line}:")),
            "{error}"
        );
    }

    #[test]
    fn a_value_out_of_range_is_named_with_its_key_and_line() {
        let text = SHIPPED.replace("min_concentration = ", "min_concentration = 1.5 #");
        let error = parse(&text).unwrap_err().to_string();
        let line = line_of_key(&text, "min_concentration");
        assert!(line > 1);
        assert!(
            error.contains(&format!(":{line}: min_concentration: 1.5 is out of range")),
            "{error}"
        );
    }

    #[test]
    fn a_wrong_type_and_a_missing_key_are_named() {
        let text = SHIPPED.replace("fft_size = ", "fft_size = \"big\" #");
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.contains("fft_size"), "{error}");
        let text: String = SHIPPED
            .lines()
            .filter(|line| !line.starts_with("release_ms"))
            .map(|line| format!("{line}\n"))
            .collect();
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.contains("release_ms"), "{error}");
    }

    #[test]
    fn a_band_upside_down_is_refused() {
        let mut parameters = WhistleDetectorParameters::default();
        parameters.band_high_hz = parameters.band_low_hz - 10.0;
        let error = parameters.validate().unwrap_err().to_string();
        assert!(error.starts_with("band_high_hz"), "{error}");
        parameters = WhistleDetectorParameters::default();
        parameters.window_ms = f32::NAN;
        assert!(parameters
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("window_ms"));
    }

    #[test]
    fn the_capture_table_is_checked_and_may_be_left_out() {
        let text = SHIPPED.replace("channels = 4", "channels = 5");
        let error = parse(&text).unwrap_err().to_string();
        let line = line_of_key(&text, "capture.channels");
        assert!(text
            .lines()
            .nth(line - 1)
            .unwrap()
            .starts_with("channels = 5"));
        assert!(
            error.contains(&format!(":{line}: capture.channels: 5 is out of range")),
            "{error}"
        );
        let text = SHIPPED.replace("device = \"default\"", "device = \"hw:0\\n\"");
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.contains("capture.device"), "{error}");
        assert!(error.contains("no control characters"), "{error}");
        let text = SHIPPED.replace("[capture]", "[capture]\ndevise = \"hw:0\"");
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.contains("devise"), "{error}");
        let without: String = SHIPPED.split("[capture]").next().unwrap().to_owned();
        let parameters = parse(&without).unwrap();
        assert_eq!(parameters.capture, CaptureParameters::default());
        assert_eq!(parameters, WhistleDetectorParameters::default());
    }
}
