//! `cortex deploy` (issue 17): deploys to a "robot" that is this machine, an sshd on 127.0.0.1
//! started by the test with its own keys and a temporary home, with `--no-build` (this test's
//! own `cortex`) and `--no-restart` (no systemd here); a robot without python3 gets the clear
//! error and nothing uploaded; names missing from robots.toml or team.toml are configuration
//! errors naming the file; `--dry-run` contacts nobody. The robot build's glibc requirement is
//! read from the binary and compared with the NAO's (SKIPPED without zig and cargo-zigbuild).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use testkit::sshd::Sshd;

/// The glibc of NAO OS 2.8 (`docs/decisions.md`, "Deploying to the NAO"); `cortex deploy` builds
/// for it (`supervisor/src/deploy.rs`, `NAO_GLIBC`).
const NAO_GLIBC: [u32; 2] = [2, 23];

/// A configuration copy whose robots.toml gives `robot` this sshd's address and whose team.toml
/// gives it player number 7.
fn config_for(robot: &str, address: &str) -> (tempfile::TempDir, PathBuf) {
    let (folder, config) = support::config_copy();
    let robots = std::fs::read_to_string(config.join("robots.toml")).unwrap();
    let robots = robots.replace(
        "[addresses]\n",
        &format!("[addresses]\n{robot} = \"{address}\"\n"),
    );
    std::fs::write(config.join("robots.toml"), robots).unwrap();
    std::fs::write(
        config.join("team.toml"),
        format!(
            "team_number = 42\nlocation = \"default\"\nscenario = \"default\"\n\n[players]\n{robot} = 7\n"
        ),
    )
    .unwrap();
    (folder, config)
}

fn deploy(sshd: &Sshd, config: &Path, remote: &Path, robot: &str, extra: &[&str]) -> Output {
    Command::new(support::cortex())
        .args([
            "deploy",
            robot,
            "--no-build",
            "--no-restart",
            "--binary",
            support::cortex(),
        ])
        .arg("--config-dir")
        .arg(config)
        .arg("--remote-dir")
        .arg(remote)
        .args(["--port", &sshd.port.to_string()])
        .arg("--ssh-config")
        .arg(sshd.ssh_config())
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("running cortex deploy")
}

#[test]
fn deploy_to_this_machine_leaves_everything_in_place_and_the_uploaded_binary_checks_its_configuration(
) {
    let home = tempfile::Builder::new()
        .prefix("cortex-deploy-home-")
        .tempdir()
        .unwrap();
    let home_path = home.path().to_str().unwrap().to_owned();
    let path = path_with_this_python(home.path());
    let sshd = match Sshd::start_with_environment(&[("HOME", &home_path), ("PATH", &path)]) {
        Ok(sshd) => sshd,
        Err(reason) => {
            eprintln!("SKIPPED deploy over ssh: {reason}");
            return;
        }
    };
    // The unit goes to $HOME/.config/systemd/user: only ever into the temporary home.
    let (ok, out, err) = sshd.run("echo \"$HOME\"");
    assert!(
        ok && out.trim() == home_path,
        "the test sshd did not set HOME ({out} {err})"
    );
    let remote = home.path().join("cortex");
    let (_config_folder, config) = config_for("testbot", &sshd.address());
    let output = deploy(&sshd, &config, &remote, "testbot", &[]);
    assert!(output.status.success(), "{}", support::output_text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("testbot") && stdout.contains("uploaded (not restarted)"),
        "{}",
        support::output_text(&output)
    );

    // The binary, byte for byte, executable.
    let uploaded = remote.join("bin/cortex");
    assert_eq!(
        std::fs::read(&uploaded).unwrap(),
        std::fs::read(support::cortex()).unwrap(),
        "the uploaded binary differs"
    );
    use std::os::unix::fs::PermissionsExt;
    assert!(std::fs::metadata(&uploaded).unwrap().permissions().mode() & 0o100 != 0);
    // Configuration and behaviours.
    assert!(remote.join("config/default/processes.toml").is_file());
    assert!(remote.join("behaviours/behaviour.py").is_file());
    // The robot's own settings, from team.toml.
    let settings = std::fs::read_to_string(remote.join("config/settings.toml")).unwrap();
    assert!(settings.contains("\nplayer_number = 7\n"), "{settings}");
    assert!(settings.contains("\nteam_number = 42\n"), "{settings}");
    assert!(settings.contains("team.toml:"), "{settings}");
    // The unit file, pointing at the remote folder, in the temporary home.
    let unit =
        std::fs::read_to_string(home.path().join(".config/systemd/user/cortex.service")).unwrap();
    assert!(
        unit.contains(&format!("ExecStart={}/bin/cortex run", remote.display())),
        "{unit}"
    );

    // The uploaded binary checks the uploaded configuration, on the "robot", over ssh.
    let (ok, out, err) = sshd.run(&format!(
        "{}/bin/cortex check --config-dir {}/config",
        remote.display(),
        remote.display()
    ));
    assert!(ok, "cortex check on the robot failed:\n{out}\n{err}");
    assert!(out.contains("motion"), "{out}");

    // Deploying again changes the settings only where team.toml changed.
    let team = std::fs::read_to_string(config.join("team.toml")).unwrap();
    std::fs::write(
        config.join("team.toml"),
        team.replace("testbot = 7", "testbot = 3"),
    )
    .unwrap();
    // A file on the robot that the source lacks is deleted, and said so.
    std::fs::write(remote.join("behaviours/stale.py"), "x = 1\n").unwrap();
    let again = deploy(&sshd, &config, &remote, "testbot", &[]);
    assert!(again.status.success(), "{}", support::output_text(&again));
    assert!(!remote.join("behaviours/stale.py").exists());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("testbot") && stderr.contains("behaviours/stale.py"),
        "{}",
        support::output_text(&again)
    );
    let settings = std::fs::read_to_string(remote.join("config/settings.toml")).unwrap();
    assert!(settings.contains("\nplayer_number = 3\n"), "{settings}");
}

