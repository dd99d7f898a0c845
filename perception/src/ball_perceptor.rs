//! `BallPerceptor`: turns ball spots into `BallPercept`s — refine each spot's circle, classify
//! it (the hand-designed features, then the ball network's veto), keep the balls, drop a ball
//! with no turf on either side of it and one that overlaps a more confident one, and place
//! each on the ground with the camera matrix when there is one.

use crate::ball_classifier::{field_beside, BallFeatures, BALL_THRESHOLD, LARGE_BALL_RADIUS_PX};
use crate::ball_contour::{refine, BallContour};
use crate::ball_network::BallNetwork;
use crate::ball_patch::BallPatch;
use crate::ball_spots::BallSpot;
use crate::ball_streak::recentre;
use crate::ball_vertical_streak::{turf_saturation_around, vertical_streak};
use crate::camera_matrix::{CameraMatrix, BALL_RADIUS_M};
use crate::color_classes::ChromaCache;
use crate::field_boundary::FieldBoundary;
use crate::field_color::FieldColor;
use cortex_image::YuyvImage;
use nalgebra::{Point2, Vector2};

/// Whether a ball's radius is checked against the camera matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeCheck {
    Off,
    On,
}

/// With [`SizeCheck::On`], a ball whose radius differs from the expected one by more than this
/// factor (either way) is dropped: the matrix is off by a few degrees at most, a false ball by
/// much more.
pub const MAX_RADIUS_RATIO: f32 = 1.5;

/// Smallest radius classified, in pixels of a 640-pixel-wide image (scaled with the width, but
/// never under 4 px): a smaller ball does not show its pattern. 4.5 px is a ball about 6.5 m
/// from the upper camera (the simulated-frames test finds balls at 4 m, 7.8 px). It was 6 px:
/// the small-ball set finds 8 of its 13 balls of 5 px at 4.5 (1 at 6) and one more of 6 px,
/// with no other set changed (`docs/performance.md`, tenth round).
pub const MIN_RADIUS_PX: f32 = 4.5;

/// A ball seen in one image (B-Human's `BallPercept`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallPercept {
    /// Centre in pixels of the full-resolution image, origin top-left.
    pub x: f32,
    pub y: f32,
    /// Radius in pixels.
    pub radius: f32,
    /// Classifier confidence in [0, 1].
    pub confidence: f32,
    /// Centre on the ground relative to the robot (metres, x forward, y left); None without a
    /// camera matrix or above the horizon.
    pub position_on_ground_m: Option<Vector2<f32>>,
}

/// A candidate with what the classifier saw (for debugging and the tests' reports).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallCandidate {
    pub spot: BallSpot,
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    pub features: BallFeatures,
    /// The ball network's probability (None for candidates the hand-designed classifier
    /// rejected, which the network does not see).
    pub network_probability: Option<f32>,
    /// The larger share of field colour left or right of the circle
    /// ([`field_beside`]), measured only for candidates
    /// the classifier accepts (None for the others, and when neither side is in the image).
    pub field_beside: Option<f32>,
    pub confidence: f32,
    /// The contour's root-mean-square distance from its supporting edges, in radii.
    pub fit_error: f32,
}

/// A candidate the ball network gives less than this probability is no ball unless the
/// hand-designed features are certain of it ([`VETOED_CONFIDENCE_FACTOR`]): the network is
/// trained to tell balls from lines, robot parts, feet and blobs (`perception/training/`). It
/// is a veto only, since real frames differ from the rendered ones it learned from. The
/// shipped network is the average of two trained from different seeds, less sure of itself
/// than one: at 0.5 it vetoes fewer real balls than one network did at 0.15 and as many
/// non-balls (`docs/performance.md`, ninth round; averages of three and six: tenth round).
pub const NETWORK_VETO_PROBABILITY: f32 = 0.5;

