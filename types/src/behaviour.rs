//! What the Python behaviour asks of the robot each cognition tick: [`BehaviourRequest`].
//!
//! The behaviour speaks in simple terms — a colour and an intensity per LED group — and
//! [`BehaviourLeds::to_led_request`] turns that into the full [`LedRequest`]. What it tells its
//! team mates ([`BehaviourTeam`]: role, intention, pass target, walk target) becomes cognition's
//! `TeamMessageRequest`, which the network process sends within the message budget.

use serde::{Deserialize, Serialize};

use super::leds::{EarLeds, EyeLeds, LedRequest, Rgb, SkullLeds};
use super::motion::{BodyMotion, HeadMotionRequest};
use super::network::{TeamIntention, TeamRole};
use super::sound::SoundRequest;

/// Named colours a behaviour can choose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Colour {
    #[default]
    Off,
    White,
    Red,
    Green,
    Blue,
    Yellow,
    Cyan,
    Magenta,
    Orange,
    Purple,
}

impl Colour {
    /// The colour at full intensity.
    pub const fn rgb(self) -> Rgb {
        match self {
            Colour::Off => Rgb::new(0.0, 0.0, 0.0),
            Colour::White => Rgb::new(1.0, 1.0, 1.0),
            Colour::Red => Rgb::new(1.0, 0.0, 0.0),
            Colour::Green => Rgb::new(0.0, 1.0, 0.0),
            Colour::Blue => Rgb::new(0.0, 0.0, 1.0),
            Colour::Yellow => Rgb::new(1.0, 1.0, 0.0),
            Colour::Cyan => Rgb::new(0.0, 1.0, 1.0),
            Colour::Magenta => Rgb::new(1.0, 0.0, 1.0),
            Colour::Orange => Rgb::new(1.0, 0.5, 0.0),
            Colour::Purple => Rgb::new(0.5, 0.0, 1.0),
        }
    }
}

/// A colour at an intensity 0..1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColouredLight {
    pub colour: Colour,
    pub intensity: f32,
}

impl ColouredLight {
    pub const fn new(colour: Colour, intensity: f32) -> Self {
        Self { colour, intensity }
    }

    /// The resulting RGB value.
    pub fn rgb(self) -> Rgb {
        self.colour.rgb().scaled(self.intensity)
    }

    /// Brightness for a single-colour LED: the intensity, or 0 when the colour is `Off`.
    pub fn brightness(self) -> f32 {
        if self.colour == Colour::Off {
            0.0
        } else {
            Rgb::WHITE.scaled(self.intensity).red
        }
    }
}

/// LEDs by group. Ears (blue) and skull (white) have one colour in hardware: only their
/// brightness ([`ColouredLight::brightness`]) is shown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BehaviourLeds {
    pub left_eye: ColouredLight,
    pub right_eye: ColouredLight,
    pub left_ear: ColouredLight,
    pub right_ear: ColouredLight,
    pub chest: ColouredLight,
    pub left_foot: ColouredLight,
    pub right_foot: ColouredLight,
    pub skull: ColouredLight,
}

impl BehaviourLeds {
    /// Every LED of each group set to the group's colour.
    pub fn to_led_request(&self) -> LedRequest {
        LedRequest {
            left_ear: EarLeds::uniform(self.left_ear.brightness()),
            right_ear: EarLeds::uniform(self.right_ear.brightness()),
            left_eye: EyeLeds::uniform(self.left_eye.rgb()),
            right_eye: EyeLeds::uniform(self.right_eye.rgb()),
            chest: self.chest.rgb(),
            left_foot: self.left_foot.rgb(),
            right_foot: self.right_foot.rgb(),
            skull: SkullLeds::uniform(self.skull.brightness()),
        }
    }
}

/// What the behaviour tells its team mates. The default (role and intention `None`, no pass
/// target, walk target 0, 0) is also what a failing behaviour says: nothing a team mate could
/// rely on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BehaviourTeam {
    pub role: TeamRole,
    pub intention: TeamIntention,
    /// The player (1–20) this robot is about to pass to.
    pub pass_target: Option<u8>,
    /// Where this robot walks to, field coordinates mm (0, 0 the centre, +x towards the
    /// opponent goal).
    pub walk_target_mm: [f32; 2],
}

/// Everything one behaviour tick asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BehaviourRequest {
    pub body: BodyMotion,
    pub head: HeadMotionRequest,
    pub leds: BehaviourLeds,
    pub sound: SoundRequest,
    pub team: BehaviourTeam,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sound::Sound;

    #[test]
    fn leds_convert_by_group() {
        let leds = BehaviourLeds {
            left_eye: ColouredLight::new(Colour::Red, 0.5),
            right_eye: ColouredLight::new(Colour::Blue, 1.0),
            left_ear: ColouredLight::new(Colour::Blue, 0.25),
            skull: ColouredLight::new(Colour::Off, 1.0),
            chest: ColouredLight::new(Colour::Green, 2.0),
            ..Default::default()
        };
        let request = leds.to_led_request();
        assert_eq!(request.left_eye.segments[3], Rgb::new(0.5, 0.0, 0.0));
        assert_eq!(request.right_eye.segments[7], Rgb::BLUE);
        assert_eq!(request.left_ear.intensities, [0.25; 10]);
        assert_eq!(request.right_ear.intensities, [0.0; 10]);
        assert_eq!(request.skull.front_left_0, 0.0);
        assert_eq!(request.chest, Rgb::GREEN);
        assert_eq!(
            BehaviourLeds::default().to_led_request(),
            LedRequest::default()
        );
    }

    #[test]
    fn behaviour_request_round_trips() {
        let request = BehaviourRequest {
            body: BodyMotion::Stand,
            head: HeadMotionRequest {
                yaw_rad: 0.4,
                pitch_rad: 0.2,
                max_speed_rad_per_s: 3.0,
            },
            leds: BehaviourLeds {
                chest: ColouredLight::new(Colour::Orange, 1.0),
                ..Default::default()
            },
            sound: SoundRequest::default().next(Sound::Say {
                text: "hello".into(),
            }),
            team: BehaviourTeam {
                role: TeamRole::Striker,
                intention: TeamIntention::Pass,
                pass_target: Some(3),
                walk_target_mm: [1500.0, -200.0],
            },
        };
        let bytes = rmp_serde::to_vec_named(&request).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<BehaviourRequest>(&bytes).unwrap(),
            request
        );
    }

    #[test]
    fn a_request_written_before_the_team_part_decodes_with_the_default_team() {
        #[derive(Serialize)]
        struct Before {
            body: BodyMotion,
        }
        let bytes = rmp_serde::to_vec_named(&Before {
            body: BodyMotion::Stand,
        })
        .unwrap();
        let request = rmp_serde::from_slice::<BehaviourRequest>(&bytes).unwrap();
        assert_eq!(request.body, BodyMotion::Stand);
        assert_eq!(request.team, BehaviourTeam::default());
        assert_eq!(request.team.role, TeamRole::None);
    }
}
