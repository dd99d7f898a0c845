//! `BallSpots`: places that might hold a ball, found by a search over position and scale on
//! the classified half-resolution image (B-Human's `BallSpots`; the scale search is what
//! rUNSWift's candidate generation does without a camera matrix).
//!
//! A ball is a disc of white with dark patches and hardly any field colour inside, and it is
//! not part of a larger white or dark area. With summed-area tables of the white, dark and
//! field pixels, each (centre, radius) hypothesis costs a few lookups:
//!
//! ```text
//!   ┌──────────────┐  ring: square of half side 1.5 r minus the one of half side 1.1 r;
//!   │   ┌──────┐   │        at most 60 % white and 90 % white + dark (dark around
//!   │   │      │   │        a ball is shadow or dark turf; white means a larger white area)
//!   │   │ ┌──┐ │   │  inner: square of half side 0.7 r, inside the disc;
//!   │   │ └──┘ │   │        white + dark ≥ 70 %, dark ≥ 4 %, white ≥ 25 %, field ≤ 20 %
//!   │   └──────┘   │
//!   └──────────────┘
//! ```
//!
//! Radii run from 4 to a quarter of the image height (half resolution) in steps of 15 %, with
//! one scale below (3.48, a 7 px ball in the camera image, 5 m away) whose best two spots go on
//! besides the others ([`MAX_SMALL_BALL_SPOTS`]), and
//! the grid step is a third of the radius (at least 2; 1 under a radius of 5, where a grid
//! point one pixel off the centre of a small ball puts a column of field into its inner
//! square). Spots above the field boundary are left out before the best [`MAX_SPOTS`] are
//! kept ([`find_ball_spots_on_field`]). The positions are visited a row at a time: first every
//! position's inner square (and, for a white blob, its ring) is tested in integers, in vector
//! lanes, against the least or most counts whose shares pass (`InnerFilter`, made once per
//! radius), and only the few positions left get their shares computed; on the field nearly
//! every position is left out, and the spots are the same.
//!
//! The score is the inner square's white + dark share, its dark share up to 15 %, 0.15 times
//! its white share, and half the ring's share that is not white or dark: a ball is mostly
//! white (dark trousers, shoes and robot parts with some white in them are 40–70 % dark, and
//! rewarding dark up to 30 % ranked them above small balls). Of overlapping spots of similar
//! size the better one is kept; a spot half the size or less of an overlapping better one (or
//! twice it) is kept too, since a blurred or shadowed ball often scores best at a size or
//! position its contour cannot start from, and the ball perceptor picks among the circles
//! that several spots' contours agree on.
//! [`spot_evidence`] gives the shares of any hypothesis (for tests and diagnostics).

use crate::body_contour::BodyContour;
use crate::color_classes::ColorClasses;
use crate::field_boundary::FieldBoundary;
use crate::field_color::PixelClass;

/// A place that might hold a ball, in half-resolution pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallSpot {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    pub score: f32,
}

/// At most this many spots go on to the classifier. 12 since spots of other sizes on the same
/// place are kept (20 before; with the other-size spots, 14 or 20 gave more false balls and no
/// more balls, 10 lost balls in the 2 × 2 tiles; `docs/performance.md`, sixth round).
pub const MAX_SPOTS: usize = 12;
/// Overlapping spots whose radii differ by this factor or more are both kept ...
const OTHER_SIZE_RATIO: f32 = 2.0;
/// ... but at most this many per frame: each costs a contour (0.2–0.3 ms on a ball), and
/// the first few (the best scored) bring most of the gain (of the detection sets' 129 balls,
/// 2: 100 found, 3: 103 but one fewer in the 2 × 2 tiles, 4: 104, no limit: 104;
/// `docs/performance.md`, sixth round).
const MAX_OTHER_SIZE_SPOTS: usize = 4;
/// The inner square's dark share is rewarded up to this (a ball shows 4–35 % dark).
const DARK_REWARD_CAP: f32 = 0.15;
/// The weight of the inner square's white share in the score.
const WHITE_REWARD: f32 = 0.15;
const MIN_RADIUS: f32 = 4.0;
const SCALE_STEP: f32 = 1.15;
/// Balls of 6–7 px in the camera image (5 m from the upper camera) are searched at this many
/// scales below [`MIN_RADIUS`] ...
const SMALL_BALL_SCALES: i32 = 1;
/// ... and their spots have a budget of their own, besides [`MAX_SPOTS`]: at the smallest
/// scales sensor noise and line ends make spots that outscore larger balls' (with one shared
/// budget, the detection sets lost balls to them: `docs/performance.md`, tenth round).
pub const MAX_SMALL_BALL_SPOTS: usize = 2;
/// A blob of white with no dark in it is no ball by the search's rule, but a ball rolling at
/// 4 m/s across the view shows its patches only as grey bands as bright as white: the best
/// this many such blobs (of 4 px and more at half resolution, where no other spot is) go on besides
/// the others ...
pub const MAX_WHITE_BLOB_SPOTS: usize = 1;
/// ... when this share of the inner square is white ...
const WHITE_BLOB_SHARE: f32 = 0.9;
/// ... at most this share of the ring is white or dark (not a line through it) ...
const WHITE_BLOB_RING: f32 = 0.2;
/// ... and at least this share of it is field, the ring wholly in the image: a rolling ball
/// lies on open turf (the rendered ones have 0.86–1.0 around them), and each such spot costs a
/// contour (0.37 ms on the two real frames whose white blobs, with 0.80 and 0.82 field around
/// them, it keeps out; `docs/performance.md`, fourteenth round).
const WHITE_BLOB_RING_FIELD: f32 = 0.85;
/// Radii under this are searched at every pixel (see `find_spots`).
const SMALL_RADIUS: f32 = 5.0;

/// Summed-area tables of the white-or-dark, dark and field pixels, one plane each (a row of
/// the search reads each plane's rows in order: `Integral::row_candidates`), with a zero row
/// and column in front.
struct Integral {
    width: usize,
    planes: [Vec<u32>; 3],
}

/// Indices into an [`Integral`]'s counts.
const BALL_COLORED: usize = 0;
const DARK: usize = 1;
const FIELD: usize = 2;

