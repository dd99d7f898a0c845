//! The coarse stages (field colour, colour classes, field boundary, ball spots) on the real NAO
//! frames of the shared data folder and on variants made from them: lighting, colour casts,
//! noise, mirrored and shifted frames (the detection test's sets) and what a real camera adds
//! (vignetting, strong noise in a dark frame, JPEG-like blocks, a cast with a dark exposure,
//! the robot's own body). Prints a table per set:
//!
//! ```sh
//! cargo test --release -p perception --test color_robustness -- --nocapture
//! COLOR_LOG=1 cargo test --release -p perception --test color_robustness -- --nocapture  # misses
//! ```
//!
//! A labelled ball "has a spot" when a ball spot's centre is within half the ball's radius of
//! the label and its radius within a factor of two of the ball's: the contour search, which
//! casts its rays from 0.4 to 2 spot radii, can start from it. Without such a spot a ball
//! cannot be found, whatever the later stages do.

mod support;

use perception::ball_spots::{find_ball_spots_on_field, spot_evidence, BallSpot};
use perception::color_classes::{ChromaCache, ColorClasses};
use perception::ec_image::EcImage;
use perception::field_boundary::FieldBoundary;
use perception::field_color::{FieldColor, PixelClass};
use perception::scan_lines::ScanLineRegions;
use support::variants::{ball_masked, camera_sets, standard_sets};
use support::{labelled_frames, to_yuyv, vision_dir, Label, LabelledFrame};

const WHITE_WALL: &str = "white_wall_with_a_little_desk_in_front.png";

struct Coarse {
    field_color: FieldColor,
    classes: ColorClasses,
    spots: Vec<BallSpot>,
}

fn coarse(frame: &LabelledFrame) -> Coarse {
    let image = EcImage::from_yuyv(&to_yuyv(&frame.image));
    let field_color = FieldColor::estimate(&image);
    let classes = ColorClasses::classify(&image, &field_color, &mut ChromaCache::default());
    let boundary = FieldBoundary::from_scan_lines(&ScanLineRegions::segment(&classes));
    let spots = find_ball_spots_on_field(&classes, &boundary);
    Coarse {
        field_color,
        classes,
        spots,
    }
}

/// A spot the contour can start from (see the file's comment).
fn spot_at(spots: &[BallSpot], label: &Label) -> bool {
    spots.iter().any(|spot| {
        let (x, y, radius) = (2.0 * spot.x + 0.5, 2.0 * spot.y + 0.5, 2.0 * spot.radius);
        ((x - label.x).powi(2) + (y - label.y).powi(2)).sqrt() <= 0.5 * label.radius
            && radius >= 0.5 * label.radius
            && radius <= 2.0 * label.radius
    })
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    frames: usize,
    balls: usize,
    with_spot: usize,
    /// Frames showing a field (all but the white wall) and those where field colour was found.
    field_frames: usize,
    field_found: usize,
    /// Field colour found on the white wall (a frame without a field).
    field_on_wall: usize,
    spots: usize,
    /// The whole detector: balls found within 5 px, and other detections.
    found: usize,
    false_balls: usize,
}

fn tally(name: &str, set: &[LabelledFrame], log: bool) -> Tally {
    let mut tally = Tally::default();
    for frame in set {
        let coarse = coarse(frame);
        let balls = perception::perceive(&to_yuyv(&frame.image), None).balls;
        let near = |ball: &perception::BallPercept, label: &Label| {
            ((ball.x - label.x).powi(2) + (ball.y - label.y).powi(2)).sqrt() <= 5.0
        };
        tally.found += frame
            .balls
            .iter()
            .filter(|label| balls.iter().any(|ball| near(ball, label)))
            .count();
        tally.false_balls += balls
            .iter()
            .filter(|ball| !frame.balls.iter().any(|label| near(ball, label)))
            .count();
        tally.frames += 1;
        tally.spots += coarse.spots.len();
        let found = coarse.field_color.field_hue_rad.is_some();
        if frame.name.starts_with(WHITE_WALL) {
            tally.field_on_wall += usize::from(found);
        } else {
            tally.field_frames += 1;
            tally.field_found += usize::from(found);
        }
        for label in &frame.balls {
            tally.balls += 1;
            if spot_at(&coarse.spots, label) {
                tally.with_spot += 1;
            } else if log {
                let field = coarse
                    .classes
                    .classes
                    .iter()
                    .filter(|&&class| class == PixelClass::Field)
                    .count() as f32
                    / coarse.classes.classes.len() as f32;
                let evidence = spot_evidence(
                    &coarse.classes,
                    ((label.x - 0.5) / 2.0).round() as usize,
                    ((label.y - 0.5) / 2.0).round() as usize,
                    label.radius / 2.0,
                );
                eprintln!(
                    "  {name}: {} ball ({:.0}, {:.0}, r {:.0}): field share {field:.2}, {:?} at \
                     the label; spots nearby {:?}",
                    frame.name,
                    label.x,
                    label.y,
                    label.radius,
                    evidence,
                    coarse
                        .spots
                        .iter()
                        .filter(|spot| {
                            ((2.0 * spot.x - label.x).powi(2) + (2.0 * spot.y - label.y).powi(2))
                                .sqrt()
                                < 2.0 * label.radius
                        })
                        .map(|spot| (2.0 * spot.x + 0.5, 2.0 * spot.y + 0.5, 2.0 * spot.radius))
                        .collect::<Vec<_>>()
                );
            }
        }
    }
    tally
}

