//! The blackboard shows the whole game state and the team mates, and every enum is spelled one
//! way: its Rust variant name (as `cortex get` prints it), on the blackboard and on the request.
//! `robot.pyi` lists exactly those names, and `robot.Blackboard(...)` takes them back (and
//! nothing else).
//!
//! The variant lists below are checked for completeness by the compiler: a variant added to a
//! representation breaks the `match` in `variants!` until it is added here, and then this test
//! checks its spelling in Python and in the stub.

use behaviours::view::PyBlackboard;
use behaviours::{prepare_interpreter, BlackboardSnapshot};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeSet;
use std::ffi::CString;
use std::fmt::Debug;
use std::path::Path;
use types::{
    BodyMotion, Colour, FieldPose, GamePhase, GameState, GameStateSource, Penalty, PlayState,
    SeenBall, SetPlay, Side, Sound, TeamColour, TeamIntention, TeamMate, TeamMateMessage, TeamRole,
};

/// Every variant of a data-less enum; the `match` fails to compile when one is missing.
macro_rules! variants {
    ($enum:ident: $($variant:ident),* $(,)?) => {{
        #[allow(dead_code)]
        fn exhaustive(value: $enum) {
            match value {
                $($enum::$variant)|* => {}
            }
        }
        vec![$($enum::$variant),*]
    }};
}

/// `expression` evaluated in Python with `blackboard` showing `snapshot`, as `repr()`.
fn python(snapshot: BlackboardSnapshot, expression: &str) -> String {
    prepare_interpreter().unwrap();
    Python::attach(|py| {
        let locals = PyDict::new(py);
        locals
            .set_item(
                "blackboard",
                Py::new(py, PyBlackboard::new(snapshot)).unwrap(),
            )
            .unwrap();
        let code = CString::new(format!("repr({expression})")).unwrap();
        py.eval(&code, None, Some(&locals))
            .unwrap_or_else(|error| panic!("{expression}: {error}"))
            .extract()
            .unwrap()
    })
}

