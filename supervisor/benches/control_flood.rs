//! Does a hostile control client slow supervision down? The real system (`cortex run --sim`),
//! motion killed with SIGKILL once on each of 5 fresh systems per scenario (a first restart has
//! no back-off), side by side:
//!
//! - quiet: nobody on the control socket;
//! - idle: 100 connections that say nothing, replaced by 100 new ones every 200 ms;
//! - endless: one client after another sending a request line without end (1 MiB writes);
//! - both at once.
//!
//! Per scenario: SIGKILL-to-first-tick of the new motion (from the health board, read straight
//! from shared memory), LoLA cycles the bridge had to fill in meanwhile (its `overruns`, median),
//! the time a `status` request takes during the attack, and the supervisor's peak resident
//! memory (`VmHWM`, the largest of the 5 systems).
//!
//! `cargo bench -p supervisor --bench control_flood`

#[path = "../../tests/support/mod.rs"]
mod support;

use ipc::HealthBoard;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use supervisor::status::Status;

const SAMPLES: usize = 5;

struct System {
    child: Child,
    board: HealthBoard,
    names: Vec<String>,
    run_dir: PathBuf,
    _folder: tempfile::TempDir,
}

fn status_line(run_dir: &Path) -> Option<(Status, Duration)> {
    let started = Instant::now();
    let mut stream = UnixStream::connect(run_dir.join("control.sock")).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    stream.write_all(b"{\"command\":\"status\"}\n").ok()?;
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).ok()?;
    let elapsed = started.elapsed();
    // An error reply (`{"error": …}`, while starting) is no status.
    let status: Status = serde_json::from_str(&line).ok()?;
    Some((status, elapsed))
}

impl System {
    fn start() -> System {
        let (folder, config) = support::config_copy();
        let run_dir = folder.path().join("run");
        // A restart intensity that the kills of this bench do not reach.
        support::raise_restart_intensity(&config, 10_000);
        let child = Command::new(env!("CARGO_BIN_EXE_cortex"))
            .args(["run", "--sim", "--run-dir"])
            .arg(&run_dir)
            .arg("--config-dir")
            .arg(&config)
            .env("CORTEX_LOG", "error")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let (mut fds, names) = loop {
            if let (Some(fds), Some((status, _))) =
                (support_segments(&run_dir), status_line(&run_dir))
            {
                let names: Vec<String> = (status.processes.into_iter())
                    .map(|process| process.name)
                    .collect();
                break (fds, names);
            }
            assert!(started.elapsed() < Duration::from_secs(30), "no start");
            std::thread::sleep(Duration::from_millis(5));
        };
        let board = HealthBoard::from_fd(fds.remove(0)).unwrap();
        let system = System {
            child,
            board,
            names,
            run_dir,
            _folder: folder,
        };
        while !(0..system.board.slots()).all(|slot| {
            system
                .board
                .read(slot)
                .ok()
                .flatten()
                .is_some_and(|r| r.ticks > 0)
        }) {
            assert!(started.elapsed() < Duration::from_secs(30), "no ticks");
            std::thread::sleep(Duration::from_millis(5));
        }
        system
    }

    fn record(&self, name: &str) -> ipc::health::HealthRecord {
        let slot = self.names.iter().position(|n| n == name).unwrap();
        self.board.read(slot).unwrap().unwrap()
    }

    fn kill_motion_and_time(&self) -> Duration {
        let old = self.record("motion");
        let killed = Instant::now();
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(old.pid as i32).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        loop {
            let record = self.record("motion");
            if record.pid != old.pid && record.ticks > 0 {
                return killed.elapsed();
            }
            assert!(
                killed.elapsed() < Duration::from_secs(20),
                "motion stayed down"
            );
            std::hint::spin_loop();
        }
    }

    fn peak_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .unwrap()
    }
}

impl Drop for System {
    fn drop(&mut self) {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::TERM,
        );
        let _ = self.child.wait();
    }
}

/// The health board descriptor and the channels' (only the board is used).
fn support_segments(run_dir: &Path) -> Option<Vec<std::os::fd::OwnedFd>> {
    let mut stream = UnixStream::connect(run_dir.join("control.sock")).ok()?;
    stream.write_all(b"{\"command\":\"segments\"}\n").ok()?;
    let mut buffer = vec![0u8; 65536];
    let (_, fds) = ipc::fd::recv_fds(&stream, &mut buffer).ok()?;
    (!fds.is_empty()).then_some(fds)
}

/// Starts the attackers of a scenario; they stop when the flag is set.
fn attack(
    socket: &Path,
    idle: bool,
    endless: bool,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    let mut threads = Vec::new();
    if idle {
        let socket = socket.to_owned();
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let connections: Vec<UnixStream> = (0..100)
                    .filter_map(|_| UnixStream::connect(&socket).ok())
                    .collect();
                std::thread::sleep(Duration::from_millis(200));
                drop(connections);
            }
        }));
    }
    if endless {
        let socket = socket.to_owned();
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            let chunk = vec![b'x'; 1 << 20];
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut stream) = UnixStream::connect(&socket) else {
                    continue;
                };
                let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
                while !stop.load(Ordering::Relaxed) && stream.write_all(&chunk).is_ok() {}
            }
        }));
    }
    threads
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn main() {
    println!(
        "motion SIGKILL → first tick of its replacement (ms), the first kill of a fresh system \
         (no back-off), {SAMPLES} systems per scenario, with a hostile control socket"
    );
    println!(
        "{:<10} {:>8} {:>8} {:>8} {:>13} {:>11} {:>14}",
        "scenario", "median", "max", "ratio", "LoLA fill-in", "status ms", "supervisor kB"
    );
    let mut quiet_median = None;
    for (name, idle, endless) in [
        ("quiet", false, false),
        ("idle", true, false),
        ("endless", false, true),
        ("both", true, true),
    ] {
        let mut restarts = Vec::new();
        let mut status_times = Vec::new();
        let mut fill_in = Vec::new();
        let mut peak_kb = 0;
        for _ in 0..SAMPLES {
            let system = System::start();
            let stop = Arc::new(AtomicBool::new(false));
            let attackers = attack(&system.run_dir.join("control.sock"), idle, endless, &stop);
            std::thread::sleep(Duration::from_millis(500));
            let overruns_before = system.record("lola").overruns;
            restarts.push(system.kill_motion_and_time().as_secs_f64() * 1000.0);
            fill_in.push((system.record("lola").overruns - overruns_before) as f64);
            if let Some((_, elapsed)) = status_line(&system.run_dir) {
                status_times.push(elapsed.as_secs_f64() * 1000.0);
            }
            stop.store(true, Ordering::Relaxed);
            for attacker in attackers {
                let _ = attacker.join();
            }
            peak_kb = peak_kb.max(system.peak_kb());
        }
        let median_ms = median(&mut restarts);
        let max_ms = restarts.iter().cloned().fold(0.0, f64::max);
        let ratio = median_ms / *quiet_median.get_or_insert(median_ms);
        let status_ms = if status_times.is_empty() {
            "refused".to_owned()
        } else {
            format!("{:.2}", median(&mut status_times))
        };
        println!(
            "{name:<10} {median_ms:>8.1} {max_ms:>8.1} {ratio:>7.2}x {:>13} {status_ms:>11} {peak_kb:>14}",
            median(&mut fill_in)
        );
    }
}
