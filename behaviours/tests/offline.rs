//! Offline behaviour tests: `behaviour-pytest` runs pytest against `tick()` with hand-written
//! blackboards and the real `robot` module. The shipped example passes; a failing test fails
//! the run; a blackboard with a wrong key or value is refused naming it.

use std::path::Path;
use std::process::{Command, Output};

/// Whether the runner's interpreter finds pytest (the linked `libpython`, helped by the
/// `python3` on `PATH`); prints SKIPPED when it does not.
fn pytest_available() -> bool {
    let folder = tempfile::tempdir().unwrap();
    let output = behaviour_pytest(&[folder.path()]);
    let missing = String::from_utf8_lossy(&output.stderr).contains("No module named 'pytest'");
    if missing {
        eprintln!("SKIPPED: pytest is not installed for the embedded Python (python3 -m pip install pytest)");
    }
    !missing
}

fn behaviour_pytest(arguments: &[&Path]) -> Output {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new(env!("CARGO_BIN_EXE_behaviour-pytest"))
        .arg("--behaviours")
        .arg(manifest.join("python"))
        .args(arguments)
        .arg("-q")
        .output()
        .expect("running behaviour-pytest")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_shipped_offline_example_passes() {
    if !pytest_available() {
        return;
    }
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/offline");
    let output = behaviour_pytest(&[&example]);
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    // Every test of the example ran and passed (their count grows with the behaviour).
    let passed = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .find(|pair| pair[1] == "passed")
        .and_then(|pair| pair[0].parse::<u32>().ok());
    assert!(passed.is_some_and(|count| count >= 23), "{text}");
    assert!(!text.contains("failed"), "{text}");
}

#[test]
fn a_failing_offline_test_fails_the_run_and_bad_blackboards_are_named() {
    if !pytest_available() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("test_wrong.py"),
        "import behaviour, robot\n\n\
         def test_expects_sitting_while_playing():\n    \
             assert behaviour.tick(robot.Blackboard(game_state={'state': 'Playing'})).body.kind == 'Sit'\n\n\
         def test_a_typo_in_the_blackboard():\n    \
             robot.Blackboard(sensors={'touch': {'chest_buton': True}})\n\n\
         def test_a_wrong_type():\n    \
             robot.Blackboard(game_state={'player_number': 'three'})\n",
    )
    .unwrap();
    let output = behaviour_pytest(&[folder.path()]);
    let text = text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("3 failed"), "{text}");
    assert!(text.contains("AssertionError"), "{text}");
    assert!(
        text.contains("sensors.touch.chest_buton is not a field"),
        "{text}"
    );
    assert!(
        text.contains("robot.Blackboard: game_state: invalid type: string \"three\""),
        "{text}"
    );
}