/// What the network's veto does to a candidate's confidence: halved, which keeps the
/// hand-designed score's order among the rejects. A candidate the hand-designed features are
/// not sure of falls below [`BALL_THRESHOLD`] (0.5); one they are certain of (confidence 1)
/// stays a ball at exactly the threshold. That is deliberate: rejecting those too (a factor of
/// 0.49) lost a variant ball, two 2×2-tile balls and two over-exposed balls for two fewer
/// false balls (`docs/performance.md`, tenth round): a fully confident circle whose
/// features all hold is a ball the rendered scenes did not teach the network (the small Rome
/// ball of the 2×2 tiles gets 0.46).
pub const VETOED_CONFIDENCE_FACTOR: f32 = 0.5;

/// The network's probability that the circle (x, y, radius) is a ball.
fn network_probability(
    network: &BallNetwork,
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    circle: (f32, f32, f32),
) -> f32 {
    let (width, height) = (image.width() as i32, image.height() as i32);
    let pixel = |x: i32, y: i32| {
        (x >= 0 && y >= 0 && x < width && y < height).then(|| image.ycbcr(x as usize, y as usize))
    };
    let patch = BallPatch::extract(pixel, field_color, cache, circle);
    network.estimate(&patch, circle).probability
}

/// Refines and classifies every spot (spots in half-resolution pixels):
/// [`contour_candidates`], then [`judge_with_network`] and [`judge_surroundings`].
pub fn classify_spots(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    spots: &[BallSpot],
) -> Vec<BallCandidate> {
    let mut candidates = contour_candidates(image, field_color, cache, spots);
    judge_with_network(image, field_color, cache, &mut candidates);
    judge_surroundings(image, field_color, cache, &mut candidates);
    candidates
}

/// A circle whose blur's half-length is at least this share of its radius is also tried at
/// the centre of its streak ([`recentre`]).
pub const STREAK_HALF_LENGTH: f32 = 0.3;

/// A circle on a ball blurred over its height ([`vertical_streak`]) is tried when the ball is
/// not small (its radius, and the contour's, at least [`LARGE_BALL_RADIUS_PX`]: a far ball's
/// roll toward the camera moves it little down the image) ...
pub const MIN_VERTICAL_STREAK_RADIUS_PX: f32 = LARGE_BALL_RADIUS_PX;
/// ... its top's ramp says it is blurred by at least this share of its radius (a sharp ball's
/// ramp is the optics' 1–3 px; the rendered rolls toward the camera at 4–5 m/s, 0.75 m away,
/// are blurred by 0.3 radii and measured at 0.28) ...
pub const MIN_VERTICAL_STREAK_HALF_LENGTH: f32 = 0.2;
/// ... and the sides' radius is at least this share of the contour's (a contour through the
/// streak's ends is longer than the ball is wide: 0.75 on the real `log_43063`, 0.9 on rendered
/// rolls; much less is a part of the ball, a patch or a seam).
pub const MIN_VERTICAL_STREAK_RADIUS_RATIO: f32 = 0.6;

/// The circle at the centre of a vertical streak around `contour` and its features, when the
/// streak is one ([`MIN_VERTICAL_STREAK_RADIUS_PX`], [`MIN_VERTICAL_STREAK_HALF_LENGTH`],
/// [`MIN_VERTICAL_STREAK_RADIUS_RATIO`]). The turf's saturation is the blur's when it was
/// estimated, else measured around the circle.
fn vertical_streak_candidate(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    (contour, features): (&BallContour, &BallFeatures),
    max_radius: f32,
) -> Option<(BallContour, BallFeatures)> {
    if contour.radius < MIN_VERTICAL_STREAK_RADIUS_PX
        || features.blur_free_confidence() < BALL_THRESHOLD
    {
        return None;
    }
    let turf_saturation = if features.blur.turf_saturation > 0.0 {
        features.blur.turf_saturation
    } else {
        let circle = (contour.x, contour.y, contour.radius);
        turf_saturation_around(image, field_color, cache, circle)
    };
    let streak = vertical_streak(image, field_color, cache, contour, turf_saturation)?;
    let radius = streak.circle.radius;
    let is_streak = radius <= max_radius
        && radius >= MIN_VERTICAL_STREAK_RADIUS_PX
        && radius >= MIN_VERTICAL_STREAK_RADIUS_RATIO * contour.radius
        && streak.blur.half_length >= MIN_VERTICAL_STREAK_HALF_LENGTH * radius;
    is_streak.then(|| {
        let features =
            BallFeatures::measure_streak(image, field_color, cache, &streak.circle, streak.blur);
        (streak.circle, features)
    })
}

