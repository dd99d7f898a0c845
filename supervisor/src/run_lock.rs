//! One `cortex run` per run directory, and cleaning up after one that died.
//!
//! `cortex.lock` in the run directory is held with `flock` for as long as the supervisor lives
//! and records what it started (pid and kernel start time of every child and the simulator,
//! and whether it made the folder). The kernel drops the lock when the supervisor dies, however
//! it dies; a later `cortex run` that finds the file unlocked but not empty knows its
//! predecessor was killed, waits for the children that outlived it (the bridge sitting the
//! robot down after its `PDEATHSIG`), ends them if they linger, removes the sockets nobody
//! answers on and takes over the folder.

use crate::paths::RunDir;
use anyhow::{bail, Context, Result};
use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

/// The lock file's name in the run directory.
pub const LOCK_FILE: &str = "cortex.lock";
/// How long left-over processes get to end after SIGTERM (the bridge sits the robot down first).
const LEFTOVER_TIMEOUT: Duration = Duration::from_secs(6);
/// The sockets a run directory may hold.
const SOCKETS: [&str; 3] = ["control.sock", "lola.sock", "simulator.sock"];

/// A process the supervisor started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    /// Its name (`motion`, `simulator`).
    pub name: String,
    /// Its pid.
    pub pid: u32,
    /// Its start time (`/proc/PID/stat` field 22): a pid reused by another process differs.
    pub start_time: u64,
}

/// What the lock file says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct State {
    supervisor_pid: u32,
    created_dir: bool,
    processes: Vec<Recorded>,
}

/// The held lock.
#[derive(Debug)]
pub struct RunLock {
    file: File,
    state: State,
}

/// The kernel's start time of `pid`, or `None` if it is gone or a zombie.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields count from the last `)`.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if matches!(fields.first(), Some(&"Z") | Some(&"X")) {
        return None;
    }
    fields.get(19)?.parse().ok()
}

impl RunLock {
    /// Takes the lock of `run_dir`, or says which instance holds it. A dead predecessor's
    /// leftovers are cleaned up first (which may take a few seconds while the robot sits down).
    pub fn acquire(run_dir: &mut RunDir) -> Result<RunLock> {
        let path = run_dir.path().join(LOCK_FILE);
        let file = loop {
            let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = match rustix::fs::openat(
                run_dir.fd(),
                LOCK_FILE,
                flags,
                Mode::from_raw_mode(0o600),
            ) {
                Ok(fd) => fd,
                Err(Errno::LOOP) => bail!(
                    "{} is a symbolic link; refusing to follow it (remove it)",
                    path.display()
                ),
                Err(error) => bail!("opening {}: {error}", path.display()),
            };
            let stat = rustix::fs::fstat(&fd)?;
            let uid = rustix::process::getuid().as_raw();
            if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile || stat.st_uid != uid
            {
                bail!(
                    "{} is not a regular file of this user (owner uid {}); refusing to use it",
                    path.display(),
                    stat.st_uid
                );
            }
            match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(Errno::WOULDBLOCK) => {
                    let holder = read_state(&mut File::from(fd))
                        .ok()
                        .map_or("?".to_owned(), |state| state.supervisor_pid.to_string());
                    bail!(
                        "another `cortex run` (pid {holder}) uses the run directory {}; stop it \
                         with `cortex stop --run-dir {}` or choose another run directory",
                        run_dir.path().display(),
                        run_dir.path().display()
                    );
                }
                Err(error) => bail!("locking {}: {error}", path.display()),
            }
            // A stopping instance removes the file after we opened it: lock the file that is
            // there now.
            match rustix::fs::statat(run_dir.fd(), LOCK_FILE, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(now) if now.st_ino == stat.st_ino && now.st_dev == stat.st_dev => {
                    break File::from(fd)
                }
                _ => continue,
            }
        };
        let mut lock = RunLock {
            file,
            state: State::default(),
        };
        match read_state(&mut lock.file) {
            Ok(previous) if previous == State::default() => {}
            Ok(previous) => {
                tracing::warn!(
                    "the previous `cortex run` (pid {}) in {} ended without cleaning up \
                     (killed?); cleaning up after it",
                    previous.supervisor_pid,
                    run_dir.path().display()
                );
                end_leftovers(&previous.processes);
                remove_dead_sockets(run_dir);
                if previous.created_dir {
                    run_dir.adopt();
                }
            }
            Err(error) => {
                tracing::warn!(
                    "{} from a previous run is unreadable ({error:#}); replacing it",
                    path.display()
                );
                remove_dead_sockets(run_dir);
            }
        }
        lock.state = State {
            supervisor_pid: std::process::id(),
            created_dir: run_dir.created(),
            processes: Vec::new(),
        };
        lock.write()?;
        Ok(lock)
    }

    /// Records the processes now running.
    pub fn record(&mut self, processes: Vec<Recorded>) {
        if processes == self.state.processes {
            return;
        }
        self.state.processes = processes;
        if let Err(error) = self.write() {
            tracing::warn!("recording the children in {LOCK_FILE}: {error:#}");
        }
    }

    fn write(&mut self) -> Result<()> {
        let text = serde_json::to_vec(&self.state)?;
        self.file.set_len(0).context("truncating the lock file")?;
        self.file
            .write_all_at(&text, 0)
            .context("writing the lock file")?;
        Ok(())
    }

    /// Removes the lock file (a clean exit) and releases the lock.
    pub fn release(self, run_dir: &RunDir) {
        let _ = rustix::fs::unlinkat(run_dir.fd(), LOCK_FILE, AtFlags::empty());
        drop(self.file);
    }
}

