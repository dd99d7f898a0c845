//! Turns what the behaviour asked for into the requests the other processes act on.

use framework::{NoParameters, Update};
use types::{BehaviourRequest, LedRequest, MotionRequest, SoundRequest};

/// Splits the behaviour's [`BehaviourRequest`] into the [`MotionRequest`] (for `motion`), the
/// [`LedRequest`] (for the LoLA bridge) and the [`SoundRequest`] (for `audio`).
#[derive(Debug)]
pub struct BehaviourRequestTranslator;

framework::module! {
    BehaviourRequestTranslator {
        inputs: BehaviourRequestTranslatorInputs,
        requires: { behaviour_request: BehaviourRequest },
        uses: {},
        provides: { MotionRequest, LedRequest, SoundRequest },
    }
}

impl BehaviourRequestTranslator {
    fn new(_: NoParameters) -> Self {
        BehaviourRequestTranslator
    }
}

impl Update<MotionRequest> for BehaviourRequestTranslator {
    fn update(&mut self, inputs: &BehaviourRequestTranslatorInputs, output: &mut MotionRequest) {
        output.body.clone_from(&inputs.behaviour_request.body);
        output.head.clone_from(&inputs.behaviour_request.head);
    }
}

impl Update<LedRequest> for BehaviourRequestTranslator {
    fn update(&mut self, inputs: &BehaviourRequestTranslatorInputs, output: &mut LedRequest) {
        *output = inputs.behaviour_request.leds.to_led_request();
    }
}

impl Update<SoundRequest> for BehaviourRequestTranslator {
    fn update(&mut self, inputs: &BehaviourRequestTranslatorInputs, output: &mut SoundRequest) {
        output.clone_from(&inputs.behaviour_request.sound);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use framework::{Blackboard, Module};
    use types::{BehaviourLeds, BodyMotion, Colour, ColouredLight, HeadMotionRequest, Rgb, Sound};

    #[test]
    fn every_part_of_the_request_reaches_its_output() {
        let request = BehaviourRequest {
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
                chest: ColouredLight::new(Colour::Green, 1.0),
                ..Default::default()
            },
            sound: SoundRequest::default().next(Sound::Say {
                text: "hello".into(),
            }),
        };
        let mut blackboard = Blackboard::new();
        blackboard.insert(request.clone());
        blackboard.insert(MotionRequest::default());
        blackboard.insert(LedRequest::default());
        blackboard.insert(SoundRequest::default());
        let mut translator = BehaviourRequestTranslator::new(NoParameters {});
        for name in ["MotionRequest", "LedRequest", "SoundRequest"] {
            assert!(translator.update_named(name, &mut blackboard).unwrap());
        }
        let motion = blackboard.get::<MotionRequest>().unwrap();
        assert_eq!(motion.body, request.body);
        assert_eq!(motion.head, request.head);
        assert_eq!(blackboard.get::<LedRequest>().unwrap().chest, Rgb::GREEN);
        assert_eq!(blackboard.get::<SoundRequest>().unwrap(), &request.sound);
    }
}
