//! System tests of the Python behaviour (issue 6) with the real binary: an edit reaches the
//! published BehaviourRequest within a second without a cognition restart; a syntax error keeps
//! the old code; an exception gives the error stance, flashing LEDs and "Python error", and the
//! fix recovers; an endless loop is interrupted; `cortex sync --local` reaches a running system;
//! sync over real ssh to a local sshd.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::{copy_dir, Instance};

/// A copy of the shipped behaviour package.
fn behaviour_copy() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let target = folder.path().join("python");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &target,
    );
    (folder, target)
}

/// Writes a file the way an editor does: a new file renamed over the old one.
fn save(path: &Path, text: &str) {
    let temporary = path.with_extension("py.saving");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

const SIT: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.sit()\n    request.leds.chest = 'Green'\n    return request\n";
const BROKEN_SYNTAX: &str =
    "import robot\n\ndef tick(blackboard)\n    return robot.BehaviourRequest()\n";
const RAISES: &str = "import robot\n\ndef tick(blackboard):\n    raise RuntimeError('the behaviour is broken on purpose')\n";
const ENDLESS: &str = "import robot\n\ndef tick(blackboard):\n    while True:\n        pass\n";

/// Waits until the published BehaviourRequest satisfies `condition`; returns it and the time.
fn wait_request(
    instance: &Instance,
    what: &str,
    timeout: Duration,
    condition: impl Fn(&Value) -> bool,
) -> (Value, Duration) {
    let started = Instant::now();
    loop {
        let request = instance.get("BehaviourRequest");
        if condition(&request) {
            return (request, started.elapsed());
        }
        assert!(
            started.elapsed() < timeout,
            "{what}: the request is still {request}\nlog:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn start_with(folder: &Path, name: &str) -> Instance {
    Instance::start(name, &["--behaviours", folder.to_str().unwrap()])
}

#[test]
fn an_edit_is_running_within_a_second_and_a_syntax_error_keeps_the_old_code() {
    let (_folder, behaviours) = behaviour_copy();
    let instance = start_with(&behaviours, "hot-reload");
    wait_request(
        &instance,
        "the shipped behaviour stands",
        Duration::from_secs(10),
        |r| r["body"] == "Stand",
    );
    let cognition = instance.pid("cognition");

    save(&behaviours.join("behaviour.py"), SIT);
    let (request, took) = wait_request(&instance, "the edit", Duration::from_secs(5), |r| {
        r["body"] == "Sit"
    });
    assert!(took < Duration::from_secs(1), "the edit took {took:?}");
    assert_eq!(request["leds"]["chest"]["colour"], "Green");
    assert_eq!(instance.pid("cognition"), cognition, "no cognition restart");

    save(&behaviours.join("behaviour.py"), BROKEN_SYNTAX);
    std::thread::sleep(Duration::from_millis(500));
    let request = instance.get("BehaviourRequest");
    assert_eq!(request["body"], "Sit", "the old code keeps running");
    let log = instance.log();
    assert!(
        log.contains("SyntaxError") && log.contains("behaviour.py"),
        "the error is reported:\n{log}"
    );
    assert_eq!(instance.pid("cognition"), cognition);
}

#[test]
fn an_exception_gives_the_error_stance_and_the_fix_recovers() {
    let (_folder, behaviours) = behaviour_copy();
    let instance = start_with(&behaviours, "exception");
    wait_request(
        &instance,
        "the shipped behaviour",
        Duration::from_secs(10),
        |r| r["body"] == "Stand",
    );
    save(&behaviours.join("behaviour.py"), SIT);
    wait_request(&instance, "sitting", Duration::from_secs(5), |r| {
        r["body"] == "Sit"
    });

    save(&behaviours.join("behaviour.py"), RAISES);
    let (request, _) = wait_request(&instance, "the error stance", Duration::from_secs(5), |r| {
        r["body"] == "Stand"
    });
    let sound = instance.get("SoundRequest");
    assert_eq!(sound["sound"]["Say"]["text"], "Python error", "{sound}");
    // The LEDs flash: the eye colour changes over time.
    let mut colours = std::collections::BTreeSet::new();
    let until = Instant::now() + Duration::from_millis(1200);
    while Instant::now() < until {
        colours.insert(instance.get("BehaviourRequest")["leds"]["left_eye"]["colour"].to_string());
        std::thread::sleep(Duration::from_millis(40));
    }
    assert!(
        colours.len() >= 2,
        "the LEDs flash: {colours:?} ({request})"
    );
    assert!(
        instance
            .log()
            .contains("the behaviour is broken on purpose"),
        "the traceback is logged"
    );

    save(&behaviours.join("behaviour.py"), SIT);
    wait_request(&instance, "recovery", Duration::from_secs(5), |r| {
        r["body"] == "Sit" && r["leds"]["chest"]["colour"] == "Green"
    });
}

#[test]
fn an_endless_loop_is_interrupted_and_cognition_keeps_ticking() {
    let (_folder, behaviours) = behaviour_copy();
    let instance = start_with(&behaviours, "endless");
    wait_request(
        &instance,
        "the shipped behaviour",
        Duration::from_secs(10),
        |r| r["body"] == "Stand",
    );
    let cognition = instance.pid("cognition");
    save(&behaviours.join("behaviour.py"), ENDLESS);
    std::thread::sleep(Duration::from_millis(500));
    let before = instance.process("cognition").ticks;
    std::thread::sleep(Duration::from_millis(1000));
    let after = instance.process("cognition");
    assert_eq!(
        after.pid.map(|pid| pid as i32),
        Some(cognition),
        "interrupted, not restarted"
    );
    assert!(
        after.ticks > before + 10,
        "cognition keeps ticking: {before} then {after}"
    );
    assert_eq!(
        instance.get("SoundRequest")["sound"]["Say"]["text"],
        "Python error"
    );
    save(&behaviours.join("behaviour.py"), SIT);
    wait_request(&instance, "recovery", Duration::from_secs(5), |r| {
        r["body"] == "Sit"
    });
}

#[test]
fn sync_to_a_local_folder_reaches_a_system_running_from_it() {
    if Command::new("rsync").arg("--version").output().is_err() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let destination = tempfile::tempdir().unwrap();
    let output = Command::new(support::cortex())
        .args(["sync", "--local"])
        .arg(destination.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cortex sync: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(destination.path().join("behaviours/behaviour.py").exists());
    assert!(destination
        .path()
        .join("config/default/processes.toml")
        .exists());
    let instance = Instance::start(
        "sync-local",
        &[
            "--behaviours",
            destination.path().to_str().unwrap(),
            "--config-dir",
            destination.path().join("config").to_str().unwrap(),
        ],
    );
    wait_request(
        &instance,
        "the synced behaviour",
        Duration::from_secs(10),
        |r| r["body"] == "Stand",
    );
    // An edit in the destination folder reaches the running system.
    save(&destination.path().join("behaviours/behaviour.py"), SIT);
    wait_request(
        &instance,
        "the edit in the synced folder",
        Duration::from_secs(5),
        |r| r["body"] == "Sit",
    );
    // A second sync of the (unchanged) source restores the shipped behaviour, and says what changed.
    let output = Command::new(support::cortex())
        .args(["sync", "--local"])
        .arg(destination.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("behaviour.py"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    wait_request(
        &instance,
        "the shipped behaviour again",
        Duration::from_secs(5),
        |r| r["body"] == "Stand",
    );
}

#[test]
fn sync_over_real_ssh_to_a_local_sshd() {
    let sshd = match testkit::sshd::Sshd::start() {
        Ok(sshd) => sshd,
        Err(reason) => {
            eprintln!("SKIPPED sync over ssh: {reason}");
            return;
        }
    };
    let remote = tempfile::tempdir().unwrap();
    let user = sshd.user.clone();
    // ssh options for this sshd: its client key and host key.
    let ssh_config = sshd.ssh_config();
    let output = Command::new(support::cortex())
        .args([
            "sync",
            &format!("{user}@127.0.0.1"),
            "--port",
            &sshd.port.to_string(),
            "--remote-dir",
        ])
        .arg(remote.path())
        .arg("--ssh-config")
        .arg(&ssh_config)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cortex sync over ssh: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(remote.path().join("behaviours/behaviour.py").exists());
    assert!(remote.path().join("config/settings.toml").exists());
    assert!(!remote.path().join("behaviours/__pycache__").exists());
}

/// `cortex sync` to the local sshd with `extra` arguments into `remote_dir`.
fn sync_over_ssh(sshd: &testkit::sshd::Sshd, remote_dir: &Path, extra: &[&str]) -> String {
    let output = Command::new(support::cortex())
        .args([
            "sync",
            &format!("{}@127.0.0.1", sshd.user),
            "--port",
            &sshd.port.to_string(),
            "--remote-dir",
        ])
        .arg(remote_dir)
        .arg("--ssh-config")
        .arg(sshd.ssh_config())
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "cortex sync over ssh {extra:?}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn sync_to_a_robot_keeps_its_own_settings_and_a_dry_run_makes_no_folder() {
    let sshd = match testkit::sshd::Sshd::start() {
        Ok(sshd) => sshd,
        Err(reason) => {
            eprintln!("SKIPPED sync keeps the robot's settings: {reason}");
            return;
        }
    };
    let remote = tempfile::tempdir().unwrap();

    // A dry run into folders the robot does not have yet lists the files and makes nothing.
    let fresh = remote.path().join("cortex/deeper");
    let stdout = sync_over_ssh(&sshd, &fresh, &["--dry-run"]);
    assert!(
        stdout.contains("dry run") && stdout.contains("behaviour.py"),
        "{stdout}"
    );
    assert!(
        !remote.path().join("cortex").exists(),
        "the dry run made {}",
        remote.path().join("cortex").display()
    );

    // A robot without settings gets the repository's.
    sync_over_ssh(&sshd, &fresh, &[]);
    let settings = fresh.join("config/settings.toml");
    let shipped = std::fs::read_to_string(config::default_root().join("settings.toml")).unwrap();
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), shipped);

    // What `cortex deploy` wrote stays, through a sync that deletes what the source lacks and
    // through a dry run, and is neither listed as a change nor as deleted.
    let own = "# the robot's own\nteam_number = 7\nplayer_number = 4\n";
    std::fs::write(&settings, own).unwrap();
    std::fs::write(fresh.join("config/stray.toml"), "x = 1\n").unwrap();
    let stdout = sync_over_ssh(&sshd, &fresh, &["--dry-run"]);
    assert!(!stdout.contains("settings.toml"), "{stdout}");
    assert!(stdout.contains("config/stray.toml"), "{stdout}");
    let stdout = sync_over_ssh(&sshd, &fresh, &[]);
    assert!(!stdout.contains("settings.toml"), "{stdout}");
    assert!(stdout.contains("config/stray.toml"), "{stdout}");
    assert!(!fresh.join("config/stray.toml").exists());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), own);
}
