//! Turns what the behaviour asked for into the requests the other processes act on, and
//! enforces what the SPL rules demand whatever the behaviour asked:
//!
//! - **a penalised robot stands still**: its [`MotionRequest`] is `Stand` with the head straight
//!   ahead, whatever the behaviour (or a failing behaviour) asked for;
//! - **the chest and feet show the game state** ([`GameLeds`]); the eyes, ears and skull are the
//!   behaviour's.
//!
//! Both are here, in Rust, so that a Python error or a careless behaviour cannot break a rule.
//!
//! It also provides the [`TeamMessageRequest`] (what the network process tells the team mates
//! within the message budget): role, intention, pass target and walk target are the
//! behaviour's (`request.team`; a failing behaviour's request says role and intention `None`);
//! pose and ball are `None` (sent as "unknown") until localisation and a ball model exist; and
//! `priority_events` goes up by one when a whistle is newly heard ([`WhistleState`], from the
//! audio process), so that the next message goes out as a priority one.

use crate::game_leds::GameLeds;
use framework::{NoParameters, Update};
use types::{
    BehaviourRequest, BodyMotion, GameState, HeadMotionRequest, LedRequest, MotionRequest,
    SoundRequest, TeamMessageRequest, WhistleState,
};

/// Splits the behaviour's [`BehaviourRequest`] into the [`MotionRequest`] (for `motion`), the
/// [`LedRequest`] (for the LoLA bridge), the [`SoundRequest`] (for `audio`) and the
/// [`TeamMessageRequest`] (for `network`), with the [`GameState`]'s rules on top (see the
/// module documentation).
#[derive(Debug, Default)]
pub struct BehaviourRequestTranslator {
    whistles: NewWhistles,
    /// Whistles newly heard since this module started: `TeamMessageRequest::priority_events`.
    priority_events: u64,
}

framework::module! {
    BehaviourRequestTranslator {
        inputs: BehaviourRequestTranslatorInputs,
        requires: { behaviour_request: BehaviourRequest, game_state: GameState },
        // From the audio process: a newly heard whistle is a priority event for the team.
        uses: { whistle_state: WhistleState },
        provides: { MotionRequest, LedRequest, SoundRequest, TeamMessageRequest },
    }
}

impl BehaviourRequestTranslator {
    fn new(_: NoParameters) -> Self {
        Self::default()
    }

    /// What the team mates are told, given the behaviour's `request` and the `whistle` at
    /// `now_ns` (monotonic).
    pub fn team_message_request(
        &mut self,
        request: &BehaviourRequest,
        whistle: &WhistleState,
        now_ns: u64,
    ) -> TeamMessageRequest {
        if self.whistles.heard_new(whistle, now_ns) {
            self.priority_events += 1;
        }
        let team = &request.team;
        TeamMessageRequest {
            role: team.role,
            intention: team.intention,
            pass_target: team.pass_target,
            // No localisation and no ball model yet: the team mates hear "pose unknown" (sent
            // as 0, 0, 0) and "ball never seen" rather than a guess.
            pose: None,
            ball: None,
            walk_target_mm: team.walk_target_mm,
            priority_events: self.priority_events,
        }
    }
}

/// Recognises a newly heard whistle by its time (`WhistleState::last_whistle_ns`), not by the
/// detector's counter, as [`KickOffWhistle`](crate::KickOffWhistle) does: a restarted `audio`
/// (whose counter starts again at 0) invents none, and a whistle heard before this module's
/// first tick (before a restart of cognition) is old news, not a priority event.
#[derive(Debug, Default)]
struct NewWhistles {
    /// This module's first tick, monotonic ns.
    since_ns: Option<u64>,
    /// The newest whistle already counted, monotonic ns.
    newest_ns: Option<u64>,
}

