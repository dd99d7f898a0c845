//! `cortex logs ROBOT` (issue 15): fetches recordings and logs from a "robot" that is this
//! machine, an sshd on 127.0.0.1 started by the test with its own keys and a temporary home
//! (testkit's `Sshd`, as the deploy test does; SKIPPED without sshd). Checked: the files arrive
//! byte for byte, a second run fetches nothing, a file cut short here or grown on the robot is
//! fetched again, `--since` leaves older files, a missing folder is named (exit 66), an
//! unreachable robot (69), a refused key (77) and an unknown name (78) are told apart.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use testkit::sshd::Sshd;

/// A configuration copy whose robots.toml gives `robot` the address `address` and whose
/// Recorder.toml records into `recordings/` beside the configuration root (the deployed layout).
fn config_for(robot: &str, address: &str) -> (tempfile::TempDir, PathBuf) {
    let (folder, config) = support::config_copy();
    let robots = std::fs::read_to_string(config.join("robots.toml")).unwrap();
    std::fs::write(
        config.join("robots.toml"),
        robots.replace(
            "[addresses]\n",
            &format!("[addresses]\n{robot} = \"{address}\"\n"),
        ),
    )
    .unwrap();
    let recorder = config.join("default/Recorder.toml");
    let text = std::fs::read_to_string(&recorder).unwrap();
    assert!(text.contains("\nfolder = \"\"\n"), "{text}");
    std::fs::write(
        &recorder,
        text.replace("\nfolder = \"\"\n", "\nfolder = \"recordings\"\n"),
    )
    .unwrap();
    (folder, config)
}

/// `cortex logs ROBOT --out OUT --config-dir CONFIG --remote-dir REMOTE` with `extra`.
fn logs(config: &Path, remote: &Path, out: &Path, robot: &str, extra: &[&str]) -> Output {
    Command::new(support::cortex())
        .args(["logs", robot, "--out"])
        .arg(out)
        .arg("--config-dir")
        .arg(config)
        .arg("--remote-dir")
        .arg(remote)
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("running cortex logs")
}

