//! Prints the detector's evidence for every spectrum of WAV files, for tuning
//! `WhistleDetector.toml`: `cargo run -p audio --example whistle_features -- FILE.wav...`.
//! With `--summary`, one line per file: the best run of whistle-like spectra and the extremes
//! of each measure.

use audio::{AudioFrames, AudioSource, WavSource, WhistleDetectorParameters, WhistlePipeline};
use std::path::Path;

fn main() {
    let mut summary = false;
    let parameters = WhistleDetectorParameters::default();
    for argument in std::env::args().skip(1) {
        if argument == "--summary" {
            summary = true;
            continue;
        }
        let mut source = match WavSource::open(Path::new(&argument), audio::MAX_FRAMES) {
            Ok(source) => source,
            Err(error) => {
                eprintln!("{error}");
                continue;
            }
        };
        let mut pipeline = WhistlePipeline::new(&parameters);
        let mut stage = audio::SpectrumStage::new(&parameters);
        let mut harmonics: Vec<(f32, f32)> = Vec::new();
        let mut frames = AudioFrames::empty(source.sample_rate_hz(), source.channel_count());
        let mut rows = Vec::new();
        let mut whistles = Vec::new();
        loop {
            match source.read(&mut frames) {
                Ok(true) => {}
                Ok(false) => break,
                Err(error) => {
                    eprintln!("{error}");
                    break;
                }
            }
            stage.push(&frames, |spectrum| {
                let p = &spectrum.power;
                let w = spectrum.bin_width_hz;
                let band = (2000.0 / w) as usize..(4000.0 / w) as usize;
                let (k, peak) = band
                    .map(|k| (k, p[k]))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap();
                let h = 2 * k;
                let second = p[h.saturating_sub(3)..(h + 4).min(p.len())]
                    .iter()
                    .cloned()
                    .fold(0.0f32, f32::max);
                let mut sorted: Vec<f32> = p[(6.0e3 / w) as usize..(12.0e3 / w) as usize].to_vec();
                sorted.sort_by(f32::total_cmp);
                let high_floor = sorted[sorted.len() / 2];
                harmonics.push((
                    10.0 * (second / peak).log10(),
                    10.0 * (second / high_floor).log10(),
                ));
            });
            pipeline.process_with_evidence(
                &frames,
                |evidence| rows.push(*evidence),
                |time| whistles.push(time.as_secs_f64()),
            );
        }
        let name = Path::new(&argument)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if summary {
            let mut best_run = 0;
            let mut run = 0;
            for row in &rows {
                run = if row.whistle_like { run + 1 } else { 0 };
                best_run = best_run.max(run);
            }
            // The spectrum with the highest peak over the floor, and its measures.
            let best = rows
                .iter()
                .max_by(|a, b| a.peak_over_floor_db.total_cmp(&b.peak_over_floor_db));
            if let Some(best) = best {
                println!(
                    "{name:70} whistles {whistles:?} run {best_run:3} | best: {:6.0} Hz floor {:5.1} band {:5.1} conc {:4.2} level {:6.1}",
                    best.peak_frequency_hz,
                    best.peak_over_floor_db,
                    best.peak_over_band_db,
                    best.concentration,
                    best.level_db
                );
            }
            continue;
        }
        println!("# {name}: whistles at {whistles:?} s");
        for (row, harmonic) in rows.into_iter().zip(harmonics) {
            print!(
                "h2 {:6.1} {:6.1} low {:6.1} ",
                harmonic.0, harmonic.1, row.peak_over_low_db
            );
            println!(
                "{:7.3} {:6.0} Hz floor {:5.1} band {:5.1} conc {:4.2} level {:6.1} {}",
                row.time.as_secs_f64(),
                row.peak_frequency_hz,
                row.peak_over_floor_db,
                row.peak_over_band_db,
                row.concentration,
                row.level_db,
                if row.whistle_like { "*" } else { "" }
            );
        }
    }
}