/// Per spot, the contour hypothesis the hand-designed classifier likes best (of equally
/// confident ones, the one its edges fit most closely).
pub fn contour_candidates(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    spots: &[BallSpot],
) -> Vec<BallCandidate> {
    let max_radius = 0.21 * image.height() as f32;
    let min_radius = (MIN_RADIUS_PX * image.width() as f32 / 640.0).max(4.0);
    spots
        .iter()
        .filter_map(|spot| {
            let guess = (2.0 * spot.x + 0.5, 2.0 * spot.y + 0.5, 2.0 * spot.radius);
            refine(image, field_color, cache, guess)
                .into_iter()
                // A ball nearer than the feet (radius over a fifth of the height) or too far
                // to show its pattern (under 4.5 px) is not classified.
                .filter(|contour| (min_radius..=max_radius).contains(&contour.radius))
                .flat_map(|contour| {
                    let features = BallFeatures::measure(image, field_color, cache, &contour);
                    // A circle on a streak: also the circle at the streak's centre.
                    let streak = (features.blur.half_length >= STREAK_HALF_LENGTH * contour.radius)
                        .then(|| recentre(image, field_color, cache, &contour, &features.blur))
                        .flatten()
                        .filter(|streak| (min_radius..=max_radius).contains(&streak.radius))
                        .map(|streak| {
                            let blur = features.blur;
                            let features = BallFeatures::measure_streak(
                                image,
                                field_color,
                                cache,
                                &streak,
                                blur,
                            );
                            (streak, features)
                        });
                    // A circle on a ball blurred over its height: first, so that of equally
                    // confident circles the contour's own is kept (`max_by` keeps the last).
                    let vertical = vertical_streak_candidate(
                        image,
                        field_color,
                        cache,
                        (&contour, &features),
                        max_radius,
                    );
                    vertical
                        .into_iter()
                        .chain(std::iter::once((contour, features)))
                        .chain(streak)
                        .map(|(contour, features)| BallCandidate {
                            spot: *spot,
                            x: contour.x,
                            y: contour.y,
                            radius: contour.radius,
                            features,
                            network_probability: None,
                            field_beside: None,
                            confidence: features.confidence(),
                            fit_error: contour.fit_error,
                        })
                        .collect::<Vec<_>>()
                })
                // A sharp ball's circles can all saturate the confidence (1.0): among equals,
                // the circle that its edges fit most closely.
                .max_by(|a, b| {
                    a.confidence
                        .total_cmp(&b.confidence)
                        .then(b.fit_error.total_cmp(&a.fit_error))
                })
        })
        .collect()
}

