//! System tests of issue 17 ("A team's first day") with the real binary: the player and team
//! number of `settings.toml` and `--set settings.…` reach `GameState` and the Python blackboard.

mod support;

use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};
use support::{copy_dir, Instance};

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