/// The quoted names of the `Literal[...]` that follows `marker` inside `scope` of robot.pyi
/// (`scope` starts the search: a class header, or "" for the whole file).
fn stub_literal(scope: &str, marker: &str) -> BTreeSet<String> {
    let stub =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/robot.pyi"))
            .unwrap();
    let start = stub
        .find(scope)
        .unwrap_or_else(|| panic!("robot.pyi has no `{scope}`"));
    let from = &stub[start..];
    let at = from
        .find(marker)
        .unwrap_or_else(|| panic!("robot.pyi: no `{marker}` after `{scope}`"));
    let literal = &from[at + marker.len()..];
    let end = literal.find(']').unwrap();
    literal[..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn names<T: Debug>(variants: &[T]) -> BTreeSet<String> {
    variants
        .iter()
        .map(|variant| format!("{variant:?}"))
        .collect()
}

/// Each variant, set by `place` into a snapshot, reads in Python at `expression` as its Rust
/// name; the stub's Literal at `scope`/`marker` names exactly those variants.
fn check_enum<T: Debug + Copy>(
    variants: &[T],
    place: impl Fn(&mut BlackboardSnapshot, T),
    expression: &str,
    stub: (&str, &str),
) {
    for &variant in variants {
        let mut snapshot = BlackboardSnapshot::default();
        place(&mut snapshot, variant);
        assert_eq!(
            python(snapshot, expression),
            format!("'{variant:?}'"),
            "{expression}"
        );
    }
    assert_eq!(
        stub_literal(stub.0, stub.1),
        names(variants),
        "robot.pyi {} {}",
        stub.0,
        stub.1
    );
}

#[test]
fn every_game_state_enum_reads_as_its_variant_name_and_the_stub_lists_exactly_those() {
    const GAME_STATE: &str = "class GameState(";
    check_enum(
        &variants!(PlayState: Initial, Ready, Set, Playing, Finished, Standby),
        |snapshot, value| snapshot.game_state.state = value,
        "blackboard.game_state.state",
        (GAME_STATE, "state: Literal["),
    );
    check_enum(
        &variants!(GamePhase: Normal, PenaltyShootout, Overtime, Timeout),
        |snapshot, value| snapshot.game_state.phase = value,
        "blackboard.game_state.phase",
        (GAME_STATE, "phase: Literal["),
    );
    check_enum(
        &variants!(SetPlay: None, GoalKick, PushingFreeKick, CornerKick, KickIn, PenaltyKick),
        |snapshot, value| snapshot.game_state.set_play = value,
        "blackboard.game_state.set_play",
        (GAME_STATE, "set_play: Literal["),
    );
    check_enum(
        &variants!(Penalty:
            IllegalBallContact, PlayerPushing, IllegalMotionInSet, InactivePlayer, IllegalPosition,
            LeavingTheField, RequestForPickup, LocalGameStuck, IllegalPositionInSet, PlayerStance,
            IllegalMotionInStandby, Substitute, Manual,
        ),
        |snapshot, value| snapshot.game_state.penalty = Some(value),
        "blackboard.game_state.penalty",
        ("", "_Penalty = Literal["),
    );
    check_enum(
        &variants!(TeamColour: Blue, Red, Yellow, Black, White, Green, Orange, Purple, Brown, Gray),
        |snapshot, value| snapshot.game_state.own_colour = value,
        "blackboard.game_state.own_colour",
        ("", "_TeamColour = Literal["),
    );
    check_enum(
        &variants!(GameStateSource: Manual, GameController),
        |snapshot, value| snapshot.game_state.source = value,
        "blackboard.game_state.source",
        (GAME_STATE, "source: Literal["),
    );
}

#[test]
fn every_team_mate_enum_reads_as_its_variant_name_and_the_stub_lists_exactly_those() {
    const MESSAGE: &str = "class TeamMateMessage(";
    let with_mate = |snapshot: &mut BlackboardSnapshot, message: TeamMateMessage| {
        snapshot.team_mates.players = vec![TeamMate {
            message,
            ..TeamMate::default()
        }];
    };
    check_enum(
        &variants!(TeamRole: None, Goalkeeper, Striker, Supporter, Defender, Searcher),
        |snapshot, role| {
            with_mate(
                snapshot,
                TeamMateMessage {
                    role,
                    ..TeamMateMessage::default()
                },
            )
        },
        "blackboard.team_mates.players[0].message.role",
        // One Literal for the message's role and the request's (`request.team.role`).
        ("", "_TeamRole = Literal["),
    );
    check_enum(
        &variants!(TeamIntention: None, PlayBall, Pass, WalkToPosition, SearchBall, KeepGoal),
        |snapshot, intention| {
            with_mate(
                snapshot,
                TeamMateMessage {
                    intention,
                    ..TeamMateMessage::default()
                },
            )
        },
        "blackboard.team_mates.players[0].message.intention",
        ("", "_TeamIntention = Literal["),
    );
    let stub =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/robot.pyi"))
            .unwrap();
    for (scope, field) in [
        (MESSAGE, "    role: _TeamRole\n"),
        (MESSAGE, "    intention: _TeamIntention\n"),
        ("class Team:", "    role: _TeamRole\n"),
        ("class Team:", "    intention: _TeamIntention\n"),
    ] {
        let class = &stub[stub.find(scope).unwrap()..];
        let class = &class[..class[1..]
            .find("\nclass ")
            .map_or(class.len(), |end| end + 1)];
        assert!(class.contains(field), "robot.pyi {scope} lacks {field:?}");
    }
}

#[test]
fn the_whole_game_state_and_a_team_mate_reach_python() {
    let mut snapshot = BlackboardSnapshot {
        game_state: GameState {
            state: PlayState::Set,
            phase: GamePhase::Overtime,
            set_play: SetPlay::CornerKick,
            penalty: Some(Penalty::RequestForPickup),
            seconds_until_unpenalised: 27,
            team_number: 5,
            player_number: 3,
            opponent_team_number: 12,
            own_colour: TeamColour::Purple,
            own_score: 2,
            opponent_score: 1,
            first_half: true,
            own_team_is_kicking: Some(false),
            seconds_remaining: 301,
            secondary_seconds_remaining: -4,
            is_goalkeeper: true,
            message_budget: 1099,
            source: GameStateSource::GameController,
        },
        ..BlackboardSnapshot::default()
    };
    snapshot.team_mates.players.push(TeamMate {
        message: TeamMateMessage {
            player_number: 4,
            fallen: true,
            role: TeamRole::Striker,
            pass_target: Some(2),
            pose: FieldPose {
                x_mm: -1500.0,
                y_mm: 250.0,
                angle_rad: 0.5,
            },
            ball: Some(SeenBall {
                position_mm: [300.0, -20.0],
                age_ms: 120,
            }),
            ..TeamMateMessage::default()
        },
        received_ns: 42,
        messages: 7,
    });
    let game_state = python(
        snapshot.clone(),
        "tuple(blackboard.game_state._asdict().items())",
    );
    assert_eq!(
        game_state,
        "(('state', 'Set'), ('phase', 'Overtime'), ('set_play', 'CornerKick'), \
         ('penalty', 'RequestForPickup'), ('seconds_until_unpenalised', 27), ('team_number', 5), \
         ('player_number', 3), ('opponent_team_number', 12), ('own_colour', 'Purple'), \
         ('own_score', 2), ('opponent_score', 1), ('first_half', True), \
         ('own_team_is_kicking', False), ('seconds_remaining', 301), \
         ('secondary_seconds_remaining', -4), ('is_goalkeeper', True), ('message_budget', 1099), \
         ('source', 'GameController'))"
    );
    let mate = "blackboard.team_mates.players[0]";
    assert_eq!(
        python(
            snapshot.clone(),
            &format!(
                "({mate}.message.player_number, {mate}.message.fallen, {mate}.message.pass_target, \
                 {mate}.message.pose.x_mm, {mate}.message.ball.position_mm, {mate}.message.ball.age_ms, \
                 {mate}.received_ns, {mate}.messages, len(blackboard.team_mates.players))"
            )
        ),
        "(4, True, 2, -1500.0, (300.0, -20.0), 120, 42, 7, 1)"
    );
    // Read-only: named tuples and tuples, which Python cannot change.
    assert_eq!(
        python(
            snapshot,
            "(type(blackboard.team_mates).__name__, type(blackboard.team_mates.players).__name__, \
             isinstance(blackboard.team_mates.players[0].message, tuple))"
        ),
        "('TeamMates', 'tuple', True)"
    );
}

/// Runs `code` (which sets `result`) with `robot` imported; returns `repr(result)`.
fn python_run(code: &str) -> String {
    prepare_interpreter().unwrap();
    Python::attach(|py| {
        let globals = PyDict::new(py);
        let code = CString::new(format!("import robot\n{code}\nresult = repr(result)\n")).unwrap();
        py.run(&code, Some(&globals), None)
            .unwrap_or_else(|error| panic!("{error}"));
        globals
            .get_item("result")
            .unwrap()
            .unwrap()
            .extract()
            .unwrap()
    })
}

/// The variant name of an enum value with data (`Walk { .. }` → `Walk`).
fn variant_name<T: Debug>(value: &T) -> String {
    let debug = format!("{value:?}");
    debug
        .split([' ', '(', '{'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_request_spells_its_enums_as_the_rust_variants_too() {
    // Colours: the names Python takes are the variants, all of them, and the stub agrees.
    let colours =
        variants!(Colour: Off, White, Red, Green, Blue, Yellow, Cyan, Magenta, Orange, Purple);
    for (name, colour) in behaviours::request::COLOURS {
        assert_eq!(name, format!("{colour:?}"));
    }
    assert_eq!(
        behaviours::request::COLOURS
            .iter()
            .map(|(name, _)| name.to_string())
            .collect::<BTreeSet<_>>(),
        names(&colours)
    );
    assert_eq!(stub_literal("", "_Colour = Literal["), names(&colours));
    assert_eq!(
        python_run("result = sorted(robot.COLOURS)"),
        format!("{:?}", names(&colours).into_iter().collect::<Vec<_>>()).replace('"', "'")
    );

    // What reads back: the body's kind, the kicking foot, the sound.
    let motions = [
        BodyMotion::Sit,
        BodyMotion::Stand,
        BodyMotion::Unstiff,
        BodyMotion::Walk {
            forward_m_per_s: 0.0,
            left_m_per_s: 0.0,
            turn_rad_per_s: 0.0,
        },
        BodyMotion::WalkTo {
            forward_m: 0.0,
            left_m: 0.0,
            turn_rad: 0.0,
        },
        BodyMotion::SpecialAction { name: "x".into() },
        BodyMotion::Kick {
            foot: Side::Right,
            direction_rad: 0.0,
            strength: 1.0,
        },
    ];
    #[allow(dead_code)]
    fn exhaustive(motion: BodyMotion) {
        match motion {
            BodyMotion::Sit
            | BodyMotion::Stand
            | BodyMotion::Unstiff
            | BodyMotion::Walk { .. }
            | BodyMotion::WalkTo { .. }
            | BodyMotion::SpecialAction { .. }
            | BodyMotion::Kick { .. } => {}
        }
    }
    let sides = variants!(Side: Left, Right);
    let sounds = [
        Sound::Say { text: "a".into() },
        Sound::Play { name: "b".into() },
    ];
    let mut expected: Vec<String> = motions.iter().map(variant_name).collect();
    expected.extend(sides.iter().map(|side| format!("{side:?}")));
    expected.extend(sounds.iter().map(variant_name));
    let read_back = python_run(
        "r = robot.BehaviourRequest()\nresult = []\n\
         for call in (lambda b: b.sit(), lambda b: b.stand(), lambda b: b.unstiff(), lambda b: b.walk(),\n\
                      lambda b: b.walk_to(), lambda b: b.special_action('x'), lambda b: b.kick('Right')):\n    \
             call(r.body)\n    result.append(r.body.kind)\n\
         for foot in ('Left', 'Right'):\n    r.body.kick(foot)\n    result.append(r.body.parameters['foot'])\n\
         r.sound.say('a')\nresult.append(r.sound.request[0])\n\
         r.sound.play('b')\nresult.append(r.sound.request[0])",
    );
    assert_eq!(read_back, format!("{expected:?}").replace('"', "'"));
    assert_eq!(
        stub_literal("class Body:", "def kind(self) -> Literal["),
        motions.iter().map(variant_name).collect::<BTreeSet<_>>()
    );
    assert_eq!(stub_literal("class Body:", "foot: Literal["), names(&sides));
    assert_eq!(
        stub_literal("class Sound:", "Tuple[Literal["),
        sounds.iter().map(variant_name).collect::<BTreeSet<_>>()
    );
}

#[test]
fn a_hand_written_team_mate_is_checked_like_the_game_state() {
    let message = python_run(
        "try:\n    robot.Blackboard(team_mates={'players': [{'message': {'player_number': 3}}, {'mesage': {}}]})\n    result = 'accepted'\nexcept ValueError as error:\n    result = str(error)",
    );
    assert!(
        message.contains("team_mates.players[1].mesage is not a field"),
        "{message}"
    );
    let message = python_run(
        "try:\n    robot.Blackboard(team_mates={'players': [{'message': {'role': 'striker'}}]})\n    result = 'accepted'\nexcept ValueError as error:\n    result = str(error)",
    );
    assert!(message.contains("striker"), "{message}");
    let role = python_run(
        "result = robot.Blackboard(team_mates={'players': [{'message': {'role': 'Striker', 'player_number': 3}}]}).team_mates.players[0].message.role",
    );
    assert_eq!(role, "'Striker'");
}
