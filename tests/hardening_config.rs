//! `cortex check` refuses everything `cortex run` would refuse, and `run` refuses it too before
//! it starts a child (instead of starting and putting the robot into the safe state). Each test
//! breaks a copy of the shipped configuration for real (a TOML error, an unknown key, a NaN, a
//! bad joint in a keyframe motion, a missing motion, a typo in `--set`, out-of-range process
//! table values, an unreadable file …), runs the real binary and checks the exit status and
//! that the message names the file, the line and the key, once.

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{config_copy, cortex};

/// `cortex check --config-dir ROOT ARGS`.
fn check(root: &Path, args: &[&str]) -> Output {
    Command::new(cortex())
        .arg("check")
        .arg("--config-dir")
        .arg(root)
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("running cortex check")
}

/// What `cortex run --sim` did with the configuration at `root`: its exit status and its log.
/// It must end by itself (it refuses); after 60 s it is killed and the test fails.
fn run(name: &str, root: &Path, args: &[&str]) -> (Option<i32>, String) {
    let folder = tempfile::Builder::new()
        .prefix("cortex-hardening-config-")
        .tempdir()
        .unwrap();
    let run_dir = folder.path().join("run");
    let log_path = folder.path().join("log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut child = Command::new(cortex())
        .args(["run", "--sim", "--instance"])
        .arg(format!("hc-{name}-{}", std::process::id()))
        .arg("--run-dir")
        .arg(&run_dir)
        .arg("--config-dir")
        .arg(root)
        .args(args)
        .env("CORTEX_LOG", "info")
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("starting cortex run");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "cortex run did not refuse {name} within 60 s; log:\n{}",
                std::fs::read_to_string(&log_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(
        !run_dir.join("control.sock").exists(),
        "{name}: a refused run leaves its control socket behind"
    );
    // Nothing it started (the simulator, the bridge) outlives it.
    let deadline = Instant::now() + Duration::from_secs(10);
    let run_dir_text = run_dir.display().to_string();
    while !support::pids_mentioning(&run_dir_text).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        support::pids_mentioning(&run_dir_text),
        Vec::<i32>::new(),
        "{name}: processes left running"
    );
    (status.code(), text)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Replaces `from` by `to` in `relative` under `root`; returns the file and the 1-based line
/// of the change.
fn edit(root: &Path, relative: &str, from: &str, to: &str) -> (PathBuf, usize) {
    let path = root.join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    let offset = text
        .find(from)
        .unwrap_or_else(|| panic!("`{from}` is not in {relative}"));
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    (path, text[..offset].matches('\n').count() + 1)
}

/// Asserts that `message` says `what` about `file` (at `line`, if given), once, and nothing
/// panicked.
fn assert_says(case: &str, message: &str, file: &Path, line: Option<usize>, what: &[&str]) {
    let place = match line {
        Some(line) => format!("{}:{line}:", file.display()),
        None => file.display().to_string(),
    };
    assert!(
        message.contains(&place),
        "{case}: expected `{place}` in:\n{message}"
    );
    assert_eq!(
        message.matches(&place).count(),
        1,
        "{case}: the error is printed more than once:\n{message}"
    );
    for what in what {
        assert!(
            message.contains(what),
            "{case}: expected `{what}` in:\n{message}"
        );
    }
    assert!(!message.contains("panicked"), "{case}: {message}");
}

/// A broken configuration: how to break it and what the message must say.
struct Case {
    name: &'static str,
    /// Breaks the copy at `root`; returns the file and line the message must name.
    breaks: fn(&Path) -> (PathBuf, Option<usize>),
    /// Extra arguments for `check` and `run` (`--set …`).
    args: &'static [&'static str],
    /// What else the message must say (the key, the value).
    says: &'static [&'static str],
}

fn with_line((path, line): (PathBuf, usize)) -> (PathBuf, Option<usize>) {
    (path, Some(line))
}

