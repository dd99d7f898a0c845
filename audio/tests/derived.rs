//! The shipped detector beyond the ten shared recordings, on sound derived from them and on
//! synthesised sound: whistles mixed into the non-whistle recordings at several SNRs, whistles
//! attenuated, long stretches of non-whistle sound (false alarms per minute), tones with
//! vibrato in noise, white and pink noise, chirps. Each test prints its table
//! (`cargo test --release -p audio --test derived -- --nocapture`) and asserts the floor the
//! project promises.

mod common;

use audio::synthesis::{
    chirp, load_mono, mix_at_snr, pink_noise, rms, scale_db, tone_with_vibrato, vowel, white_noise,
    Noise,
};
use audio::{hear_source, MemorySource, WhistleDetectorParameters};
use std::path::PathBuf;

const RATE: u32 = 48_000;

/// Whistle times heard in mono `samples`.
fn heard(samples: &[f32], rate: u32) -> Vec<f64> {
    let mut source = MemorySource::mono(samples.to_vec(), rate, 2048);
    hear_source(&mut source, &WhistleDetectorParameters::default())
        .unwrap()
        .times_s
}

struct Recordings {
    yes: Vec<(PathBuf, Vec<f32>, u32)>,
    no: Vec<(PathBuf, Vec<f32>, u32)>,
}

fn recordings() -> Option<Recordings> {
    let data = common::whistle_data()?;
    let load = |folder: &str| {
        common::wav_files(&data.join(folder))
            .into_iter()
            .map(|path| {
                let (samples, rate) = load_mono(&path).unwrap();
                (path, samples, rate)
            })
            .collect::<Vec<_>>()
    };
    Some(Recordings {
        yes: load("yes"),
        no: load("no"),
    })
}

/// When the whistle of each yes-recording is heard on its own (the reference for the mixed
/// and attenuated versions: a detection within 0.5 s of it is the same whistle).
fn reference_times(recordings: &Recordings) -> Vec<f64> {
    recordings
        .yes
        .iter()
        .map(|(path, samples, rate)| {
            let times = heard(samples, *rate);
            assert_eq!(times.len(), 1, "{}: {times:?}", path.display());
            times[0]
        })
        .collect()
}

#[test]
fn whistles_mixed_into_the_non_whistle_recordings() {
    let Some(recordings) = recordings() else {
        eprintln!("SKIPPED: no whistle recordings (set CORTEX_DATA_DIR)");
        return;
    };
    let references = reference_times(&recordings);
    eprintln!("whistle recordings mixed with non-whistle recordings (SNR over the whole file)");
    eprintln!("{:>8} {:>10} {:>14}", "SNR dB", "recall", "false alarms");
    let mut recall_at = Vec::new();
    for snr_db in [20.0, 10.0, 5.0, 0.0, -5.0, -10.0] {
        let (mut hits, mut total, mut false_alarms) = (0, 0, 0);
        for ((_, whistle, rate), reference) in recordings.yes.iter().zip(&references) {
            for (_, noise, _) in &recordings.no {
                let mixed = mix_at_snr(whistle, noise, snr_db);
                let times = heard(&mixed, *rate);
                total += 1;
                let hit = times.iter().any(|time| (time - reference).abs() < 0.5);
                hits += usize::from(hit);
                false_alarms += times
                    .iter()
                    .filter(|time| (*time - reference).abs() >= 0.5)
                    .count();
            }
        }
        let recall = hits as f64 / total as f64;
        eprintln!("{snr_db:>8.0} {:>9.0}% {false_alarms:>14}", 100.0 * recall);
        recall_at.push((snr_db, recall, false_alarms));
    }
    for (snr_db, recall, false_alarms) in recall_at {
        if snr_db >= 10.0 {
            assert_eq!(recall, 1.0, "at {snr_db} dB");
        }
        assert_eq!(false_alarms, 0, "at {snr_db} dB");
    }
}

