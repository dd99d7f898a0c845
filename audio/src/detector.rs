//! Stage 2 of the whistle detector: is one spectrum whistle-like?
//!
//! A referee's whistle is a narrow tone (with a fast warble) between about 2 and 4 kHz. In one
//! spectrum that is a peak in the whistle band which
//! - stands far above the noise floor, the *median* power of a wide reference band (a median
//!   ignores the few strong bins of a tone, so the floor is that of the noise around it);
//! - stands far above the whistle band's own median (broadband noise, crowd and gear noise
//!   lift the whole band);
//! - holds most of the band's energy (speech has several harmonics in the band, keys and
//!   clatter spread over it);
//! - is loud enough in absolute terms (a whistle from across the hall is not for us);
//! - is a peak of the whole spectrum, not the flank of a tone just outside the band;
//! - is not much weaker than the strongest bin below the band (a voice's harmonics in the band
//!   sit far under its first formants; a whistle has nothing down there).
//!
//! Each margin is in dB over its threshold; the smallest margin, scaled by
//! `confidence_span_db`, is the spectrum's confidence.

use crate::parameters::WhistleDetectorParameters;
use crate::spectrum::Spectrum;
use std::time::Duration;

/// What the detector found in one spectrum.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WhistleEvidence {
    /// The spectrum's end time.
    pub time: Duration,
    /// All thresholds were met.
    pub whistle_like: bool,
    /// The strongest frequency in the whistle band (interpolated between bins), Hz.
    pub peak_frequency_hz: f32,
    /// The peak over the reference band's median, dB.
    pub peak_over_floor_db: f32,
    /// The peak over the whistle band's median, dB.
    pub peak_over_band_db: f32,
    /// The peak's share of the whistle band's energy.
    pub concentration: f32,
    /// The peak's level, dB relative to a full-scale sine.
    pub level_db: f32,
    /// The peak over the strongest bin between `reference_low_hz` and the whistle band, dB
    /// (a voice's first formants are far stronger than its harmonics in the whistle band).
    pub peak_over_low_db: f32,
    /// 0..1: the smallest margin over the thresholds, scaled (0 when not whistle-like).
    pub confidence: f32,
}

/// Judges spectra one at a time.
#[derive(Debug, Clone)]
pub struct WhistleDetector {
    parameters: WhistleDetectorParameters,
    /// Scratch space for medians.
    sorted: Vec<f32>,
}

const TINY_POWER: f32 = 1e-20;

fn decibels(ratio: f32) -> f32 {
    10.0 * ratio.max(TINY_POWER).log10()
}

impl WhistleDetector {
    pub fn new(parameters: &WhistleDetectorParameters) -> WhistleDetector {
        WhistleDetector {
            parameters: parameters.clone(),
            sorted: Vec::new(),
        }
    }

    /// The bins from `low_hz` to `high_hz`, clipped to the spectrum.
    fn bins(spectrum: &Spectrum, low_hz: f32, high_hz: f32) -> std::ops::Range<usize> {
        let count = spectrum.power.len();
        if spectrum.bin_width_hz <= 0.0 || count == 0 {
            return 0..0;
        }
        let low = ((low_hz / spectrum.bin_width_hz).ceil() as usize).min(count);
        let high = ((high_hz / spectrum.bin_width_hz).floor() as usize + 1).min(count);
        low..high.max(low)
    }

    pub fn judge(&mut self, spectrum: &Spectrum) -> WhistleEvidence {
        let p = &self.parameters;
        let mut evidence = WhistleEvidence {
            time: spectrum.end_time,
            ..WhistleEvidence::default()
        };
        let band = Self::bins(spectrum, p.band_low_hz, p.band_high_hz);
        let reference = Self::bins(spectrum, p.reference_low_hz, p.reference_high_hz);
        if band.len() < 3 || reference.len() < 3 {
            // The rate is too low for the band: nothing can be whistle-like.
            return evidence;
        }
        let power = &spectrum.power;
        let Some((peak_bin, peak_power)) = band
            .clone()
            .map(|bin| (bin, power[bin]))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            return evidence;
        };
        // The strongest bin of the band must be a peak of the whole spectrum: at a band edge,
        // the slope of a tone just outside the band (the robot's own motor tone) is not one.
        let neighbours_higher = (peak_bin > 0 && power[peak_bin - 1] > peak_power)
            || (peak_bin + 1 < power.len() && power[peak_bin + 1] > peak_power);
        let half_width = (p.peak_half_width_hz / spectrum.bin_width_hz).round() as usize;
        let lobe = peak_bin.saturating_sub(half_width).max(band.start)
            ..(peak_bin + half_width + 1).min(band.end);
        let lobe_energy: f32 = power[lobe].iter().sum();
        let band_energy: f32 = power[band.clone()].iter().sum();