/// Bytes that differ from file to file (so that a mix-up shows).
fn content(seed: u8, length: usize) -> Vec<u8> {
    (0..length)
        .map(|index| (index as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn sshd_for(home: &Path) -> Result<Sshd, String> {
    let home_text = home.to_str().unwrap().to_owned();
    let runtime = home.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    Sshd::start_with_environment(&[
        ("HOME", &home_text),
        ("XDG_RUNTIME_DIR", runtime.to_str().unwrap()),
    ])
}

#[test]
fn recordings_and_logs_arrive_whole_and_a_second_fetch_takes_only_what_changed() {
    let home = tempfile::Builder::new()
        .prefix("cortex-logs-home-")
        .tempdir()
        .unwrap();
    let sshd = match sshd_for(home.path()) {
        Ok(sshd) => sshd,
        Err(reason) => {
            eprintln!("SKIPPED cortex logs over ssh: {reason}");
            return;
        }
    };
    let port = sshd.port.to_string();
    let ssh_config = sshd.ssh_config();
    let ssh = [
        "--port",
        &port,
        "--ssh-config",
        ssh_config.to_str().unwrap(),
    ];
    let (_config_folder, config) = config_for("testbot", &sshd.address());
    // The robot: two recordings and a note in the recordings folder, the recorder's log in the
    // run directory of `--instance robot`.
    let remote = home.path().join("cortex");
    let recordings = remote.join("recordings");
    std::fs::create_dir_all(&recordings).unwrap();
    std::fs::write(recordings.join("cortex-1-000.mcap"), content(1, 300_000)).unwrap();
    std::fs::write(recordings.join("cortex-1-001.mcap"), content(2, 70_000)).unwrap();
    std::fs::write(recordings.join("notes.txt"), "not a recording").unwrap();
    let run_dir = home.path().join("runtime/cortex/robot");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("recorder.log"), "recorder: started\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let fetched = out.path().join("testbot");

    let first = logs(&config, &remote, &fetched, "testbot", &ssh);
    assert!(first.status.success(), "{}", support::output_text(&first));
    for (name, seed, length) in [
        ("cortex-1-000.mcap", 1, 300_000),
        ("cortex-1-001.mcap", 2, 70_000),
    ] {
        assert_eq!(
            std::fs::read(fetched.join("recordings").join(name)).unwrap(),
            content(seed, length),
            "{name} differs\n{}",
            support::output_text(&first)
        );
    }
    assert!(!fetched.join("recordings/notes.txt").exists());
    assert_eq!(
        std::fs::read_to_string(fetched.join("journal/recorder.log")).unwrap(),
        "recorder: started\n"
    );
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        stdout.contains("recordings from") && stdout.contains("2 fetched"),
        "{stdout}"
    );

    // Again: nothing new, nothing copied (the files here are not touched).
    let modified = |name: &str| {
        std::fs::metadata(fetched.join("recordings").join(name))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = modified("cortex-1-000.mcap");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = logs(&config, &remote, &fetched, "testbot", &ssh);
    assert!(second.status.success(), "{}", support::output_text(&second));
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(
        stdout.contains("0 fetched, 2 already here (same size)"),
        "{}",
        support::output_text(&second)
    );
    assert_eq!(modified("cortex-1-000.mcap"), before);

    // A transfer cut short here, a recording that grew on the robot: both fetched again.
    let cut = fetched.join("recordings/cortex-1-001.mcap");
    let file = std::fs::OpenOptions::new().write(true).open(&cut).unwrap();
    file.set_len(1000).unwrap();
    drop(file);
    std::fs::write(recordings.join("cortex-1-000.mcap"), content(3, 400_000)).unwrap();
    let third = logs(
        &config,
        &remote,
        &fetched,
        "testbot",
        &["--recordings-only"]
            .into_iter()
            .chain(ssh)
            .collect::<Vec<_>>(),
    );
    assert!(third.status.success(), "{}", support::output_text(&third));
    assert_eq!(std::fs::read(&cut).unwrap(), content(2, 70_000));
    assert_eq!(
        std::fs::read(fetched.join("recordings/cortex-1-000.mcap")).unwrap(),
        content(3, 400_000)
    );
    let stdout = String::from_utf8_lossy(&third.stdout);
    assert!(
        stdout.contains("2 fetched"),
        "{}",
        support::output_text(&third)
    );
    assert!(
        !stdout.contains("journal"),
        "{}",
        support::output_text(&third)
    );

    // --since: a recording last written two days ago is left, then fetched without it.
    let old = recordings.join("cortex-0-000.mcap");
    std::fs::write(&old, content(4, 5000)).unwrap();
    let touched = Command::new("touch")
        .args(["-d", "2 days ago"])
        .arg(&old)
        .status()
        .unwrap();
    assert!(touched.success());
    let mut args = vec!["--since", "1d"];
    args.extend(ssh);
    let recent = logs(&config, &remote, &fetched, "testbot", &args);
    assert!(recent.status.success(), "{}", support::output_text(&recent));
    assert!(
        String::from_utf8_lossy(&recent.stdout).contains("1 older than --since"),
        "{}",
        support::output_text(&recent)
    );
    assert!(!fetched.join("recordings/cortex-0-000.mcap").exists());
    let all = logs(&config, &remote, &fetched, "testbot", &ssh);
    assert!(all.status.success(), "{}", support::output_text(&all));
    assert_eq!(
        std::fs::read(fetched.join("recordings/cortex-0-000.mcap")).unwrap(),
        content(4, 5000)
    );

    // A robot that never recorded: the folder is named, exit 66; the logs still arrive.
    let nothing = home.path().join("elsewhere");
    let missing = logs(&config, &nothing, &fetched, "testbot", &ssh);
    assert_eq!(
        missing.status.code(),
        Some(66),
        "{}",
        support::output_text(&missing)
    );
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains(&format!("{}/recordings", nothing.display())),
        "{}",
        support::output_text(&missing)
    );
    assert!(
        String::from_utf8_lossy(&missing.stdout).contains("run directory logs"),
        "{}",
        support::output_text(&missing)
    );
}

#[test]
fn an_unreachable_robot_a_refused_key_and_an_unknown_name_are_told_apart() {
    let home = tempfile::Builder::new()
        .prefix("cortex-logs-home-")
        .tempdir()
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let remote = home.path().join("cortex");

    // Unknown name: robots.toml named, exit 78, nobody contacted.
    let (_folder, config) = config_for("known", "nobody@127.0.0.1");
    let unknown = logs(&config, &remote, out.path(), "stranger", &[]);
    assert_eq!(
        unknown.status.code(),
        Some(78),
        "{}",
        support::output_text(&unknown)
    );
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("robots.toml"));

    // Nobody listens on port 1: unreachable, exit 69.
    let unreachable = logs(&config, &remote, out.path(), "known", &["--port", "1"]);
    assert_eq!(
        unreachable.status.code(),
        Some(69),
        "{}",
        support::output_text(&unreachable)
    );
    assert!(
        String::from_utf8_lossy(&unreachable.stderr).contains("cannot reach nobody@127.0.0.1"),
        "{}",
        support::output_text(&unreachable)
    );

    // A real sshd that does not know our key: refused, exit 77, with what to do.
    let sshd = match sshd_for(home.path()) {
        Ok(sshd) => sshd,
        Err(reason) => {
            eprintln!("SKIPPED cortex logs with a refused key: {reason}");
            return;
        }
    };
    let stranger_key = home.path().join("stranger_key");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&stranger_key)
        .status()
        .unwrap();
    assert!(made.success());
    let ssh_config = home.path().join("ssh_config");
    std::fs::write(
        &ssh_config,
        format!(
            "Host 127.0.0.1\n  IdentityFile {}\n  UserKnownHostsFile {}\n  \
             StrictHostKeyChecking yes\n  IdentitiesOnly yes\n",
            stranger_key.display(),
            sshd.known_hosts.display()
        ),
    )
    .unwrap();
    let (_folder, config) = config_for("testbot", &sshd.address());
    let refused = logs(
        &config,
        &remote,
        out.path(),
        "testbot",
        &[
            "--port",
            &sshd.port.to_string(),
            "--ssh-config",
            ssh_config.to_str().unwrap(),
        ],
    );
    assert_eq!(
        refused.status.code(),
        Some(77),
        "{}",
        support::output_text(&refused)
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("refused the login") && stderr.contains("authorized_keys"),
        "{}",
        support::output_text(&refused)
    );
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());
}
