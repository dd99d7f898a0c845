//! The ball detector on the real NAO frames of the shared data folder and on variants this test
//! derives from them (lighting, colour casts, sensor noise, mirrored and shifted frames, and
//! frames with the ball masked out). Prints a table of recall and false balls per set:
//!
//! ```sh
//! cargo test -p perception --test detection -- --nocapture
//! ```
//!
//! A ball counts as found when a detection's centre is within 5 px of the label's; every
//! detection that is not within 5 px of a label is a false ball.

mod support;

use support::variants::{
    ball_masked, camera_sets, clamp, mirrored, noise, over_exposed_sets, rescaled, shifted,
    small_ball_set, variant, zoomed_out,
};
use support::{labelled_frames, to_yuyv, vision_dir, Label, LabelledFrame};

const MAX_CENTER_ERROR_PX: f32 = 5.0;

#[derive(Debug, Default, Clone, Copy)]
struct Score {
    frames: usize,
    labelled: usize,
    found: usize,
    false_balls: usize,
}

impl Score {
    fn recall(&self) -> f32 {
        if self.labelled == 0 {
            1.0
        } else {
            self.found as f32 / self.labelled as f32
        }
    }

    fn false_per_frame(&self) -> f32 {
        self.false_balls as f32 / self.frames.max(1) as f32
    }

    /// Both scores together.
    fn plus(self, other: Score) -> Score {
        Score {
            frames: self.frames + other.frames,
            labelled: self.labelled + other.labelled,
            found: self.found + other.found,
            false_balls: self.false_balls + other.false_balls,
        }
    }

    /// Prints the set's row of the table (`width`: the name's column).
    fn print_row(&self, name: &str, width: usize, remark: &str) {
        eprintln!(
            "{name:<width$} {:>6} {:>6} {:>6} {:>7.0}% {:>6} {:>10.3}{remark}",
            self.frames,
            self.labelled,
            self.found,
            100.0 * self.recall(),
            self.false_balls,
            self.false_per_frame()
        );
    }
}

