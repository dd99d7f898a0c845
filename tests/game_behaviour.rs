//! What the robot does with the game state, with the real binary (issue 14, items 3 and 6):
//! the chest and feet show the state as the SPL rules ask and a penalised robot stands, whatever
//! the behaviour asks and even while it fails.
//!
//! The game state is driven by the simulated chest button (Initial → Playing → Penalized →
//! Playing) and by GameController packets on the loopback (every state, a penalty, the kicking
//! team); team mates' messages reach the Python blackboard. Each test has its own instance, run
//! directory and UDP ports (ports found free, passed with `--set`, as in `tests/network.rs`).

mod support;

use serde_json::Value;
use spl_network::fake_game_controller::GameSetup;
use spl_network::team_mate_peer::TeamMatePeer;
use spl_network::{Penalty, State};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::game_controller::GameController;
use support::{copy_dir, Instance};

/// Our team and player; the opponent is the GameController's first team (blue), so we are red.
const TEAM: u8 = 7;
const OPPONENT: u8 = 30;
const PLAYER: u8 = 2;

/// A behaviour that tries to break every rule: walks always, and paints the chest purple and
/// the feet orange.
const REBEL: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.walk(x=0.2)\n    request.leds.chest = 'Purple'\n    request.leds.feet('Orange')\n    request.leds.eyes('Magenta')\n    return request\n";

/// A behaviour that fails at every tick.
const FAILING: &str = "def tick(blackboard):\n    raise RuntimeError('broken on purpose')\n";

/// A copy of the shipped behaviours with `behaviour.py` replaced by `code`.
fn behaviours_with(folder: &Path, code: &str) -> PathBuf {
    let behaviours = folder.join("python");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &behaviours,
    );
    std::fs::write(behaviours.join("behaviour.py"), code).unwrap();
    behaviours
}

