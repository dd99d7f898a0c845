//! Stage 1 of the whistle detector: short-time power spectra of the incoming sound.
//!
//! Hann window, real FFT, one spectrum every `hop_size` frames. The sizes in the parameters are
//! for 48 kHz and scale with the actual rate, so that a bin is always about
//! 48000 / `fft_size` Hz wide and a hop always lasts the same time: the later stages work in Hz
//! and ms and never see the rate. Channels are either averaged as power spectra (robust to the
//! microphones' phase differences) or mixed into one signal first (one FFT instead of four).

use crate::frames::AudioFrames;
use crate::parameters::{ChannelMode, WhistleDetectorParameters};
use realfft::num_complex::Complex;
use realfft::{RealFftPlanner, RealToComplex};
use std::sync::Arc;
use std::time::Duration;

/// The rate the parameter sizes refer to.
pub const REFERENCE_RATE_HZ: f64 = 48_000.0;

/// One power spectrum: `power[k]` is the power at `k * bin_width_hz`, scaled so that a sine of
/// amplitude `a` peaks at `a²` (0 dB for a full-scale sine).
#[derive(Debug, Clone, Default)]
pub struct Spectrum {
    pub power: Vec<f32>,
    pub bin_width_hz: f32,
    /// The time of the window's last sample (+1), on the source's clock.
    pub end_time: Duration,
}

/// Turns buffers of interleaved sound into power spectra.
pub struct SpectrumStage {
    fft_size_at_reference: usize,
    hop_size_at_reference: usize,
    channel_mode: ChannelMode,
    /// The format the stage is set up for: (rate, channels).
    format: Option<(u32, usize)>,
    fft_size: usize,
    hop_size: usize,
    fft: Option<Arc<dyn RealToComplex<f32>>>,
    window: Vec<f32>,
    /// Samples not yet consumed, one buffer per analysed signal (channels, or the mix).
    pending: Vec<Vec<f32>>,
    input: Vec<f32>,
    output: Vec<Complex<f32>>,
    scratch: Vec<Complex<f32>>,
    spectrum: Spectrum,
    power_scale: f32,
}