#[test]
fn whistles_attenuated() {
    let Some(recordings) = recordings() else {
        eprintln!("SKIPPED: no whistle recordings (set CORTEX_DATA_DIR)");
        return;
    };
    let references = reference_times(&recordings);
    eprintln!("whistle recordings attenuated (with their own background)");
    eprintln!("{:>8} {:>10}", "gain dB", "recall");
    for gain_db in [0.0, -6.0, -12.0, -18.0, -24.0, -30.0] {
        let mut hits = 0;
        for ((_, whistle, rate), reference) in recordings.yes.iter().zip(&references) {
            let mut quiet = whistle.clone();
            scale_db(&mut quiet, gain_db);
            let times = heard(&quiet, *rate);
            assert!(times.len() <= 1, "{times:?}");
            hits += usize::from(times.iter().any(|time| (time - reference).abs() < 0.5));
        }
        let recall = hits as f64 / recordings.yes.len() as f64;
        eprintln!("{gain_db:>8.0} {:>9.0}%", 100.0 * recall);
        if gain_db >= -24.0 {
            assert_eq!(recall, 1.0, "at {gain_db} dB");
        }
    }
}

#[test]
fn long_stretches_of_non_whistle_sound() {
    let minutes = 10.0;
    let mut stretches: Vec<(&str, Vec<f32>)> = vec![
        ("white noise", white_noise(0.05, RATE, minutes * 60.0, 1)),
        ("pink noise", pink_noise(0.1, RATE, minutes * 60.0, 2)),
    ];
    if let Some(recordings) = recordings() {
        // The non-whistle recordings one after another, each at a random gain of ±10 dB and
        // with a random start, until the stretch is long enough.
        let mut noise = Noise::new(3);
        let mut stretch = Vec::new();
        while stretch.len() < (minutes * 60.0 * f64::from(RATE)) as usize {
            for (_, samples, _) in &recordings.no {
                let start =
                    ((noise.next_uniform() * 0.5 + 0.5) * 0.5 * samples.len() as f32) as usize;
                let mut piece = samples[start..].to_vec();
                scale_db(&mut piece, noise.next_uniform() * 10.0);
                stretch.extend(piece);
            }
        }
        stretches.push(("non-whistle recordings", stretch));
    } else {
        eprintln!("SKIPPED (in part): no whistle recordings, synthetic stretches only");
    }
    eprintln!("long stretches of non-whistle sound");
    eprintln!(
        "{:>24} {:>8} {:>14} {:>16}",
        "sound", "minutes", "false alarms", "per 10 minutes"
    );
    for (name, samples) in stretches {
        let length_minutes = samples.len() as f64 / f64::from(RATE) / 60.0;
        let alarms = heard(&samples, RATE).len();
        let rate = alarms as f64 / length_minutes * 10.0;
        eprintln!("{name:>24} {length_minutes:>8.1} {alarms:>14} {rate:>16.2}");
        assert!(
            rate <= 1.0,
            "{name}: {alarms} false alarms in {length_minutes:.1} minutes"
        );
    }
}