/// Polls `cortex get NAME --json` until `condition` holds; panics with the last value after
/// `timeout` (a generous wait on a loaded machine, not a speed check).
fn wait_get(
    instance: &Instance,
    name: &str,
    what: &str,
    condition: impl Fn(&Value) -> bool,
) -> Value {
    let timeout = Duration::from_secs(30);
    let started = Instant::now();
    loop {
        let value = instance.get(name);
        if condition(&value) {
            return value;
        }
        assert!(
            started.elapsed() < timeout,
            "{what}: {name} is still {value}\nlog:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An LED colour of `cortex get LedRequest --json` as (red, green, blue).
fn rgb(value: &Value) -> (f64, f64, f64) {
    let channel = |name: &str| {
        value[name]
            .as_f64()
            .unwrap_or_else(|| panic!("no {name} in {value}"))
    };
    (channel("red"), channel("green"), channel("blue"))
}

const OFF: (f64, f64, f64) = (0.0, 0.0, 0.0);
const WHITE: (f64, f64, f64) = (1.0, 1.0, 1.0);
const YELLOW: (f64, f64, f64) = (1.0, 1.0, 0.0);
const RED: (f64, f64, f64) = (1.0, 0.0, 0.0);
const GREEN: (f64, f64, f64) = (0.0, 1.0, 0.0);
const BLUE: (f64, f64, f64) = (0.0, 0.0, 1.0);

fn state_is(state: &'static str, penalised: bool) -> impl Fn(&Value) -> bool {
    move |game: &Value| game["state"] == state && game["penalty"].is_null() != penalised
}

/// A short chest press (a long one would finish the game).
fn press_chest(instance: &Instance) {
    let reply = instance.simulator_command("press chest 200");
    assert!(reply.starts_with("pressed"), "{reply}");
}

#[test]
fn the_chest_and_feet_follow_the_game_state_and_a_penalised_robot_stands_whatever_python_asks() {
    let folder = tempfile::tempdir().unwrap();
    let behaviours = behaviours_with(folder.path(), REBEL);
    let instance = Instance::start(
        "game-behaviour-rebel",
        &["--behaviours", behaviours.to_str().unwrap()],
    );

    // Initial: the chest is off although the behaviour paints it; the left foot shows the team
    // colour (blue without a GameController), the right foot no kick-off; the eyes are the
    // behaviour's.
    wait_get(
        &instance,
        "GameState",
        "Initial",
        state_is("Initial", false),
    );
    let leds = wait_get(&instance, "LedRequest", "the rebel runs", |leds| {
        rgb(&leds["left_eye"]["segments"][0]) == (1.0, 0.0, 1.0)
    });
    assert_eq!(rgb(&leds["chest"]), OFF, "{leds}");
    assert_eq!(rgb(&leds["left_foot"]), BLUE, "{leds}");
    assert_eq!(rgb(&leds["right_foot"]), OFF, "{leds}");
    // Not penalised: the behaviour's motion goes through.
    let motion = instance.get("MotionRequest");
    assert!(motion["body"]["Walk"].is_object(), "{motion}");

    // Playing: green.
    press_chest(&instance);
    wait_get(
        &instance,
        "GameState",
        "Playing",
        state_is("Playing", false),
    );
    wait_get(&instance, "LedRequest", "a green chest", |leds| {
        rgb(&leds["chest"]) == GREEN
    });

    // Penalised: red, and the motion request is Stand with the head straight ahead although
    // the behaviour still asks to walk.
    press_chest(&instance);
    wait_get(
        &instance,
        "GameState",
        "penalised",
        state_is("Playing", true),
    );
    wait_get(&instance, "LedRequest", "a red chest", |leds| {
        rgb(&leds["chest"]) == RED && rgb(&leds["left_foot"]) == BLUE
    });
    let motion = wait_get(&instance, "MotionRequest", "standing", |motion| {
        motion["body"] == "Stand"
    });
    assert_eq!(motion["head"]["yaw_rad"], 0.0, "{motion}");
    assert_eq!(motion["head"]["pitch_rad"], 0.0, "{motion}");
    let request = instance.get("BehaviourRequest");
    assert!(
        request["body"]["Walk"].is_object(),
        "the behaviour still asks to walk: {request}"
    );

    // Unpenalised: the behaviour walks again, the chest is green again.
    press_chest(&instance);
    wait_get(
        &instance,
        "GameState",
        "Playing again",
        state_is("Playing", false),
    );
    wait_get(&instance, "MotionRequest", "walking again", |motion| {
        motion["body"]["Walk"].is_object()
    });
    wait_get(&instance, "LedRequest", "green again", |leds| {
        rgb(&leds["chest"]) == GREEN
    });
}

#[test]
fn a_failing_behaviour_cannot_change_what_the_chest_shows() {
    let folder = tempfile::tempdir().unwrap();
    let behaviours = behaviours_with(folder.path(), FAILING);
    let instance = Instance::start(
        "game-behaviour-failing",
        &["--behaviours", behaviours.to_str().unwrap()],
    );
    // The error policy flashes every group of the behaviour's request red/blue…
    wait_get(
        &instance,
        "BehaviourRequest",
        "the error policy",
        |request| {
            request["leds"]["chest"]["colour"] == "Red"
                || request["leds"]["chest"]["colour"] == "Blue"
        },
    );
    // …but the chest shows Initial (off), and after a press Playing (green), steadily.
    wait_get(
        &instance,
        "GameState",
        "Initial",
        state_is("Initial", false),
    );
    for _ in 0..10 {
        let leds = instance.get("LedRequest");
        assert_eq!(rgb(&leds["chest"]), OFF, "{leds}");
        assert_eq!(rgb(&leds["left_foot"]), BLUE, "{leds}");
        std::thread::sleep(Duration::from_millis(60));
    }
    press_chest(&instance);
    wait_get(
        &instance,
        "GameState",
        "Playing",
        state_is("Playing", false),
    );
    wait_get(&instance, "LedRequest", "a green chest", |leds| {
        rgb(&leds["chest"]) == GREEN
    });
    for _ in 0..10 {
        let leds = instance.get("LedRequest");
        assert_eq!(rgb(&leds["chest"]), GREEN, "{leds}");
        std::thread::sleep(Duration::from_millis(60));
    }
}

/// A GameController of the game between team 30 (kicking off) and team 7, sending to the robot's
/// port every 500 ms.
fn start_game_controller(robot_port: u16) -> GameController {
    let mut setup = GameSetup::new(OPPONENT, TEAM);
    setup.kicking_team = Some(OPPONENT);
    GameController::start(robot_port, setup, Duration::from_millis(500))
}

/// Player 2 of team 7 running `behaviours`, listening for `game_controller` on
/// `game_controller_port` and for team mates on `team_port`.
fn start_robot(
    name: &str,
    behaviours: &Path,
    game_controller: &GameController,
    game_controller_port: u16,
    team_port: u16,
) -> Instance {
    let sets = [
        format!("settings.team_number={TEAM}"),
        format!("settings.player_number={PLAYER}"),
        "GameControllerInterface.address=127.0.0.1".to_owned(),
        format!("GameControllerInterface.port={game_controller_port}"),
        format!(
            "GameControllerInterface.return_port={}",
            game_controller.port
        ),
        "TeamCommunication.address=127.0.0.1".to_owned(),
        format!(
            "TeamCommunication.port_base={}",
            team_port - u16::from(TEAM)
        ),
        "TeamCommunication.broadcast_address=127.0.0.1".to_owned(),
        "TeamCommunication.broadcast=false".to_owned(),
    ];
    let mut arguments = vec!["--behaviours", behaviours.to_str().unwrap()];
    for set in &sets {
        arguments.push("--set");
        arguments.push(set.as_str());
    }
    Instance::start(name, &arguments)
}

/// Two different free ports, the second above 255 + our team number.
fn two_ports() -> (u16, u16) {
    let game_controller = support::free_udp_port();
    let mut team = support::free_udp_port();
    while team == game_controller || team <= 255 {
        team = support::free_udp_port();
    }
    (game_controller, team)
}

#[test]
fn game_controller_states_and_a_penalty_show_on_the_chest_and_feet_and_the_penalised_robot_stands()
{
    let folder = tempfile::tempdir().unwrap();
    let behaviours = behaviours_with(folder.path(), REBEL);
    let (game_controller_port, team_port) = two_ports();
    let game_controller = start_game_controller(game_controller_port);
    let instance = start_robot(
        "game-behaviour-gc",
        &behaviours,
        &game_controller,
        game_controller_port,
        team_port,
    );

    // Initial from the GameController: chest off, left foot red (our colour as the second
    // team), right foot off (the opponent kicks off).
    wait_get(&instance, "GameState", "the GameController", |game| {
        game["source"] == "GameController" && game["own_colour"] == "Red"
    });
    let leds = wait_get(&instance, "LedRequest", "Initial, red team", |leds| {
        rgb(&leds["left_foot"]) == RED
    });
    assert_eq!(rgb(&leds["chest"]), OFF, "{leds}");
    assert_eq!(rgb(&leds["right_foot"]), OFF, "{leds}");

    // Our kick-off: Ready blue, Set yellow, the right foot lit; Playing green, the foot off.
    game_controller.change(|setup| setup.kicking_team = Some(TEAM));
    for (state, name, chest, right_foot) in [
        (State::Ready, "Ready", BLUE, WHITE),
        (State::Set, "Set", YELLOW, WHITE),
        (State::Playing, "Playing", GREEN, OFF),
    ] {
        game_controller.change(|setup| setup.state = state);
        wait_get(&instance, "GameState", name, state_is(name, false));
        let leds = wait_get(&instance, "LedRequest", name, |leds| {
            rgb(&leds["chest"]) == chest && rgb(&leds["right_foot"]) == right_foot
        });
        assert_eq!(rgb(&leds["left_foot"]), RED, "{name}: {leds}");
        // Not penalised: the behaviour's walk goes through.
        let motion = instance.get("MotionRequest");
        assert!(motion["body"]["Walk"].is_object(), "{name}: {motion}");
    }

    // Penalised by the GameController: red chest, standing with the head straight ahead,
    // although the behaviour asks to walk.
    game_controller.change(|setup| setup.penalties = vec![(TEAM, PLAYER, Penalty::PlayerPushing)]);
    wait_get(
        &instance,
        "GameState",
        "penalised",
        state_is("Playing", true),
    );
    wait_get(&instance, "LedRequest", "a red chest", |leds| {
        rgb(&leds["chest"]) == RED
    });
    let motion = wait_get(&instance, "MotionRequest", "standing", |motion| {
        motion["body"] == "Stand"
    });
    assert_eq!(motion["head"]["yaw_rad"], 0.0, "{motion}");
    assert!(instance.get("BehaviourRequest")["body"]["Walk"].is_object());

    // Unpenalised: walking and green again; then Finished: the chest off.
    game_controller.change(|setup| setup.penalties.clear());
    wait_get(&instance, "MotionRequest", "walking again", |motion| {
        motion["body"]["Walk"].is_object()
    });
    wait_get(&instance, "LedRequest", "green again", |leds| {
        rgb(&leds["chest"]) == GREEN
    });
    game_controller.change(|setup| setup.state = State::Finished);
    wait_get(
        &instance,
        "GameState",
        "Finished",
        state_is("Finished", false),
    );
    wait_get(&instance, "LedRequest", "Finished", |leds| {
        rgb(&leds["chest"]) == OFF && rgb(&leds["left_foot"]) == RED
    });
}

/// A behaviour that shows what it reads of its first team mate: the head turns to
/// 0.1 rad × the mate's player number, and the eyes are green for a goalkeeper that sees the
/// ball (red otherwise, off while no mate is heard).
const READS_TEAM_MATES: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.stand()\n    mates = blackboard.team_mates.players\n    if mates:\n        first = mates[0].message\n        request.head.yaw = 0.1 * first.player_number\n        keeper = first.role == 'Goalkeeper' and first.ball is not None\n        request.leds.eyes('Green' if keeper else 'Red')\n    return request\n";

#[test]
fn a_team_mates_message_reaches_the_python_blackboard() {
    let folder = tempfile::tempdir().unwrap();
    let behaviours = behaviours_with(folder.path(), READS_TEAM_MATES);
    let (game_controller_port, team_port) = two_ports();
    let game_controller = start_game_controller(game_controller_port);
    let instance = start_robot(
        "game-behaviour-mates",
        &behaviours,
        &game_controller,
        game_controller_port,
        team_port,
    );
    // Player 1 (who keeps goal and sees the ball in `TeamMatePeer`'s messages) of our team.
    let target = SocketAddr::from(([127, 0, 0, 1], team_port));
    let mut mate = TeamMatePeer::new(target, TEAM, vec![1]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let request = loop {
        mate.send_round().unwrap();
        let request = instance.get("BehaviourRequest");
        if request["leds"]["left_eye"]["colour"] != "Off" {
            break request;
        }
        assert!(
            Instant::now() < deadline,
            "the behaviour never saw a team mate: {request}\nTeamMates: {}\nlog:\n{}",
            instance.get("TeamMates"),
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(request["leds"]["left_eye"]["colour"], "Green", "{request}");
    let yaw = request["head"]["yaw_rad"].as_f64().unwrap();
    assert!((yaw - 0.1).abs() < 1e-6, "{request}");
}
