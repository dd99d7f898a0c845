//! The SPL field: its dimensions (rule book, 9 × 6 m division) and where its white lines are.
//!
//! Field coordinates: metres, origin at the centre spot, x towards the opponent's goal, y to
//! the left. Every dimension of the rule book's field drawing is measured to the middle of a
//! line; the lines are [`LINE_WIDTH_M`] wide.
//!
//! ```text
//!        ┌────────────────────┬────────────────────┐  ▲ y
//!        ├──────┐             │             ┌──────┤  │
//!  goal ═╡ ┌─┐  │ +         ( ┼ )         + │  ┌─┐ ╞═ goal   ──► x
//!        ├─┴─┴──┘             │             └──┴─┴─┤
//!        └────────────────────┴────────────────────┘
//!   goal area, penalty area, penalty mark (+), centre circle and mark
//! ```

/// Goal line to goal line.
pub const FIELD_LENGTH_M: f32 = 9.0;
/// Touch line to touch line.
pub const FIELD_WIDTH_M: f32 = 6.0;
pub const LINE_WIDTH_M: f32 = 0.05;
pub const CENTER_CIRCLE_DIAMETER_M: f32 = 1.5;
/// Depth of the penalty area from the goal line.
pub const PENALTY_AREA_LENGTH_M: f32 = 1.65;
pub const PENALTY_AREA_WIDTH_M: f32 = 4.0;
/// Depth of the goal area from the goal line.
pub const GOAL_AREA_LENGTH_M: f32 = 0.6;
pub const GOAL_AREA_WIDTH_M: f32 = 2.2;
/// Penalty mark (a cross) from the goal line.
pub const PENALTY_MARK_DISTANCE_M: f32 = 1.3;
/// Length of each bar of the penalty mark and the centre mark.
pub const MARK_SIZE_M: f32 = 0.1;
/// Green carpet beyond the lines on every side.
pub const BORDER_STRIP_WIDTH_M: f32 = 0.7;
/// Between the inner edges of the goal posts.
pub const GOAL_INNER_WIDTH_M: f32 = 1.5;
pub const GOAL_POST_DIAMETER_M: f32 = 0.1;
/// Top of the crossbar above the ground.
pub const GOAL_HEIGHT_M: f32 = 0.8;
/// How far the goal reaches behind the goal line.
pub const GOAL_DEPTH_M: f32 = 0.5;
/// The SPL ball's radius (0.1 m diameter).
pub const BALL_RADIUS_M: f32 = 0.05;

/// Half the carpet's length and width: the field and its border strip.
pub const CARPET_HALF_SIZE_M: [f32; 2] = [
    FIELD_LENGTH_M / 2.0 + BORDER_STRIP_WIDTH_M,
    FIELD_WIDTH_M / 2.0 + BORDER_STRIP_WIDTH_M,
];

/// Centre of the left goal post (seen from the field) of the goal at the positive x end; the
/// others mirror it. The posts stand behind the goal line, touching it.
pub const GOAL_POST_CENTER_M: [f32; 2] = [
    FIELD_LENGTH_M / 2.0 + GOAL_POST_DIAMETER_M / 2.0,
    GOAL_INNER_WIDTH_M / 2.0 + GOAL_POST_DIAMETER_M / 2.0,
];

/// Whether a point on the ground is on the carpet (field and border strip).
pub fn is_on_carpet(x: f32, y: f32) -> bool {
    x.abs() <= CARPET_HALF_SIZE_M[0] && y.abs() <= CARPET_HALF_SIZE_M[1]
}

/// Whether a point on the ground is on one of the field's white lines or marks.
pub fn is_on_line(x: f32, y: f32) -> bool {
    is_near_line(x, y, LINE_WIDTH_M / 2.0)
}

