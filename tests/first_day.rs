//! System tests of issue 17 ("A team's first day") with the real binary: the player and team
//! number of `settings.toml` and `--set settings.…` reach `GameState` and the Python blackboard;
//! an exception in a nested function is logged with every frame (file, line, function);
//! `robot.log` reaches the system's log.

mod support;

use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};
use support::{config_copy, copy_dir, Instance};

/// A behaviour that says what its blackboard holds, so that the published BehaviourRequest
/// shows the numbers Python saw.
const SAYS_ITS_NUMBERS: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    game = blackboard.game_state\n    request.sound.say(f'player {game.player_number} team {game.team_number}')\n    return request\n";

/// Polls `cortex get NAME --json` until `condition` holds; panics with the last value after
/// `timeout` (a generous wait on a loaded machine, not a speed check).
fn wait_get(
    instance: &Instance,
    name: &str,
    timeout: Duration,
    condition: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    loop {
        let value = instance.get(name);
        if condition(&value) {
            return value;
        }
        assert!(
            started.elapsed() < timeout,
            "{name} is still {value}\nlog:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn set_player_and_team_number_reach_game_state_and_the_python_blackboard() {
    let folder = tempfile::tempdir().unwrap();
    let behaviours = folder.path().join("python");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &behaviours,
    );
    std::fs::write(behaviours.join("behaviour.py"), SAYS_ITS_NUMBERS).unwrap();
    let instance = Instance::start(
        "first-day-numbers",
        &[
            "--set",
            "settings.player_number=3",
            "--set",
            "settings.team_number=42",
            "--behaviours",
            behaviours.to_str().unwrap(),
        ],
    );

    let game_state = wait_get(&instance, "GameState", Duration::from_secs(20), |g| {
        g["player_number"] != 0
    });
    assert_eq!(game_state["player_number"], 3, "{game_state}");
    assert_eq!(game_state["team_number"], 42, "{game_state}");

    let request = wait_get(
        &instance,
        "BehaviourRequest",
        Duration::from_secs(20),
        |r| r.to_string().contains("player "),
    );
    assert!(
        request.to_string().contains("player 3 team 42"),
        "the blackboard's numbers: {request}"
    );
}

#[test]
fn the_numbers_of_settings_toml_reach_game_state() {
    let (_folder, config) = config_copy();
    let settings = config.join("settings.toml");
    let text = std::fs::read_to_string(&settings).unwrap();
    let edited = text
        .lines()
        .map(|line| match line.split('=').next().map(str::trim) {
            Some("player_number") => "player_number = 7".to_owned(),
            Some("team_number") => "team_number = 9".to_owned(),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(edited, text, "settings.toml names both numbers");
    std::fs::write(&settings, edited).unwrap();
    let instance = Instance::start(
        "first-day-settings",
        &["--config-dir", config.to_str().unwrap()],
    );
    let game_state = wait_get(&instance, "GameState", Duration::from_secs(20), |g| {
        g["player_number"] != 0
    });
    assert_eq!(
        (&game_state["player_number"], &game_state["team_number"]),
        (&Value::from(7), &Value::from(9)),
        "{game_state}"
    );
}

/// Logs, then raises two calls deep in another file of the package.
const LOGS_THEN_RAISES: &str = "import robot\nfrom helpers import maths\n\ndef tick(blackboard):\n    robot.log.warning('about to divide by', 0)\n    return maths.ratio(1, 0)\n";
const HELPER: &str =
    "def ratio(a, b):\n    return divide(a, b)\n\ndef divide(a, b):\n    return a / b\n";

#[test]
fn a_nested_exception_is_logged_with_every_frame_and_robot_log_reaches_the_log() {
    let folder = tempfile::tempdir().unwrap();
    let behaviours = folder.path().join("python");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &behaviours,
    );
    std::fs::create_dir_all(behaviours.join("helpers")).unwrap();
    std::fs::write(behaviours.join("helpers/__init__.py"), "").unwrap();
    std::fs::write(behaviours.join("helpers/maths.py"), HELPER).unwrap();
    std::fs::write(behaviours.join("behaviour.py"), LOGS_THEN_RAISES).unwrap();
    let instance = Instance::start(
        "first-day-traceback",
        &["--behaviours", behaviours.to_str().unwrap()],
    );

    let expected = [
        "behaviour.py:5 (tick): about to divide by 0",
        "behaviour.py\", line 6, in tick",
        "maths.py\", line 2, in ratio",
        "maths.py\", line 5, in divide",
        "ZeroDivisionError: division by zero",
    ];
    let started = Instant::now();
    loop {
        let log = instance.log();
        if expected.iter().all(|text| log.contains(text)) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "missing from the log: {:?}\nlog:\n{log}",
            expected
                .iter()
                .filter(|text| !log.contains(*text))
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
