//! Why the detector misses the labelled balls it misses, and how far from their labels it places
//! the ones it finds, over the real NAO frames and the variants the detection tests make of them
//! (the detection test's sets and the camera sets).
//!
//! ```sh
//! cargo run --release -p perception --example detection_misses
//! ```
//!
//! Each missed ball (no ball within 5 px of its label) falls in one of these, checked in order:
//! - *chosen, under the threshold*: a candidate within 5 px was its spot's choice, but its
//!   confidence stayed under 0.5 (the classifier or the network's veto);
//! - *chosen, dropped later*: a candidate within 5 px reached 0.5, and a later rule (no turf
//!   beside it, inside another ball, above the field boundary) dropped it;
//! - *a good hypothesis not chosen*: one of the spots' contour hypotheses within 5 px reached
//!   0.5, but another circle of its spot was preferred;
//! - *a hypothesis near, under the threshold*: a hypothesis within 5 px exists, under 0.5;
//! - *no hypothesis within 5 px*: no spot's contour came that close.
//!
//! Then, per frame, the median and largest distance of the found ball nearest each label over
//! all sets (balls more than 20 px away count as not found). Prints tables; skips with a line
//! saying so when the shared frames are absent.

#[path = "../tests/support/mod.rs"]
mod support;

use perception::ball_classifier::{BallFeatures, BALL_THRESHOLD};
use perception::ball_contour::refine;
use perception::ball_spots::find_ball_spots_on_field;
use perception::color_classes::{ChromaCache, ColorClasses};
use perception::ec_image::EcImage;
use perception::field_boundary::FieldBoundary;
use perception::field_color::FieldColor;
use perception::pipeline::perceive;
use perception::scan_lines::ScanLineRegions;
use std::collections::BTreeMap;

/// A ball is found when a detection lies this close to its label (the detection tests' rule).
const FOUND_PX: f32 = 5.0;
/// Detections further than this from a label are not counted in its distances.
const NEAREST_PX: f32 = 20.0;

const CATEGORIES: [&str; 5] = [
    "chosen, under the threshold",
    "chosen, dropped later",
    "a good hypothesis not chosen",
    "a hypothesis near, under the threshold",
    "no hypothesis within 5 px",
];

/// The best confidence of any spot's contour hypothesis within [`FOUND_PX`] of (x, y), if any.
fn best_hypothesis_near(image: &cortex_image::YuyvImage, (x, y): (f32, f32)) -> Option<f32> {
    let ec_image = EcImage::from_yuyv(image);
    let field_color = FieldColor::estimate(&ec_image);
    let mut cache = ChromaCache::default();
    let classes = ColorClasses::classify(&ec_image, &field_color, &mut cache);
    let boundary = FieldBoundary::from_scan_lines(&ScanLineRegions::segment(&classes));
    let mut best: Option<f32> = None;
    for spot in find_ball_spots_on_field(&classes, &boundary) {
        let guess = (2.0 * spot.x + 0.5, 2.0 * spot.y + 0.5, 2.0 * spot.radius);
        for contour in refine(image, &field_color, &mut cache, guess) {
            if (contour.x - x).hypot(contour.y - y) > FOUND_PX {
                continue;
            }
            let confidence =
                BallFeatures::measure(image, &field_color, &mut cache, &contour).confidence();
            best = Some(best.map_or(confidence, |best| best.max(confidence)));
        }
    }
    best
}

fn main() {
    let Some(vision) = support::vision_dir("detection_misses") else {
        return;
    };
    let frames = support::labelled_frames(&vision);
    let mut sets = support::variants::standard_sets(&frames);
    sets.extend(support::variants::camera_sets(&frames));

    let mut misses: BTreeMap<&str, usize> = BTreeMap::new();
    let mut missed_by_frame: BTreeMap<String, usize> = BTreeMap::new();
    let mut distances: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    let mut labelled = 0;
    for (set, frames) in &sets {
        for frame in frames {
            let image = support::to_yuyv(&frame.image);
            let percepts = perceive(&image, None);
            for label in &frame.balls {
                labelled += 1;
                let distance = |x: f32, y: f32| (x - label.x).hypot(y - label.y);
                let nearest = percepts
                    .balls
                    .iter()
                    .map(|ball| distance(ball.x, ball.y))
                    .reduce(f32::min)
                    .filter(|&nearest| nearest <= NEAREST_PX);
                if let Some(nearest) = nearest {
                    distances
                        .entry(frame.name.clone())
                        .or_default()
                        .push(nearest);
                }
                if nearest.is_some_and(|nearest| nearest <= FOUND_PX) {
                    continue;
                }
                let chosen = percepts
                    .ball_candidates
                    .iter()
                    .filter(|candidate| distance(candidate.x, candidate.y) <= FOUND_PX)
                    .map(|candidate| candidate.confidence)
                    .reduce(f32::max);
                let category = match chosen {
                    Some(confidence) if confidence < BALL_THRESHOLD => CATEGORIES[0],
                    Some(_) => CATEGORIES[1],
                    None => match best_hypothesis_near(&image, (label.x, label.y)) {
                        Some(confidence) if confidence >= BALL_THRESHOLD => CATEGORIES[2],
                        Some(_) => CATEGORIES[3],
                        None => CATEGORIES[4],
                    },
                };
                *misses.entry(category).or_default() += 1;
                *missed_by_frame.entry(frame.name.clone()).or_default() += 1;
                println!("  {set:<38} {:<28} {category}", frame.name);
            }
        }
    }

    let missed: usize = misses.values().sum();
    println!(
        "\n{missed} of {labelled} labelled balls missed, over {} sets",
        sets.len()
    );
    println!("| why missed | balls |\n|---|---|");
    for category in CATEGORIES {
        println!(
            "| {category} | {} |",
            misses.get(category).copied().unwrap_or(0)
        );
    }
    println!("\n| frame | missed | found or placed within 20 px | median px | largest px |");
    println!("|---|---|---|---|---|");
    for (name, mut found) in distances {
        found.sort_by(f32::total_cmp);
        let median = found[found.len() / 2];
        let largest = found[found.len() - 1];
        let missed = missed_by_frame.get(&name).copied().unwrap_or(0);
        println!(
            "| {name} | {missed} | {} | {median:.1} | {largest:.1} |",
            found.len()
        );
    }
}
