//! What the sound output tests share: WAV fixtures, a sink the test can hold closed, waiting.

#![allow(dead_code)]

use audio::output::{SinkError, SinkFormat, SoundSink};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The shipped fallback sounds.
pub fn shipped_sounds() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../config/data/default/sounds"
    ))
    .to_owned()
}

/// Writes a 16-bit WAV of `frames` frames whose sample `index` (interleaved) is
/// `value(index)`.
pub fn write_wav(
    path: &Path,
    sample_rate_hz: u32,
    channels: u16,
    frames: usize,
    value: impl Fn(usize) -> i16,
) {
    let spec = hound::WavSpec {
        channels,
        sample_rate: sample_rate_hz,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    for index in 0..frames * channels as usize {
        writer.write_sample(value(index)).unwrap();
    }
    writer.finalize().unwrap();
}

/// A ramp over the whole 16-bit range (both extremes included) that tells files apart by
/// `seed`.
pub fn pattern(seed: i16) -> impl Fn(usize) -> i16 {
    move |index| ((index as i64 * 257 + i64::from(seed) * 1000) % 65_536 - 32_768) as i16
}

/// The 16-bit samples of a WAV file.
pub fn read_wav(path: &Path) -> Vec<i16> {
    hound::WavReader::open(path)
        .unwrap()
        .into_samples::<i16>()
        .map(Result::unwrap)
        .collect()
}

/// Polls `condition` until it holds, failing the test after a minute (a hang, not slowness).
pub fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited a minute for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A sink whose writes block while its gate is closed, keeping what it was given.
#[derive(Debug, Clone)]
pub struct GateSink {
    pub format: SinkFormat,
    pub gate: Arc<(Mutex<bool>, Condvar)>,
    pub written: Arc<Mutex<Vec<f32>>>,
}

impl GateSink {
    pub fn closed(format: SinkFormat) -> GateSink {
        GateSink {
            format,
            gate: Arc::new((Mutex::new(false), Condvar::new())),
            written: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn open_gate(&self) {
        *self.gate.0.lock().unwrap() = true;
        self.gate.1.notify_all();
    }
}

impl SoundSink for GateSink {
    fn format(&self) -> SinkFormat {
        self.format
    }

    fn write(&mut self, samples: &[f32]) -> Result<(), SinkError> {
        let mut open = self.gate.0.lock().unwrap();
        while !*open {
            open = self.gate.1.wait(open).unwrap();
        }
        self.written.lock().unwrap().extend_from_slice(samples);
        Ok(())
    }
}

pub const MONO_16K: SinkFormat = SinkFormat {
    sample_rate_hz: 16_000,
    channels: 1,
};
