//! Tuning aid: recall and false alarms of the detector for a grid of thresholds on derived
//! data (the shared recordings mixed, synthesised tones in noise, long non-whistle stretches).
//! `cargo run --release -p audio --example whistle_sweep -- DATA/whistle [low]` (`low`: sweep
//! the band contrast against the low-frequency check instead of floor × band × concentration).

use audio::synthesis::{
    load_mono, mix_at_snr, pink_noise, rms, scale_db, tone_with_vibrato, vowel, white_noise, Noise,
};
use audio::{hear_source, MemorySource, WhistleDetectorParameters};
use std::path::{Path, PathBuf};

const RATE: u32 = 48_000;

fn heard(samples: &[f32], rate: u32, parameters: &WhistleDetectorParameters) -> Vec<f64> {
    let mut source = MemorySource::mono(samples.to_vec(), rate, 2048);
    match hear_source(&mut source, parameters) {
        Ok(result) => result.times_s,
        Err(error) => {
            eprintln!("{error}");
            Vec::new()
        }
    }
}

fn load(folder: &Path) -> Vec<(Vec<f32>, u32)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter_map(|path| load_mono(path).ok())
        .collect()
}

fn main() {
    let Some(data) = std::env::args().nth(1) else {
        eprintln!("usage: whistle_sweep DATA/whistle");
        std::process::exit(2);
    };
    let yes = load(&Path::new(&data).join("yes"));
    let no = load(&Path::new(&data).join("no"));
    let mut stretch = Vec::new();
    let mut noise = Noise::new(3);
    while stretch.len() < 10 * 60 * RATE as usize {
        for (samples, _) in &no {
            let mut piece = samples.clone();
            scale_db(&mut piece, noise.next_uniform() * 10.0);
            stretch.extend(piece);
        }
    }
    let shipped = WhistleDetectorParameters::default();
    let mut vowels = Vec::new();
    for f0 in [100.0, 150.0, 220.0, 300.0, 450.0] {
        for f3 in [2500.0, 2900.0, 3300.0] {
            for (width, vibrato) in [(60.0, 0.0), (100.0, 0.01), (150.0, 0.03)] {
                let formants = [(700.0, 80.0, 1.0), (1200.0, 90.0, 1.0), (f3, width, 1.0)];
                vowels.push(vowel(f0, &formants, vibrato, 0.5, RATE, 1.0));
            }
        }
    }
    println!(
        "{:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} | {:>7} {:>7} | {:>6} {:>6} {:>6}",
        "floor",
        "band",
        "conc",
        "low",
        "yes",
        "no",
        "mix0dB",
        "pink0",
        "white5",
        "FA/10m",
        "mixFA",
        "vowels"
    );
    let grid = std::env::args().nth(2).unwrap_or_default();
    let mut settings = Vec::new();
    if grid == "low" {
        for band_db in [18.0, 20.0, 22.0] {
            for low_db in [-100.0, -6.0, -3.0, 0.0, 6.0] {
                settings.push((24.0, band_db, 0.6, low_db));
            }
        }
    } else {
        for floor_db in [20.0, 24.0, 27.0, 30.0] {
            for band_db in [15.0, 18.0, 22.0] {
                for concentration in [0.5, 0.6, 0.7] {
                    settings.push((
                        floor_db,
                        band_db,
                        concentration,
                        shipped.min_peak_over_low_db,
                    ));
                }
            }
        }
    }
    {
        for (floor_db, band_db, concentration, low_db) in settings {
            {
                let parameters = WhistleDetectorParameters {
                    min_peak_over_floor_db: floor_db,
                    min_peak_over_band_db: band_db,
                    min_concentration: concentration,
                    min_peak_over_low_db: low_db,
                    ..shipped.clone()
                };
                let yes_hits = yes
                    .iter()
                    .filter(|(s, r)| heard(s, *r, &parameters).len() == 1)
                    .count();
                let no_hits = no
                    .iter()
                    .filter(|(s, r)| !heard(s, *r, &parameters).is_empty())
                    .count();
                let (mut mix_hits, mut mix_total, mut mix_false) = (0, 0, 0);
                for (whistle, rate) in &yes {
                    for (background, _) in &no {
                        let times =
                            heard(&mix_at_snr(whistle, background, 0.0), *rate, &parameters);
                        mix_total += 1;
                        mix_hits += usize::from(times.iter().any(|t| *t > 1.5));
                        mix_false += times.iter().filter(|t| **t <= 1.5).count();
                    }
                }
                let mut tone_hits = [0, 0];
                for (index, seed) in [1u64, 2, 3].iter().enumerate() {
                    for (kind, hits) in tone_hits.iter_mut().enumerate() {
                        let mut signal = vec![0.0; RATE as usize];
                        let frequency = 2500.0 + 600.0 * index as f64;
                        signal.extend(tone_with_vibrato(frequency, 30.0, 60.0, 0.2, RATE, 0.5));
                        signal.extend(vec![0.0; RATE as usize]);
                        let (mut background, snr) = if kind == 0 {
                            (pink_noise(0.1, RATE, 2.5, *seed), 0.0)
                        } else {
                            (white_noise(0.1, RATE, 2.5, *seed), 5.0)
                        };
                        let gain = 20.0 * ((0.2 / 2f32.sqrt()) / rms(&background)).log10() - snr;
                        scale_db(&mut background, gain);
                        let mixed: Vec<f32> =
                            signal.iter().zip(&background).map(|(s, n)| s + n).collect();
                        *hits += usize::from(!heard(&mixed, RATE, &parameters).is_empty());
                    }
                }
                let false_alarms = heard(&stretch, RATE, &parameters).len();
                let vowel_alarms = vowels
                    .iter()
                    .filter(|samples| !heard(samples, RATE, &parameters).is_empty())
                    .count();
                println!(
                    "{floor_db:>6} {band_db:>6} {concentration:>6} {low_db:>6} | {yes_hits:>4}/{} {no_hits:>4}/{} {:>5.0}% | {:>5}/3 {:>5}/3 | {false_alarms:>6} {mix_false:>6} {vowel_alarms:>4}/{}",
                    yes.len(),
                    no.len(),
                    100.0 * mix_hits as f64 / mix_total as f64,
                    tone_hits[0],
                    tone_hits[1],
                    vowels.len(),
                );
            }
        }
    }
}
