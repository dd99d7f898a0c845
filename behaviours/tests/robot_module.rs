//! The `robot` Python module: every request field reaches the Rust request, every bad value is
//! refused with a message that names the field, and the blackboard shows the representations
//! read-only. Python-side tests in `tests/python/test_robot.py` run here too.

mod common;

use behaviours::request::PyBehaviourRequest;
use behaviours::view::PyBlackboard;
use behaviours::{prepare_interpreter, BlackboardSnapshot};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::CString;
use types::{
    BehaviourLeds, BehaviourTeam, BodyMotion, Colour, ColouredLight, FallDirection, FallPhase,
    HeadMotionRequest, PlayState, Side, Sound, TeamIntention, TeamRole,
};

/// Runs `code` with `request = robot.BehaviourRequest()` and returns the request in Rust.
fn request_after(code: &str) -> Result<types::BehaviourRequest, String> {
    prepare_interpreter().unwrap();
    Python::attach(|py| {
        let globals = PyDict::new(py);
        let code = CString::new(format!(
            "import robot\nrequest = robot.BehaviourRequest()\n{code}\n"
        ))
        .unwrap();
        py.run(&code, Some(&globals), None)
            .map_err(|error| error.to_string())?;
        let request = globals.get_item("request").unwrap().unwrap();
        let request = request.cast::<PyBehaviourRequest>().unwrap();
        let converted = request.borrow().to_rust(py);
        Ok(converted)
    })
}

#[test]
fn every_body_motion_round_trips() {
    let cases: [(&str, BodyMotion); 7] = [
        ("request.body.stand()", BodyMotion::Stand),
        ("request.body.sit()", BodyMotion::Sit),
        ("request.body.unstiff()", BodyMotion::Unstiff),
        (
            "request.body.walk(x=0.25, y=-0.125, turn=0.5)",
            BodyMotion::Walk {
                forward_m_per_s: 0.25,
                left_m_per_s: -0.125,
                turn_rad_per_s: 0.5,
            },
        ),
        (
            "request.body.walk(0.1)",
            BodyMotion::Walk {
                forward_m_per_s: 0.1,
                left_m_per_s: 0.0,
                turn_rad_per_s: 0.0,
            },
        ),
        (
            "request.body.special_action('stand_up_back')",
            BodyMotion::SpecialAction {
                name: "stand_up_back".into(),
            },
        ),
        (
            "request.body.kick('Right', direction=-0.5, strength=0.75)",
            BodyMotion::Kick {
                foot: Side::Right,
                direction_rad: -0.5,
                strength: 0.75,
            },
        ),
    ];
    for (code, expected) in cases {
        assert_eq!(request_after(code).unwrap().body, expected, "{code}");
    }
}

#[test]
fn head_leds_and_sound_round_trip() {
    let request = request_after(
        "request.head.yaw = -1.5\nrequest.head.pitch = 0.25\nrequest.head.speed = 4\n\
         request.leds.left_eye = 'Red'\nrequest.leds.right_eye = ('Blue', 0.5)\n\
         request.leds.left_ear = ('Blue', 0.25)\nrequest.leds.right_ear = 'White'\n\
         request.leds.chest = ('Green', 0.75)\nrequest.leds.left_foot = 'Yellow'\n\
         request.leds.right_foot = ('Purple', 0.125)\nrequest.leds.skull = ('White', 1)\n\
         request.sound.say('hello')",
    )
    .unwrap();
    assert_eq!(
        request.head,
        HeadMotionRequest {
            yaw_rad: -1.5,
            pitch_rad: 0.25,
            max_speed_rad_per_s: 4.0
        }
    );
    assert_eq!(
        request.leds,
        BehaviourLeds {
            left_eye: ColouredLight::new(Colour::Red, 1.0),
            right_eye: ColouredLight::new(Colour::Blue, 0.5),
            left_ear: ColouredLight::new(Colour::Blue, 0.25),
            right_ear: ColouredLight::new(Colour::White, 1.0),
            chest: ColouredLight::new(Colour::Green, 0.75),
            left_foot: ColouredLight::new(Colour::Yellow, 1.0),
            right_foot: ColouredLight::new(Colour::Purple, 0.125),
            skull: ColouredLight::new(Colour::White, 1.0),
        }
    );
    assert_eq!(
        request.sound.sound,
        Some(Sound::Say {
            text: "hello".into()
        })
    );
    let played = request_after("request.sound.play('whistle')").unwrap();
    assert_eq!(
        played.sound.sound,
        Some(Sound::Play {
            name: "whistle".into()
        })
    );
    let grouped =
        request_after("request.leds.ears('Blue', 0.5)\nrequest.leds.feet('Cyan')").unwrap();
    assert_eq!(
        grouped.leds.right_ear,
        ColouredLight::new(Colour::Blue, 0.5)
    );
    assert_eq!(
        grouped.leds.left_foot,
        ColouredLight::new(Colour::Cyan, 1.0)
    );
    let looked = request_after("request.head.look(0.5, -0.5, speed=1)").unwrap();
    assert_eq!((looked.head.yaw_rad, looked.head.pitch_rad), (0.5, -0.5));
}