/// Shows every candidate the hand-designed classifier accepts to the ball network: one the
/// network is sure is no ball (probability under [`NETWORK_VETO_PROBABILITY`]) is rejected,
/// unless the hand-designed features are certain of it ([`VETOED_CONFIDENCE_FACTOR`]). The
/// circle stays the contour's (see `docs/decisions.md` on why the network's position estimate
/// is not used).
pub fn judge_with_network(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    candidates: &mut [BallCandidate],
) {
    let Some(network) = BallNetwork::embedded() else {
        return;
    };
    for index in 0..candidates.len() {
        if candidates[index].confidence < BALL_THRESHOLD {
            continue;
        }
        // A circle that agrees with one already shown to the network (another spot's contour
        // converged on the same ball) gets its answer: the patches differ by a pixel or two.
        let judged = candidates[..index]
            .iter()
            .filter(|other| agree(other, &candidates[index]))
            .find_map(|other| other.network_probability);
        let candidate = &mut candidates[index];
        let probability = judged.unwrap_or_else(|| {
            network_probability(
                network,
                image,
                field_color,
                cache,
                (candidate.x, candidate.y, candidate.radius),
            )
        });
        candidate.network_probability = Some(probability);
        if probability < NETWORK_VETO_PROBABILITY {
            candidate.confidence *= VETOED_CONFIDENCE_FACTOR;
        }
    }
}

/// A ball needs at least this share of field colour on one side of it, left or right
/// ([`field_beside`]): it lies on turf, and a foot or a robot beside it covers one side (two
/// robots in a duel cover both: see [`MIN_FIELD_BELOW_IN_A_DUEL`]). The balls of every test set have 0.36 or more (a ball pressed against a shoe, in a
/// warm cast); the non-balls this drops have 0.31 or less: wall sockets, a cable's plug and a
/// rolled-up carpet edge that tiled frames put below the field boundary, the desk on the white
/// wall, a blob beside the ball in a dark frame (`docs/performance.md`, eleventh round).
pub const MIN_FIELD_BESIDE: f32 = 1.0 / 3.0;

/// Two robots in a duel over the ball cover both its sides: a ball without field beside it is
/// still kept when the turf below it (the classifier's `field_below`, 1.3–2 radii under its
/// centre, nearer the camera) holds at least this share ...
pub const MIN_FIELD_BELOW_IN_A_DUEL: f32 = 0.5;
/// ... and the ball network is this sure of it. Real balls away from the frame's bottom edge
/// have 0.6 or more turf below them; the objects [`MIN_FIELD_BESIDE`] drops fail one of the two
/// (a cable's plug on a rolled-up carpet has 0.38 turf below and 0.91–0.9986 from the network,
/// `docs/performance.md`, thirteenth round).
pub const DUEL_NETWORK_PROBABILITY: f32 = 0.99;

/// Whether a candidate lies on turf as a ball does: field colour on one side of it
/// ([`MIN_FIELD_BESIDE`]), or, when robots stand on both sides, turf below it and a network
/// that is sure ([`MIN_FIELD_BELOW_IN_A_DUEL`], [`DUEL_NETWORK_PROBABILITY`]). A candidate
/// whose sides were not measured (neither in the image) is not judged.
fn on_turf(candidate: &BallCandidate) -> bool {
    let beside = candidate
        .field_beside
        .is_none_or(|share| share >= MIN_FIELD_BESIDE);
    let in_a_duel = candidate
        .features
        .field_below
        .is_some_and(|share| share >= MIN_FIELD_BELOW_IN_A_DUEL)
        && candidate
            .network_probability
            .is_some_and(|probability| probability >= DUEL_NETWORK_PROBABILITY);
    beside || in_a_duel
}

/// Measures the field beside every candidate the classifier accepts (only those: a few per
/// frame), for [`ball_percepts`]' [`MIN_FIELD_BESIDE`].
pub fn judge_surroundings(
    image: &YuyvImage,
    field_color: &FieldColor,
    cache: &mut ChromaCache,
    candidates: &mut [BallCandidate],
) {
    for candidate in candidates
        .iter_mut()
        .filter(|candidate| candidate.confidence >= BALL_THRESHOLD)
    {
        candidate.field_beside = field_beside(
            image,
            field_color,
            cache,
            (candidate.x, candidate.y, candidate.radius),
        );
    }
}

/// Two circles agree when their centres are within this share of the larger radius ...
pub const AGREEING_CENTRES: f32 = 0.1;
/// ... and their radii within this share of each other.
pub const AGREEING_RADII: f32 = 0.2;