#[test]
fn a_robot_without_python_gets_a_clear_error_and_nothing_is_uploaded() {
    let home = tempfile::Builder::new()
        .prefix("cortex-deploy-home-")
        .tempdir()
        .unwrap();
    // The robot's PATH has the tools of a shell and rsync, and no python3.
    let path = path_without_python(home.path());
    let home_path = home.path().to_str().unwrap().to_owned();
    let sshd = match Sshd::start_with_environment(&[("HOME", &home_path), ("PATH", &path)]) {
        Ok(sshd) => sshd,
        Err(reason) => {
            eprintln!("SKIPPED deploy without python: {reason}");
            return;
        }
    };
    let (ok, out, _) = sshd.run("command -v python3 || echo none");
    assert!(
        ok && out.trim() == "none",
        "python3 is still on the robot's PATH: {out}"
    );
    let remote = home.path().join("cortex");
    let (_config_folder, config) = config_for("nopython", &sshd.address());
    let output = deploy(&sshd, &config, &remote, "nopython", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(69),
        "{}",
        support::output_text(&output)
    );
    assert!(
        stderr.contains("robot nopython"),
        "{}",
        support::output_text(&output)
    );
    assert!(
        stderr.contains("no python3 on the robot's PATH") && stderr.contains("shared libpython"),
        "{}",
        support::output_text(&output)
    );
    assert!(
        !remote.exists(),
        "something was uploaded to a robot that cannot run it"
    );
}

/// The PATH of a "robot" that has the Python this test (and the binary) was built with: the
/// login's default PATH would find the system's python3, which on a developer's machine may be
/// another minor version than the one on this process's PATH.
fn path_with_this_python(folder: &Path) -> String {
    let bin = folder.join("python-bin");
    std::fs::create_dir(&bin).unwrap();
    let found = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 (the behaviour engine is built against it)");
    let python = String::from_utf8_lossy(&found.stdout).trim().to_owned();
    std::os::unix::fs::symlink(&python, bin.join("python3")).unwrap();
    format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display())
}

/// A folder of links to the tools a robot's shell and rsync need, without python3.
fn path_without_python(folder: &Path) -> String {
    let bin = folder.join("bin");
    std::fs::create_dir(&bin).unwrap();
    for tool in [
        "sh", "rsync", "uname", "getconf", "cut", "mkdir", "cat", "mv", "id",
    ] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
        if !path.is_empty() {
            std::os::unix::fs::symlink(&path, bin.join(tool)).unwrap();
        }
    }
    bin.to_str().unwrap().to_owned()
}

