//! What the SPL rules ask the chest and foot LEDs to show, computed from [`GameState`] alone so
//! that no behaviour (and no Python error) can show a referee the wrong thing.
//!
//! | LED | shows | |
//! |---|---|---|
//! | chest | the state | Initial off · Standby cyan · Ready blue · Set yellow · Playing green · Finished off; red while penalised, whatever the state |
//! | left foot | our team colour | the GameController's `fieldPlayerColour` of our team (`GameState::own_colour`) |
//! | right foot | whether we kick off | white in Initial, Standby, Ready and Set when `own_team_is_kicking == Some(true)`; off otherwise |
//!
//! The chest colours are the SPL rule book's ("Robot States", the torso LED); the feet are the
//! older rule books' convention that teams still follow. Where each came from is in
//! `docs/decisions.md` ("Game-state LEDs").

use types::{GameState, PlayState, Rgb, TeamColour};

/// The three LEDs the game state owns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameLeds {
    pub chest: Rgb,
    pub left_foot: Rgb,
    pub right_foot: Rgb,
}

/// Yellow at full intensity (the chest in Set).
pub const YELLOW: Rgb = Rgb::new(1.0, 1.0, 0.0);
/// Cyan at full intensity (the chest in Standby).
pub const CYAN: Rgb = Rgb::new(0.0, 1.0, 1.0);

impl GameLeds {
    /// The LEDs for `game_state`.
    pub fn of(game_state: &GameState) -> Self {
        GameLeds {
            chest: chest(game_state),
            left_foot: team_colour(game_state.own_colour),
            right_foot: kick_off(game_state),
        }
    }
}

/// The chest: red while penalised, else the state's colour.
fn chest(game_state: &GameState) -> Rgb {
    if game_state.is_penalized() {
        return Rgb::RED;
    }
    match game_state.state {
        PlayState::Initial | PlayState::Finished => Rgb::OFF,
        PlayState::Standby => CYAN,
        PlayState::Ready => Rgb::BLUE,
        PlayState::Set => YELLOW,
        PlayState::Playing => Rgb::GREEN,
    }
}

/// A team colour as the foot LED can show it. Black cannot be lit: it is off, which a referee
/// tells apart from every other colour. Gray is a dim white; brown a dim orange.
pub fn team_colour(colour: TeamColour) -> Rgb {
    match colour {
        TeamColour::Blue => Rgb::BLUE,
        TeamColour::Red => Rgb::RED,
        TeamColour::Yellow => YELLOW,
        TeamColour::Black => Rgb::OFF,
        TeamColour::White => Rgb::WHITE,
        TeamColour::Green => Rgb::GREEN,
        TeamColour::Orange => Rgb::new(1.0, 0.5, 0.0),
        TeamColour::Purple => Rgb::new(0.5, 0.0, 1.0),
        TeamColour::Brown => Rgb::new(0.4, 0.2, 0.0),
        TeamColour::Gray => Rgb::new(0.3, 0.3, 0.3),
    }
}

/// The right foot: white before the kick-off of the team that takes it.
fn kick_off(game_state: &GameState) -> Rgb {
    let before_kick_off = matches!(
        game_state.state,
        PlayState::Initial | PlayState::Standby | PlayState::Ready | PlayState::Set
    );
    if before_kick_off && game_state.own_team_is_kicking == Some(true) {
        Rgb::WHITE
    } else {
        Rgb::OFF
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::Penalty;

    fn in_state(state: PlayState) -> GameState {
        GameState {
            state,
            ..GameState::default()
        }
    }

    #[test]
    fn the_chest_shows_every_state_as_the_rules_ask() {
        let expected = [
            (PlayState::Initial, Rgb::OFF),
            (PlayState::Standby, CYAN),
            (PlayState::Ready, Rgb::BLUE),
            (PlayState::Set, YELLOW),
            (PlayState::Playing, Rgb::GREEN),
            (PlayState::Finished, Rgb::OFF),
        ];
        for (state, colour) in expected {
            assert_eq!(GameLeds::of(&in_state(state)).chest, colour, "{state:?}");
        }
    }

    #[test]
    fn a_penalised_robot_has_a_red_chest_in_every_state() {
        for state in [
            PlayState::Initial,
            PlayState::Standby,
            PlayState::Ready,
            PlayState::Set,
            PlayState::Playing,
            PlayState::Finished,
        ] {
            let game_state = GameState {
                penalty: Some(Penalty::IllegalMotionInSet),
                ..in_state(state)
            };
            assert_eq!(GameLeds::of(&game_state).chest, Rgb::RED, "{state:?}");
        }
    }

    #[test]
    fn the_left_foot_shows_every_team_colour_and_they_differ() {
        let colours = [
            TeamColour::Blue,
            TeamColour::Red,
            TeamColour::Yellow,
            TeamColour::Black,
            TeamColour::White,
            TeamColour::Green,
            TeamColour::Orange,
            TeamColour::Purple,
            TeamColour::Brown,
            TeamColour::Gray,
        ];
        let shown: Vec<Rgb> = colours
            .iter()
            .map(|&own_colour| {
                GameLeds::of(&GameState {
                    own_colour,
                    ..in_state(PlayState::Playing)
                })
                .left_foot
            })
            .collect();
        assert_eq!(shown[0], Rgb::BLUE);
        assert_eq!(shown[1], Rgb::RED);
        assert_eq!(shown[3], Rgb::OFF);
        for (index, colour) in shown.iter().enumerate() {
            for other in &shown[index + 1..] {
                assert_ne!(
                    colour, other,
                    "{:?} looks like another colour",
                    colours[index]
                );
            }
        }
        // The team colour does not depend on the state or a penalty.
        let penalised = GameState {
            own_colour: TeamColour::Red,
            penalty: Some(Penalty::Manual),
            ..in_state(PlayState::Finished)
        };
        assert_eq!(GameLeds::of(&penalised).left_foot, Rgb::RED);
    }

    #[test]
    fn the_right_foot_is_lit_before_our_kick_off_only() {
        for state in [
            PlayState::Initial,
            PlayState::Standby,
            PlayState::Ready,
            PlayState::Set,
        ] {
            for (kicking, lit) in [(Some(true), true), (Some(false), false), (None, false)] {
                let game_state = GameState {
                    own_team_is_kicking: kicking,
                    ..in_state(state)
                };
                let expected = if lit { Rgb::WHITE } else { Rgb::OFF };
                assert_eq!(
                    GameLeds::of(&game_state).right_foot,
                    expected,
                    "{state:?} {kicking:?}"
                );
            }
        }
        for state in [PlayState::Playing, PlayState::Finished] {
            let game_state = GameState {
                own_team_is_kicking: Some(true),
                ..in_state(state)
            };
            assert_eq!(GameLeds::of(&game_state).right_foot, Rgb::OFF, "{state:?}");
        }
    }
}