impl Integral {
    fn new(classes: &ColorClasses) -> Self {
        // What each class adds to the three counts (a lookup, not a branch per pixel: the
        // classes change unpredictably along a row).
        let increment = |class: PixelClass| match class {
            PixelClass::White => [1, 0, 0],
            PixelClass::Dark => [1, 1, 0],
            PixelClass::Field => [0, 0, 1],
            PixelClass::Other => [0, 0, 0],
        };
        let increments = [
            PixelClass::Field,
            PixelClass::White,
            PixelClass::Dark,
            PixelClass::Other,
        ]
        .map(increment);
        let width = classes.width + 1;
        let mut planes = [(); 3].map(|_| vec![0u32; width * (classes.height + 1)]);
        let [ball_colored, dark, field] = &mut planes;
        // (`max(1)`: an image without columns has no rows to sum either.)
        for (y, row) in classes
            .classes
            .chunks_exact(classes.width.max(1))
            .enumerate()
            .take(classes.height)
        {
            let rows = y * width..(y + 2) * width;
            let (ball_colored_above, ball_colored_below) =
                ball_colored[rows.clone()].split_at_mut(width);
            let (dark_above, dark_below) = dark[rows.clone()].split_at_mut(width);
            let (field_above, field_below) = field[rows].split_at_mut(width);
            let mut row_sum = [0u32; 3];
            for (x, &class) in row.iter().enumerate() {
                let add = increments[class as usize];
                row_sum = [
                    row_sum[0] + add[0],
                    row_sum[1] + add[1],
                    row_sum[2] + add[2],
                ];
                ball_colored_below[x + 1] = ball_colored_above[x + 1] + row_sum[BALL_COLORED];
                dark_below[x + 1] = dark_above[x + 1] + row_sum[DARK];
                field_below[x + 1] = field_above[x + 1] + row_sum[FIELD];
            }
        }
        Self { width, planes }
    }

    /// The counts in [x0, x1) × [y0, y1).
    #[inline(always)]
    fn count(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> [u32; 3] {
        let (top, bottom) = (y0 * self.width, y1 * self.width);
        let count = |plane: &[u32]| {
            plane[bottom + x1] + plane[top + x0] - plane[top + x1] - plane[bottom + x0]
        };
        [
            count(&self.planes[BALL_COLORED]),
            count(&self.planes[DARK]),
            count(&self.planes[FIELD]),
        ]
    }

    /// The counts of one plane (`BALL_COLORED`, `DARK`, `FIELD`) in the inner squares of half
    /// side `half` at the positions x = half, half + 1, … of row `y` (`columns` of them), into
    /// `counts`; `window` is room for the plane's counts over the squares' rows left of each
    /// column.
    fn row_counts(
        &self,
        plane: usize,
        (y, half): (usize, usize),
        columns: usize,
        window: &mut Vec<i32>,
        counts: &mut Vec<i32>,
    ) {
        self.plane_window(&self.planes[plane], y, half, window);
        boxes(window, half, columns, counts);
    }

    /// Like [`Integral::row_counts`], at the positions `span` (indices into `counts`) only; the
    /// other entries of `counts` are left as they are.
    fn row_counts_in(
        &self,
        plane: usize,
        (y, half): (usize, usize),
        span: std::ops::Range<usize>,
        window: &mut Vec<i32>,
        counts: &mut [i32],
    ) {
        let side = 2 * half + 1;
        let (top, bottom) = ((y - half) * self.width, (y + half + 1) * self.width);
        let plane = &self.planes[plane];
        let xs = span.start..span.end + side;
        let (upper, lower) = (
            &plane[top + xs.start..top + xs.end],
            &plane[bottom + xs.start..bottom + xs.end],
        );
        column_counts(upper, lower, window);
        let length = span.len();
        let (right, left) = (&window[side..side + length], &window[..length]);
        for ((count, right), left) in counts[span].iter_mut().zip(right).zip(left) {
            *count = right - left;
        }
    }

    /// One plane's counts over rows y - half ..= y + half, left of each column.
    fn plane_window(&self, plane: &[u32], y: usize, half: usize, window: &mut Vec<i32>) {
        let (top, bottom) = ((y - half) * self.width, (y + half + 1) * self.width);
        let (upper, lower) = (
            &plane[top..top + self.width],
            &plane[bottom..bottom + self.width],
        );
        column_counts(upper, lower, window);
    }

    /// The ball-coloured counts of the rings around the positions x = half, half + 1, … of row
    /// `y` (`columns` of them) into `counts`, [`i32::MAX`] where a ring is not wholly in the
    /// image (no white blob is looked for there). `windows`: room for two rows' windows.
    fn row_ring_ball_colored(
        &self,
        (y, half): (usize, usize),
        (inner_half, outer_half): (usize, usize),
        (columns, span): (usize, std::ops::Range<usize>),
        windows: &mut [Vec<i32>; 2],
        counts: &mut Vec<i32>,
    ) {
        counts.clear();
        counts.resize(columns, i32::MAX);
        let width = self.width - 1;
        // The positions whose ring lies wholly in the image: outer_half <= x < width - outer_half,
        // within the span.
        let (x_first, x_end) = (
            outer_half.max(half).max(half + span.start),
            width.saturating_sub(outer_half).min(half + span.end),
        );
        if y < outer_half || y + outer_half >= self.height() || x_first >= x_end {
            return;
        }
        let [inner, outer] = windows;
        let plane = &self.planes[BALL_COLORED];
        self.plane_window(plane, y, inner_half, inner);
        self.plane_window(plane, y, outer_half, outer);
        let length = x_end - x_first;
        let (outer_right, outer_left) = (
            &outer[x_first + outer_half + 1..][..length],
            &outer[x_first - outer_half..][..length],
        );
        let (inner_right, inner_left) = (
            &inner[x_first + inner_half + 1..][..length],
            &inner[x_first - inner_half..][..length],
        );
        let counts = &mut counts[x_first - half..][..length];
        for x in 0..length {
            counts[x] = (outer_right[x] - outer_left[x]) - (inner_right[x] - inner_left[x]);
        }
    }

    /// The number of rows of the image.
    fn height(&self) -> usize {
        self.planes[BALL_COLORED].len() / self.width - 1
    }

    /// The ball-coloured count of a ring wholly in the image.
    fn ring_ball_colored(
        &self,
        x: usize,
        y: usize,
        (inner_half, outer_half): (usize, usize),
    ) -> u32 {
        let plane = &self.planes[BALL_COLORED];
        let square = |half: usize| {
            let (top, bottom) = ((y - half) * self.width, (y + half + 1) * self.width);
            let (left, right) = (x - half, x + half + 1);
            plane[bottom + right] + plane[top + left] - plane[top + right] - plane[bottom + left]
        };
        square(outer_half) - square(inner_half)
    }
}

/// The counts of the squares of half side `half` at the positions x = half, half + 1, … of a
/// row's `window` (`columns` of them), into `out`.
fn boxes(window: &[i32], half: usize, columns: usize, out: &mut Vec<i32>) {
    let side = 2 * half + 1;
    out.clear();
    out.extend(
        window[side..side + columns]
            .iter()
            .zip(&window[..columns])
            .map(|(right, left)| right - left),
    );
}

/// The indices of the non-zero bytes of `passes`, eight at a time (a row of the search has a
/// few among hundreds).
/// (`passes` is padded with zeros to a multiple of eight: `InnerFilter::mark_row`.)
fn passing_columns(passes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    passes
        .chunks_exact(8)
        .enumerate()
        .flat_map(|(chunk, passes)| {
            let mut bits = u64::from_le_bytes(passes.try_into().expect("chunks of eight"));
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let byte = bits.trailing_zeros() as usize / 8;
                    bits &= !(0xff << (8 * byte));
                    8 * chunk + byte
                })
            })
        })
}