#[test]
fn two_robots_at_once_each_with_its_own_line_and_the_failing_one_named() {
    let good_home = tempfile::Builder::new()
        .prefix("cortex-deploy-home-")
        .tempdir()
        .unwrap();
    let bad_home = tempfile::Builder::new()
        .prefix("cortex-deploy-home-")
        .tempdir()
        .unwrap();
    let bad_path = path_without_python(bad_home.path());
    let good_home_path = good_home.path().to_str().unwrap().to_owned();
    let bad_home_path = bad_home.path().to_str().unwrap().to_owned();
    let good_path = path_with_this_python(good_home.path());
    let (good, bad) = match (
        Sshd::start_with_environment(&[("HOME", &good_home_path), ("PATH", &good_path)]),
        Sshd::start_with_environment(&[("HOME", &bad_home_path), ("PATH", &bad_path)]),
    ) {
        (Ok(good), Ok(bad)) => (good, bad),
        (Err(reason), _) | (_, Err(reason)) => {
            eprintln!("SKIPPED deploy to two robots: {reason}");
            return;
        }
    };
    // Two "robots" by name, each its own sshd, reached through one ssh configuration.
    let ssh_folder = tempfile::tempdir().unwrap();
    let ssh_config = ssh_folder.path().join("ssh_config");
    std::fs::write(
        &ssh_config,
        format!(
            "{}{}",
            good.config_entry("goodbot"),
            bad.config_entry("badbot")
        ),
    )
    .unwrap();
    let (_config_folder, config) = support::config_copy();
    let robots = std::fs::read_to_string(config.join("robots.toml")).unwrap();
    let robots = robots.replace(
        "[addresses]\n",
        &format!(
            "[addresses]\ngoodbot = \"{}@goodbot\"\nbadbot = \"{}@badbot\"\n",
            good.user, bad.user
        ),
    );
    std::fs::write(config.join("robots.toml"), robots).unwrap();
    std::fs::write(
        config.join("team.toml"),
        "team_number = 42\nlocation = \"default\"\nscenario = \"default\"\n\n[players]\ngoodbot = 2\nbadbot = 3\n",
    )
    .unwrap();
    // One remote folder for both: the failing robot must not have written into it.
    let remote = good_home.path().join("cortex");
    let output = Command::new(support::cortex())
        .args(["deploy", "goodbot", "badbot", "--no-build", "--no-restart"])
        .args(["--binary", support::cortex(), "--config-dir"])
        .arg(&config)
        .arg("--remote-dir")
        .arg(&remote)
        .arg("--ssh-config")
        .arg(&ssh_config)
        .output()
        .unwrap();
    eprintln!(
        "cortex deploy goodbot badbot:\n{}",
        support::output_text(&output)
    );
    assert_eq!(
        output.status.code(),
        Some(69),
        "{}",
        support::output_text(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Progress lines name each robot; the good one finished, the bad one failed.
    assert!(
        stdout.contains("goodbot (") && stdout.contains("uploaded (not restarted)"),
        "{}",
        support::output_text(&output)
    );
    assert!(
        stdout.contains("badbot (") && stdout.contains("FAILED"),
        "{}",
        support::output_text(&output)
    );
    assert!(
        stderr.contains("robot badbot") && stderr.contains("no python3"),
        "{}",
        support::output_text(&output)
    );
    assert!(
        !stderr.contains("robot goodbot"),
        "{}",
        support::output_text(&output)
    );
    let settings = std::fs::read_to_string(remote.join("config/settings.toml")).unwrap();
    assert!(settings.contains("\nplayer_number = 2\n"), "{settings}");
    assert!(!bad_home.path().join(".config").exists());
}

#[test]
fn unknown_robots_are_configuration_errors_and_a_dry_run_contacts_nobody() {
    let (_config_folder, config) = config_for("known", "nobody@127.0.0.1");
    let remote = tempfile::tempdir().unwrap();
    let run = |robot: &str, extra: &[&str]| {
        Command::new(support::cortex())
            .args(["deploy", robot, "--config-dir"])
            .arg(&config)
            .arg("--remote-dir")
            .arg(remote.path().join("cortex"))
            // A port nobody listens on: a dry run must not notice.
            .args(["--port", "1", "--binary", support::cortex()])
            .args(extra)
            .output()
            .unwrap()
    };
    let unknown = run("stranger", &["--dry-run"]);
    assert_eq!(
        unknown.status.code(),
        Some(78),
        "{}",
        support::output_text(&unknown)
    );
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("stranger") && stderr.contains("robots.toml"),
        "{stderr}"
    );

    // An address but no player number: team.toml is named.
    let robots = std::fs::read_to_string(config.join("robots.toml")).unwrap();
    std::fs::write(
        config.join("robots.toml"),
        robots.replace("[addresses]\n", "[addresses]\nbench = \"nao@10.0.0.9\"\n"),
    )
    .unwrap();
    let no_number = run("bench", &["--dry-run"]);
    assert_eq!(
        no_number.status.code(),
        Some(78),
        "{}",
        support::output_text(&no_number)
    );
    assert!(String::from_utf8_lossy(&no_number.stderr).contains("team.toml"));

    // A broken team file: file, line and key.
    let team = std::fs::read_to_string(config.join("team.toml")).unwrap();
    std::fs::write(
        config.join("team.toml"),
        team.replace("known = 7", "known = 70"),
    )
    .unwrap();
    let broken = run("known", &["--dry-run"]);
    assert_eq!(
        broken.status.code(),
        Some(78),
        "{}",
        support::output_text(&broken)
    );
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(
        stderr.contains("team.toml:6") && stderr.contains("players.known"),
        "{stderr}"
    );
    std::fs::write(config.join("team.toml"), team).unwrap();

    // No binary where --binary points: exit 66, the path named.
    let missing = Command::new(support::cortex())
        .args([
            "deploy",
            "known",
            "--no-restart",
            "--binary",
            "/nonexistent/cortex",
        ])
        .arg("--config-dir")
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(
        missing.status.code(),
        Some(66),
        "{}",
        support::output_text(&missing)
    );
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/cortex"));

    // Nobody listens on port 1: unreachable, exit 69, the robot named, nothing changed.
    let unreachable = run("known", &["--no-build", "--no-restart"]);
    assert_eq!(
        unreachable.status.code(),
        Some(69),
        "{}",
        support::output_text(&unreachable)
    );
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert!(
        stderr.contains("robot known") && stderr.contains("cannot reach"),
        "{stderr}"
    );

    let dry = run("known", &["--dry-run"]);
    assert!(dry.status.success(), "{}", support::output_text(&dry));
    let stdout = String::from_utf8_lossy(&dry.stdout);
    assert!(stdout.contains("known (nobody@127.0.0.1)"), "{stdout}");
    assert!(
        stdout.contains("player 7") && stdout.contains("restart"),
        "{stdout}"
    );
    assert!(!remote.path().join("cortex").exists());
}

/// The highest `GLIBC_x.y` that `objdump -T` lists for `binary`.
fn newest_glibc(binary: &Path) -> Result<Vec<u32>, String> {
    let output = Command::new("objdump")
        .arg("-T")
        .arg(binary)
        .output()
        .map_err(|e| format!("objdump: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut newest: Vec<u32> = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        if let Some(version) = word.strip_prefix("GLIBC_") {
            let parts: Option<Vec<u32>> = version.split('.').map(|p| p.parse().ok()).collect();
            if let Some(parts) = parts {
                newest = newest.max(parts);
            }
        }
    }
    if newest.is_empty() {
        return Err(format!(
            "no GLIBC_ versions in objdump -T {}",
            binary.display()
        ));
    }
    Ok(newest)
}

#[test]
fn the_robot_build_needs_no_newer_glibc_than_the_nao_has() {
    let runs = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .is_ok_and(|output| output.status.success())
    };
    let zig = runs("zig", &["version"]) || runs("python3", &["-m", "ziglang", "version"]);
    if !runs("cargo-zigbuild", &["--version"]) || !zig {
        eprintln!(
            "SKIPPED robot build glibc: cargo-zigbuild or zig is not installed \
             (tools/install-robot-toolchain.sh)"
        );
        return;
    }
    if Command::new("objdump").arg("--version").output().is_err() {
        eprintln!("SKIPPED robot build glibc: objdump (binutils) is not installed");
        return;
    }
    // The build `cortex deploy` runs (its dry run names it), into the target folder this test
    // was built in (…/target/debug/deps/this-test).
    let (_config_folder, config) = config_for("builder", "nao@127.0.0.1");
    let plan = Command::new(support::cortex())
        .args(["deploy", "builder", "--dry-run", "--config-dir"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(plan.status.success(), "{}", support::output_text(&plan));
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    let build = plan
        .lines()
        .find_map(|line| line.strip_prefix("build: "))
        .unwrap_or_else(|| panic!("the dry run names no build: {plan}"));
    let words: Vec<&str> = build.split_whitespace().collect();
    let glibc = format!("{}.{}", NAO_GLIBC[0], NAO_GLIBC[1]);
    assert!(
        build.contains(&format!("x86_64-unknown-linux-gnu.{glibc}")),
        "{build}"
    );
    let target_dir = std::env::current_exe()
        .unwrap()
        .ancestors()
        .nth(3)
        .unwrap()
        .to_owned();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    eprintln!("robot build: {build}");
    let status = Command::new(words[0])
        .args(&words[1..])
        .env("CARGO_TARGET_DIR", &target_dir)
        .current_dir(workspace)
        .status()
        .unwrap();
    assert!(status.success(), "the robot build failed");
    let binary = target_dir.join("x86_64-unknown-linux-gnu/release/cortex");
    let newest = newest_glibc(&binary).unwrap();
    let dotted = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(".");
    eprintln!(
        "robot build {}: needs glibc {} (NAO OS 2.8 has {glibc})",
        binary.display(),
        dotted(&newest)
    );
    assert!(
        newest.as_slice() <= NAO_GLIBC.as_slice(),
        "the robot build needs glibc {}, newer than the NAO's {glibc}",
        dotted(&newest)
    );
    // The development build of the same program is the counter-example on a newer machine.
    let host = newest_glibc(Path::new(support::cortex())).unwrap();
    eprintln!("this machine's build: needs glibc {}", dotted(&host));
}