/// Evaluates each named set and prints its row (`width`: the name's column); also their sum.
fn evaluate_sets<'a>(
    sets: &[(&'a str, Vec<LabelledFrame>)],
    width: usize,
) -> (Vec<(&'a str, Score)>, Score) {
    let log = std::env::var_os("DETECTION_LOG").is_some();
    let results: Vec<(&str, Score)> = sets
        .iter()
        .map(|(name, set)| {
            let score = evaluate(set, log);
            score.print_row(name, width, "");
            (*name, score)
        })
        .collect();
    let total = (results.iter()).fold(Score::default(), |sum, (_, score)| sum.plus(*score));
    (results, total)
}

fn evaluate(frames: &[LabelledFrame], log: bool) -> Score {
    let mut score = Score::default();
    for frame in frames {
        let balls = perception::perceive(&to_yuyv(&frame.image), None).balls;
        score.frames += 1;
        score.labelled += frame.balls.len();
        let near = |ball: &perception::BallPercept, label: &Label| {
            ((ball.x - label.x).powi(2) + (ball.y - label.y).powi(2)).sqrt() <= MAX_CENTER_ERROR_PX
        };
        let found = frame
            .balls
            .iter()
            .filter(|label| balls.iter().any(|ball| near(ball, label)))
            .count();
        let false_balls = balls
            .iter()
            .filter(|ball| !frame.balls.iter().any(|label| near(ball, label)))
            .count();
        score.found += found;
        score.false_balls += false_balls;
        if log && (found < frame.balls.len() || false_balls > 0) {
            let seen: Vec<String> = balls
                .iter()
                .map(|ball| format!("({:.1}, {:.1}, r {:.1})", ball.x, ball.y, ball.radius))
                .collect();
            eprintln!(
                "  {}: labels {:?}, detections {}",
                frame.name,
                frame
                    .balls
                    .iter()
                    .map(|label| (label.x, label.y))
                    .collect::<Vec<_>>(),
                seen.join(" ")
            );
        }
    }
    score
}

#[test]
fn rome_ball_within_5_px_and_nothing_on_the_white_wall() {
    let Some(vision) = vision_dir("rome_ball_within_5_px_and_nothing_on_the_white_wall") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let rome = &frames[0];
    let balls = perception::perceive(&to_yuyv(&rome.image), None).balls;
    assert_eq!(balls.len(), 1, "one ball in {}: {balls:?}", rome.name);
    let label = rome.balls[0];
    let error = ((balls[0].x - label.x).powi(2) + (balls[0].y - label.y).powi(2)).sqrt();
    assert!(
        error <= MAX_CENTER_ERROR_PX,
        "{balls:?} is {error:.1} px from {label:?}"
    );
    assert!(
        (balls[0].radius - label.radius).abs() <= 0.15 * label.radius,
        "{balls:?}"
    );
    let wall = &frames[1];
    let balls = perception::perceive(&to_yuyv(&wall.image), None).balls;
    assert!(balls.is_empty(), "no ball on {}: {balls:?}", wall.name);
}

#[test]
fn detection_on_the_shared_frames_and_their_variants() {
    let Some(vision) = vision_dir("detection_on_the_shared_frames_and_their_variants") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let sets: Vec<(&str, Vec<LabelledFrame>)> = vec![
        ("shared frames", frames.clone()),
        (
            "darker (x0.6)",
            variant(&frames, |_, _, rgb| rgb.map(|c| clamp(f32::from(c) * 0.6))),
        ),
        (
            "brighter (x1.3)",
            variant(&frames, |_, _, rgb| rgb.map(|c| clamp(f32::from(c) * 1.3))),
        ),
        // A colour cast is a white-balance error: a gain per channel.
        (
            "warm cast (R x1.2, B x0.8)",
            variant(&frames, |_, _, [r, g, b]| {
                [clamp(f32::from(r) * 1.2), g, clamp(f32::from(b) * 0.8)]
            }),
        ),
        (
            "cold cast (R x0.85, B x1.2)",
            variant(&frames, |_, _, [r, g, b]| {
                [clamp(f32::from(r) * 0.85), g, clamp(f32::from(b) * 1.2)]
            }),
        ),
        (
            "green cast (G x1.15)",
            variant(&frames, |_, _, [r, g, b]| {
                [r, clamp(f32::from(g) * 1.15), b]
            }),
        ),
        (
            "noise (+-20)",
            variant(&frames, |x, y, rgb| {
                let mut channel = 0;
                rgb.map(|c| {
                    channel += 1;
                    clamp(f32::from(c) + noise(x, y, channel, 20.0))
                })
            }),
        ),
        ("mirrored", mirrored(&frames)),
        ("shifted (+40, -30)", shifted(&frames, 40, -30)),
        ("shifted (-60, +20)", shifted(&frames, -60, 20)),
        ("ball masked out", ball_masked(&frames)),
    ];
    eprintln!(
        "{:<28} {:>6} {:>6} {:>6} {:>8} {:>6} {:>10}",
        "set", "frames", "balls", "found", "recall", "false", "false/frm"
    );
    let (results, total) = evaluate_sets(&sets, 28);
    // Small balls: the frames shrunk and tiled 2 x 2. The tiles' seams are edges no camera
    // frame has, and they make false balls of their own, so this set is printed and its recall
    // asserted, but it stays out of the totals.
    let zoomed = evaluate(
        &zoomed_out(&frames, 2),
        std::env::var_os("DETECTION_LOG").is_some(),
    );
    zoomed.print_row("zoomed out x2 (2x2 tiles)", 28, "  (not in \"all\")");
    assert!(zoomed.recall() >= MIN_ZOOMED_RECALL, "{zoomed:?}");
    assert!(
        zoomed.false_per_frame() <= MAX_ZOOMED_FALSE_PER_FRAME,
        "{zoomed:?}"
    );
    let zoomed_3 = evaluate(
        &zoomed_out(&frames, 3),
        std::env::var_os("DETECTION_LOG").is_some(),
    );
    zoomed_3.print_row("zoomed out x3 (3x3 tiles)", 28, "  (not in \"all\")");
    assert!(zoomed_3.recall() >= MIN_ZOOMED_3_RECALL, "{zoomed_3:?}");
    assert!(
        zoomed_3.false_per_frame() <= MAX_ZOOMED_3_FALSE_PER_FRAME,
        "{zoomed_3:?}"
    );
    let shared = results[0].1;
    total.print_row("all", 28, "");
    // The levels reached when this test was written (docs/performance.md has the table); a
    // change that makes the detector worse fails here.
    assert!(shared.recall() >= MIN_SHARED_RECALL, "{shared:?}");
    assert!(
        shared.false_per_frame() <= MAX_SHARED_FALSE_PER_FRAME,
        "{shared:?}"
    );
    assert!(total.recall() >= MIN_VARIANT_RECALL, "{total:?}");
    assert!(
        total.false_per_frame() <= MAX_VARIANT_FALSE_PER_FRAME,
        "{total:?}"
    );
}

/// 11 of 13 since spots of other sizes are kept and the circle most contours agree on is
/// chosen (10 with the hypothesis fitted without a line's far edge, 9 before).
const MIN_SHARED_RECALL: f32 = 0.84;
/// The two "false balls" on the shared frames are real balls whose centre is placed 7 to
/// 9 px from the label (a ball blurred over its height, the ball under the shoe): each is
/// counted as a miss and as a false ball (three before the hypothesis without line edges).
const MAX_SHARED_FALSE_PER_FRAME: f32 = 0.15;
/// 0.84 (109 of 129; 108 = 0.837 fails) since a noisy frame's rays average each sample with the
/// two beside it (`ACROSS_NOISE_SHARE`, seventeenth round: the ±20 noise set 9 → 11 of 13);
/// 0.825 (107 of 129) since a ray whose outermost edge ends a bright neighbour merged with the ball
/// gives no edge the outermost bonus (`merged_with_neighbour`, twelfth round: the bar over
/// `log_44615` in the green cast; 106 = 0.822 fails); 0.82 (106 of 129) since an over-exposed
/// ball's patches are dark relative to its true white and its rim's field must be turf (the
/// brighter set 8 → 11 of 13; one ball fewer, 0.814, fails); 0.80 with the sixth round's two halves
/// together: spots of other sizes and the circle most contours agree on (0.81 alone), the rim's
/// field, the mean colour and line edges counting half (0.75 alone); 0.70 with the hypothesis
/// without line edges, 0.67 before, 0.64 with the shadow's ramp, 0.57 before that. 103 of 129: one
/// ball fewer (0.791) fails.
const MIN_VARIANT_RECALL: f32 = 0.84;
/// 0.08 (12 false balls; 13 = 0.086 fails) since a noisy frame's rays average each sample with
/// the two beside it (the ±20 noise set's 4 false balls, balls found 5–8 px off, are gone);
/// 0.105 (16 false balls) since the ball network is trained on over-exposed and dark, noisy scenes
/// and is the average of two seeds' networks with its veto at their 0.5 (the ninth round; 17 =
/// 0.112 fails); 0.112 (17 false balls) since a circle inside a larger ball-like outline is no ball
/// by itself (the part circles of the blurred ball and of the ball under the shoe); 0.125 with the
/// sixth round's two halves together (0.079 with the contour's half alone, 0.151 with the spots'
/// half alone), 0.164 before, 0.178 before the hypothesis without line edges, 0.197 without the
/// network's veto. Most of the rest are the ball blurred over its height and the ball under the
/// shoe, found 6–20 px off (a miss and a false ball each).
const MAX_VARIANT_FALSE_PER_FRAME: f32 = 0.08;
/// 0.825 (43 of 52; 42 fails) since a ray ending in a bright neighbour merged with the ball
/// gives no edge the outermost bonus (twelfth round: `log_44615`'s tiles, the bar over the
/// ball); 0.79 with the sixth round (0.79 before, 0.75 with the shadow's ramp, 0.46 before that).
const MIN_ZOOMED_RECALL: f32 = 0.82;
/// 0.76 with the sixth round (0.60 before: the tiles' balls were crowded out of the 20 spots
/// by dark trousers and shoes; 0.61 with the shadow's ramp, 0.56 before that).
const MIN_ZOOMED_3_RECALL: f32 = 0.76;
/// The tiled sets' false balls are mostly made by the seams; the ball network vetoes a good
/// part of them (x2: 30 → 26 false balls on 14 frames, x3: 28 → 17), and the shadow's ramp
/// moves more of them onto the balls (x2: 14; x3: 19, two more small ones at the seams); with
/// the sixth round, x2: 12 → 9, x3: 20 → 8; with the ninth round's network (two seeds
/// averaged, veto at their 0.5), x2: 9 → 4 (0.29); since a ball needs field on one side of it
/// (`MIN_FIELD_BESIDE`, the eleventh round), 4 → 2 (0.143; 3 fails): a wall socket from
/// above the source frame's field, which the tiling puts below the tiled frame's boundary;
/// 2 → 0 (1 fails) since a ray ending in a bright neighbour merged with the ball gives no edge
/// the outermost bonus (twelfth round: `log_44615`'s tiles found on the ball, not 6 px off).
const MAX_ZOOMED_FALSE_PER_FRAME: f32 = 0.05;
/// x3: 8 → 10 (0.71) with the small-ball spots (`MAX_SMALL_BALL_SPOTS`), which also find one
/// more ball there: small spots on what the tiles put below the field boundary; 10 → 3 (0.214;
/// 4 fails) since a ball needs field on one side of it (`MIN_FIELD_BESIDE`, the eleventh
/// round): seven of them were wall sockets, a cable's plug and a rolled-up carpet edge from
/// above the source frames' field, with no turf beside them; 3 → 2 (0.143; 3 fails) with the
/// twelfth round's merged neighbours (a circle beside `log_44615`'s tile gone).
const MAX_ZOOMED_3_FALSE_PER_FRAME: f32 = 0.15;

/// The camera's own effects (`support::variants::camera_sets`: vignetting, a dark frame with
/// strong sensor noise, a warm dark cast, JPEG-like blocks, the robot's body): the edge
/// threshold that scales with the noise around each spot is what finds balls in the dark
/// noisy frames (1 of 13 without it, 5 with it, 6 with the hypothesis free of line edges).
#[test]
fn detection_under_the_cameras_own_effects() {
    let Some(vision) = vision_dir("detection_under_the_cameras_own_effects") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let (results, total) = evaluate_sets(&camera_sets(&frames), 38);
    let dark_noisy = (results.iter())
        .find(|(name, _)| name.starts_with("dark and noisy"))
        .map(|(_, score)| *score)
        .unwrap_or_default();
    eprintln!("camera sets: {total:?}");
    assert!(dark_noisy.found >= MIN_DARK_NOISY_FOUND, "{dark_noisy:?}");
    assert!(total.found >= MIN_CAMERA_FOUND, "{total:?}");
    assert!(total.false_balls <= MAX_CAMERA_FALSE, "{total:?}");
}

/// Over-exposed frames (`support::variants::over_exposed_sets`: x1.6 and x2, clipped at 255),
/// kept apart from the camera sets above.
#[test]
fn detection_in_over_exposed_frames() {
    let Some(vision) = vision_dir("detection_in_over_exposed_frames") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let (_, total) = evaluate_sets(&over_exposed_sets(&frames), 38);
    eprintln!("over-exposed sets: {total:?}");
    assert!(total.found >= MIN_OVER_EXPOSED_FOUND, "{total:?}");
    assert!(total.false_balls <= MAX_OVER_EXPOSED_FALSE, "{total:?}");
}

/// 15 of 26 (x1.6: 9, x2: 6) since the ball network was trained on clipped balls (the ninth round:
/// one more at x1.6 is no longer vetoed); 14 of 26 (x1.6: 8, x2: 6) since an over-exposed ball's
/// patches are dark relative to its true white and its rim's field must be turf; 11 before. Most of
/// the rest are balls the network vetoes at these exposures (it was not trained on clipped balls)
/// and the shared frames' own misses.
const MIN_OVER_EXPOSED_FOUND: usize = 15;
/// 1 since then (the x2 `log_43603` found 21 px below its label); 2 before.
const MAX_OVER_EXPOSED_FALSE: usize = 1;

/// 7 of 13 since the ball network was trained on dark, noisy scenes (the Rome ball is no longer
/// vetoed); 6 of 13 (1 with a fixed edge threshold, 5 without the hypothesis free of line edges).
const MIN_DARK_NOISY_FOUND: usize = 7;
/// 48 of 65 since the ball network was trained on dark, noisy scenes and averages two seeds (the
/// ninth round: the dark noisy Rome ball and one in the JPEG-like blocks); 46 of 65 since a circle
/// inside a larger ball-like outline is no ball by itself (the vignetted `log_47516`'s ball wins
/// over the dark part circle beside its centre); 45 with the sixth round's two halves together (43
/// with the contour's half alone, 45 with the spots' half alone, 40 before, 32 with a fixed edge
/// threshold, 36 without the hypothesis free of line edges).
const MIN_CAMERA_FOUND: usize = 48;
/// 5 since a ball needs field on one side of it (`MIN_FIELD_BESIDE`, the eleventh round: the dark
/// noisy set's blob on the white wall, a shoe and a part circle of the ball in the dark, none with
/// turf beside them); 8 since the ninth round's ball network; 9 since a circle inside a larger
/// ball-like outline is no ball by itself; 12 with the sixth round's two halves together (11 with
/// the contour's half alone: of the dark noisy set's 6 false balls, the four on the white wall's
/// yellow desk and one on a shoe went with the mean colour; 19 with the spots' half alone), 21
/// before, 23 with a fixed edge threshold, 22 without the hypothesis free of line edges.
const MAX_CAMERA_FALSE: usize = 5;

/// Radii of the small-ball sets: a ball about 6, 5, 3.7, 3 and 2.5 m from the upper camera.
const SMALL_BALL_RADII: [f32; 5] = [5.0, 6.0, 8.0, 10.0, 12.0];

/// Small real balls (`support::variants::small_ball_set`): each frame's ball is shrunk and set
/// on another frame's turf, so every frame holds a small ball besides its own. Match frames from
/// the upper camera are full of balls this size, which the shared frames (balls of 30–48 px)
/// do not show. Prints per radius the small balls found and the false balls (detections near
/// neither label).
#[test]
fn detection_of_small_real_balls() {
    let Some(vision) = vision_dir("detection_of_small_real_balls") else {
        return;
    };
    let frames = labelled_frames(&vision);
    let log = std::env::var_os("DETECTION_LOG").is_some();
    eprintln!("small balls     frames  found  recall  false  false/frm");
    let (mut all_frames, mut all_found, mut all_false) = (0, 0, 0);
    for radius in SMALL_BALL_RADII {
        let set = small_ball_set(&frames, radius);
        let (mut found, mut false_balls) = (0, 0);
        for frame in &set {
            let balls = perception::perceive(&to_yuyv(&frame.image), None).balls;
            let near = |ball: &perception::BallPercept, label: &Label| {
                (ball.x - label.x).hypot(ball.y - label.y) <= MAX_CENTER_ERROR_PX
            };
            let small = frame.balls.last().unwrap();
            let hit = balls.iter().any(|ball| near(ball, small));
            let wrong = balls
                .iter()
                .filter(|ball| !frame.balls.iter().any(|label| near(ball, label)))
                .count();
            found += usize::from(hit);
            false_balls += wrong;
            if log && (!hit || wrong > 0) {
                let seen: Vec<String> = (balls.iter())
                    .map(|ball| format!("({:.1}, {:.1}, r {:.1})", ball.x, ball.y, ball.radius))
                    .collect();
                eprintln!(
                    "  {}: small ball at ({:.0}, {:.0}), detections {}",
                    frame.name,
                    small.x,
                    small.y,
                    seen.join(" ")
                );
            }
        }
        eprintln!(
            "r {radius:>4} px      {:>6} {:>6} {:>6.0}% {:>6} {:>10.3}",
            set.len(),
            found,
            100.0 * found as f32 / set.len().max(1) as f32,
            false_balls,
            false_balls as f32 / set.len().max(1) as f32
        );
        all_frames += set.len();
        all_found += found;
        all_false += false_balls;
    }
    eprintln!("small balls: {all_found} of {all_frames} found, {all_false} false balls");
    assert!(
        all_frames >= 40,
        "a small ball was placed in only {all_frames} frames"
    );
    assert!(all_found >= MIN_SMALL_FOUND, "{all_found} of {all_frames}");
    assert!(all_false <= MAX_SMALL_FALSE, "{all_false} false balls");
}

/// 55 of 65 since a circle on a blurred ball is also tried at its streak's centre
/// (`ball_streak.rs`, fourteenth round: `log_47651`'s ball shrunk to 12 px); 54 since a small
/// ball's blurred patches need not spread over as many quadrants
/// (`SMALL_BALL_RADIUS_PX`: `log_42625`'s and `log_44176`'s balls shrunk to 6 px, dark in two
/// quadrants); 52 since balls of 4.5 px are classified (`MIN_RADIUS_PX`; r 5: 1 → 8 of 13); 44 since
/// the smallest balls have a spot scale and a spot budget of their own (`ball_spots.rs`,
/// `MAX_SMALL_BALL_SPOTS`; r 6: 2 → 8 of 13); 37 before (tenth round, `docs/performance.md`).
const MIN_SMALL_FOUND: usize = 55;
/// 9, all of them the background frames' own balls found more than 5 px off (`log_43063` and
/// `log_47752` four times each, as in the shared frames; `log_43603` once, 5.1 px off).
const MAX_SMALL_FALSE: usize = 9;

#[test]
fn the_ball_is_found_at_every_camera_resolution() {
    let Some(vision) = vision_dir("the_ball_is_found_at_every_camera_resolution") else {
        return;
    };
    let frames = labelled_frames(&vision);
    for name in ["rome_bottom_ball.png", "detectball/log_42625.png"] {
        let frame = frames.iter().find(|frame| frame.name == name).unwrap();
        let label = frame.balls[0];
        for factor in [0.5, 2.0] {
            let image = rescaled(&frame.image, factor);
            let balls = perception::perceive(&to_yuyv(&image), None).balls;
            // The label scaled: pixel centres move with the scale (x' + 0.5 = (x + 0.5) f).
            let (x, y) = (
                (label.x + 0.5) * factor - 0.5,
                (label.y + 0.5) * factor - 0.5,
            );
            let tolerance = MAX_CENTER_ERROR_PX * factor;
            assert!(
                balls.len() == 1
                    && ((balls[0].x - x).powi(2) + (balls[0].y - y).powi(2)).sqrt() <= tolerance,
                "{name} at {}x{}: {balls:?}, label at ({x}, {y})",
                image.width(),
                image.height()
            );
        }
    }
}