/// The share `count` is of `area` pixels, as every test of the search computes it.
fn share(count: u32, area: u32) -> f32 {
    count as f32 / area as f32
}

/// The counts an inner square of a given area (wholly in the image) must have for its
/// position to give a spot or a white blob: a test in integers, made once per radius, that
/// leaves out positions without computing their shares. It never leaves out one that the
/// shares would keep: the ball-coloured, dark and field counts are compared with the least
/// or most count whose share passes ([`share`] grows with the count), and the white count
/// with a margin of one pixel (the white share is the difference of two rounded shares, off
/// from the exact fraction by far less than a pixel's share).
struct InnerFilter {
    /// The least ball-coloured count whose share is 0.7 or more (`Tables::inner`).
    least_ball_colored: i32,
    /// The least dark count whose share is 0.04 or more (`SpotEvidence::score_inner`); a white
    /// blob has less.
    least_dark: i32,
    /// The most field count whose share is 0.2 or less (a spot's and a white blob's).
    most_field: i32,
    /// The least white count of a white share of 0.25 or more: more than a quarter of the
    /// area less one pixel.
    least_white: i32,
    /// The least white count of a white blob (a white share of 0.9 or more): more than nine
    /// tenths of the area less one pixel.
    least_white_blob: i32,
    /// The most ball-coloured pixels in a white blob's ring ([`Ring`]).
    most_white_blob_ring: i32,
}

/// What a row of the search tests besides the inner squares' counts (`InnerFilter::mark_row`),
/// per position: the first row below the field boundary in its column, and its ring's
/// ball-coloured count ([`i32::MAX`] where no white blob is looked for).
struct RowLimits<'a> {
    y: i32,
    first_rows: &'a [i32],
    ring_ball_colored: &'a [i32],
}

impl InnerFilter {
    fn new(area: u32, ring: &Ring) -> Self {
        let area_pixels = area as i32;
        Self {
            least_ball_colored: least_passing(area, |share| share >= 0.7) as i32,
            least_dark: least_passing(area, |share| share >= 0.04) as i32,
            most_field: least_passing(area, |share| share > 0.2) as i32 - 1,
            least_white: area_pixels / 4,
            least_white_blob: 9 * area_pixels / 10,
            most_white_blob_ring: ring.most_white_blob_ball_colored as i32,
        }
    }

    /// Whether an inner square with these counts (and ring count) may give a spot or a white
    /// blob. Without branches, so that a row of squares is tested in vector lanes.
    #[inline(always)]
    fn may_pass(&self, [ball_colored, dark, field]: [i32; 3], ring_ball_colored: i32) -> bool {
        let white = ball_colored - dark;
        (ball_colored >= self.least_ball_colored)
            & (field <= self.most_field)
            & (white >= self.least_white)
            & ((dark >= self.least_dark)
                | ((white >= self.least_white_blob)
                    & (ring_ball_colored <= self.most_white_blob_ring)))
    }

    /// Marks in `passes` (1: may pass) the positions of a row, below the field boundary, whose
    /// inner squares' counts (`counts`: per plane, per position) may pass.
    fn mark_row(
        &self,
        counts: &[Vec<i32>; 3],
        limits: &RowLimits,
        span: std::ops::Range<usize>,
        passes: &mut Vec<u8>,
    ) {
        let columns = limits.first_rows.len();
        passes.clear();
        passes.resize(columns.next_multiple_of(8), 0);
        let length = span.len();
        let passes = &mut passes[span.clone()];
        let (first_rows, rings) = (
            &limits.first_rows[span.clone()],
            &limits.ring_ball_colored[span.clone()],
        );
        let [ball_colored, dark, field] = counts.each_ref();
        let (ball_colored, dark, field) = (
            &ball_colored[span.clone()],
            &dark[span.clone()],
            &field[span],
        );
        let (passes, first_rows, rings) = (
            &mut passes[..length],
            &first_rows[..length],
            &rings[..length],
        );
        let (ball_colored, dark, field) =
            (&ball_colored[..length], &dark[..length], &field[..length]);
        // The same length everywhere: the compiler vectorises this loop.
        for column in 0..length {
            passes[column] = u8::from(
                (limits.y >= first_rows[column])
                    & self.may_pass(
                        [ball_colored[column], dark[column], field[column]],
                        rings[column],
                    ),
            );
        }
    }
}