impl NewWhistles {
    fn heard_new(&mut self, whistle: &WhistleState, now_ns: u64) -> bool {
        let since_ns = *self.since_ns.get_or_insert(now_ns);
        match whistle.last_whistle_ns {
            Some(whistle_ns)
                if whistle_ns >= since_ns
                    && self
                        .newest_ns
                        .is_none_or(|newest_ns| whistle_ns > newest_ns) =>
            {
                self.newest_ns = Some(whistle_ns);
                true
            }
            _ => false,
        }
    }
}

impl Update<MotionRequest> for BehaviourRequestTranslator {
    fn update(&mut self, inputs: &BehaviourRequestTranslatorInputs, output: &mut MotionRequest) {
        if inputs.game_state.is_penalized() {
            output.body = BodyMotion::Stand;
            output.head = HeadMotionRequest::default();
            return;
        }
        output.body.clone_from(&inputs.behaviour_request.body);
        output.head.clone_from(&inputs.behaviour_request.head);
    }
}

impl Update<LedRequest> for BehaviourRequestTranslator {
    fn update(&mut self, inputs: &BehaviourRequestTranslatorInputs, output: &mut LedRequest) {
        *output = inputs.behaviour_request.leds.to_led_request();
        let game = GameLeds::of(inputs.game_state);
        output.chest = game.chest;
        output.left_foot = game.left_foot;
        output.right_foot = game.right_foot;
    }
}

impl Update<SoundRequest> for BehaviourRequestTranslator {
    fn update(&mut self, inputs: &BehaviourRequestTranslatorInputs, output: &mut SoundRequest) {
        output.clone_from(&inputs.behaviour_request.sound);
    }
}