#[test]
fn spots_at_the_balls_and_field_colour_in_every_variant() {
    let Some(vision) = vision_dir("spots_at_the_balls_and_field_colour_in_every_variant") else {
        return;
    };
    let log = std::env::var_os("COLOR_LOG").is_some();
    let frames = labelled_frames(&vision);
    let mut standard = standard_sets(&frames);
    standard.push(("ball masked out", ball_masked(&frames)));
    if std::env::var_os("ZOOMED").is_some() {
        standard.push(("zoomed x2", support::variants::zoomed_out(&frames, 2)));
        standard.push(("zoomed x3", support::variants::zoomed_out(&frames, 3)));
    }
    eprintln!(
        "{:<38} {:>6} {:>6} {:>9} {:>11} {:>12} {:>10} {:>6} {:>6}",
        "set",
        "frames",
        "balls",
        "with spot",
        "field found",
        "field on wall",
        "spots/frm",
        "found",
        "false"
    );
    let mut totals = [Tally::default(); 2];
    for (group, sets) in [standard, camera_sets(&frames)].into_iter().enumerate() {
        for (name, set) in sets {
            let tally = tally(name, &set, log);
            eprintln!(
                "{:<38} {:>6} {:>6} {:>9} {:>5} of {:>3} {:>12} {:>10.1} {:>6} {:>6}",
                name,
                tally.frames,
                tally.balls,
                tally.with_spot,
                tally.field_found,
                tally.field_frames,
                tally.field_on_wall,
                tally.spots as f32 / tally.frames as f32,
                tally.found,
                tally.false_balls
            );
            let total = &mut totals[group];
            total.frames += tally.frames;
            total.balls += tally.balls;
            total.with_spot += tally.with_spot;
            total.field_frames += tally.field_frames;
            total.field_found += tally.field_found;
            total.field_on_wall += tally.field_on_wall;
            total.spots += tally.spots;
            total.found += tally.found;
            total.false_balls += tally.false_balls;
        }
    }
    for (name, total) in ["detection test's sets", "camera sets"].iter().zip(&totals) {
        eprintln!(
            "{:<38} {:>6} {:>6} {:>9} {:>5} of {:>3} {:>12} {:>10.1} {:>6} {:>6}",
            name,
            total.frames,
            total.balls,
            total.with_spot,
            total.field_found,
            total.field_frames,
            total.field_on_wall,
            total.spots as f32 / total.frames as f32,
            total.found,
            total.false_balls
        );
    }
    // The levels reached when this test was written (docs/performance.md has the table): a
    // change that loses spots at the balls or field colour fails here.
    let [standard, camera] = totals;
    assert!(
        standard.with_spot as f32 >= MIN_SPOT_SHARE * standard.balls as f32,
        "{standard:?}"
    );
    assert!(
        camera.with_spot as f32 >= MIN_CAMERA_SPOT_SHARE * camera.balls as f32,
        "{camera:?}"
    );
    assert!(
        standard.field_found as f32 >= MIN_FIELD_FOUND * standard.field_frames as f32,
        "{standard:?}"
    );
    assert!(
        camera.field_found as f32 >= MIN_FIELD_FOUND * camera.field_frames as f32,
        "{camera:?}"
    );
    // The white wall under a green cast (G × 1.15) and in the dark noisy variant: the desk's
    // grey carpet strip turns green enough to pass for field. No ball is found there.
    assert!(
        standard.field_on_wall + camera.field_on_wall <= MAX_FIELD_ON_WALL,
        "{standard:?} {camera:?}"
    );
}

/// 127 of 129 since spots of other sizes are kept and dark is rewarded only up to 15 % (92
/// when written).
const MIN_SPOT_SHARE: f32 = 0.98;
/// 63 of 65 since then (46 when written).
const MIN_CAMERA_SPOT_SHARE: f32 = 0.96;
/// Every frame with a field, in both groups, when written (137 of 142 and 54 of 65 with one
/// white-point offset for every luma).
const MIN_FIELD_FOUND: f32 = 0.97;
/// Frames of the white wall (one per variant, 16 in all) in which field colour is found.
/// (`ZOOMED=1` adds the detection test's tiled sets, 4 and 9 walls per frame, to the first
/// group; the thresholds are for the run without them.)
const MAX_FIELD_ON_WALL: usize = 2;