/// The least count in 0..=area + 1 whose share of `area` passes, for a test that stays passed
/// once passed (a binary search).
fn least_passing(area: u32, passes: impl Fn(f32) -> bool) -> u32 {
    let (mut low, mut high) = (0, area + 1);
    while low < high {
        let middle = low + (high - low) / 2;
        if passes(share(middle, area)) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}

/// Each column's count between two rows of a summed-area plane (`lower` less `upper`) into
/// `window`, replacing what it held.
fn column_counts(upper: &[u32], lower: &[u32], window: &mut Vec<i32>) {
    window.clear();
    window.extend(
        lower
            .iter()
            .zip(upper)
            .map(|(lower, upper)| (lower - upper) as i32),
    );
}

/// A square of half side `half` around (x, y), clipped to the image: (x0, y0, x1, y1, area).
fn clipped_square(
    x: usize,
    y: usize,
    half: usize,
    width: usize,
    height: usize,
) -> (usize, usize, usize, usize, u32) {
    let x0 = x.saturating_sub(half);
    let y0 = y.saturating_sub(half);
    let x1 = (x + half + 1).min(width);
    let y1 = (y + half + 1).min(height);
    (x0, y0, x1, y1, ((x1 - x0) * (y1 - y0)) as u32)
}

/// Finds up to [`MAX_SPOTS`] spots, best first, none overlapping a better one of similar size.
pub fn find_ball_spots(classes: &ColorClasses) -> Vec<BallSpot> {
    find_spots(classes, None, None)
}

/// Like [`find_ball_spots`], but only spots a ball lying on the field could make: a spot whose
/// centre is more than half its radius above the field boundary is left out *before* the best
/// [`MAX_SPOTS`] are chosen (the ball perceptor would drop it anyway), so that clutter above
/// the field (walls, cables, people) cannot crowd a ball out.
pub fn find_ball_spots_on_field(
    classes: &ColorClasses,
    field_boundary: &FieldBoundary,
) -> Vec<BallSpot> {
    find_spots(classes, Some(field_boundary), None)
}

/// Like [`find_ball_spots_on_field`], and leaving out the robot's own legs where a body contour
/// is given: a spot whose centre it covers is left out before the best are chosen, so that the
/// robot's feet and shins (white shells, dark joints) can neither become balls nor crowd the
/// ball out.
pub fn find_ball_spots_on_field_off_body(
    classes: &ColorClasses,
    field_boundary: &FieldBoundary,
    body_contour: Option<&BodyContour>,
) -> Vec<BallSpot> {
    find_spots(classes, Some(field_boundary), body_contour)
}

/// The class shares a spot hypothesis is judged by (see the module's picture).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpotEvidence {
    /// White or dark in the inner square.
    pub ball_share: f32,
    pub dark_share: f32,
    pub white_share: f32,
    pub field_share: f32,
    /// White or dark in the ring.
    pub ring_ball_share: f32,
    pub ring_white_share: f32,
    /// Field in the ring.
    pub ring_field_share: f32,
}

impl SpotEvidence {
    /// The inner square's shares, from its counts and area.
    fn inner(counts: [u32; 3], area: u32) -> Self {
        let ball_share = share(counts[BALL_COLORED], area);
        let dark_share = share(counts[DARK], area);
        SpotEvidence {
            ball_share,
            dark_share,
            white_share: ball_share - dark_share,
            field_share: share(counts[FIELD], area),
            ..SpotEvidence::default()
        }
    }

    /// Whether the inner square alone passes (the ring is counted only then).
    fn score_inner(&self) -> bool {
        self.ball_share >= 0.7
            && self.dark_share >= 0.04
            && self.white_share >= 0.25
            && self.field_share <= 0.2
    }

    /// Whether the hypothesis is a blob of white on the field: a ball rolling so fast that its
    /// patches smear into grey bands as bright as white ([`MAX_WHITE_BLOB_SPOTS`]).
    fn white_blob(&self) -> bool {
        self.white_share >= WHITE_BLOB_SHARE
            && self.dark_share < 0.04
            && self.field_share <= 0.2
            && self.ring_ball_share <= WHITE_BLOB_RING
            && self.ring_field_share >= WHITE_BLOB_RING_FIELD
    }

    /// The spot's score, or None when the hypothesis is no ball.
    pub fn score(&self) -> Option<f32> {
        if !self.score_inner() || self.ring_ball_share > 0.9 || self.ring_white_share > 0.6 {
            return None;
        }
        Some(
            self.ball_share
                + self.dark_share.min(DARK_REWARD_CAP)
                + WHITE_REWARD * self.white_share
                + 0.5 * (1.0 - self.ring_ball_share),
        )
    }
}

/// The summed-area tables of one frame's classes.
struct Tables {
    width: usize,
    height: usize,
    integral: Integral,
}

impl Tables {
    fn new(classes: &ColorClasses) -> Self {
        Self {
            width: classes.width,
            height: classes.height,
            integral: Integral::new(classes),
        }
    }

    /// The inner square's shares, whatever they say.
    fn inner_evidence(&self, x: usize, y: usize, inner_half: usize) -> SpotEvidence {
        let (x0, y0, x1, y1, area) = clipped_square(x, y, inner_half, self.width, self.height);
        SpotEvidence::inner(self.integral.count(x0, y0, x1, y1), area)
    }

    /// The hypothesis as a white-blob spot ([`MAX_WHITE_BLOB_SPOTS`]), given its inner square's
    /// shares: of 4 px and more, its ring wholly in the image (the frame's edge cuts white
    /// walls and robots into blobs). `ring` is the radius's ring (`square_sizes`: computed
    /// once per radius, not per position; in a white wall every position gets here).
    #[inline(always)]
    fn white_blob(
        &self,
        inner: SpotEvidence,
        (x, y, radius): (usize, usize, f32),
        ring: &Ring,
    ) -> Option<BallSpot> {
        let inside = x >= ring.outer_half
            && y >= ring.outer_half
            && x + ring.outer_half < self.width
            && y + ring.outer_half < self.height;
        if radius < MIN_RADIUS
            || inner.white_share < WHITE_BLOB_SHARE
            || inner.dark_share >= 0.04
            || !inside
            || self.integral.ring_ball_colored(x, y, ring.halves())
                > ring.most_white_blob_ball_colored
        {
            return None;
        }
        let ring = ring.halves();
        let blob = self.with_ring(inner, x, y, ring)?;
        blob.white_blob().then_some(BallSpot {
            x: x as f32,
            y: y as f32,
            radius,
            score: blob.white_share + 0.5 * (1.0 - blob.ring_ball_share),
        })
    }