/// How many candidates (the circle itself included, accepted or not: a contour that the
/// classifier rejects still says where an outline is) have a circle that agrees with this one.
fn agreeing_contours(ball: &BallCandidate, candidates: &[BallCandidate]) -> usize {
    candidates.iter().filter(|other| agree(ball, other)).count()
}

/// A circle lies inside a larger outline when another candidate's radius is more than this
/// factor of its own ...
pub const ENCLOSING_RADIUS_RATIO: f32 = 1.3;
/// ... its centre lies this share of its radius or more inside that outline ...
pub const ENCLOSED_DEPTH: f32 = 0.5;
/// ... and that outline is really there: at least this edge support (half the rays find its
/// edge) ...
pub const ENCLOSING_EDGE_SUPPORT: f32 = 0.5;
/// ... and looks somewhat like a ball (this confidence, after the network's veto; a circle
/// through field and lines scores under it).
pub const ENCLOSING_CONFIDENCE: f32 = 0.3;

/// Whether the circle is a part of a larger ball-like outline that a contour found around it
/// (the lit or sharp half of a ball blurred over its height, the ball and the shoe touching
/// it): such a circle is no ball by itself, whatever its own features say.
fn inside_a_larger_outline(ball: &BallCandidate, candidates: &[BallCandidate]) -> bool {
    candidates.iter().any(|outline| {
        let distance = ((outline.x - ball.x).powi(2) + (outline.y - ball.y).powi(2)).sqrt();
        outline.radius > ENCLOSING_RADIUS_RATIO * ball.radius
            && distance + ENCLOSED_DEPTH * ball.radius < outline.radius
            && outline.features.edge_support >= ENCLOSING_EDGE_SUPPORT
            && outline.confidence >= ENCLOSING_CONFIDENCE
    })
}

/// Whether two circles agree ([`AGREEING_CENTRES`], [`AGREEING_RADII`]).
fn agree(a: &BallCandidate, b: &BallCandidate) -> bool {
    let distance = ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt();
    distance <= AGREEING_CENTRES * a.radius.max(b.radius)
        && (a.radius / b.radius - 1.0).abs() <= AGREEING_RADII
}