const CASES: &[Case] = &[
    Case {
        name: "toml-syntax",
        breaks: |root| {
            with_line(edit(
                root,
                "default/MotionCombinator.toml",
                "holding_stiffness = 0.25",
                "holding_stiffness = = 0.25",
            ))
        },
        args: &[],
        says: &["not valid TOML"],
    },
    Case {
        name: "unknown-key",
        breaks: |root| {
            with_line(edit(
                root,
                "default/MotionCombinator.toml",
                "holding_stiffness = 0.25",
                "holding_stifness = 0.25",
            ))
        },
        args: &[],
        says: &["unknown key `holding_stifness`", "holding_stiffness"],
    },
    Case {
        name: "nan",
        breaks: |root| {
            with_line(edit(
                root,
                "default/MotionCombinator.toml",
                "holding_stiffness = 0.25",
                "holding_stiffness = nan",
            ))
        },
        args: &[],
        says: &["`holding_stiffness`", "NaN"],
    },
    Case {
        name: "fall-thresholds",
        breaks: |root| {
            with_line(edit(
                root,
                "default/FallStateProvider.toml",
                "falling_tilt_deg = 40.0",
                "falling_tilt_deg = 1e30",
            ))
        },
        args: &[],
        says: &["`falling_tilt_deg`"],
    },
    Case {
        name: "bad-joint",
        breaks: |root| {
            with_line(edit(
                root,
                "default/motions/wave.toml",
                "RightElbowYaw = 90",
                "RightElbowJaw = 90",
            ))
        },
        args: &[],
        says: &["RightElbowJaw"],
    },
    Case {
        name: "joint-range",
        breaks: |root| {
            with_line(edit(
                root,
                "default/motions/wave.toml",
                "RightElbowYaw = 90",
                "RightElbowYaw = 900",
            ))
        },
        args: &[],
        says: &["RightElbowYaw"],
    },
    Case {
        name: "missing-stand",
        breaks: |root| {
            std::fs::remove_file(root.join("default/motions/stand.toml")).unwrap();
            (PathBuf::from("motions/stand.toml"), None)
        },
        args: &[],
        says: &["not found"],
    },
    Case {
        name: "endless-device",
        breaks: |root| {
            let wave = root.join("default/motions/wave.toml");
            std::fs::remove_file(&wave).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &wave).unwrap();
            (wave, None)
        },
        args: &[],
        says: &["not a regular file"],
    },
    Case {
        name: "bridge-stiffness",
        breaks: |root| {
            with_line(edit(
                root,
                "default/LolaBridge.toml",
                "sit_stiffness = 0.6",
                "sit_stiffness = 5",
            ))
        },
        args: &[],
        says: &["sit_stiffness"],
    },
    Case {
        name: "rate",
        breaks: |root| {
            with_line(edit(
                root,
                "default/processes.toml",
                "rate_hz = 30",
                "rate_hz = 1e12",
            ))
        },
        args: &[],
        says: &["rate_hz", "1000000000000"],
    },
    Case {
        name: "cpus",
        breaks: |root| {
            let (path, line) = edit(
                root,
                "default/processes.toml",
                "rate_hz = 30",
                "rate_hz = 30\ncpus = [99]",
            );
            (path, Some(line + 1))
        },
        args: &[],
        says: &["cpus[0]", "99"],
    },
    Case {
        name: "set-module-typo",
        breaks: |_| (PathBuf::from("--set MotionCombinater.x=1"), None),
        args: &["--set", "MotionCombinater.x=1"],
        says: &["MotionCombinator"],
    },
    Case {
        name: "set-unknown-key",
        breaks: |_| (PathBuf::from("--set MotionCombinator.nonexistent=1"), None),
        args: &["--set", "MotionCombinator.nonexistent=1"],
        says: &["unknown key `nonexistent`"],
    },
    Case {
        name: "set-out-of-range",
        breaks: |_| (PathBuf::from("--set LolaBridge.sit_stiffness=5"), None),
        args: &["--set", "LolaBridge.sit_stiffness=5"],
        says: &["sit_stiffness"],
    },
];

