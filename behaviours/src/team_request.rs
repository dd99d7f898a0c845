//! `request.team`: what the behaviour tells its team mates, checked like the rest of
//! `robot.BehaviourRequest` (see [`crate::request`]).
//!
//! ```python
//! request.team.role = "Striker"           # a TeamRole variant: robot.TEAM_ROLES
//! request.team.intention = "PlayBall"     # a TeamIntention variant: robot.TEAM_INTENTIONS
//! request.team.pass_to(3)                 # player 1..20; pass_to(None): no pass
//! request.team.walk_target(1500, -300)    # field coordinates, mm
//! ```
//!
//! Cognition turns it into the `TeamMessageRequest` that the network process sends within the
//! message budget. A new request says role `"None"`, intention `"None"`: a behaviour that does
//! not set them, or fails, tells its team mates nothing they could rely on.

use crate::request::{describe, ranged, variant, Limits};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use types::{BehaviourTeam, TeamIntention, TeamRole};

/// The role names Python uses: the variants of [`TeamRole`].
pub const TEAM_ROLES: [(&str, TeamRole); 6] = [
    ("None", TeamRole::None),
    ("Goalkeeper", TeamRole::Goalkeeper),
    ("Striker", TeamRole::Striker),
    ("Supporter", TeamRole::Supporter),
    ("Defender", TeamRole::Defender),
    ("Searcher", TeamRole::Searcher),
];

/// The intention names Python uses: the variants of [`TeamIntention`].
pub const TEAM_INTENTIONS: [(&str, TeamIntention); 6] = [
    ("None", TeamIntention::None),
    ("PlayBall", TeamIntention::PlayBall),
    ("Pass", TeamIntention::Pass),
    ("WalkToPosition", TeamIntention::WalkToPosition),
    ("SearchBall", TeamIntention::SearchBall),
    ("KeepGoal", TeamIntention::KeepGoal),
];

/// Player numbers a pass may go to (the GameController's 1..20).
pub const PLAYER_NUMBERS: std::ops::RangeInclusive<i64> = 1..=20;

/// A walk target's x (along the field): the SPL field (9 m) with its border fits with room to
/// spare; anything further is a wrong unit or a bug.
pub const WALK_TARGET_X: Limits = Limits {
    min: -6000.0,
    max: 6000.0,
    unit: "mm",
};
/// A walk target's y (across the field, 6 m with its border).
pub const WALK_TARGET_Y: Limits = Limits {
    min: -4500.0,
    max: 4500.0,
    unit: "mm",
};

fn name_of<T: PartialEq + Copy>(names: &[(&'static str, T)], value: T) -> &'static str {
    names
        .iter()
        .find(|(_, known)| *known == value)
        .map_or("None", |(name, _)| name)
}

/// `request.team`: role, intention, pass target and walk target for the team message.
#[pyclass(module = "robot", name = "Team")]
#[derive(Debug, Default)]
pub struct PyTeam {
    pub(crate) team: BehaviourTeam,
}

#[pymethods]
impl PyTeam {
    /// What this robot does in the team: "None", "Goalkeeper", "Striker", "Supporter",
    /// "Defender" or "Searcher".
    #[getter]
    fn role(&self) -> &'static str {
        name_of(&TEAM_ROLES, self.team.role)
    }
    #[setter]
    fn set_role(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.team.role = variant("BehaviourRequest.team.role", value, &TEAM_ROLES, "a role")?;
        Ok(())
    }
    /// What this robot is about to do: "None", "PlayBall", "Pass", "WalkToPosition",
    /// "SearchBall" or "KeepGoal".
    #[getter]
    fn intention(&self) -> &'static str {
        name_of(&TEAM_INTENTIONS, self.team.intention)
    }
    #[setter]
    fn set_intention(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.team.intention = variant(
            "BehaviourRequest.team.intention",
            value,
            &TEAM_INTENTIONS,
            "an intention",
        )?;
        Ok(())
    }
    /// The player this robot passes to, or `None`.
    #[getter]
    fn pass_target(&self) -> Option<u8> {
        self.team.pass_target
    }
    /// Pass to player `player` (1..20); `None`: no pass.
    fn pass_to(&mut self, player: &Bound<'_, PyAny>) -> PyResult<()> {
        let field = "BehaviourRequest.team.pass_to";
        if player.is_none() {
            self.team.pass_target = None;
            return Ok(());
        }
        if !player.is_instance_of::<PyInt>() || player.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "{field}: expected a player number (an int 1..20) or None, got {}",
                describe(player)
            )));
        }
        let number = player
            .extract::<i64>()
            .ok()
            .filter(|number| PLAYER_NUMBERS.contains(number))
            .and_then(|number| u8::try_from(number).ok())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{field}: {} is not a player number (1..20)",
                    describe(player)
                ))
            })?;
        self.team.pass_target = Some(number);
        Ok(())
    }
    /// Where this robot walks to, field coordinates mm: `(x, y)`.
    #[getter]
    fn walk_target_mm(&self) -> (f32, f32) {
        (self.team.walk_target_mm[0], self.team.walk_target_mm[1])
    }
    /// Where this robot walks to, in field coordinates: x (mm, towards the opponent goal,
    /// -6000..6000) and y (mm, to the left, -4500..4500), 0, 0 the centre.
    fn walk_target(&mut self, x_mm: &Bound<'_, PyAny>, y_mm: &Bound<'_, PyAny>) -> PyResult<()> {
        let x = ranged(
            "BehaviourRequest.team.walk_target.x_mm",
            x_mm,
            WALK_TARGET_X,
        )?;
        let y = ranged(
            "BehaviourRequest.team.walk_target.y_mm",
            y_mm,
            WALK_TARGET_Y,
        )?;
        self.team.walk_target_mm = [x, y];
        Ok(())
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "robot.Team(role={:?}, intention={:?}, pass_target={:?}, walk_target_mm={:?})",
            self.role(),
            self.intention(),
            self.team.pass_target,
            self.team.walk_target_mm
        )
    }
}
