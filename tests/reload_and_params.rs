//! System tests of the plan the supervisor hands its children, `cortex reload`, `cortex set` and
//! `cortex params` (issue 10, items 6 and 7): the real binary against the simulated robot, each
//! test with its own run directory and instance.
//!
//! - A configuration folder broken on disk while the system runs changes nothing: a restarted
//!   child runs the plan its siblings run; `cortex reload` refuses the broken file with its path
//!   and line (exit 78) and nothing is restarted; once fixed, reload runs it.
//! - `cortex set` changes a module's behaviour at its next tick without a new process, refuses
//!   bad values (the old value stays, `cortex params` says so) and survives `cortex restart`.

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use support::{config_copy, Instance, ProcessState, Status};

const LONG: Duration = Duration::from_secs(60);

/// A chest press of the simulated robot, `ms` long.
fn press_chest(instance: &Instance, ms: u64) {
    let reply = instance.simulator_command(&format!("press chest {ms}"));
    assert!(reply.contains("pressed"), "simulator: {reply}");
}

/// The game state's `state` and whether a penalty is set, from `cortex get GameState`.
fn game_state(instance: &Instance) -> (String, bool) {
    let value = instance.get("GameState");
    (
        value["state"].as_str().unwrap_or("?").to_owned(),
        !value["penalty"].is_null(),
    )
}