        let low = Self::bins(spectrum, p.reference_low_hz, p.band_low_hz - p.low_gap_hz);
        let low_peak = power[low].iter().fold(0.0f32, |max, &value| max.max(value));
        evidence.peak_over_low_db = decibels(peak_power / low_peak.max(TINY_POWER));
        let floor = median(&mut self.sorted, &power[reference]);
        let band_median = median(&mut self.sorted, &power[band.clone()]);

        evidence.peak_frequency_hz = interpolated_peak(power, peak_bin) * spectrum.bin_width_hz;
        evidence.peak_over_floor_db = decibels(peak_power / floor.max(TINY_POWER));
        evidence.peak_over_band_db = decibels(peak_power / band_median.max(TINY_POWER));
        evidence.concentration = if band_energy > 0.0 {
            lobe_energy / band_energy
        } else {
            0.0
        };
        evidence.level_db = decibels(peak_power);

        // The concentration is a share; its margin is expressed in dB of (1 - share) so that
        // all margins share one scale.
        let concentration_margin_db =
            decibels(1.0 - p.min_concentration) - decibels(1.0 - evidence.concentration);
        let margins = [
            evidence.peak_over_floor_db - p.min_peak_over_floor_db,
            evidence.peak_over_band_db - p.min_peak_over_band_db,
            concentration_margin_db,
            evidence.level_db - p.min_level_db,
            evidence.peak_over_low_db - p.min_peak_over_low_db,
        ];
        let smallest = margins.into_iter().fold(f32::INFINITY, f32::min);
        evidence.whistle_like = smallest >= 0.0 && !neighbours_higher;
        if evidence.whistle_like {
            evidence.confidence = (smallest / p.confidence_span_db).clamp(0.0, 1.0);
        }
        evidence
    }
}

/// The median of `values` (0 for none), sorting a copy in `scratch`.
fn median(scratch: &mut Vec<f32>, values: &[f32]) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    scratch.clear();
    scratch.extend_from_slice(values);
    let middle = scratch.len() / 2;
    let (_, median, _) = scratch.select_nth_unstable_by(middle, f32::total_cmp);
    *median
}

