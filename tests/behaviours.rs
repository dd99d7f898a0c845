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
    let before = instance.process("cognition")["ticks"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let after = instance.process("cognition");
    assert_eq!(
        after["pid"].as_i64().unwrap() as i32,
        cognition,
        "interrupted, not restarted"
    );
    assert!(
        after["ticks"].as_u64().unwrap() > before + 10,
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

/// An sshd on 127.0.0.1 with a key of its own, for the duration of a test.
struct Sshd {
    child: std::process::Child,
    port: u16,
    key: PathBuf,
    known_hosts: PathBuf,
    _folder: tempfile::TempDir,
}

impl Sshd {
    fn start() -> Result<Sshd, String> {
        let sshd = ["/usr/sbin/sshd", "/usr/bin/sshd"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .ok_or("no sshd installed")?;
        for tool in ["ssh", "ssh-keygen", "rsync"] {
            if Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .map(|o| !o.status.success())
                .unwrap_or(true)
            {
                return Err(format!("{tool} is not installed"));
            }
        }
        let folder = tempfile::tempdir().map_err(|e| e.to_string())?;
        let dir = folder.path();
        let keygen = |path: &Path| {
            Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(path)
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        };
        if !keygen(&dir.join("host_key")) || !keygen(&dir.join("client_key")) {
            return Err("ssh-keygen failed".into());
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys"))
            .map_err(|e| e.to_string())?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\nPasswordAuthentication no\nPidFile {}\nStrictModes no\nUsePAM no\nAllowUsers {user}\nPermitRootLogin yes\n",
            dir.join("host_key").display(),
            dir.join("authorized_keys").display(),
            dir.join("sshd.pid").display(),
        );
        std::fs::write(dir.join("sshd_config"), config).map_err(|e| e.to_string())?;
        std::fs::create_dir_all("/run/sshd").ok();
        let child = Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err("sshd did not start listening".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let host_key =
            std::fs::read_to_string(dir.join("host_key.pub")).map_err(|e| e.to_string())?;
        let known_hosts = dir.join("known_hosts");
        std::fs::write(&known_hosts, format!("[127.0.0.1]:{port} {host_key}"))
            .map_err(|e| e.to_string())?;
        Ok(Sshd {
            child,
            port,
            key: dir.join("client_key"),
            known_hosts,
            _folder: folder,
        })
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sync_over_real_ssh_to_a_local_sshd() {
    let sshd = match Sshd::start() {
        Ok(sshd) => sshd,
        Err(reason) => {
            println!("SKIPPED sync over ssh: {reason}");
            return;
        }
    };
    let remote = tempfile::tempdir().unwrap();
    let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
    // ssh options for this sshd: its client key and host key.
    let ssh_config = sshd._folder.path().join("ssh_config");
    std::fs::write(
        &ssh_config,
        format!(
            "Host 127.0.0.1\n  IdentityFile {}\n  UserKnownHostsFile {}\n  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n",
            sshd.key.display(),
            sshd.known_hosts.display()
        ),
    )
    .unwrap();
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