/// Waits until the game state is `state` (and penalised or not), or panics.
fn wait_for_game_state(instance: &Instance, state: &str, penalised: bool) {
    let deadline = Instant::now() + LONG;
    loop {
        let now = game_state(instance);
        if now == (state.to_owned(), penalised) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the game state stayed {now:?}, expected ({state}, penalised {penalised}); log:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn pids(status: &Status) -> BTreeMap<String, Option<u32>> {
    status
        .processes
        .iter()
        .map(|process| (process.name.clone(), process.pid))
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `cortex params MODULE --json`: the value of `key` and where it came from.
fn parameter(instance: &Instance, module: &str, key: &str) -> serde_json::Value {
    let output = instance.command(&["params", module, "--json"]);
    assert!(
        output.status.success(),
        "cortex params {module}: {}",
        text(&output.stderr)
    );
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).expect("params JSON");
    reply["parameters"]
        .as_array()
        .expect("a parameter list")
        .iter()
        .find(|entry| entry["key"] == key)
        .unwrap_or_else(|| panic!("no `{key}` in {reply}"))
        .clone()
}

#[test]
fn a_broken_file_on_disk_changes_nothing_until_reload_checks_it() {
    let (_folder, config) = config_copy();
    let instance = Instance::start(
        "reload-broken",
        &["--config-dir", config.to_str().expect("a UTF-8 path")],
    );
    let table = config.join("default/processes.toml");
    let original = std::fs::read_to_string(&table).unwrap();

    // A process table that plans what the running processes never planned: a provider that no
    // program has. A child that read it would refuse to start (exit 78: the safe state).
    let broken = original.replacen(
        "JointRequest = \"MotionCombinator\"",
        "JointRequest = \"NoSuchCombinator\"",
        1,
    );
    assert_ne!(broken, original, "the shipped table has changed shape");
    std::fs::write(&table, &broken).unwrap();
    let broken_line = broken
        .lines()
        .position(|line| line.contains("NoSuchCombinator"))
        .unwrap()
        + 1;

    let before = instance.wait_until_all_running(LONG);
    let motion_before = before.process("motion").unwrap().clone();
    support::send_signal(motion_before.pid.unwrap() as i32, 9);
    let after_kill = instance.wait_for("motion back and ticking", LONG, |status| {
        let motion = status.process("motion").unwrap();
        motion.pid.is_some()
            && motion.pid != motion_before.pid
            && motion.state == ProcessState::Running
            && motion.ticks > 0
    });
    assert!(
        after_kill.safe_state.is_none(),
        "safe state after a restart: {after_kill}\n{}",
        instance.log()
    );
    // It stays up (a child that read the broken table would exit again at once).
    std::thread::sleep(Duration::from_secs(1));
    let settled = instance.status();
    let motion = settled.process("motion").unwrap();
    assert_eq!(motion.pid, after_kill.process("motion").unwrap().pid);
    assert_eq!(motion.state, ProcessState::Running);
    assert!(settled.safe_state.is_none(), "{settled}");

    // Reload refuses the broken file, naming it, and changes nothing.
    let refused = instance.command(&["reload"]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(78), "reload: {stderr}");
    assert!(
        stderr.contains(&format!("{}:{broken_line}", table.display())),
        "the refusal names {}:{broken_line}: {stderr}",
        table.display()
    );
    assert!(stderr.contains("NoSuchCombinator"), "{stderr}");
    std::thread::sleep(Duration::from_millis(500));
    let unchanged = instance.wait_until_all_running(LONG);
    assert_eq!(
        pids(&unchanged),
        pids(&settled),
        "a refused reload restarted something"
    );
    assert!(unchanged.safe_state.is_none());

    // A table that renames a process is refused too: reload cannot change which processes run.
    let renamed = original.replacen("name = \"debug\"", "name = \"debugger\"", 1);
    assert_ne!(renamed, original, "the shipped table has no debug process");
    std::fs::write(&table, &renamed).unwrap();
    let refused = instance.command(&["reload"]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(78), "reload: {stderr}");
    assert!(stderr.contains("cannot add, remove or reorder"), "{stderr}");
    assert!(stderr.contains(&table.display().to_string()), "{stderr}");
    assert_eq!(pids(&instance.status()), pids(&settled));

    // Fixed, with a real change: a chest press of 300 ms becomes a long press (→ Finished).
    std::fs::write(&table, &original).unwrap();
    let parameters = config.join("default/GameStateProvider.toml");
    let shipped = std::fs::read_to_string(&parameters).unwrap();
    let changed = shipped.replacen("long_press_ms = 1000", "long_press_ms = 100", 1);
    assert_ne!(changed, shipped, "GameStateProvider.toml has changed shape");
    std::fs::write(&parameters, &changed).unwrap();
    let reloaded = instance.command(&["reload"]);
    let stdout = text(&reloaded.stdout);
    assert!(
        reloaded.status.success(),
        "reload: {stdout}{}",
        text(&reloaded.stderr)
    );
    assert!(
        stdout.contains("default/GameStateProvider.toml"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("processes.toml"),
        "the table is as it was: {stdout}"
    );

    let after = instance.wait_until_all_running(LONG);
    assert!(after.safe_state.is_none(), "{after}");
    // The new plan is generation 2; the bridge still runs the one it was started with.
    assert_eq!(unchanged.plan_generation, 1);
    assert_eq!(after.plan_generation, 2);
    for process in &after.processes {
        let expected = if process.name == "lola" { 1 } else { 2 };
        assert_eq!(process.plan_generation, Some(expected), "{}", process.name);
    }
    let (old, new) = (pids(&unchanged), pids(&after));
    assert_eq!(
        new["lola"], old["lola"],
        "the bridge keeps the robot standing"
    );
    for (name, pid) in &new {
        if name != "lola" {
            assert_ne!(*pid, old[name], "{name} was not restarted by the reload");
        }
    }
    let long_press = parameter(&instance, "GameStateProvider", "long_press_ms");
    assert_eq!(long_press["value"], 100, "{long_press}");
    assert_eq!(long_press["source"], "file");
    assert_eq!(long_press["file"], parameters.display().to_string());

    wait_for_game_state(&instance, "Initial", false);
    press_chest(&instance, 300);
    wait_for_game_state(&instance, "Finished", false);
    drop(instance);
}

#[test]
fn cortex_set_changes_a_parameter_live_refuses_bad_values_and_survives_a_restart() {
    let instance = Instance::start("live-parameters", &[]);
    let cognition = instance.pid("cognition");

    // With the shipped 1000 ms, a 300 ms press is short: Initial → Playing.
    wait_for_game_state(&instance, "Initial", false);
    press_chest(&instance, 300);
    wait_for_game_state(&instance, "Playing", false);
    let shipped = parameter(&instance, "GameStateProvider", "long_press_ms");
    assert_eq!(shipped["value"], 1000);
    assert_eq!(shipped["source"], "file");
    assert!(
        shipped["file"]
            .as_str()
            .is_some_and(|file| file.ends_with("default/GameStateProvider.toml")),
        "{shipped}"
    );

    let set = instance.command(&["set", "GameStateProvider.long_press_ms=100"]);
    assert!(set.status.success(), "cortex set: {}", text(&set.stderr));
    // The module keeps its state (still Playing), and a 300 ms press is now long: → Finished.
    // With the old value it would have been Penalized.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(game_state(&instance), ("Playing".to_owned(), false));
    press_chest(&instance, 300);
    wait_for_game_state(&instance, "Finished", false);
    assert_eq!(
        instance.pid("cognition"),
        cognition,
        "cortex set restarted cognition"
    );
    let live = parameter(&instance, "GameStateProvider", "long_press_ms");
    assert_eq!(live["value"], 100);
    assert_eq!(live["source"], "cortex set");

    // Bad values are refused, naming what is wrong; the old value stays.
    for (assignment, named) in [
        ("GameStateProvider.long_press_ms=0", "long_press_ms"),
        ("GameStateProvider.long_press_ms=-5", "long_press_ms"),
        ("GameStateProvider.long_press_ms=soon", "long_press_ms"),
        ("GameStateProvider.debounce_ms=5000", "debounce_ms"),
        ("GameStateProvider.long_press_msec=100", "long_press_msec"),
        // A second line would reach a restarted child as a second, unchecked override.
        (
            "BehaviourControl.entry_module=behaviour\nLolaBridge.hold_ms=1",
            "control character",
        ),
    ] {
        let refused = instance.command(&["set", assignment]);
        let stderr = text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(78), "{assignment}: {stderr}");
        assert!(stderr.contains(named), "{assignment}: {stderr}");
        assert!(stderr.contains("refused"), "{assignment}: {stderr}");
        let kept = parameter(&instance, "GameStateProvider", "long_press_ms");
        assert_eq!(kept["value"], 100, "after {assignment}: {kept}");
        assert_eq!(kept["source"], "cortex set");
    }
    // What cannot be set live is refused as a usage error.
    for assignment in [
        "settings.player_number=2",
        "NoSuchModule.gain=1",
        "LolaBridge.hold_ms=10",
    ] {
        let refused = instance.command(&["set", assignment]);
        assert_eq!(
            refused.status.code(),
            Some(64),
            "{assignment}: {}",
            text(&refused.stderr)
        );
    }
    assert_eq!(instance.pid("cognition"), cognition);
    assert!(instance.status().safe_state.is_none());

    // The supervisor keeps the value: a restarted cognition starts with it.
    let restarted = instance.command(&["restart", "cognition"]);
    assert!(restarted.status.success(), "{}", text(&restarted.stderr));
    instance.wait_for("cognition restarted and ticking", LONG, |status| {
        let process = status.process("cognition").unwrap();
        process.pid.is_some_and(|pid| pid as i32 != cognition)
            && process.state == ProcessState::Running
            && process.ticks > 0
    });
    let after = parameter(&instance, "GameStateProvider", "long_press_ms");
    assert_eq!(after["value"], 100);
    assert_eq!(after["source"], "cortex set");
    // A fresh game state, and the 300 ms press is long in the new process too.
    wait_for_game_state(&instance, "Initial", false);
    press_chest(&instance, 300);
    wait_for_game_state(&instance, "Finished", false);
    drop(instance);
}
