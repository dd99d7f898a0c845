//! Time per perception stage and for the whole tick on the real 640×480 NAO frames: minimum,
//! median and 95th percentile, printed as a table (the minimum is what a tick costs when no
//! other process takes the core; on a shared machine the median carries the others' load).
//!
//! ```sh
//! cargo bench -p perception --bench perception_tick
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use cortex_image::YuyvImage;
use perception::color_classes::{ChromaCache, ColorClasses};
use perception::ec_image::EcImage;
use perception::field_color::FieldColor;
use perception::pipeline::{perceive, STAGES};
use std::time::{Duration, Instant};

const ROUNDS: usize = 20;

/// The real NAO frames (`None`, with a SKIPPED line, where the shared data is absent).
fn frames() -> Option<Vec<YuyvImage>> {
    let vision = support::vision_dir("perception_tick")?;
    let frames = support::labelled_frames(&vision);
    Some(
        frames
            .iter()
            .map(|frame| support::to_yuyv(&frame.image))
            .collect(),
    )
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * fraction).round() as usize;
    samples[index]
}

fn row(name: &str, samples: &mut [Duration]) {
    let minimum = percentile(samples, 0.0);
    let median = percentile(samples, 0.5);
    let p95 = percentile(samples, 0.95);
    println!(
        "| {name:<32} | {:>10.3} | {:>10.3} | {:>10.3} |",
        minimum.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        p95.as_secs_f64() * 1e3
    );
}

fn header(first: &str) {
    println!(
        "| {first:<32} | {:>10} | {:>10} | {:>10} |",
        "min ms", "median ms", "p95 ms"
    );
    println!("|{:-<34}|{:->12}|{:->12}|{:->12}|", "", "", "", "");
}

fn main() {
    let Some(frames) = frames() else {
        return;
    };
    let mut per_stage: Vec<Vec<Duration>> = vec![Vec::new(); STAGES.len()];
    let mut totals = Vec::new();
    let mut best_per_frame = vec![Duration::MAX; frames.len()];
    let mut classify_direct = Vec::new();
    let mut classify_table = Vec::new();
    for _ in 0..ROUNDS {
        for (index, frame) in frames.iter().enumerate() {
            let percepts = perceive(frame, None);
            best_per_frame[index] = best_per_frame[index].min(percepts.total_time());
            for (stage, time) in percepts.stage_times.iter().enumerate() {
                per_stage[stage].push(*time);
            }
            totals.push(percepts.total_time());
            // The alternatives for the pixel classification, side by side on the same frame.
            let ec_image = EcImage::from_yuyv(frame);
            let field_color = FieldColor::estimate(&ec_image);
            let start = Instant::now();
            let direct = ColorClasses::classify_direct(&ec_image, &field_color);
            classify_direct.push(start.elapsed());
            let start = Instant::now();
            let table =
                ColorClasses::classify(&ec_image, &field_color, &mut ChromaCache::default());
            classify_table.push(start.elapsed());
            assert_eq!(direct.classes, table.classes, "both classifications agree");
        }
    }
    println!(
        "{} frames of 640x480 x {ROUNDS} rounds = {} ticks\n",
        frames.len(),
        totals.len()
    );
    header("stage");
    for (stage, samples) in STAGES.iter().zip(per_stage.iter_mut()) {
        row(stage, samples);
    }
    row("whole tick", &mut totals);
    row(
        "whole tick, best of the rounds per frame",
        &mut best_per_frame,
    );
    println!("\nPixel classification, alternatives:\n");
    header("alternative");
    let direct_median = percentile(&mut classify_direct, 0.5);
    let table_median = percentile(&mut classify_table, 0.5);
    row("per pixel (sqrt, atan2)", &mut classify_direct);
    row("chroma cache (once per chroma)", &mut classify_table);
    println!(
        "\nchroma cache / per pixel: {:.2}x",
        table_median.as_secs_f64() / direct_median.as_secs_f64()
    );
}
