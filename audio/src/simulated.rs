//! The simulated microphone: recordings played one after another with silence between them
//! ([`PlaylistSource`]), delivered in real time like ALSA delivers periods ([`PacedSource`]).
//! With `cortex run --sim` the audio process will read from these instead of ALSA.

use crate::frames::{AudioFrames, MAX_CHANNELS, MAX_FRAMES};
use crate::source::{frame_time_ns, AudioSource, MemorySource, ReadError};
use crate::synthesis::{load_mono, LoadError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Building a playlist failed.
#[derive(Debug, thiserror::Error)]
pub enum PlaylistError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{path}: recorded at {found} Hz, but the playlist plays at {expected} Hz")]
    RateMismatch {
        path: PathBuf,
        expected: u32,
        found: u32,
    },
    #[error("an empty playlist")]
    Empty,
}

/// WAV files played back to back (mixed to mono and copied to every channel), separated by
/// `gap` of silence, optionally looping for ever.
#[derive(Debug, Clone)]
pub struct PlaylistSource {
    memory: MemorySource,
    samples: Vec<f32>,
    sample_rate_hz: u32,
    channel_count: u32,
    frames_per_buffer: usize,
    looping: bool,
    /// Frames delivered in earlier rounds of the loop, for continuous timestamps.
    frames_before: u64,
}

impl PlaylistSource {
    /// All files must share one rate; `channel_count` is clamped to 1..=[`MAX_CHANNELS`].
    pub fn new(
        files: &[&Path],
        gap: Duration,
        channel_count: u32,
        frames_per_buffer: usize,
        looping: bool,
    ) -> Result<PlaylistSource, PlaylistError> {
        let channel_count = channel_count.clamp(1, MAX_CHANNELS as u32);
        let mut mono = Vec::new();
        let mut rate = None;
        for path in files {
            let (samples, file_rate) = load_mono(path)?;
            let expected = *rate.get_or_insert(file_rate);
            if file_rate != expected {
                return Err(PlaylistError::RateMismatch {
                    path: path.to_path_buf(),
                    expected,
                    found: file_rate,
                });
            }
            mono.extend(samples);
            let gap_frames = (gap.as_secs_f64() * f64::from(file_rate)).round() as usize;
            mono.extend(std::iter::repeat_n(0.0, gap_frames));
        }
        let sample_rate_hz = rate.ok_or(PlaylistError::Empty)?;
        let samples: Vec<f32> = mono
            .iter()
            .flat_map(|&sample| std::iter::repeat_n(sample, channel_count as usize))
            .collect();
        let frames_per_buffer = frames_per_buffer.clamp(1, MAX_FRAMES);
        Ok(PlaylistSource {
            memory: MemorySource::new(
                samples.clone(),
                sample_rate_hz,
                channel_count,
                frames_per_buffer,
            ),
            samples,
            sample_rate_hz,
            channel_count,
            frames_per_buffer,
            looping,
            frames_before: 0,
        })
    }

    /// Frames in one round of the playlist.
    pub fn frames_per_round(&self) -> u64 {
        (self.samples.len() / self.channel_count as usize) as u64
    }
}

impl AudioSource for PlaylistSource {
    fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    fn channel_count(&self) -> u32 {
        self.channel_count
    }

    fn read(&mut self, frames: &mut AudioFrames) -> Result<bool, ReadError> {
        let mut delivered = self.memory.read(frames)?;
        if !delivered && self.looping && !self.samples.is_empty() {
            self.frames_before += self.frames_per_round();
            self.memory = MemorySource::new(
                self.samples.clone(),
                self.sample_rate_hz,
                self.channel_count,
                self.frames_per_buffer,
            );
            delivered = self.memory.read(frames)?;
        }
        frames.timestamp_ns += frame_time_ns(self.frames_before, self.sample_rate_hz);
        Ok(delivered)
    }
}

/// Delivers another source's buffers no sooner than they would have been captured: a buffer
/// ending at time `t` of the source comes `t` after the first read.
#[derive(Debug)]
pub struct PacedSource<S> {
    inner: S,
    started: Option<Instant>,
}

impl<S: AudioSource> PacedSource<S> {
    pub fn new(inner: S) -> PacedSource<S> {
        PacedSource {
            inner,
            started: None,
        }
    }
}