#[test]
fn synthesised_whistles_in_noise() {
    eprintln!("synthesised whistle (0.5 s, vibrato) in 3 s of noise; SNR of the tone over the whole noise");
    eprintln!(
        "{:>6} {:>8} {:>8} {:>8} {:>10}",
        "noise", "SNR dB", "Hz", "vibrato", "heard"
    );
    let mut failures = Vec::new();
    for (noise_name, seed) in [("white", 10u64), ("pink", 20)] {
        for snr_db in [10.0f32, 5.0, 0.0, -5.0, -10.0] {
            for frequency in [2500.0, 3000.0, 3700.0] {
                for (vibrato_hz, depth_hz) in [(8.0, 30.0), (40.0, 80.0)] {
                    let mut signal = vec![0.0; RATE as usize];
                    signal.extend(tone_with_vibrato(
                        frequency, vibrato_hz, depth_hz, 0.2, RATE, 0.5,
                    ));
                    signal.extend(vec![0.0; (RATE as usize) * 3 / 2]);
                    let noise = match noise_name {
                        "white" => white_noise(0.1, RATE, 3.0, seed),
                        _ => pink_noise(0.1, RATE, 3.0, seed),
                    };
                    // The SNR of the tone (its RMS while it sounds) against the noise.
                    let tone_rms = 0.2 / 2f32.sqrt();
                    let mut scaled_noise = noise.clone();
                    scale_db(
                        &mut scaled_noise,
                        20.0 * (tone_rms / rms(&noise)).log10() - snr_db,
                    );
                    let mixed: Vec<f32> = signal
                        .iter()
                        .zip(&scaled_noise)
                        .map(|(s, n)| s + n)
                        .collect();
                    let times = heard(&mixed, RATE);
                    let hit = times.len() == 1 && (1.0..1.5).contains(&times[0]);
                    eprintln!(
                        "{noise_name:>6} {snr_db:>8.0} {frequency:>8.0} {vibrato_hz:>4.0}/{depth_hz:<3.0} {:>10}",
                        if hit { "yes" } else { "no" }
                    );
                    // Promised: every tone at 0 dB or better.
                    let promised = snr_db >= 0.0;
                    if promised && !hit {
                        failures.push(format!(
                            "{noise_name} {snr_db} dB {frequency} Hz: {times:?}"
                        ));
                    }
                    // Never more than one whistle, never outside the tone.
                    assert!(
                        times.iter().all(|time| (1.0..1.8).contains(time)),
                        "{times:?}"
                    );
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn chirps_and_noise_alone() {
    eprintln!("{:>36} {:>8}", "sound", "whistles");
    let cases: Vec<(String, Vec<f32>, bool)> = vec![
        (
            "white noise, loud".into(),
            white_noise(0.5, RATE, 20.0, 5),
            false,
        ),
        (
            "pink noise, loud".into(),
            pink_noise(0.5, RATE, 20.0, 6),
            false,
        ),
        ("silence".into(), vec![0.0; RATE as usize * 5], false),
        (
            "fast chirps 2.3-4 kHz in 0.1 s, x20".into(),
            (0..20)
                .flat_map(|_| {
                    let mut piece = chirp(2300.0, 4000.0, 0.3, RATE, 0.1);
                    piece.extend(vec![0.0; RATE as usize / 5]);
                    piece
                })
                .collect(),
            false,
        ),
        (
            "chirp 0.5-8 kHz in 1 s".into(),
            chirp(500.0, 8000.0, 0.3, RATE, 1.0),
            false,
        ),
        (
            "steady 1 kHz tone".into(),
            tone_with_vibrato(1000.0, 5.0, 20.0, 0.3, RATE, 3.0),
            false,
        ),
        (
            "steady 3 kHz tone, 3 s".into(),
            tone_with_vibrato(3000.0, 5.0, 20.0, 0.3, RATE, 3.0),
            true,
        ),
    ];
    for (name, samples, expected) in cases {
        let times = heard(&samples, RATE);
        eprintln!("{name:>36} {times:?}");
        assert_eq!(!times.is_empty(), expected, "{name}: {times:?}");
        assert!(times.len() <= 1, "{name}: {times:?}");
    }
}

#[test]
fn sung_vowels_with_a_sharp_third_formant_in_the_band() {
    // Harder than speech: every formant as strong as the first, the third 60–150 Hz wide inside
    // the whistle band, held for 1 s. 45 vowels; the shipped detector hears 3 (the sharpest
    // third formants over the highest voices), without the low-frequency check 42.
    let mut heard_count = 0;
    let mut total = 0;
    eprintln!(
        "{:>6} {:>6} {:>6} {:>8}",
        "f0 Hz", "F3 Hz", "width", "whistles"
    );
    for f0 in [100.0, 150.0, 220.0, 300.0, 450.0] {
        for f3 in [2500.0, 2900.0, 3300.0] {
            for (width, vibrato) in [(60.0, 0.0), (100.0, 0.01), (150.0, 0.03)] {
                let formants = [(700.0, 80.0, 1.0), (1200.0, 90.0, 1.0), (f3, width, 1.0)];
                let samples = vowel(f0, &formants, vibrato, 0.5, RATE, 1.0);
                let times = heard(&samples, RATE);
                eprintln!("{f0:>6} {f3:>6} {width:>6} {times:>8?}");
                total += 1;
                heard_count += usize::from(!times.is_empty());
            }
        }
    }
    eprintln!("{heard_count} of {total} sung vowels heard as whistles");
    assert!(heard_count <= 3, "{heard_count} of {total}");
}

/// Crowd-like babble: `talkers` voices, each a run of syllables (vowels of 0.15–0.5 s with
/// random pitch and formants, the second 6 dB and the third 12 dB under the first, which is
/// still stronger than most voices; short pauses), over pink noise 10 dB under the voices.
fn babble(seconds: f64, talkers: usize, seed: u64) -> Vec<f32> {
    let length = (seconds * f64::from(RATE)) as usize;
    let mut mix = vec![0.0f32; length];
    let mut noise = Noise::new(seed);
    let mut uniform =
        |low: f64, high: f64| low + (high - low) * f64::from(noise.next_uniform() * 0.5 + 0.5);
    for _ in 0..talkers {
        let mut position = (uniform(0.0, 0.3) * f64::from(RATE)) as usize;
        while position < length {
            let duration = uniform(0.15, 0.5);
            let formants = [
                (uniform(300.0, 900.0), 80.0, 1.0),
                (uniform(900.0, 2200.0), 100.0, 0.5),
                (uniform(2300.0, 3200.0), 200.0, 0.25),
            ];
            let syllable = vowel(
                uniform(90.0, 280.0),
                &formants,
                0.02,
                uniform(0.05, 0.2) as f32,
                RATE,
                duration,
            );
            for (offset, sample) in syllable.iter().enumerate() {
                if let Some(slot) = mix.get_mut(position + offset) {
                    *slot += sample;
                }
            }
            position += syllable.len() + (uniform(0.05, 0.3) * f64::from(RATE)) as usize;
        }
    }
    let mut floor = pink_noise(1.0, RATE, seconds, seed + 1);
    floor.resize(length, 0.0);
    let gain = rms(&mix) / rms(&floor) / 10f32.powf(10.0 / 20.0);
    mix.iter_mut().zip(&floor).for_each(|(m, f)| *m += gain * f);
    mix
}

#[test]
fn crowd_babble_and_whistles_in_it() {
    let crowd = babble(60.0, 6, 77);
    let alarms = heard(&crowd, RATE);
    eprintln!(
        "1 minute of 6-talker babble over pink noise: {} false alarms",
        alarms.len()
    );
    assert!(alarms.is_empty(), "{alarms:?}");

    eprintln!("synthesised whistle (0.5 s) in babble; SNR of the tone against the babble");
    eprintln!("{:>8} {:>8}", "SNR dB", "heard");
    for snr_db in [10.0f32, 5.0, 0.0, -5.0, -10.0] {
        let mut hits = 0;
        let trials = 12;
        for trial in 0..trials {
            let start = (2.0 + 4.5 * trial as f64) * f64::from(RATE);
            let frequency = 2500.0 + 100.0 * trial as f64;
            let tone = tone_with_vibrato(frequency, 30.0, 60.0, 0.2, RATE, 0.5);
            let mut background =
                crowd[start as usize - RATE as usize..start as usize + 2 * RATE as usize].to_vec();
            let gain_db = 20.0 * ((0.2 / 2f32.sqrt()) / rms(&background)).log10() - snr_db;
            scale_db(&mut background, gain_db);
            for (offset, sample) in tone.iter().enumerate() {
                background[RATE as usize + offset] += sample;
            }
            let times = heard(&background, RATE);
            hits += usize::from(times.iter().any(|time| (1.0..1.5).contains(time)));
            assert!(
                times.iter().all(|time| (1.0..1.8).contains(time)),
                "{snr_db} dB: {times:?}"
            );
        }
        eprintln!("{snr_db:>8.0} {hits:>5}/{trials}");
        if snr_db >= 5.0 {
            assert_eq!(hits, trials, "at {snr_db} dB");
        }
    }
}

#[test]
fn the_whistle_recordings_end_to_end_are_three_whistles_at_their_offsets() {
    let Some(recordings) = recordings() else {
        eprintln!("SKIPPED: no whistle recordings (set CORTEX_DATA_DIR)");
        return;
    };
    let references = reference_times(&recordings);
    let rate = recordings.yes[0].2;
    let mut joined = Vec::new();
    let mut expected = Vec::new();
    for ((_, samples, file_rate), reference) in recordings.yes.iter().zip(&references) {
        assert_eq!(*file_rate, rate, "the recordings share one rate");
        expected.push(joined.len() as f64 / f64::from(rate) + reference);
        joined.extend_from_slice(samples);
    }
    let times = heard(&joined, rate);
    eprintln!("expected {expected:?}, heard {times:?}");
    assert_eq!(times.len(), expected.len(), "{times:?}");
    for (time, expected) in times.iter().zip(&expected) {
        assert!((time - expected).abs() < 0.05, "{time} vs {expected}");
    }
}