#[test]
fn check_refuses_every_broken_configuration_with_78_file_line_and_key() {
    for case in CASES {
        let (_folder, root) = config_copy();
        let (file, line) = (case.breaks)(&root);
        let output = check(&root, case.args);
        assert_eq!(
            output.status.code(),
            Some(78),
            "{}: {}",
            case.name,
            stderr(&output)
        );
        assert_says(case.name, &stderr(&output), &file, line, case.says);
        assert!(
            output.stdout.is_empty(),
            "{}: a refused check prints no graph",
            case.name
        );
    }
    // And the intact copy passes: the cases above fail because of what they break.
    let (_folder, root) = config_copy();
    let output = check(&root, &["--set", "MotionCombinator.holding_stiffness=0.3"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn run_refuses_every_broken_configuration_before_it_starts_a_child() {
    for case in CASES {
        let (_folder, root) = config_copy();
        let (file, line) = (case.breaks)(&root);
        let (code, log) = run(case.name, &root, case.args);
        assert_eq!(code, Some(78), "{}: {log}", case.name);
        assert_says(case.name, &log, &file, line, case.says);
        for started in [
            "processes started",
            "SAFE STATE",
            "LoLA simulator listening",
        ] {
            assert!(
                !log.contains(started),
                "{}: `{started}`: run started before refusing:\n{log}",
                case.name
            );
        }
    }
}

/// The robot's own layer (`robots/alan/`, chosen by the serial numbers the simulated robot
/// reports) breaks a parameter: `check --robot` finds it, and `run` refuses once the bridge
/// has told it which robot it is, before it starts any other child.
#[test]
fn a_broken_robot_layer_is_refused_by_check_and_by_run() {
    let (_folder, root) = config_copy();
    let layer = root.join("robots/alan");
    std::fs::create_dir_all(&layer).unwrap();
    let file = layer.join("MotionCombinator.toml");
    std::fs::write(&file, "# alan's knees\n\nsitting_knee_pitch_deg = inf\n").unwrap();
    let robot = ["--robot", "P0000073A07S94700012", "P0000074A05S93M00061"];
    let output = check(&root, &robot);
    assert_eq!(output.status.code(), Some(78), "{}", stderr(&output));
    assert_says(
        "robot layer",
        &stderr(&output),
        &file,
        Some(3),
        &["`sitting_knee_pitch_deg`", "inf"],
    );
    // Without the robot the layer is not used.
    assert_eq!(check(&root, &[]).status.code(), Some(0));

    let (code, log) = run("robot-layer", &root, &[]);
    assert_eq!(code, Some(78), "{log}");
    // It got as far as the bridge's report of the robot, and no further.
    assert!(log.contains("robot identity"), "{log}");
    assert_says("robot layer (run)", &log, &file, Some(3), &[]);
    assert!(!log.contains("processes started"), "{log}");
    assert!(!log.contains("SAFE STATE"), "{log}");
}

#[test]
fn missing_and_unreadable_inputs_and_bad_command_lines_have_their_own_status() {
    // No configuration at the given root: EX_NOINPUT, naming it.
    let folder = tempfile::tempdir().unwrap();
    let nowhere = folder.path().join("no-such-config");
    let output = check(&nowhere, &[]);
    assert_eq!(output.status.code(), Some(66), "{}", stderr(&output));
    assert_says("no root", &stderr(&output), &nowhere, None, &[]);

    // A parameter file that exists and cannot be read, even by root: a link to the first
    // (never mapped) page of /proc/self/mem reads as EIO. EX_IOERR, naming the file.
    let (_folder, root) = config_copy();
    let file = root.join("default/MotionCombinator.toml");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/proc/self/mem", &file).unwrap();
    let output = check(&root, &[]);
    assert_eq!(output.status.code(), Some(74), "{}", stderr(&output));
    assert_says(
        "unreadable",
        &stderr(&output),
        &file,
        None,
        &["cannot read"],
    );
    let (code, log) = run("unreadable", &root, &[]);
    assert_eq!(code, Some(74), "{log}");
    assert_says("unreadable (run)", &log, &file, None, &["cannot read"]);

    // A bad command line: EX_USAGE, said by the parser.
    let output = Command::new(cortex())
        .args(["check", "--no-such-option"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(64), "{}", stderr(&output));
    assert!(stderr(&output).contains("--no-such-option"));
    let output = Command::new(cortex()).arg("--help").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
}

/// `cortex check | head -1`: the reader goes away before `check` has written; no panic.
#[test]
fn a_reader_that_goes_away_is_no_panic() {
    let mut child = Command::new(cortex())
        .args(["check", "--config-dir"])
        .arg(config::default_root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe before the configuration is loaded and anything printed.
    drop(child.stdout.take());
    let mut errors = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert!(!errors.contains("panicked"), "{errors}");
    assert!(
        status.success() || status.signal() == Some(13),
        "expected success or SIGPIPE, found {status:?}: {errors}"
    );
}

/// Log lines carry colour codes only for a terminal, and never with `NO_COLOR`. A terminal is
/// made with `script` (util-linux); the unknown serial numbers make `check` log a warning.
#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let (_folder, root) = config_copy();
    let command = format!(
        "{} check --config-dir {} --robot UNKNOWN-BODY UNKNOWN-HEAD",
        cortex(),
        root.display()
    );
    let escape = "\u{1b}[";
    // Not a terminal: plain text.
    let output = Command::new("sh")
        .args(["-c", &command])
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let text = stderr(&output);
    assert!(text.contains("UNKNOWN-HEAD"), "{text}");
    assert!(!text.contains(escape), "colour in a pipe: {text:?}");

    let in_terminal = |no_colour: Option<&str>| -> Option<String> {
        let mut script = Command::new("script");
        script.args(["-qec", &command, "/dev/null"]);
        match no_colour {
            Some(value) => script.env("NO_COLOR", value),
            None => script.env_remove("NO_COLOR"),
        };
        let output = script.stdin(Stdio::null()).output().ok()?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.contains("UNKNOWN-HEAD").then_some(text)
    };
    let Some(coloured) = in_terminal(None) else {
        eprintln!("SKIPPED: no `script` to run cortex in a terminal");
        return;
    };
    assert!(
        coloured.contains(escape),
        "no colour in a terminal: {coloured:?}"
    );
    let plain = in_terminal(Some("1")).expect("script ran before");
    assert!(!plain.contains(escape), "colour with NO_COLOR: {plain:?}");
}

/// A robot layer with a process table of its own: `run` starts the processes of the table
/// without the robot's layers, so it refuses a robot that changes them, and `check --robot`
/// says so first.
#[test]
fn a_robot_layer_that_changes_the_process_table_is_refused() {
    let (_folder, root) = config_copy();
    let layer = root.join("robots/alan");
    std::fs::create_dir_all(&layer).unwrap();
    let shipped = std::fs::read_to_string(root.join("default/processes.toml")).unwrap();
    let without_debug = &shipped[..shipped.find("[[process]]\nname = \"debug\"").unwrap()];
    let file = layer.join("processes.toml");
    std::fs::write(&file, without_debug).unwrap();
    let output = check(
        &root,
        &["--robot", "P0000073A07S94700012", "P0000074A05S93M00061"],
    );
    assert_eq!(output.status.code(), Some(78), "{}", stderr(&output));
    assert_says(
        "robot table",
        &stderr(&output),
        &file,
        None,
        &["change the process table"],
    );
    let (code, log) = run("robot-table", &root, &[]);
    assert_eq!(code, Some(78), "{log}");
    assert_says(
        "robot table (run)",
        &log,
        &file,
        None,
        &["change the process table"],
    );
    assert!(!log.contains("processes started"), "{log}");
}

/// A parameter file this user may not read (`chmod 000`; run as `nobody` with `setpriv` when
/// the tests run as root, who reads anything): `check` and `run` end with EX_NOINPUT and the
/// message names the file.
#[test]
fn a_file_this_user_may_not_read_is_named() {
    let (folder, root) = config_copy();
    let file = root.join("default/MotionCombinator.toml");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    let is_root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|line| line.starts_with("Uid:"))
        .and_then(|line| line.split_whitespace().nth(2))
        == Some("0");
    let mut command = if is_root {
        // `nobody` must reach the copy: the temporary folder is private to its owner.
        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut command = Command::new("setpriv");
        command.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
            cortex(),
        ]);
        command
    } else {
        Command::new(cortex())
    };
    let output = command
        .arg("check")
        .arg("--config-dir")
        .arg(&root)
        .env_remove("NO_COLOR")
        .output();
    let Ok(output) = output else {
        eprintln!("SKIPPED: cannot run cortex as another user (no setpriv)");
        return;
    };
    let message = stderr(&output);
    // setpriv's own failures (not allowed to switch, cannot execute cortex) start with its name.
    if is_root && message.starts_with("setpriv:") {
        eprintln!("SKIPPED: setpriv could not run cortex as nobody: {message}");
        return;
    }
    assert_eq!(output.status.code(), Some(66), "{message}");
    assert_says(
        "not readable",
        &message,
        &file,
        None,
        &["cannot read", "Permission denied"],
    );
}