fn read_state(file: &mut File) -> Result<State> {
    let mut text = Vec::new();
    file.read_to_end(&mut text)?;
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(State::default());
    }
    serde_json::from_slice(&text).context("not the lock file's JSON")
}

/// Ends the processes a dead supervisor left: SIGTERM (the bridge sits the robot down), then
/// SIGKILL for those still there after [`LEFTOVER_TIMEOUT`].
fn end_leftovers(processes: &[Recorded]) {
    let alive = |process: &Recorded| start_time(process.pid) == Some(process.start_time);
    let leftovers: Vec<&Recorded> = processes.iter().filter(|p| alive(p)).collect();
    if leftovers.is_empty() {
        return;
    }
    for process in &leftovers {
        tracing::warn!(
            "{} (pid {}) outlived the previous supervisor: SIGTERM",
            process.name,
            process.pid
        );
        if let Some(pid) = rustix::process::Pid::from_raw(process.pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
    }
    let deadline = Instant::now() + LEFTOVER_TIMEOUT;
    while leftovers.iter().any(|p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    for process in leftovers.iter().filter(|p| alive(p)) {
        tracing::warn!(
            "{} (pid {}) did not end within {LEFTOVER_TIMEOUT:?}: SIGKILL",
            process.name,
            process.pid
        );
        if let Some(pid) = rustix::process::Pid::from_raw(process.pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Removes the sockets in the run directory that nobody answers on.
fn remove_dead_sockets(run_dir: &RunDir) {
    for name in SOCKETS {
        let Ok(stat) = rustix::fs::statat(run_dir.fd(), name, AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        if FileType::from_raw_mode(stat.st_mode) != FileType::Socket {
            continue;
        }
        let path = run_dir.path().join(name);
        if std::os::unix::net::UnixStream::connect(&path).is_ok() {
            continue;
        }
        match rustix::fs::unlinkat(run_dir.fd(), name, AtFlags::empty()) {
            Ok(()) => tracing::info!("removed the stale socket {}", path.display()),
            Err(error) => tracing::warn!("removing the stale socket {}: {error}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_and_a_dead_ones_leftovers_are_taken_over() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("run");
        let mut first_dir = RunDir::prepare(Some(&path), None).unwrap();
        let mut first = RunLock::acquire(&mut first_dir).unwrap();
        let mut sleeper = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let recorded = Recorded {
            name: "sleeper".into(),
            pid: sleeper.id(),
            start_time: start_time(sleeper.id()).unwrap(),
        };
        first.record(vec![recorded]);

        let mut second_dir = RunDir::prepare(Some(&path), None).unwrap();
        let error = RunLock::acquire(&mut second_dir).unwrap_err().to_string();
        assert!(
            error.contains(&format!("pid {}", std::process::id())),
            "{error}"
        );

        // The first holder "dies": its lock goes, its file stays, with a socket nobody serves.
        let stale = path.join("control.sock");
        drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
        drop(first);
        drop(first_dir);
        let mut third_dir = RunDir::prepare(Some(&path), None).unwrap();
        assert!(!third_dir.created());
        let third = RunLock::acquire(&mut third_dir).unwrap();
        assert!(third_dir.created(), "the dead run made the folder: adopted");
        let status = sleeper.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(15),
            "the leftover got SIGTERM"
        );
        assert!(!stale.exists(), "the dead socket is removed");
        third.release(&third_dir);
        third_dir.remove_if_created();
        assert!(!path.exists());
    }

    #[test]
    fn a_garbled_lock_file_is_replaced() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("run");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join(LOCK_FILE), b"\xff\x00garbage").unwrap();
        let mut run_dir = RunDir::prepare(Some(&path), None).unwrap();
        let lock = RunLock::acquire(&mut run_dir).unwrap();
        let text = std::fs::read_to_string(path.join(LOCK_FILE)).unwrap();
        assert!(text.contains(&std::process::id().to_string()), "{text}");
        lock.release(&run_dir);
        assert!(!path.join(LOCK_FILE).exists());
        assert!(path.exists(), "a folder we found stays");
    }
}