    /// Adds the ring's shares (None when the ring lies wholly outside the image).
    fn with_ring(
        &self,
        mut evidence: SpotEvidence,
        x: usize,
        y: usize,
        (ring_inner_half, ring_outer_half): (usize, usize),
    ) -> Option<SpotEvidence> {
        let outer = clipped_square(x, y, ring_outer_half, self.width, self.height);
        let inner = clipped_square(x, y, ring_inner_half, self.width, self.height);
        let ring_area = outer.4.saturating_sub(inner.4);
        if ring_area == 0 {
            return None;
        }
        let outer_counts = self.integral.count(outer.0, outer.1, outer.2, outer.3);
        let inner_counts = self.integral.count(inner.0, inner.1, inner.2, inner.3);
        let ring_ball = outer_counts[BALL_COLORED] - inner_counts[BALL_COLORED];
        let ring_dark = outer_counts[DARK] - inner_counts[DARK];
        evidence.ring_ball_share = share(ring_ball, ring_area);
        evidence.ring_white_share = share(ring_ball - ring_dark, ring_area);
        evidence.ring_field_share = share(outer_counts[FIELD] - inner_counts[FIELD], ring_area);
        Some(evidence)
    }
}

/// A radius's ring ([`square_sizes`]) and the most ball-coloured pixels a white blob's ring
/// (wholly in the image) may hold: the largest count whose share is [`WHITE_BLOB_RING`] or
/// less (a test made before the ring's shares are computed; in a white wall or on a line
/// nearly every white square fails it).
struct Ring {
    inner_half: usize,
    outer_half: usize,
    most_white_blob_ball_colored: u32,
}

impl Ring {
    fn new((inner_half, outer_half): (usize, usize)) -> Self {
        let side = |half: usize| (2 * half + 1) * (2 * half + 1);
        let area = (side(outer_half) - side(inner_half)) as u32;
        Self {
            inner_half,
            outer_half,
            most_white_blob_ball_colored: least_passing(area, |share| share > WHITE_BLOB_RING) - 1,
        }
    }

    fn halves(&self) -> (usize, usize) {
        (self.inner_half, self.outer_half)
    }
}

/// Squares of a hypothesis of this radius: inner half side, ring's inner and outer half sides.
fn square_sizes(radius: f32) -> (usize, (usize, usize)) {
    (
        (0.7 * radius).round() as usize,
        (
            (1.1 * radius).round() as usize,
            (1.5 * radius).round() as usize,
        ),
    )
}

/// The evidence for a ball of `radius` at (x, y) (half-resolution pixels), whatever it says:
/// for tests and diagnostics.
pub fn spot_evidence(classes: &ColorClasses, x: usize, y: usize, radius: f32) -> SpotEvidence {
    let tables = Tables::new(classes);
    let (inner_half, ring) = square_sizes(radius);
    let evidence = tables.inner_evidence(x, y, inner_half);
    tables.with_ring(evidence, x, y, ring).unwrap_or(evidence)
}

/// The first row y (half resolution) whose centre is at or below `limit` (full resolution):
/// the least y with `2.0 * y as f32 + 0.5 >= limit`, where the search leaves a spot's centre
/// in (`find_ball_spots_on_field`). Without a loop: below 2²² rows every step is exact, so
/// the row is the ceiling of (limit − 0.5) / 2 (and 0 for a limit of 0.5 or less).
fn first_row_below(limit: f32) -> usize {
    let rows = (limit - 0.5) * 0.5;
    let row = rows as usize;
    row + usize::from((row as f32) < rows)
}

fn find_spots(
    classes: &ColorClasses,
    field_boundary: Option<&FieldBoundary>,
    body_contour: Option<&BodyContour>,
) -> Vec<BallSpot> {
    // Where the field starts in each column, in full-resolution pixels as the boundary's
    // (looked up once per column, not once per hypothesis).
    let field_start: Vec<Option<f32>> = (0..classes.width)
        .map(|x| field_boundary.and_then(|boundary| boundary.y_at(2.0 * x as f32 + 0.5)))
        .collect();
    // The rows of each column that show the robot's own body, as inclusive ranges of
    // half-resolution rows (row y covers full-resolution rows 2y and 2y + 1; it is body where
    // its centre 2y + 0.5 is). Most columns have none.
    let body_rows: Vec<Vec<(usize, usize)>> = (0..classes.width)
        .map(|x| {
            body_contour.map_or_else(Vec::new, |body| {
                body.spans_at(2.0 * x as f32 + 0.5)
                    .iter()
                    .filter_map(|&(top, bottom)| {
                        let first = ((top - 0.5) / 2.0).ceil().max(0.0);
                        let last = ((bottom - 0.5) / 2.0).floor();
                        // (A span reaching far below the image saturates the cast.)
                        (last >= first).then_some((first as usize, last as usize))
                    })
                    .collect()
            })
        })
        .collect();
    let is_body = |x: usize, y: usize| {
        body_rows[x]
            .iter()
            .any(|&(first, last)| (first..=last).contains(&y))
    };
    let tables = Tables::new(classes);
    let (width, height) = (classes.width, classes.height);
    let max_radius = height as f32 / 4.0;
    let mut spots = Vec::new();
    let mut white_blobs = Vec::new();
    let (mut window, mut passes) = (Vec::new(), Vec::new());
    let (mut ring_windows, mut ring_ball_colored) = ([(); 2].map(|_| Vec::new()), Vec::new());
    let mut inner_counts = [(); 3].map(|_| Vec::new());
    for radius in search_radii(max_radius) {
        let (inner_half, ring) = square_sizes(radius);
        // A grid point off the centre of a ball of 4 to 5 pixels (8 to 10 in the camera image:
        // 4 m away in the upper camera) by one pixel puts a column of field into its inner
        // square; the smallest scales are searched at every pixel.
        let step = if radius < SMALL_RADIUS {
            1
        } else {
            ((radius / 3.0).round() as usize).max(2)
        };
        // Every inner square of the search lies wholly in the image.
        let inner_area = (2 * inner_half + 1) * (2 * inner_half + 1);
        let positions = |extent: usize| {
            let end = extent.saturating_sub(inner_half);
            (inner_half < end).then(|| (end - inner_half).div_ceil(step))
        };
        let (Some(grid_columns), Some(rows)) = (positions(width), positions(height)) else {
            continue;
        };
        let ring_filter = Ring::new(ring);
        let filter = InnerFilter::new(inner_area as u32, &ring_filter);
        // A row is tested at every position x = inner_half, inner_half + 1, … (one vector loop
        // whatever the step); those off the grid get a first row no row reaches.
        let columns = (grid_columns - 1) * step + 1;
        // The first row below the boundary in each column, for this radius.
        let first_rows: Vec<i32> = (0..columns)
            .map(|column| {
                let first_row = field_start[inner_half + column]
                    .map_or(0, |field_start| first_row_below(field_start - radius));
                if column % step == 0 {
                    i32::try_from(first_row).unwrap_or(i32::MAX)
                } else {
                    i32::MAX
                }
            })
            .collect();
        let highest_first_row = first_rows.iter().copied().min().unwrap_or(0);
        // A row of positions at a time: the integer test of every position's inner square
        // (and, for a white blob, of its ring) first (on the field nearly every one fails it),
        // then the shares of the few left.
        for y in (0..rows).map(|row| inner_half + row * step) {
            if (y as i32) < highest_first_row {
                continue;
            }
            // The ball-coloured counts first: in most rows none passes, and the rest is skipped.
            let [ball_colored_counts, dark_counts, field_counts] = &mut inner_counts;
            let row = (y, inner_half);
            tables.integral.row_counts(
                BALL_COLORED,
                row,
                columns,
                &mut window,
                ball_colored_counts,
            );
            // The positions from the first to the last whose ball-coloured count passes.
            let passing = |count: &i32| *count >= filter.least_ball_colored;
            let Some(first) = ball_colored_counts.iter().position(passing) else {
                continue;
            };
            let end = ball_colored_counts
                .iter()
                .rposition(passing)
                .unwrap_or(first)
                + 1;
            dark_counts.resize(columns, 0);
            field_counts.resize(columns, 0);
            tables
                .integral
                .row_counts_in(DARK, row, first..end, &mut window, dark_counts);
            tables
                .integral
                .row_counts_in(FIELD, row, first..end, &mut window, field_counts);
            if radius >= MIN_RADIUS {
                tables.integral.row_ring_ball_colored(
                    (y, inner_half),
                    ring,
                    (columns, first..end),
                    &mut ring_windows,
                    &mut ring_ball_colored,
                );
            } else {
                ring_ball_colored.clear();
                ring_ball_colored.resize(columns, i32::MAX);
            }
            let limits = RowLimits {
                y: y as i32,
                first_rows: &first_rows,
                ring_ball_colored: &ring_ball_colored,
            };
            filter.mark_row(&inner_counts, &limits, first..end, &mut passes);
            for column in passing_columns(&passes) {
                let x = inner_half + column;
                if is_body(x, y) {
                    continue;
                }
                let counts = inner_counts.each_ref().map(|counts| counts[column] as u32);
                let inner = SpotEvidence::inner(counts, inner_area as u32);
                if inner.ball_share < 0.7 {
                    continue;
                }
                if !inner.score_inner() {
                    if let Some(blob) = tables.white_blob(inner, (x, y, radius), &ring_filter) {
                        white_blobs.push(blob);
                    }
                    continue;
                }
                let Some(evidence) = tables.with_ring(inner, x, y, ring) else {
                    continue;
                };
                if let Some(score) = evidence.score() {
                    spots.push(BallSpot {
                        x: x as f32,
                        y: y as f32,
                        radius,
                        score,
                    });
                }
            }
        }
    }
    with_white_blobs(select(spots), white_blobs)
}