#[test]
fn the_team_part_reaches_the_rust_request() {
    assert_eq!(
        request_after("").unwrap().team,
        BehaviourTeam::default(),
        "a new request tells the team nothing"
    );
    let team = request_after(
        "request.team.role = 'Supporter'\nrequest.team.intention = 'Pass'\n\
         request.team.pass_to(4)\nrequest.team.walk_target(-1200, 2500.5)",
    )
    .unwrap()
    .team;
    assert_eq!(
        team,
        BehaviourTeam {
            role: TeamRole::Supporter,
            intention: TeamIntention::Pass,
            pass_target: Some(4),
            walk_target_mm: [-1200.0, 2500.5],
        }
    );
    // A refused value fails the tick (the error policy's request follows, see engine.rs).
    let error = request_after("request.team.role = 'striker'").unwrap_err();
    assert!(
        error.starts_with(
            "ValueError: BehaviourRequest.team.role: \"striker\" is spelled \"Striker\""
        ),
        "{error}"
    );
}

#[test]
fn every_bad_value_is_refused_naming_its_field() {
    let cases = [
        (
            "request.head.yaw = 5.0",
            "ValueError: BehaviourRequest.head.yaw: 5.0 is outside -2.09..2.09 rad",
        ),
        (
            "request.head.yaw = 'left'",
            "TypeError: BehaviourRequest.head.yaw: expected a number, got str 'left'",
        ),
        (
            "request.head.pitch = 1.0",
            "ValueError: BehaviourRequest.head.pitch: 1.0 is outside -0.67..0.51 rad",
        ),
        (
            "request.head.speed = -1",
            "ValueError: BehaviourRequest.head.speed: -1.0 is outside 0.00..8.00 rad/s",
        ),
        (
            "request.head.speed = float('inf')",
            "ValueError: BehaviourRequest.head.speed: inf is not a finite number",
        ),
        (
            "request.head.yaw = None",
            "TypeError: BehaviourRequest.head.yaw: expected a number, got NoneType None",
        ),
        (
            "request.head.look(0.0, 2.0)",
            "ValueError: BehaviourRequest.head.pitch: 2.0 is outside",
        ),
        (
            "request.body.walk(x=150)",
            "ValueError: BehaviourRequest.body.walk.x: 150.0 is outside -1.00..1.00 m/s",
        ),
        (
            "request.body.walk(y='fast')",
            "TypeError: BehaviourRequest.body.walk.y: expected a number",
        ),
        (
            "request.body.walk(turn=45)",
            "ValueError: BehaviourRequest.body.walk.turn: 45.0 is outside -3.14..3.14 rad/s",
        ),
        (
            "request.body.kick('up')",
            "ValueError: BehaviourRequest.body.kick.foot: \"up\" is not a foot (Left, Right)",
        ),
        (
            "request.body.kick(1)",
            "TypeError: BehaviourRequest.body.kick.foot: expected a str",
        ),
        (
            "request.body.kick('Left', direction=7)",
            "ValueError: BehaviourRequest.body.kick.direction: 7.0 is outside",
        ),
        (
            "request.body.kick('Left', strength=-0.5)",
            "ValueError: BehaviourRequest.body.kick.strength: -0.5 is outside 0.00..1.00",
        ),
        (
            "request.body.special_action('')",
            "ValueError: BehaviourRequest.body.special_action.name: \"\" is not a name",
        ),
        (
            "request.body.special_action(None)",
            "TypeError: BehaviourRequest.body.special_action.name: expected a str",
        ),
        (
            "request.leds.chest = 'pink'",
            "ValueError: BehaviourRequest.leds.chest: \"pink\" is not a colour (Off, White, Red",
        ),
        (
            "request.leds.chest = ('Red', 2)",
            "ValueError: BehaviourRequest.leds.chest intensity: 2.0 is outside 0.00..1.00",
        ),
        (
            "request.leds.chest = ('Red',)",
            "TypeError: BehaviourRequest.leds.chest: expected a colour name or (colour, intensity)",
        ),
        (
            "request.leds.skull = 1",
            "TypeError: BehaviourRequest.leds.skull: expected a colour name",
        ),
        (
            "request.leds.eyes('Red', 3)",
            "ValueError: BehaviourRequest.leds.eyes intensity: 3.0 is outside",
        ),
        (
            "request.leds.feet('black')",
            "ValueError: BehaviourRequest.leds.feet: \"black\" is not a colour",
        ),
        (
            "request.leds.nose = 'Red'",
            "AttributeError: BehaviourRequest.leds has no LED group \"nose\"",
        ),
        (
            "request.sound.say('')",
            "ValueError: BehaviourRequest.sound.say: the text must have 1 to 200 characters",
        ),
        (
            "request.sound.say(b'hi')",
            "TypeError: BehaviourRequest.sound.say: expected a str, got bytes",
        ),
        (
            "request.sound.play('../../bin/sh')",
            "ValueError: BehaviourRequest.sound.play: \"../../bin/sh\" is not a name",
        ),
        ("request.head.yw = 1.0", "AttributeError"),
    ];
    for (code, expected) in cases {
        let error = request_after(code).expect_err(code);
        assert!(
            error.starts_with(expected),
            "{code}:\n  got      {error}\n  expected {expected}"
        );
    }
}