/// The balls among the candidates, the circle most contours agree on first, none inside
/// another.
///
/// A ball lies on the field: a candidate whose centre is more than half its radius above the
/// field boundary is dropped, one with too little field on either side of it
/// ([`MIN_FIELD_BESIDE`]; unless turf below it and the network vouch for it, as in a duel of two
/// robots over the ball: [`MIN_FIELD_BELOW_IN_A_DUEL`]), and with `size_check` on, one whose radius the camera matrix
/// does not expect at its pixel. Of two balls whose circles overlap, the one fewer contours
/// agree on goes (between equals, the less confident).
pub fn ball_percepts(
    candidates: &[BallCandidate],
    field_boundary: &FieldBoundary,
    camera_matrix: Option<&CameraMatrix>,
    size_check: SizeCheck,
) -> Vec<BallPercept> {
    let balls: Vec<&BallCandidate> = candidates
        .iter()
        .filter(|candidate| candidate.confidence >= BALL_THRESHOLD)
        .filter(|candidate| !inside_a_larger_outline(candidate, candidates))
        .filter(|candidate| on_turf(candidate))
        .filter(|candidate| {
            field_boundary
                .y_at(candidate.x)
                .is_none_or(|field_start| candidate.y >= field_start - 0.5 * candidate.radius)
        })
        .filter(|candidate| match (size_check, camera_matrix) {
            (SizeCheck::On, Some(matrix)) => matrix
                .ball_radius_at(&Point2::new(candidate.x, candidate.y))
                .is_some_and(|expected| {
                    let ratio = candidate.radius / expected;
                    (1.0 / MAX_RADIUS_RATIO..=MAX_RADIUS_RATIO).contains(&ratio)
                }),
            _ => true,
        })
        .collect();
    // Several spots on one ball each give a circle, and the most confident is often one off
    // the ball's centre (through a line behind it, or its lit half): the circle that more
    // independently started contours agree on comes first, then the most confident, then
    // (among saturated confidences) the one more of the outline supports.
    let support: Vec<usize> = balls
        .iter()
        .map(|ball| agreeing_contours(ball, candidates))
        .collect();
    let mut order: Vec<usize> = (0..balls.len()).collect();
    order.sort_by(|&a, &b| {
        support[b]
            .cmp(&support[a])
            .then(balls[b].confidence.total_cmp(&balls[a].confidence))
            .then(
                balls[b]
                    .features
                    .edge_support
                    .total_cmp(&balls[a].features.edge_support),
            )
    });
    // The cluster stands for the ball; its circle is the cluster's most confident (among
    // saturated confidences, the best supported) accepted one.
    let balls: Vec<&BallCandidate> = order
        .into_iter()
        .map(|index| {
            balls
                .iter()
                .copied()
                .filter(|other| agree(balls[index], other))
                .max_by(|a, b| {
                    a.confidence
                        .total_cmp(&b.confidence)
                        .then(a.features.edge_support.total_cmp(&b.features.edge_support))
                })
                .unwrap_or(balls[index])
        })
        .collect();
    let mut kept: Vec<BallPercept> = Vec::new();
    for ball in balls {
        let overlaps = kept.iter().any(|better| {
            let distance = ((better.x - ball.x).powi(2) + (better.y - ball.y).powi(2)).sqrt();
            distance < better.radius + ball.radius
        });
        if overlaps {
            continue;
        }
        let position_on_ground_m = camera_matrix.and_then(|matrix| {
            matrix
                .pixel_to_plane(&Point2::new(ball.x, ball.y), BALL_RADIUS_M)
                .map(|point| Vector2::new(point.x, point.y))
        });
        kept.push(BallPercept {
            x: ball.x,
            y: ball.y,
            radius: ball.radius,
            confidence: ball.confidence,
            position_on_ground_m,
        });
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(x: f32, y: f32, radius: f32, confidence: f32, edge_support: f32) -> BallCandidate {
        BallCandidate {
            spot: BallSpot {
                x: x / 2.0,
                y: y / 2.0,
                radius: radius / 2.0,
                score: 1.5,
            },
            x,
            y,
            radius,
            features: BallFeatures {
                edge_support,
                ..BallFeatures::default()
            },
            network_probability: None,
            field_beside: None,
            confidence,
            fit_error: 0.05,
        }
    }

    #[test]
    fn the_circle_several_contours_agree_on_wins_over_a_more_confident_one_beside_it() {
        // A ball at (200, 300) r 40: three contours agree on it (one rejected by the
        // classifier, which still says where an outline is); one through a line behind it sits
        // 10 px higher and is more confident.
        let candidates = [
            candidate(200.0, 290.0, 46.0, 0.95, 0.62),
            candidate(201.0, 300.5, 40.0, 0.80, 0.60),
            candidate(199.0, 299.0, 39.0, 0.75, 0.70),
            candidate(200.5, 300.0, 41.0, 0.30, 0.50),
        ];
        let balls = ball_percepts(&candidates, &FieldBoundary::default(), None, SizeCheck::Off);
        assert_eq!(balls.len(), 1, "{balls:?}");
        // The cluster's most confident accepted circle stands for it.
        assert_eq!(
            (balls[0].x, balls[0].y, balls[0].radius),
            (201.0, 300.5, 40.0)
        );
        // Alone, the most confident circle is the one kept.
        let balls = ball_percepts(
            &candidates[..1],
            &FieldBoundary::default(),
            None,
            SizeCheck::Off,
        );
        assert_eq!((balls[0].x, balls[0].y), (200.0, 290.0));
        // Two separate balls with one contour each both stay.
        let two = [
            candidate(100.0, 300.0, 20.0, 0.9, 0.6),
            candidate(400.0, 300.0, 20.0, 0.8, 0.6),
        ];
        assert_eq!(
            ball_percepts(&two, &FieldBoundary::default(), None, SizeCheck::Off).len(),
            2
        );
    }

    #[test]
    fn a_ball_needs_field_on_one_side_of_it() {
        let mut ball = candidate(200.0, 300.0, 20.0, 0.9, 0.6);
        for (field_beside, kept) in [
            (Some(0.0), false),
            (Some(0.3), false),
            (Some(MIN_FIELD_BESIDE), true),
            (Some(0.6), true),
            // Neither side in the image (or not measured): nothing to judge by.
            (None, true),
        ] {
            ball.field_beside = field_beside;
            let balls = ball_percepts(&[ball], &FieldBoundary::default(), None, SizeCheck::Off);
            assert_eq!(
                balls.len(),
                usize::from(kept),
                "{field_beside:?}: {balls:?}"
            );
        }
    }

    #[test]
    fn between_two_robots_turf_below_and_a_sure_network_keep_the_ball() {
        let mut ball = candidate(200.0, 300.0, 20.0, 0.9, 0.6);
        ball.field_beside = Some(0.1);
        for (field_below, network, kept) in [
            (Some(0.9), Some(0.999), true),
            (
                Some(MIN_FIELD_BELOW_IN_A_DUEL),
                Some(DUEL_NETWORK_PROBABILITY),
                true,
            ),
            // Turf below, but the network is not sure enough (a plug on a carpet).
            (Some(0.9), Some(0.95), false),
            // The network is sure, but below is no turf (a blob on a wall).
            (Some(0.38), Some(0.999), false),
            // Below out of the image, or the network not asked: nothing vouches for it.
            (None, Some(0.999), false),
            (Some(0.9), None, false),
        ] {
            ball.features.field_below = field_below;
            ball.network_probability = network;
            let balls = ball_percepts(&[ball], &FieldBoundary::default(), None, SizeCheck::Off);
            assert_eq!(
                balls.len(),
                usize::from(kept),
                "below {field_below:?}, network {network:?}: {balls:?}"
            );
        }
    }

    #[test]
    fn a_circle_inside_a_larger_outline_is_no_ball_by_itself() {
        // The lower half of a ball blurred over its height (r 18) inside the contour around
        // the whole blur (r 36, rejected at 0.45 but with half its rays on an edge).
        let part = candidate(250.0, 270.0, 18.0, 0.78, 0.60);
        let outline = candidate(256.0, 250.0, 36.0, 0.45, 0.67);
        let balls = ball_percepts(
            &[part, outline],
            &FieldBoundary::default(),
            None,
            SizeCheck::Off,
        );
        assert!(balls.is_empty(), "{balls:?}");
        // An outline few rays support (a circle through the field around the ball) or one
        // that looks nothing like a ball does not hide it.
        for outline in [
            candidate(256.0, 250.0, 36.0, 0.45, 0.40),
            candidate(256.0, 250.0, 36.0, 0.10, 0.67),
        ] {
            let balls = ball_percepts(
                &[part, outline],
                &FieldBoundary::default(),
                None,
                SizeCheck::Off,
            );
            assert_eq!((balls.len(), balls[0].radius), (1, 18.0), "{balls:?}");
        }
        // A ball beside a larger outline, its centre not well inside it, stays.
        let beside = candidate(256.0, 250.0 + 36.0 - 4.0, 18.0, 0.78, 0.60);
        let balls = ball_percepts(
            &[beside, outline],
            &FieldBoundary::default(),
            None,
            SizeCheck::Off,
        );
        assert_eq!(balls.len(), 1, "{balls:?}");
    }
}
