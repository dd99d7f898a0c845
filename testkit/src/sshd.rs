//! An sshd on 127.0.0.1 for the tests that copy to a "robot" over real ssh (`cortex sync`,
//! `cortex deploy`): its own host key and client key in a temporary folder, a free port, and an
//! ssh configuration file that trusts exactly that host key. It runs as the current user and
//! ends when the value drops.
//!
//! With [`Sshd::start_with_environment`] the login gets environment variables through
//! `authorized_keys` `environment="…"` (sshd's `PermitUserEnvironment`): a temporary `HOME`, or a
//! `PATH` without python3, as a robot without Python would have.
//!
//! ```no_run
//! let sshd = match testkit::sshd::Sshd::start() {
//!     Ok(sshd) => sshd,
//!     Err(reason) => return eprintln!("SKIPPED: {reason}"),
//! };
//! let ssh_config = sshd.ssh_config(); // ssh -F <ssh_config> -p <sshd.port> user@127.0.0.1
//! ```

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running sshd for one test.
#[derive(Debug)]
pub struct Sshd {
    child: Child,
    /// The port it listens on (127.0.0.1 only).
    pub port: u16,
    /// The client's private key.
    pub key: PathBuf,
    /// A known_hosts file with the sshd's host key.
    pub known_hosts: PathBuf,
    /// The user to log in as (the current one).
    pub user: String,
    folder: tempfile::TempDir,
}

fn installed(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

impl Sshd {
    /// Starts an sshd; `Err` says what is missing (no sshd, ssh, ssh-keygen or rsync installed),
    /// for the test's SKIPPED line.
    pub fn start() -> Result<Sshd, String> {
        Sshd::start_with_environment(&[])
    }

    /// Starts an sshd whose logins get `environment` (`("HOME", "/tmp/x")`) set.
    pub fn start_with_environment(environment: &[(&str, &str)]) -> Result<Sshd, String> {
        let sshd = ["/usr/sbin/sshd", "/usr/bin/sshd"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .ok_or("no sshd installed (tools/install-test-deps.sh installs it)")?;
        for tool in ["ssh", "ssh-keygen", "rsync"] {
            if !installed(tool) {
                return Err(format!(
                    "{tool} is not installed (tools/install-test-deps.sh installs it)"
                ));
            }
        }
        let folder = tempfile::Builder::new()
            .prefix("cortex-sshd-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let dir = folder.path();
        let keygen = |path: &Path| {
            Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(path)
                .status()
                .is_ok_and(|s| s.success())
        };
        if !keygen(&dir.join("host_key")) || !keygen(&dir.join("client_key")) {
            return Err("ssh-keygen failed".into());
        }
        let client_key =
            std::fs::read_to_string(dir.join("client_key.pub")).map_err(|e| e.to_string())?;
        let options: Vec<String> = environment
            .iter()
            .map(|(name, value)| format!("environment=\"{name}={value}\""))
            .collect();
        let authorized = if options.is_empty() {
            client_key
        } else {
            format!("{} {client_key}", options.join(","))
        };
        std::fs::write(dir.join("authorized_keys"), authorized).map_err(|e| e.to_string())?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        drop(listener);
        let user = std::env::var("USER")
            .ok()
            .or_else(|| {
                let output = Command::new("id").arg("-un").output().ok()?;
                Some(String::from_utf8_lossy(&output.stdout).trim().to_owned())
            })
            .unwrap_or_else(|| "root".into());
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\n\
             PasswordAuthentication no\nPidFile {}\nStrictModes no\nUsePAM no\nAllowUsers {user}\n\
             PermitRootLogin yes\nPermitUserEnvironment yes\n",
            dir.join("host_key").display(),
            dir.join("authorized_keys").display(),
            dir.join("sshd.pid").display(),
        );
        std::fs::write(dir.join("sshd_config"), config).map_err(|e| e.to_string())?;
        // sshd wants its privilege-separation folder even when it runs unprivileged.
        std::fs::create_dir_all("/run/sshd").ok();
        let mut child = Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline || child.try_wait().ok().flatten().is_some() {
                let _ = child.kill();
                let _ = child.wait();
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
            user,
            folder,
        })
    }

    /// An ssh configuration file (`ssh -F`) for this sshd: its client key, its host key, nothing
    /// of the user's own ssh setup.
    pub fn ssh_config(&self) -> PathBuf {
        let path = self.folder.path().join("ssh_config");
        let text = format!(
            "Host 127.0.0.1\n  IdentityFile {}\n  UserKnownHostsFile {}\n  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n",
            self.key.display(),
            self.known_hosts.display()
        );
        std::fs::write(&path, text).expect("writing the ssh configuration");
        path
    }

    /// An ssh configuration entry that names this sshd `alias` (`ssh user@alias`), for a file
    /// that reaches several of them.
    pub fn config_entry(&self, alias: &str) -> String {
        format!(
            "Host {alias}\n  HostName 127.0.0.1\n  Port {}\n  IdentityFile {}\n  UserKnownHostsFile {}\n  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n",
            self.port,
            self.key.display(),
            self.known_hosts.display()
        )
    }

    /// `user@127.0.0.1`.
    pub fn address(&self) -> String {
        format!("{}@127.0.0.1", self.user)
    }

    /// Runs `script` over ssh on this sshd; returns (success, stdout, stderr).
    pub fn run(&self, script: &str) -> (bool, String, String) {
        let output = Command::new("ssh")
            .args(["-o", "BatchMode=yes", "-F"])
            .arg(self.ssh_config())
            .args(["-p", &self.port.to_string(), &self.address(), script])
            .stdin(Stdio::null())
            .output()
            .expect("starting ssh");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