impl std::fmt::Debug for SpectrumStage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SpectrumStage")
            .field("fft_size", &self.fft_size)
            .field("hop_size", &self.hop_size)
            .field("channel_mode", &self.channel_mode)
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl SpectrumStage {
    pub fn new(parameters: &WhistleDetectorParameters) -> SpectrumStage {
        SpectrumStage {
            fft_size_at_reference: parameters.fft_size,
            hop_size_at_reference: parameters.hop_size,
            channel_mode: parameters.channel_mode,
            format: None,
            fft_size: 0,
            hop_size: 0,
            fft: None,
            window: Vec::new(),
            pending: Vec::new(),
            input: Vec::new(),
            output: Vec::new(),
            scratch: Vec::new(),
            spectrum: Spectrum::default(),
            power_scale: 0.0,
        }
    }

    /// The FFT length in use (0 before the first buffer).
    pub fn fft_size(&self) -> usize {
        self.fft_size
    }

    /// Frames between two spectra (0 before the first buffer).
    pub fn hop_size(&self) -> usize {
        self.hop_size
    }

    /// Sets the stage up for a format (on the first buffer, and again if the format changes,
    /// which drops the samples pending in the old format).
    fn configure(&mut self, sample_rate_hz: u32, channels: usize) {
        let scale = f64::from(sample_rate_hz) / REFERENCE_RATE_HZ;
        self.fft_size = ((self.fft_size_at_reference as f64 * scale).round() as usize).max(16);
        self.hop_size =
            ((self.hop_size_at_reference as f64 * scale).round() as usize).clamp(1, self.fft_size);
        let mut planner = RealFftPlanner::<f32>::new();
        let fft = planner.plan_fft_forward(self.fft_size);
        self.input = fft.make_input_vec();
        self.output = fft.make_output_vec();
        self.scratch = fft.make_scratch_vec();
        self.fft = Some(fft);
        let n = self.fft_size as f32;
        self.window = (0..self.fft_size)
            .map(|index| 0.5 - 0.5 * (2.0 * std::f32::consts::PI * index as f32 / n).cos())
            .collect();
        let window_sum: f32 = self.window.iter().sum();
        self.power_scale = (2.0 / window_sum).powi(2);
        let signals = match self.channel_mode {
            ChannelMode::AverageSpectra => channels,
            ChannelMode::Mix => 1,
        };
        self.pending = vec![Vec::with_capacity(self.fft_size * 2); signals];
        self.spectrum = Spectrum {
            power: vec![0.0; self.fft_size / 2 + 1],
            bin_width_hz: (f64::from(sample_rate_hz) / self.fft_size as f64) as f32,
            end_time: Duration::ZERO,
        };
        self.format = Some((sample_rate_hz, channels));
    }

    /// Consumes one buffer and calls `on_spectrum` for every spectrum it completes.
    pub fn push(&mut self, frames: &AudioFrames, mut on_spectrum: impl FnMut(&Spectrum)) {
        if frames.sample_rate_hz == 0 || frames.frame_count == 0 {
            return;
        }
        let channels = frames.channels();
        if self.format != Some((frames.sample_rate_hz, channels)) {
            self.configure(frames.sample_rate_hz, channels);
        }
        let samples = frames.interleaved();
        match self.channel_mode {
            ChannelMode::AverageSpectra => {
                for (channel, pending) in self.pending.iter_mut().enumerate() {
                    pending.extend(samples.iter().skip(channel).step_by(channels));
                }
            }
            ChannelMode::Mix => {
                let gain = 1.0 / channels as f32;
                self.pending[0].extend(
                    samples
                        .chunks_exact(channels)
                        .map(|frame| frame.iter().sum::<f32>() * gain),
                );
            }
        }
        let buffer_frames = samples.len() / channels;
        let rate = f64::from(frames.sample_rate_hz);
        while self.pending[0].len() >= self.fft_size {
            // The window's end, counted back from the end of this buffer.
            let after_window = self.pending[0].len() - self.fft_size;
            let end_offset = buffer_frames as f64 - after_window as f64;
            let end_time = frames.timestamp().as_secs_f64() + end_offset / rate;
            self.compute(Duration::from_secs_f64(end_time.max(0.0)));
            on_spectrum(&self.spectrum);
            for pending in &mut self.pending {
                pending.drain(..self.hop_size);
            }
        }
    }

    /// The power spectrum of the first `fft_size` pending samples of every signal, averaged.
    fn compute(&mut self, end_time: Duration) {
        let Some(fft) = &self.fft else { return };
        self.spectrum
            .power
            .iter_mut()
            .for_each(|power| *power = 0.0);
        let gain = self.power_scale / self.pending.len() as f32;
        for pending in &self.pending {
            for ((input, sample), weight) in self.input.iter_mut().zip(pending).zip(&self.window) {
                *input = sample * weight;
            }
            // The buffers were made by this plan, so their lengths always match.
            if fft
                .process_with_scratch(&mut self.input, &mut self.output, &mut self.scratch)
                .is_err()
            {
                continue;
            }
            for (power, bin) in self.spectrum.power.iter_mut().zip(&self.output) {
                *power += bin.norm_sqr() * gain;
            }
        }
        self.spectrum.end_time = end_time;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{AudioSource, MemorySource};

    fn spectra_of(samples: Vec<f32>, rate: u32, channels: u32, mode: ChannelMode) -> Vec<Spectrum> {
        let parameters = WhistleDetectorParameters {
            channel_mode: mode,
            ..WhistleDetectorParameters::default()
        };
        let mut stage = SpectrumStage::new(&parameters);
        let mut source = MemorySource::new(samples, rate, channels, 2048);
        let mut frames = AudioFrames::empty(rate, channels);
        let mut spectra = Vec::new();
        while source.read(&mut frames).unwrap() {
            stage.push(&frames, |spectrum| spectra.push(spectrum.clone()));
        }
        spectra
    }

    fn sine(frequency_hz: f32, amplitude: f32, rate: u32, seconds: f32) -> Vec<f32> {
        let count = (rate as f32 * seconds) as usize;
        (0..count)
            .map(|index| {
                let time = index as f32 / rate as f32;
                amplitude * (2.0 * std::f32::consts::PI * frequency_hz * time).sin()
            })
            .collect()
    }

    fn peak(spectrum: &Spectrum) -> (f32, f32) {
        let (bin, power) = spectrum
            .power
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        (bin as f32 * spectrum.bin_width_hz, *power)
    }

    #[test]
    fn a_sine_peaks_at_its_frequency_and_amplitude_squared_at_any_rate() {
        for rate in [16_000, 44_100, 48_000, 48_128, 96_000] {
            let spectra = spectra_of(sine(3000.0, 0.5, rate, 0.5), rate, 1, ChannelMode::Mix);
            assert!(!spectra.is_empty(), "rate {rate}");
            let (frequency, power) = peak(&spectra[3]);
            assert!(
                (frequency - 3000.0).abs() < 50.0,
                "rate {rate}: {frequency} Hz"
            );
            // Hann window: between 0.25 (on a bin) and about 0.25 * 0.42 (between two bins).
            assert!(power > 0.09 && power < 0.26, "rate {rate}: power {power}");
            let bin_width = spectra[0].bin_width_hz;
            assert!(
                (bin_width - 46.875).abs() < 1.0,
                "rate {rate}: {bin_width} Hz bins"
            );
        }
    }

    #[test]
    fn spectra_come_every_hop_with_window_end_times() {
        let rate = 48_000;
        let spectra = spectra_of(vec![0.0; 48_000], rate, 1, ChannelMode::Mix);
        // 1 s of sound, 1024 window, 512 hop: (48000 - 1024) / 512 + 1 spectra.
        assert_eq!(spectra.len(), (48_000 - 1024) / 512 + 1);
        let first = spectra[0].end_time.as_secs_f64();
        let second = spectra[1].end_time.as_secs_f64();
        assert!((first - 1024.0 / 48_000.0).abs() < 1e-6, "{first}");
        assert!((second - first - 512.0 / 48_000.0).abs() < 1e-6);
    }

    #[test]
    fn averaged_channels_survive_opposite_phases_that_cancel_in_a_mix() {
        let tone = sine(3000.0, 0.5, 48_000, 0.3);
        let stereo: Vec<f32> = tone.iter().flat_map(|&sample| [sample, -sample]).collect();
        let averaged = spectra_of(stereo.clone(), 48_000, 2, ChannelMode::AverageSpectra);
        let mixed = spectra_of(stereo, 48_000, 2, ChannelMode::Mix);
        assert!(peak(&averaged[2]).1 > 0.09);
        assert!(peak(&mixed[2]).1 < 1e-9);
    }
}