/// The kept spots and the best [`MAX_WHITE_BLOB_SPOTS`] white blobs where no kept spot is.
fn with_white_blobs(kept: Vec<BallSpot>, white_blobs: Vec<BallSpot>) -> Vec<BallSpot> {
    add_where_free(kept, white_blobs, MAX_WHITE_BLOB_SPOTS, |_, _| true)
}

/// Adds up to `most` of `extra`, best first, each where no kept spot overlaps it (centres
/// nearer than the larger radius) of a size `comparable(kept, extra)` says counts.
fn add_where_free(
    mut kept: Vec<BallSpot>,
    mut extra: Vec<BallSpot>,
    most: usize,
    comparable: impl Fn(&BallSpot, &BallSpot) -> bool,
) -> Vec<BallSpot> {
    extra.sort_by(best_first);
    let mut added = 0;
    for spot in extra {
        if added == most {
            break;
        }
        let taken = kept.iter().any(|other| {
            let distance = ((other.x - spot.x).powi(2) + (other.y - spot.y).powi(2)).sqrt();
            distance < other.radius.max(spot.radius) && comparable(other, &spot)
        });
        if !taken {
            kept.push(spot);
            added += 1;
        }
    }
    kept
}

/// The radii searched: [`SMALL_BALL_SCALES`] steps below [`MIN_RADIUS`], then from
/// [`MIN_RADIUS`] up to `max_radius` in steps of [`SCALE_STEP`].
fn search_radii(max_radius: f32) -> Vec<f32> {
    let mut radii: Vec<f32> = (1..=SMALL_BALL_SCALES)
        .rev()
        .map(|steps| MIN_RADIUS / SCALE_STEP.powi(steps))
        .collect();
    let mut radius = MIN_RADIUS;
    while radius <= max_radius {
        radii.push(radius);
        radius *= SCALE_STEP;
    }
    radii
}

/// The spots that go on: up to [`MAX_SPOTS`] of [`MIN_RADIUS`] and more
/// ([`suppress_overlapping`]), then up to [`MAX_SMALL_BALL_SPOTS`] smaller ones, best first,
/// each where no kept spot of a similar size is.
fn select(spots: Vec<BallSpot>) -> Vec<BallSpot> {
    let (small, regular): (Vec<BallSpot>, Vec<BallSpot>) =
        spots.into_iter().partition(|spot| spot.radius < MIN_RADIUS);
    add_where_free(
        suppress_overlapping(regular),
        small,
        MAX_SMALL_BALL_SPOTS,
        |kept, small| kept.radius < OTHER_SIZE_RATIO * small.radius,
    )
}

/// Best first; among equal scores (the shares are small fractions, ties are common) the
/// smaller radius, then row, then column first, whatever order the search found them in.
fn best_first(a: &BallSpot, b: &BallSpot) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.radius.total_cmp(&b.radius))
        .then(a.y.total_cmp(&b.y))
        .then(a.x.total_cmp(&b.x))
}