/// Whether a point on the ground is within `half_width` of a line's middle (or a mark's bar):
/// [`is_on_line`] with the lines widened, for a pixel whose footprint on the ground is wider than
/// a line. The field is symmetric in x and y, so everything is tested in the quadrant x ≥ 0,
/// y ≥ 0.
pub fn is_near_line(x: f32, y: f32, half_width: f32) -> bool {
    const HALF_LENGTH: f32 = FIELD_LENGTH_M / 2.0;
    const HALF_WIDTH: f32 = FIELD_WIDTH_M / 2.0;
    const PENALTY_X: f32 = HALF_LENGTH - PENALTY_AREA_LENGTH_M;
    const PENALTY_Y: f32 = PENALTY_AREA_WIDTH_M / 2.0;
    const GOAL_AREA_X: f32 = HALF_LENGTH - GOAL_AREA_LENGTH_M;
    const GOAL_AREA_Y: f32 = GOAL_AREA_WIDTH_M / 2.0;
    const MARK_X: f32 = HALF_LENGTH - PENALTY_MARK_DISTANCE_M;
    const MARK_HALF: f32 = MARK_SIZE_M / 2.0;
    const CIRCLE_RADIUS: f32 = CENTER_CIRCLE_DIAMETER_M / 2.0;
    let half = half_width;
    let (x, y) = (x.abs(), y.abs());
    if x > HALF_LENGTH + half || y > HALF_WIDTH + half {
        return false;
    }
    // A horizontal segment at height `at` from 0 to `to`, or a vertical one.
    let along_x = |at: f32, to: f32| (y - at).abs() <= half && x <= to + half;
    let along_y =
        |at: f32, from: f32, to: f32| (x - at).abs() <= half && y <= to + half && y >= from - half;
    let mark = |at: f32| {
        ((x - at).abs() <= MARK_HALF && y <= half) || ((x - at).abs() <= half && y <= MARK_HALF)
    };
    // Touch line, goal line, halfway line.
    along_x(HALF_WIDTH, HALF_LENGTH)
        || along_y(HALF_LENGTH, 0.0, HALF_WIDTH)
        || x <= half
        // Penalty area and goal area.
        || along_y(PENALTY_X, 0.0, PENALTY_Y)
        || (along_x(PENALTY_Y, HALF_LENGTH) && x >= PENALTY_X - half)
        || along_y(GOAL_AREA_X, 0.0, GOAL_AREA_Y)
        || (along_x(GOAL_AREA_Y, HALF_LENGTH) && x >= GOAL_AREA_X - half)
        // Centre circle, centre mark, penalty mark.
        || ((x * x + y * y).sqrt() - CIRCLE_RADIUS).abs() <= half
        || mark(0.0)
        || mark(MARK_X)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_where_the_rule_book_draws_them() {
        // On: every line at its middle, both signs.
        for (x, y) in [
            (4.5, 1.0),
            (-4.5, -2.9),
            (0.0, 2.0),
            (1.0, 3.0),
            (-2.0, -3.0),
            (2.85, 1.0),
            (-3.5, 2.0),
            (3.9, -0.5),
            (4.2, 1.1),
            (0.75, 0.0),
            (0.0, -0.75),
            (0.53, 0.53),
            (3.2, 0.0),
            (-3.2, 0.04),
            (3.24, 0.0),
        ] {
            assert!(is_on_line(x, y), "({x}, {y}) should be on a line");
        }
        // Off: the green between lines, beyond the field, the gap inside the penalty mark's arms.
        for (x, y) in [
            (1.0, 1.0),
            (4.6, 0.0),
            (0.0, 3.1),
            (2.7, 2.5),
            (3.5, 2.1),
            (3.2, 0.2),
            (3.2 + 0.08, 0.0),
            (0.4, 0.4),
            (0.1, 0.1),
            (-4.0, 1.2),
        ] {
            assert!(!is_on_line(x, y), "({x}, {y}) should be green");
        }
    }

    #[test]
    fn the_carpet_reaches_the_border_strip() {
        assert!(is_on_carpet(5.1, 3.6));
        assert!(!is_on_carpet(5.3, 0.0));
        assert!(!is_on_carpet(0.0, -3.8));
    }
}