/// The peak's position in bins, refined by a parabola through the log powers of its
/// neighbours.
fn interpolated_peak(power: &[f32], bin: usize) -> f32 {
    if bin == 0 || bin + 1 >= power.len() {
        return bin as f32;
    }
    let (left, centre, right) = (
        decibels(power[bin - 1]),
        decibels(power[bin]),
        decibels(power[bin + 1]),
    );
    let denominator = left - 2.0 * centre + right;
    if denominator.abs() < 1e-9 {
        return bin as f32;
    }
    bin as f32 + (0.5 * (left - right) / denominator).clamp(-0.5, 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spectrum of 47 Hz bins up to 24 kHz with a flat floor and optional tones.
    fn spectrum(floor: f32, tones: &[(f32, f32)]) -> Spectrum {
        let bin_width_hz = 46.875;
        let mut power = vec![floor; 513];
        for &(frequency, tone_power) in tones {
            let bin = (frequency / bin_width_hz).round() as usize;
            power[bin] += tone_power;
            power[bin - 1] += tone_power * 0.25;
            power[bin + 1] += tone_power * 0.25;
        }
        Spectrum {
            power,
            bin_width_hz,
            end_time: Duration::from_millis(100),
        }
    }

    #[test]
    fn a_strong_tone_in_the_band_is_whistle_like() {
        let mut detector = WhistleDetector::new(&WhistleDetectorParameters::default());
        let evidence = detector.judge(&spectrum(1e-9, &[(3000.0, 1e-3)]));
        assert!(evidence.whistle_like, "{evidence:?}");
        assert!((evidence.peak_frequency_hz - 3000.0).abs() < 30.0);
        assert!(evidence.confidence > 0.0);
        assert_eq!(evidence.time, Duration::from_millis(100));
    }

    #[test]
    fn a_tone_outside_the_band_is_not() {
        let mut detector = WhistleDetector::new(&WhistleDetectorParameters::default());
        let evidence = detector.judge(&spectrum(1e-9, &[(1000.0, 1e-3)]));
        assert!(!evidence.whistle_like, "{evidence:?}");
        assert_eq!(evidence.confidence, 0.0);
    }

    #[test]
    fn harmonics_spread_over_the_band_are_not() {
        // Speech-like: many harmonics of 200 Hz, all equally strong.
        let tones: Vec<(f32, f32)> = (10..20).map(|k| (k as f32 * 200.0, 1e-3)).collect();
        let mut detector = WhistleDetector::new(&WhistleDetectorParameters::default());
        let evidence = detector.judge(&spectrum(1e-9, &tones));
        assert!(!evidence.whistle_like, "{evidence:?}");
        assert!(evidence.concentration < 0.3, "{evidence:?}");
    }

    #[test]
    fn the_slope_of_a_tone_just_below_the_band_is_not() {
        let parameters = WhistleDetectorParameters::default();
        let below = parameters.band_low_hz - 10.0;
        let mut detector = WhistleDetector::new(&parameters);
        let evidence = detector.judge(&spectrum(1e-12, &[(below, 1e-2)]));
        // The band's strongest bin is the tone's flank, far above the floor, but not a peak.
        assert!(evidence.peak_over_floor_db > parameters.min_peak_over_floor_db);
        assert!(!evidence.whistle_like, "{evidence:?}");
    }

    #[test]
    fn a_harmonic_under_a_much_stronger_low_formant_is_not() {
        // A voice: its first formant at 700 Hz far above its harmonic at 2.9 kHz.
        let mut detector = WhistleDetector::new(&WhistleDetectorParameters::default());
        let voice = detector.judge(&spectrum(1e-10, &[(700.0, 1e-2), (2900.0, 1e-4)]));
        assert!(voice.peak_over_low_db < -10.0, "{voice:?}");
        assert!(!voice.whistle_like, "{voice:?}");
        // The same harmonic with a weaker low tone is whistle-like.
        let whistle = detector.judge(&spectrum(1e-10, &[(700.0, 1e-5), (2900.0, 1e-4)]));
        assert!(whistle.whistle_like, "{whistle:?}");
    }

    #[test]
    fn a_quiet_tone_is_not() {
        let parameters = WhistleDetectorParameters::default();
        let level = 10f32.powf((parameters.min_level_db - 10.0) / 10.0);
        let mut detector = WhistleDetector::new(&parameters);
        let evidence = detector.judge(&spectrum(level * 1e-6, &[(3000.0, level)]));
        assert!(!evidence.whistle_like, "{evidence:?}");
        assert!(evidence.peak_over_floor_db > parameters.min_peak_over_floor_db);
    }

    #[test]
    fn a_tone_in_a_lifted_band_is_not() {
        // Broadband noise in 2–4 kHz lifts the band's median towards the peak.
        let mut tones: Vec<(f32, f32)> = (43..85).map(|bin| (bin as f32 * 46.875, 1e-4)).collect();
        tones.push((3000.0, 1e-3));
        let mut detector = WhistleDetector::new(&WhistleDetectorParameters::default());
        let evidence = detector.judge(&spectrum(1e-9, &tones));
        assert!(!evidence.whistle_like, "{evidence:?}");
    }

    #[test]
    fn an_empty_or_silent_spectrum_is_not() {
        let mut detector = WhistleDetector::new(&WhistleDetectorParameters::default());
        assert!(!detector.judge(&Spectrum::default()).whistle_like);
        assert!(!detector.judge(&spectrum(0.0, &[])).whistle_like);
    }
}