fn suppress_overlapping(mut spots: Vec<BallSpot>) -> Vec<BallSpot> {
    spots.sort_by(best_first);
    let mut kept: Vec<BallSpot> = Vec::new();
    let mut other_sizes = 0;
    for spot in spots {
        let (mut overlaps, mut similar_size) = (false, false);
        for better in &kept {
            let distance = ((better.x - spot.x).powi(2) + (better.y - spot.y).powi(2)).sqrt();
            let (larger, smaller) = (
                better.radius.max(spot.radius),
                better.radius.min(spot.radius),
            );
            if distance < larger {
                overlaps = true;
                if larger < OTHER_SIZE_RATIO * smaller {
                    similar_size = true;
                    break;
                }
            }
        }
        if similar_size || (overlaps && other_sizes == MAX_OTHER_SIZE_SPOTS) {
            continue;
        }
        other_sizes += usize::from(overlaps);
        kept.push(spot);
        if kept.len() == MAX_SPOTS {
            break;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Field below row 40 (half resolution), "other" above, with ball-like blobs (white discs
    /// with a dark centre) at the given centres, radius 6.
    fn scene(blobs: &[(usize, usize)]) -> ColorClasses {
        let (width, height) = (320, 120);
        let mut classes = vec![PixelClass::Other; width * height];
        for y in 40..height {
            for x in 0..width {
                classes[y * width + x] = PixelClass::Field;
            }
        }
        for &(centre_x, centre_y) in blobs {
            for y in centre_y - 6..=centre_y + 6 {
                for x in centre_x - 6..=centre_x + 6 {
                    let distance_squared =
                        (x as i32 - centre_x as i32).pow(2) + (y as i32 - centre_y as i32).pow(2);
                    if distance_squared <= 36 {
                        classes[y * width + x] = if distance_squared <= 4 {
                            PixelClass::Dark
                        } else {
                            PixelClass::White
                        };
                    }
                }
            }
        }
        ColorClasses {
            width,
            height,
            classes,
        }
    }

    fn boundary_at_row_40() -> FieldBoundary {
        FieldBoundary {
            points: vec![(0.0, 80.0), (639.0, 80.0)],
        }
    }

    /// Every hypothesis of the search, evaluated one by one (what the row filter must not change).
    fn every_position(classes: &ColorClasses) -> Vec<BallSpot> {
        let tables = Tables::new(classes);
        let mut spots = Vec::new();
        let mut white_blobs = Vec::new();
        for radius in search_radii(classes.height as f32 / 4.0) {
            let (inner_half, ring) = square_sizes(radius);
            let step = if radius < SMALL_RADIUS {
                1
            } else {
                ((radius / 3.0).round() as usize).max(2)
            };
            for y in (inner_half..classes.height - inner_half).step_by(step) {
                for x in (inner_half..classes.width - inner_half).step_by(step) {
                    let evidence = tables.inner_evidence(x, y, inner_half);
                    if !evidence.score_inner() {
                        white_blobs.extend(tables.white_blob(
                            evidence,
                            (x, y, radius),
                            &Ring::new(ring),
                        ));
                    }
                    let score = tables
                        .with_ring(evidence, x, y, ring)
                        .and_then(|evidence| evidence.score());
                    if let Some(score) = score {
                        spots.push(BallSpot {
                            x: x as f32,
                            y: y as f32,
                            radius,
                            score,
                        });
                    }
                }
            }
        }
        with_white_blobs(select(spots), white_blobs)
    }

    #[test]
    fn the_row_filter_finds_the_same_spots_as_every_position() {
        // Blobs of every size on field, a white area, a dark one and speckle (a pseudo-random
        // pattern), so that many cells hold some white or dark.
        let mut classes = scene(&[(40, 60), (41, 90), (120, 70), (200, 100), (290, 55)]);
        for y in 0..classes.height {
            for x in 0..classes.width {
                let hash = (x * 7919 + y * 104_729) % 97;
                let class = match hash {
                    0..=6 => Some(PixelClass::White),
                    7..=9 => Some(PixelClass::Dark),
                    _ => None,
                };
                if let Some(class) = class {
                    classes.classes[y * classes.width + x] = class;
                }
                if (150..170).contains(&x) && (45..75).contains(&y) {
                    classes.classes[y * classes.width + x] = PixelClass::White;
                }
                if (230..260).contains(&x) && (60..80).contains(&y) {
                    classes.classes[y * classes.width + x] = if (x + y) % 3 == 0 {
                        PixelClass::White
                    } else {
                        PixelClass::Dark
                    };
                }
            }
        }
        let reference = every_position(&classes);
        assert!(reference.len() >= 5, "{reference:?}");
        assert_eq!(find_ball_spots(&classes), reference);
    }

    #[test]
    fn the_first_row_below_a_limit_is_the_first_row_the_test_passes() {
        let by_search = |limit: f32| {
            (0..)
                .find(|&y: &usize| 2.0 * y as f32 + 0.5 >= limit)
                .unwrap()
        };
        let mut limits = vec![f32::NEG_INFINITY, -1e9, -3.0, -0.0, 0.0, 0.25, 0.5, 1e-9];
        // Around every half row of the image heights the search meets, and in between.
        for half_rows in 0..2000 {
            let limit = half_rows as f32 * 0.5;
            limits.extend([
                limit,
                limit.next_down(),
                limit.next_up(),
                limit + 0.3,
                limit - 0.7,
            ]);
        }
        // Boundaries less a radius: arbitrary fractions.
        limits.extend((0..20_000).map(|index| (index as f32 * 0.618_034).fract() * 1000.0 - 80.0));
        for limit in limits {
            assert_eq!(first_row_below(limit), by_search(limit), "{limit}");
        }
    }

    #[test]
    fn the_least_passing_count_is_the_first_count_whose_share_passes() {
        for area in 1..=2000 {
            for (name, passes) in [
                ("0.7", (|share| share >= 0.7) as fn(f32) -> bool),
                ("0.04", |share| share >= 0.04),
                ("> 0.2", |share| share > 0.2),
            ] {
                let scanned = (0..=area + 1)
                    .find(|&count| passes(share(count, area)))
                    .unwrap();
                assert_eq!(least_passing(area, passes), scanned, "{name} of {area}");
            }
        }
    }

    #[test]
    fn the_integer_filter_keeps_every_inner_square_the_shares_keep() {
        // Every count of every inner square of half side 0 to 6, and of a few larger ones
        // near the thresholds: what the shares keep for a spot or a white blob, the filter
        // keeps too; the ball-coloured, dark and field thresholds are exact.
        for (half, radius) in [
            (0, 1.0),
            (1, 2.0),
            (2, 3.48),
            (3, 4.0),
            (4, 5.29),
            (5, 7.0),
            (6, 9.26),
        ] {
            let area = ((2 * half + 1) * (2 * half + 1)) as u32;
            let ring = Ring::new(square_sizes(radius).1);
            let filter = InnerFilter::new(area, &ring);
            for ball_colored in 0..=area {
                for dark in 0..=ball_colored {
                    for field in 0..=area - ball_colored {
                        let evidence = SpotEvidence::inner([ball_colored, dark, field], area);
                        let spot = evidence.ball_share >= 0.7 && evidence.score_inner();
                        let blob = evidence.ball_share >= 0.7
                            && evidence.white_share >= WHITE_BLOB_SHARE
                            && evidence.dark_share < 0.04
                            && evidence.field_share <= 0.2;
                        let counts = [ball_colored, dark, field].map(|count| count as i32);
                        if spot || blob {
                            assert!(
                                filter.may_pass(counts, 0),
                                "{ball_colored} {dark} {field} of {area}: {evidence:?}"
                            );
                        }
                        if (dark as i32) < filter.least_dark {
                            // No spot: a white blob's ring above the most is left out.
                            assert!(!filter
                                .may_pass(counts, ring.most_white_blob_ball_colored as i32 + 1));
                        }
                        assert_eq!(
                            ball_colored as i32 >= filter.least_ball_colored,
                            evidence.ball_share >= 0.7
                        );
                        assert_eq!(
                            dark as i32 >= filter.least_dark,
                            evidence.dark_share >= 0.04
                        );
                        assert_eq!(
                            field as i32 <= filter.most_field,
                            evidence.field_share <= 0.2
                        );
                    }
                }
            }
            let ring_area = {
                let side = |half: usize| ((2 * half + 1) * (2 * half + 1)) as u32;
                side(ring.outer_half) - side(ring.inner_half)
            };
            for count in 0..=ring_area {
                assert_eq!(
                    count <= ring.most_white_blob_ball_colored,
                    share(count, ring_area) <= WHITE_BLOB_RING
                );
            }
        }
    }

    #[test]
    fn a_smaller_spot_on_a_larger_one_is_kept_but_not_one_of_similar_size() {
        let spot = |x: f32, radius: f32, score: f32| BallSpot {
            x,
            y: 50.0,
            radius,
            score,
        };
        let kept = suppress_overlapping(vec![
            spot(100.0, 20.0, 1.8),
            spot(104.0, 9.0, 1.6),
            spot(98.0, 16.0, 1.7),
        ]);
        assert_eq!(kept, vec![spot(100.0, 20.0, 1.8), spot(104.0, 9.0, 1.6)]);
        // At most MAX_OTHER_SIZE_SPOTS of them in a frame.
        let mut many = vec![spot(100.0, 40.0, 1.9)];
        many.extend((0..10).map(|index| spot(70.0 + 6.0 * index as f32, 8.0, 1.5)));
        let kept = suppress_overlapping(many);
        assert_eq!(kept.len(), 1 + MAX_OTHER_SIZE_SPOTS, "{kept:?}");
    }

    /// Field everywhere, with an all-white disc of radius 7 at each centre and, if asked, a
    /// white line as wide as the ball's radius (a field line: 5 cm) through row 60.
    fn white_blobs(centres: &[(usize, usize)], line: bool) -> ColorClasses {
        let (width, height) = (320, 120);
        let classes = (0..width * height)
            .map(|index| {
                let (x, y) = (index % width, index / width);
                let on_blob = centres.iter().any(|&(cx, cy)| {
                    (x as i32 - cx as i32).pow(2) + (y as i32 - cy as i32).pow(2) <= 49
                });
                if on_blob || (line && (57..64).contains(&y)) {
                    PixelClass::White
                } else {
                    PixelClass::Field
                }
            })
            .collect();
        ColorClasses {
            width,
            height,
            classes,
        }
    }

    #[test]
    fn a_white_blob_on_open_turf_is_a_spot_but_not_one_on_a_line_or_at_the_edge() {
        // A ball rolling so fast that its patches are grey bands as bright as white: no dark
        // in it, turf all around.
        let spots = find_ball_spots(&white_blobs(&[(100, 80)], false));
        let near = |spot: &BallSpot| (spot.x - 100.0).abs() <= 2.0 && (spot.y - 80.0).abs() <= 2.0;
        assert_eq!(spots.len(), MAX_WHITE_BLOB_SPOTS, "{spots:?}");
        assert!(spots.iter().all(near), "{spots:?}");
        // Two blobs: the budget holds.
        let spots = find_ball_spots(&white_blobs(&[(100, 80), (220, 80)], false));
        assert_eq!(spots.len(), MAX_WHITE_BLOB_SPOTS, "{spots:?}");
        // The same blob on a line (white in its ring), or cut by the frame's edge: none.
        assert!(find_ball_spots(&white_blobs(&[(100, 60)], true)).is_empty());
        assert!(find_ball_spots(&white_blobs(&[(4, 80)], false)).is_empty());
        // A white area larger than a ball: none.
        let wall = ColorClasses {
            width: 320,
            height: 120,
            classes: vec![PixelClass::White; 320 * 120],
        };
        assert!(find_ball_spots(&wall).is_empty());
    }

    #[test]
    fn frames_too_small_for_a_ball_have_no_spots() {
        for (width, height) in [(0, 0), (0, 4), (1, 1), (3, 2), (20, 6)] {
            let classes = ColorClasses {
                width,
                height,
                classes: vec![PixelClass::White; width * height],
            };
            assert!(find_ball_spots(&classes).is_empty(), "{width} x {height}");
        }
    }

    #[test]
    fn clutter_above_the_field_cannot_crowd_out_a_ball_on_it() {
        // Twenty blobs above the field, one on it (row 90).
        let mut blobs: Vec<(usize, usize)> = (0..20).map(|i| (10 + 15 * i, 15)).collect();
        blobs.push((160, 90));
        let classes = scene(&blobs);
        let near_ball =
            |spot: &BallSpot| (spot.x - 160.0).abs() <= 3.0 && (spot.y - 90.0).abs() <= 3.0;
        let everywhere = find_ball_spots(&classes);
        let regular = everywhere.iter().filter(|spot| spot.radius >= MIN_RADIUS);
        assert_eq!(regular.count(), MAX_SPOTS);
        let on_field = find_ball_spots_on_field(&classes, &boundary_at_row_40());
        assert!(on_field.iter().any(near_ball), "{on_field:?}");
        assert!(
            on_field
                .iter()
                .all(|spot| 2.0 * spot.y + 0.5 >= 80.0 - 2.0 * spot.radius),
            "{on_field:?}"
        );
    }
}
