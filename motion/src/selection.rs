//! Which motion executes a request (B-Human's `MotionSelector`, for the motions that exist so
//! far): stand, sit, unstiff, walk and kick (a step of the walk), or a keyframe special action;
//! unknown special actions stand instead and say why.

use super::library::MotionLibrary;
use types::{BodyMotion, MotionKind};

/// What the body does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Stiffness 0, positions follow the measured ones.
    Unstiff,
    /// `stand` (after `stand_up_from_sit` when sitting), then hold it.
    Stand,
    /// `sit`, then hold it.
    Sit,
    /// The keyframe motion of this name, then hold its last pose.
    SpecialAction(String),
    /// The walking engine (walk with speeds, or to a target).
    Walk,
    /// Attempt `attempt` at getting up with the keyframe motion `motion`, then `stand` (chosen
    /// by [`GetUp`](crate::get_up::GetUp), not by a request).
    GetUp { motion: String, attempt: u32 },
}

/// The plan for a request, the kind of motion MotionInfo reports, and a note for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub plan: Plan,
    pub kind: MotionKind,
    pub note: Option<String>,
}

/// The selection for `body`; special actions are looked up in `motions`.
pub fn select(body: &BodyMotion, motions: &MotionLibrary) -> Selection {
    let stand_instead = |note: String| Selection {
        plan: Plan::Stand,
        kind: MotionKind::Stand,
        note: Some(note),
    };
    match body {
        BodyMotion::Unstiff => Selection {
            plan: Plan::Unstiff,
            kind: MotionKind::Unstiff,
            note: None,
        },
        BodyMotion::Sit => Selection {
            plan: Plan::Sit,
            kind: MotionKind::Sit,
            note: None,
        },
        BodyMotion::Stand => Selection {
            plan: Plan::Stand,
            kind: MotionKind::Stand,
            note: None,
        },
        BodyMotion::Walk { .. } | BodyMotion::WalkTo { .. } => Selection {
            plan: Plan::Walk,
            kind: MotionKind::Walk,
            note: None,
        },
        BodyMotion::Kick { .. } => Selection {
            plan: Plan::Walk,
            kind: MotionKind::Kick,
            note: None,
        },
        BodyMotion::SpecialAction { name } if motions.get(name).is_some() => Selection {
            plan: Plan::SpecialAction(name.clone()),
            kind: MotionKind::SpecialAction,
            note: None,
        },
        BodyMotion::SpecialAction { name } => stand_instead(format!(
            "special action `{name}` is not known (known: {}); standing instead",
            motions.names().collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyframes::{JointTarget, Keyframe, Motion};
    use types::{Joints, Side};

    fn library() -> MotionLibrary {
        MotionLibrary::from_motions(["stand", "wave"].map(|name| Motion {
            name: name.to_owned(),
            file: format!("{name}.toml").into(),
            description: None,
            keyframes: vec![Keyframe {
                duration_ms: 100.0,
                positions: Joints::filled(JointTarget::Keep),
                stiffnesses: Joints::filled(0.5),
            }],
        }))
    }

    #[test]
    fn basic_requests_select_their_motion_without_a_note() {
        let motions = library();
        for (body, plan, kind) in [
            (BodyMotion::Unstiff, Plan::Unstiff, MotionKind::Unstiff),
            (BodyMotion::Sit, Plan::Sit, MotionKind::Sit),
            (BodyMotion::Stand, Plan::Stand, MotionKind::Stand),
            (
                BodyMotion::SpecialAction {
                    name: "wave".into(),
                },
                Plan::SpecialAction("wave".into()),
                MotionKind::SpecialAction,
            ),
        ] {
            let selection = select(&body, &motions);
            assert_eq!((selection.plan, selection.kind), (plan, kind), "{body:?}");
            assert_eq!(selection.note, None);
        }
    }

    #[test]
    fn walks_select_the_walking_engine() {
        let motions = library();
        for body in [
            BodyMotion::Walk {
                forward_m_per_s: 0.1,
                left_m_per_s: 0.0,
                turn_rad_per_s: 0.0,
            },
            BodyMotion::WalkTo {
                forward_m: 1.0,
                left_m: 0.0,
                turn_rad: 0.0,
            },
        ] {
            let walk = select(&body, &motions);
            assert_eq!((walk.plan, walk.kind), (Plan::Walk, MotionKind::Walk));
            assert_eq!(walk.note, None);
        }
    }

    #[test]
    fn missing_motions_stand_and_say_why() {
        let motions = library();
        let kick = select(
            &BodyMotion::Kick {
                foot: Side::Left,
                direction_rad: 0.0,
                strength: 1.0,
            },
            &motions,
        );
        assert_eq!((kick.plan, kick.kind), (Plan::Walk, MotionKind::Kick));
        let unknown = select(
            &BodyMotion::SpecialAction {
                name: "moonwalk".into(),
            },
            &motions,
        );
        assert_eq!(
            (unknown.plan, unknown.kind),
            (Plan::Stand, MotionKind::Stand)
        );
        let note = unknown.note.unwrap();
        assert!(
            note.contains("`moonwalk` is not known") && note.contains("stand, wave"),
            "{note}"
        );
    }
}
