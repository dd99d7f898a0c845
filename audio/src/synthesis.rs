//! Synthesised sound and mixing, for tests, benchmarks and a simulated microphone: tones with
//! vibrato, white and pink noise, chirps, and mixing at a given signal-to-noise ratio.
//! Deterministic: noise comes from a seeded generator.

use crate::frames::{AudioFrames, MAX_FRAMES};
use crate::source::{AudioSource, ReadError};
use crate::wav::{WavOpenError, WavSource};
use std::f64::consts::TAU;
use std::path::Path;

/// A small deterministic generator (xorshift64*), uniform in [-1, 1).
#[derive(Debug, Clone)]
pub struct Noise {
    state: u64,
}

impl Noise {
    pub fn new(seed: u64) -> Noise {
        Noise {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    pub fn next_uniform(&mut self) -> f32 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let value = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        (value as f64 / (1u64 << 23) as f64 - 1.0) as f32
    }
}

fn sample_count(rate: u32, seconds: f64) -> usize {
    (f64::from(rate) * seconds.max(0.0)).round() as usize
}

/// A whistle-like tone: `frequency_hz` modulated by ±`vibrato_depth_hz` at `vibrato_hz`, with
/// 10 ms fades at both ends.
pub fn tone_with_vibrato(
    frequency_hz: f64,
    vibrato_hz: f64,
    vibrato_depth_hz: f64,
    amplitude: f32,
    rate: u32,
    seconds: f64,
) -> Vec<f32> {
    let count = sample_count(rate, seconds);
    let fade = sample_count(rate, 0.01).max(1);
    let mut phase = 0.0f64;
    (0..count)
        .map(|index| {
            let time = index as f64 / f64::from(rate);
            let frequency = frequency_hz + vibrato_depth_hz * (TAU * vibrato_hz * time).sin();
            phase = (phase + TAU * frequency / f64::from(rate)) % TAU;
            let envelope = (index.min(count - 1 - index) as f32 / fade as f32).min(1.0);
            amplitude * envelope * phase.sin() as f32
        })
        .collect()
}

/// A sung vowel: harmonics of `f0_hz` (with a 5 Hz vibrato of `vibrato` × f0) up to 10 kHz,
/// falling as 1/√k, shaped by resonances `(centre_hz, bandwidth_hz, gain)`; peak amplitude
/// about `amplitude`. With equal gains sharper than real voices (whose third formant is some
/// 20 dB under the first), so a harder test for the detector.
pub fn vowel(
    f0_hz: f64,
    formants: &[(f64, f64, f64)],
    vibrato: f64,
    amplitude: f32,
    rate: u32,
    seconds: f64,
) -> Vec<f32> {
    let harmonics = (10_000.0 / f0_hz.max(50.0)) as usize;
    let gains: Vec<f64> = (1..=harmonics)
        .map(|k| {
            let frequency = k as f64 * f0_hz;
            let resonance: f64 = formants
                .iter()
                .map(|(centre, width, gain)| gain / (1.0 + ((frequency - centre) / width).powi(2)))
                .sum();
            resonance / (k as f64).sqrt()
        })
        .collect();
    let mut phase = 0.0f64;
    let mut samples: Vec<f32> = (0..sample_count(rate, seconds))
        .map(|index| {
            let time = index as f64 / f64::from(rate);
            let frequency = f0_hz * (1.0 + vibrato * (TAU * 5.0 * time).sin());
            phase = (phase + TAU * frequency / f64::from(rate)) % (TAU * 1000.0);
            let value: f64 = gains
                .iter()
                .enumerate()
                .map(|(k, gain)| gain * ((k + 1) as f64 * phase).sin())
                .sum();
            value as f32
        })
        .collect();
    let peak = samples.iter().fold(0.0f32, |max, s| max.max(s.abs()));
    if peak > 0.0 {
        samples.iter_mut().for_each(|s| *s *= amplitude / peak);
    }
    samples
}

/// A sine from `start_hz` to `end_hz` (linear sweep).
pub fn chirp(start_hz: f64, end_hz: f64, amplitude: f32, rate: u32, seconds: f64) -> Vec<f32> {
    let count = sample_count(rate, seconds);
    let mut phase = 0.0f64;
    (0..count)
        .map(|index| {
            let progress = index as f64 / count.max(1) as f64;
            let frequency = start_hz + (end_hz - start_hz) * progress;
            phase = (phase + TAU * frequency / f64::from(rate)) % TAU;
            amplitude * phase.sin() as f32
        })
        .collect()
}

/// White noise of this RMS amplitude.
pub fn white_noise(rms: f32, rate: u32, seconds: f64, seed: u64) -> Vec<f32> {
    let mut noise = Noise::new(seed);
    // A uniform variable in [-1, 1) has an RMS of 1/√3.
    let gain = rms * 3f32.sqrt();
    (0..sample_count(rate, seconds))
        .map(|_| gain * noise.next_uniform())
        .collect()
}

/// Pink (1/f) noise of this RMS amplitude (Paul Kellet's filter over white noise).
pub fn pink_noise(rms: f32, rate: u32, seconds: f64, seed: u64) -> Vec<f32> {
    let mut noise = Noise::new(seed);
    let mut b = [0.0f32; 7];
    let mut samples: Vec<f32> = (0..sample_count(rate, seconds))
        .map(|_| {
            let white = noise.next_uniform();
            b[0] = 0.99886 * b[0] + white * 0.0555179;
            b[1] = 0.99332 * b[1] + white * 0.0750759;
            b[2] = 0.96900 * b[2] + white * 0.153_852;
            b[3] = 0.86650 * b[3] + white * 0.3104856;
            b[4] = 0.55000 * b[4] + white * 0.5329522;
            b[5] = -0.7616 * b[5] - white * 0.0168980;
            let pink = b[..6].iter().sum::<f32>() + b[6] + white * 0.5362;
            b[6] = white * 0.115926;
            pink
        })
        .collect();
    set_rms(&mut samples, rms);
    samples
}

/// The root mean square of `samples`.
pub fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sum / samples.len() as f64).sqrt() as f32
}