impl Update<TeamMessageRequest> for BehaviourRequestTranslator {
    fn update(
        &mut self,
        inputs: &BehaviourRequestTranslatorInputs,
        output: &mut TeamMessageRequest,
    ) {
        *output = self.team_message_request(
            inputs.behaviour_request,
            inputs.whistle_state,
            framework::clock::now_ns(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_leds::{CYAN, YELLOW};
    use framework::{Blackboard, Module};
    use types::{
        BehaviourLeds, BehaviourTeam, Colour, ColouredLight, Penalty, PlayState, Rgb, Sound,
        TeamColour, TeamIntention, TeamRole,
    };

    pub(super) fn walking_request() -> BehaviourRequest {
        BehaviourRequest {
            body: BodyMotion::Walk {
                forward_m_per_s: 0.2,
                left_m_per_s: 0.0,
                turn_rad_per_s: 0.3,
            },
            head: HeadMotionRequest {
                yaw_rad: 0.5,
                pitch_rad: -0.1,
                max_speed_rad_per_s: 1.5,
            },
            leds: BehaviourLeds {
                left_eye: ColouredLight::new(Colour::Magenta, 1.0),
                right_ear: ColouredLight::new(Colour::Blue, 0.5),
                chest: ColouredLight::new(Colour::Purple, 1.0),
                left_foot: ColouredLight::new(Colour::Cyan, 1.0),
                right_foot: ColouredLight::new(Colour::Orange, 1.0),
                skull: ColouredLight::new(Colour::White, 1.0),
                ..Default::default()
            },
            sound: SoundRequest::default().next(Sound::Say {
                text: "hello".into(),
            }),
            team: BehaviourTeam {
                role: TeamRole::Striker,
                intention: TeamIntention::Pass,
                pass_target: Some(4),
                walk_target_mm: [1500.0, -750.0],
            },
        }
    }

    /// Runs the translator once on `request` in `game_state`.
    fn translate(
        request: &BehaviourRequest,
        game_state: GameState,
    ) -> (MotionRequest, LedRequest, SoundRequest) {
        let mut blackboard = Blackboard::new();
        blackboard.insert(request.clone());
        blackboard.insert(game_state);
        blackboard.insert(MotionRequest::default());
        blackboard.insert(LedRequest::default());
        blackboard.insert(SoundRequest::default());
        blackboard.insert(WhistleState::default());
        blackboard.insert(TeamMessageRequest::default());
        let mut translator = BehaviourRequestTranslator::new(NoParameters {});
        for name in [
            "MotionRequest",
            "LedRequest",
            "SoundRequest",
            "TeamMessageRequest",
        ] {
            assert!(translator.update_named(name, &mut blackboard).unwrap());
        }
        (
            blackboard.get::<MotionRequest>().unwrap().clone(),
            blackboard.get::<LedRequest>().unwrap().clone(),
            blackboard.get::<SoundRequest>().unwrap().clone(),
        )
    }

    pub(super) fn in_state(state: PlayState) -> GameState {
        GameState {
            state,
            ..GameState::default()
        }
    }

    #[test]
    fn every_part_of_the_request_reaches_its_output_while_playing() {
        let request = walking_request();
        let (motion, leds, sound) = translate(&request, in_state(PlayState::Playing));
        assert_eq!(motion.body, request.body);
        assert_eq!(motion.head, request.head);
        assert_eq!(leds.left_eye.segments[0], Rgb::new(1.0, 0.0, 1.0));
        assert_eq!(leds.right_ear.intensities, [0.5; 10]);
        assert_eq!(leds.skull.rear_left_2, 1.0);
        assert_eq!(sound, request.sound);
    }

    #[test]
    fn the_chest_and_feet_show_the_game_state_not_the_behaviour() {
        let request = walking_request();
        let expected = [
            (PlayState::Initial, Rgb::OFF),
            (PlayState::Standby, CYAN),
            (PlayState::Ready, Rgb::BLUE),
            (PlayState::Set, YELLOW),
            (PlayState::Playing, Rgb::GREEN),
            (PlayState::Finished, Rgb::OFF),
        ];
        for (state, chest) in expected {
            let game_state = GameState {
                own_colour: TeamColour::Red,
                own_team_is_kicking: Some(true),
                ..in_state(state)
            };
            let (_, leds, _) = translate(&request, game_state);
            assert_eq!(leds.chest, chest, "{state:?}");
            assert_eq!(leds.left_foot, Rgb::RED, "{state:?}");
            let kick_off = if matches!(state, PlayState::Playing | PlayState::Finished) {
                Rgb::OFF
            } else {
                Rgb::WHITE
            };
            assert_eq!(leds.right_foot, kick_off, "{state:?}");
            // The behaviour's eyes stay.
            assert_eq!(
                leds.left_eye.segments[3],
                Rgb::new(1.0, 0.0, 1.0),
                "{state:?}"
            );
        }
    }

    #[test]
    fn a_penalised_robot_stands_still_with_a_red_chest_whatever_the_behaviour_asks() {
        let mut request = walking_request();
        for body in [
            request.body.clone(),
            BodyMotion::Kick {
                foot: types::Side::Right,
                direction_rad: 0.0,
                strength: 1.0,
            },
            BodyMotion::Sit,
            BodyMotion::SpecialAction {
                name: "stand_up_back".into(),
            },
        ] {
            request.body = body.clone();
            for state in [PlayState::Set, PlayState::Playing] {
                let game_state = GameState {
                    penalty: Some(Penalty::PlayerPushing),
                    own_colour: TeamColour::Blue,
                    ..in_state(state)
                };
                let (motion, leds, sound) = translate(&request, game_state);
                assert_eq!(motion.body, BodyMotion::Stand, "{body:?} in {state:?}");
                assert_eq!(motion.head, HeadMotionRequest::default(), "{body:?}");
                assert_eq!(leds.chest, Rgb::RED);
                assert_eq!(leds.left_foot, Rgb::BLUE);
                // Sounds and eyes are still the behaviour's.
                assert_eq!(sound, request.sound);
                assert_eq!(leds.left_eye.segments[0], Rgb::new(1.0, 0.0, 1.0));
            }
        }
        // Unpenalised again: the behaviour's motion is back.
        let (motion, _, _) = translate(&request, in_state(PlayState::Playing));
        assert_eq!(motion.body, request.body);
    }
}

#[cfg(test)]
#[path = "behaviour_request_translator_team_tests.rs"]
mod team_tests;