#[test]
fn python_side_tests_pass() {
    prepare_interpreter().unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/test_robot.py");
    let source = CString::new(std::fs::read_to_string(&path).unwrap()).unwrap();
    Python::attach(|py| {
        let module = PyModule::from_code(py, &source, c"test_robot.py", c"test_robot").unwrap();
        let mut count = 0;
        for name in module.dir().unwrap() {
            let name: String = name.extract().unwrap();
            if name.starts_with("test_") {
                if let Err(error) = module.getattr(name.as_str()).unwrap().call0() {
                    panic!("{name}: {error}");
                }
                count += 1;
            }
        }
        assert!(count >= 6, "ran {count} Python tests");
    });
}

#[test]
fn the_blackboard_shows_representations_read_only() {
    prepare_interpreter().unwrap();
    let mut snapshot = BlackboardSnapshot::default();
    snapshot.sensor_data.touch.chest_button = true;
    snapshot.sensor_data.joint_positions_rad.values[1] = 0.25;
    snapshot.game_state.state = PlayState::Playing;
    snapshot.game_state.penalty = Some(types::Penalty::Manual);
    snapshot.fall_state.phase = FallPhase::Fallen;
    snapshot.fall_state.direction = FallDirection::Backward;
    snapshot.motion_info.executed_request.body = BodyMotion::Walk {
        forward_m_per_s: 0.5,
        left_m_per_s: 0.0,
        turn_rad_per_s: 0.0,
    };
    snapshot.frame_info.cycle = 7;
    Python::attach(|py| {
        let blackboard = Py::new(py, PyBlackboard::new(snapshot)).unwrap();
        let globals = PyDict::new(py);
        globals.set_item("blackboard", blackboard).unwrap();
        py.run(
            c"
import robot
assert blackboard.sensors.touch.chest_button is True
assert blackboard.sensors.touch.head_front is False
assert blackboard.sensors.joint_positions_rad[robot.JOINTS.HeadPitch] == 0.25
assert len(blackboard.sensors.joint_positions_rad) == 25
assert blackboard.game_state.state == 'Playing'
assert blackboard.game_state.penalty == 'Manual'
assert blackboard.fall_state.phase == 'Fallen'
assert blackboard.fall_state.direction == 'Backward'
walk = blackboard.motion_info.executed_request.body
assert walk.kind == 'Walk' and walk.forward_m_per_s == 0.5, walk
assert blackboard.frame_info.cycle == 7
assert blackboard.game_state is blackboard.game_state  # converted once per tick
for action in (
    lambda: setattr(blackboard.game_state, 'state', 'Finished'),
    lambda: setattr(blackboard, 'game_state', None),
    lambda: setattr(blackboard.sensors.touch, 'chest_button', False),
):
    try:
        action()
    except AttributeError:
        pass
    else:
        raise AssertionError('the blackboard was changed')
assert blackboard.game_state.state == 'Playing'
",
            Some(&globals),
            None,
        )
        .inspect_err(|error| error.display(py))
        .unwrap();
    });
}