impl<S: AudioSource> AudioSource for PacedSource<S> {
    fn sample_rate_hz(&self) -> u32 {
        self.inner.sample_rate_hz()
    }

    fn channel_count(&self) -> u32 {
        self.inner.channel_count()
    }

    fn read(&mut self, frames: &mut AudioFrames) -> Result<bool, ReadError> {
        let started = *self.started.get_or_insert_with(Instant::now);
        let delivered = self.inner.read(frames)?;
        if delivered {
            let due = started + frames.timestamp() + frames.duration();
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        Ok(delivered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthesis::tone_with_vibrato;

    fn write_mono(path: &Path, samples: &[f32], rate: u32) {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(path, spec).unwrap();
        for sample in samples {
            writer.write_sample((sample * 32767.0) as i16).unwrap();
        }
        writer.finalize().unwrap();
    }

    #[test]
    fn a_playlist_plays_its_files_with_gaps_on_every_channel_and_loops() {
        let folder = tempfile::tempdir().unwrap();
        let silence = folder.path().join("silence.wav");
        let whistle = folder.path().join("whistle.wav");
        write_mono(&silence, &vec![0.0; 24_000], 48_000);
        let mut tone = vec![0.0; 12_000];
        tone.extend(tone_with_vibrato(3000.0, 20.0, 50.0, 0.3, 48_000, 0.5));
        write_mono(&whistle, &tone, 48_000);
        let mut playlist = PlaylistSource::new(
            &[&silence, &whistle],
            Duration::from_millis(250),
            4,
            2048,
            true,
        )
        .unwrap();
        // 0.5 s + 0.25 s gap + 0.75 s + 0.25 s gap.
        assert_eq!(
            playlist.frames_per_round(),
            24_000 + 12_000 + 36_000 + 12_000
        );
        let mut frames = AudioFrames::empty(48_000, 4);
        let mut pipeline = crate::pipeline::WhistlePipeline::new(&Default::default());
        let mut whistles = Vec::new();
        let mut last_end = 0;
        // Two rounds: the whistle (at 1.0 s of each round) is heard twice.
        for _ in 0..(2 * 84_000 / 2048 + 1) {
            assert!(playlist.read(&mut frames).unwrap());
            assert_eq!(frames.channel_count, 4);
            let first = &frames.interleaved()[..4];
            assert!(first.iter().all(|sample| *sample == first[0]));
            assert!(frames.timestamp_ns >= last_end, "timestamps go back");
            last_end = frames.timestamp_ns;
            pipeline.process(&frames, |time| whistles.push(time.as_secs_f64()));
        }
        assert_eq!(whistles.len(), 2, "{whistles:?}");
        assert!((1.0..1.3).contains(&whistles[0]), "{whistles:?}");
        assert!((2.75..3.05).contains(&whistles[1]), "{whistles:?}");
    }

    #[test]
    fn files_at_different_rates_are_refused_by_name() {
        let folder = tempfile::tempdir().unwrap();
        let a = folder.path().join("a.wav");
        let b = folder.path().join("b.wav");
        write_mono(&a, &[0.0; 100], 48_000);
        write_mono(&b, &[0.0; 100], 44_100);
        let error = PlaylistSource::new(&[&a, &b], Duration::ZERO, 1, 2048, false).unwrap_err();
        assert!(
            error.to_string().contains("b.wav: recorded at 44100 Hz"),
            "{error}"
        );
        let error = PlaylistSource::new(&[], Duration::ZERO, 1, 2048, false).unwrap_err();
        assert!(matches!(error, PlaylistError::Empty));
    }

    #[test]
    fn a_paced_source_delivers_no_sooner_than_real_time() {
        let samples = vec![0.0; 12_000];
        let mut paced = PacedSource::new(MemorySource::mono(samples, 48_000, 2048));
        let mut frames = AudioFrames::empty(48_000, 1);
        let started = Instant::now();
        let mut buffers = 0;
        while paced.read(&mut frames).unwrap() {
            buffers += 1;
            // Each buffer is handed out only after its last frame would have been captured.
            let end = frames.timestamp() + frames.duration();
            assert!(
                started.elapsed() >= end,
                "{:?} < {end:?}",
                started.elapsed()
            );
        }
        assert_eq!(buffers, 6);
    }
}