/// Scales `samples` to this RMS (silence stays silent).
pub fn set_rms(samples: &mut [f32], target: f32) {
    let current = rms(samples);
    if current > 0.0 {
        let gain = target / current;
        samples.iter_mut().for_each(|sample| *sample *= gain);
    }
}

/// Multiplies `samples` by a gain in dB.
pub fn scale_db(samples: &mut [f32], gain_db: f32) {
    let gain = 10f32.powf(gain_db / 20.0);
    samples.iter_mut().for_each(|sample| *sample *= gain);
}

/// `signal` plus `noise` (repeated or cut to the signal's length) scaled so that the signal's
/// RMS is `snr_db` above the noise's.
pub fn mix_at_snr(signal: &[f32], noise: &[f32], snr_db: f32) -> Vec<f32> {
    if noise.is_empty() {
        return signal.to_vec();
    }
    let noise_rms = rms(noise);
    let gain = if noise_rms > 0.0 {
        rms(signal) / noise_rms / 10f32.powf(snr_db / 20.0)
    } else {
        0.0
    };
    signal
        .iter()
        .zip(noise.iter().cycle())
        .map(|(s, n)| s + gain * n)
        .collect()
}

/// A WAV file read whole and mixed down to mono, with its rate.
pub fn load_mono(path: &Path) -> Result<(Vec<f32>, u32), LoadError> {
    let mut source = WavSource::open(path, MAX_FRAMES)?;
    let channels = source.channel_count() as usize;
    let mut frames = AudioFrames::empty(source.sample_rate_hz(), source.channel_count());
    let mut samples = Vec::new();
    while source.read(&mut frames)? {
        samples.extend(
            frames
                .interleaved()
                .chunks_exact(channels)
                .map(|frame| frame.iter().sum::<f32>() / channels as f32),
        );
    }
    Ok((samples, source.sample_rate_hz()))
}

/// Reading a whole WAV file failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Open(#[from] WavOpenError),
    #[error(transparent)]
    Read(#[from] ReadError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_has_the_requested_rms_and_is_repeatable() {
        let white = white_noise(0.1, 48_000, 1.0, 7);
        assert!((rms(&white) - 0.1).abs() < 0.005, "{}", rms(&white));
        assert_eq!(white, white_noise(0.1, 48_000, 1.0, 7));
        assert_ne!(white, white_noise(0.1, 48_000, 1.0, 8));
        let pink = pink_noise(0.05, 48_000, 1.0, 7);
        assert!((rms(&pink) - 0.05).abs() < 1e-4);
    }

    #[test]
    fn mixing_sets_the_snr() {
        let signal = tone_with_vibrato(3000.0, 5.0, 50.0, 0.5, 48_000, 1.0);
        let noise = white_noise(0.3, 48_000, 0.5, 1);
        let mixed = mix_at_snr(&signal, &noise, 6.0);
        assert_eq!(mixed.len(), signal.len());
        let residual: Vec<f32> = mixed.iter().zip(&signal).map(|(m, s)| m - s).collect();
        let snr = 20.0 * (rms(&signal) / rms(&residual)).log10();
        assert!((snr - 6.0).abs() < 0.1, "{snr}");
    }
}
