//! Recovery and start-up of the real system (`cortex run --sim`), measured from outside through
//! the health board (read straight from shared memory, as `cortex get` does):
//!
//! 1. start-up: from spawning `cortex run --sim` to every child having ticked (5 runs);
//! 2. failover (issue 11): SIGKILL of the active `motion`, `perception.upper` and `cognition`
//!    (Python) to the end of the first tick of the new instance (the health record's
//!    `first_tick_ns` against the bench's clock at the kill), with the warm standby (N rounds
//!    in one system, each after the next standby is ready) and with a cold restart (the same
//!    table with `standby = false`; each process killed once per fresh system, N systems, so
//!    that no back-off is measured), side by side; then each standby's resident memory;
//! 3. restart: from SIGKILL of a child without a standby to its replacement's first tick
//!    (audio and debug, 5 systems);
//! 4. endurance: a run in which another child is killed every 2 s; LoLA cycles that motion
//!    missed (the bridge counts frames without a fresh JointRequest).
//!
//! `cargo bench -p supervisor --bench recovery` (CORTEX_BENCH_ROUNDS sets N, default 10;
//! CORTEX_BENCH_SECONDS the endurance run, default 60).

#[path = "../../tests/support/mod.rs"]
mod support;

use ipc::HealthBoard;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use supervisor::status::{StandbyState, Status};

struct System {
    child: Child,
    board: HealthBoard,
    names: Vec<String>,
    run_dir: std::path::PathBuf,
    _folder: tempfile::TempDir,
}

fn segments(run_dir: &Path) -> Option<(Vec<String>, Vec<OwnedFd>)> {
    use std::io::Write;
    let mut stream = std::os::unix::net::UnixStream::connect(run_dir.join("control.sock")).ok()?;
    stream.write_all(b"{\"command\":\"segments\"}\n").ok()?;
    let mut buffer = vec![0u8; 65536];
    let (length, fds) = ipc::fd::recv_fds(&stream, &mut buffer).ok()?;
    let list: serde_json::Value = serde_json::from_slice(buffer[..length].trim_ascii()).ok()?;
    let names = list["channels"]
        .as_array()?
        .iter()
        .map(|c| c[0].as_str().unwrap().to_owned())
        .collect();
    Some((names, fds))
}

fn status(run_dir: &Path) -> Status {
    let output = Command::new(env!("CARGO_BIN_EXE_cortex"))
        .args(["status", "--json", "--run-dir"])
        .arg(run_dir)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Turns every process's standby off in the configuration at `config` (the cold restart).
fn without_standbys(config: &Path) {
    let table = config.join("default/processes.toml");
    let text = std::fs::read_to_string(&table).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("kind = ") && !line.contains("\"lola\"") {
                format!("{line}\nstandby = false")
            } else {
                line.to_owned()
            }
        })
        .collect();
    std::fs::write(&table, lines.join("\n")).unwrap();
}

impl System {
    /// Starts the system; returns it and the time until every child ticked.
    fn start() -> (System, Duration) {
        Self::start_with(true)
    }

    /// Starts the system with the shipped standbys or with none.
    fn start_with(standbys: bool) -> (System, Duration) {
        let (folder, config) = support::config_copy();
        let run_dir = folder.path().join("run");
        // The shipped configuration, but with a restart intensity that the many kills of this
        // bench do not reach (5 in 60 s would put the robot into the safe state).
        support::raise_restart_intensity(&config, 10_000);
        if !standbys {
            without_standbys(&config);
        }
        let started = Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_cortex"))
            .args(["run", "--sim", "--run-dir"])
            .arg(&run_dir)
            .arg("--config-dir")
            .arg(&config)
            .env("CORTEX_LOG", "warn")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (_, mut fds) = loop {
            if let Some(found) = segments(&run_dir) {
                break found;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the system did not start"
            );
            std::thread::sleep(Duration::from_micros(200));
        };
        let board = HealthBoard::from_fd(fds.remove(0)).unwrap();
        let names: Vec<String> = (status(&run_dir).processes.into_iter())
            .map(|process| process.name)
            .collect();
        loop {
            let all = (0..board.slots())
                .all(|slot| board.read(slot).ok().flatten().is_some_and(|r| r.ticks > 0));
            if all {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "not every child ticked"
            );
            std::thread::sleep(Duration::from_micros(100));
        }
        let elapsed = started.elapsed();
        (
            System {
                child,
                board,
                names,
                run_dir,
                _folder: folder,
            },
            elapsed,
        )
    }

    /// Waits until every standby the table asks for is ready.
    fn wait_standbys_ready(&self, names: &[&str]) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let status = status(&self.run_dir);
            let ready = names.iter().all(|name| {
                status
                    .process(name)
                    .is_some_and(|p| p.standby == Some(StandbyState::Ready) && p.ticks > 0)
            });
            if ready {
                return;
            }
            assert!(Instant::now() < deadline, "no standby ready: {status}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills `name` with SIGKILL; returns the time from the kill to the end of the first tick
    /// of the instance that replaced it (`first_tick_ns` in its health record), and to its
    /// `started_ns` (a standby: its activation; a cold restart: its runtime's start), in ms.
    fn kill_to_first_tick(&self, name: &str) -> (f64, f64) {
        let slot = self.slot(name);
        let old = self.board.read(slot).unwrap().unwrap();
        let killed_ns = ipc::health::monotonic_ns();
        let killed = Instant::now();
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(old.pid as i32).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        loop {
            if let Some(record) = self.board.read(slot).unwrap() {
                if record.pid != old.pid && record.first_tick_ns > 0 {
                    let milliseconds = |ns: u64| ns.saturating_sub(killed_ns) as f64 / 1e6;
                    return (
                        milliseconds(record.first_tick_ns),
                        milliseconds(record.started_ns),
                    );
                }
            }
            assert!(
                killed.elapsed() < Duration::from_secs(30),
                "{name} did not come back: old {old:?}, now {:?}",
                self.board.read(slot)
            );
            // Not a spin: on a two-core machine a spinning bench would slow the failover.
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn slot(&self, name: &str) -> usize {
        self.names.iter().position(|n| n == name).unwrap()
    }

    /// Kills `name` with SIGKILL; returns the time until its replacement ticked.
    fn kill_and_time(&self, name: &str) -> Duration {
        let slot = self.slot(name);
        let old = self.board.read(slot).unwrap().unwrap();
        let killed = Instant::now();
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(old.pid as i32).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        loop {
            if let Some(record) = self.board.read(slot).unwrap() {
                if record.pid != old.pid && record.ticks > 0 {
                    return killed.elapsed();
                }
            }
            assert!(
                killed.elapsed() < Duration::from_secs(10),
                "{name} did not come back: old {old:?}, now {:?}",
                self.board.read(slot)
            );
            std::hint::spin_loop();
        }
    }

    fn stop(mut self) {
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::TERM,
        )
        .unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for System {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentile(values: &mut [f64], fraction: f64) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[((values.len() as f64 * fraction).ceil() as usize).clamp(1, values.len()) - 1]
}

/// The processes with a standby in the shipped table that the failover section measures.
const FAILOVER: [&str; 3] = ["motion", "perception.upper", "cognition"];

/// Median, p90 and max of `samples`.
fn summary(samples: &[f64]) -> (f64, f64, f64) {
    let mut sorted = samples.to_vec();
    let max = sorted.iter().cloned().fold(0.0, f64::max);
    (
        percentile(&mut sorted, 0.5),
        percentile(&mut sorted, 0.9),
        max,
    )
}

/// Kilobytes of `key` (`Rss:`, `Pss:`) in `/proc/PID/smaps_rollup`.
fn smaps_kib(pid: u32, key: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Section 2: the failover with a standby next to the cold restart, and the standbys' memory.
fn failover() {
    let rounds: usize = std::env::var("CORTEX_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let mut standby: Vec<Vec<f64>> = vec![Vec::new(); FAILOVER.len()];
    let mut standby_running: Vec<Vec<f64>> = vec![Vec::new(); FAILOVER.len()];
    let (system, _) = System::start_with(true);
    system.wait_standbys_ready(&FAILOVER);
    for _ in 0..rounds {
        for (index, name) in FAILOVER.iter().enumerate() {
            system.wait_standbys_ready(&[name]);
            let (first_tick, running) = system.kill_to_first_tick(name);
            standby[index].push(first_tick);
            standby_running[index].push(running);
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // Memory: every standby of the shipped table, ready.
    system.wait_standbys_ready(&FAILOVER);
    std::thread::sleep(Duration::from_millis(500));
    let memory = status(&system.run_dir);
    let mut memory_rows = Vec::new();
    let (mut rss_total, mut pss_total) = (0, 0);
    for process in &memory.processes {
        let (Some(pid), Some(rss)) = (process.standby_pid, process.standby_rss_kib) else {
            continue;
        };
        let rollup = smaps_kib(pid, "Rss:").unwrap_or(0);
        let pss = smaps_kib(pid, "Pss:").unwrap_or(0);
        rss_total += rss;
        pss_total += pss;
        memory_rows.push(format!(
            "{:<20} {rss:>12} {rollup:>12} {pss:>12}",
            process.name
        ));
    }
    system.stop();

    let mut cold: Vec<Vec<f64>> = vec![Vec::new(); FAILOVER.len()];
    let mut cold_running: Vec<Vec<f64>> = vec![Vec::new(); FAILOVER.len()];
    for _ in 0..rounds {
        let (system, _) = System::start_with(false);
        std::thread::sleep(Duration::from_millis(300));
        for (index, name) in FAILOVER.iter().enumerate() {
            let (first_tick, running) = system.kill_to_first_tick(name);
            cold[index].push(first_tick);
            cold_running[index].push(running);
            std::thread::sleep(Duration::from_millis(100));
        }
        system.stop();
    }

    println!(
        "SIGKILL of the active instance to the end of the first tick of the new one \
         ({rounds} rounds each)"
    );
    println!(
        "{:<20} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9}",
        "process",
        "standby med",
        "standby p90",
        "standby max",
        "cold med",
        "cold p90",
        "cold max",
        "cold/stby"
    );
    for (index, name) in FAILOVER.iter().enumerate() {
        let (standby_median, standby_p90, standby_max) = summary(&standby[index]);
        let (cold_median, cold_p90, cold_max) = summary(&cold[index]);
        println!(
            "{name:<20} {standby_median:>12.2} {standby_p90:>12.2} {standby_max:>12.2} \
             {cold_median:>12.2} {cold_p90:>12.2} {cold_max:>12.2} {:>8.1}x",
            cold_median / standby_median
        );
    }
    println!("(ms)");
    println!();
    println!(
        "SIGKILL of the active instance to the new one running its loop (standby: woken by its \
         activation word; cold: the new process's runtime started, before building its modules)"
    );
    println!(
        "{:<20} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "process", "standby med", "standby p90", "standby max", "cold med", "cold p90", "cold max"
    );
    for (index, name) in FAILOVER.iter().enumerate() {
        let (standby_median, standby_p90, standby_max) = summary(&standby_running[index]);
        let (cold_median, cold_p90, cold_max) = summary(&cold_running[index]);
        println!(
            "{name:<20} {standby_median:>12.2} {standby_p90:>12.2} {standby_max:>12.2} \
             {cold_median:>12.2} {cold_p90:>12.2} {cold_max:>12.2}"
        );
    }
    println!("(ms)");
    println!();

    println!("Resident memory of each standby, the shipped table (KiB)");
    println!(
        "{:<20} {:>12} {:>12} {:>12}",
        "process", "VmRSS", "smaps Rss", "smaps Pss"
    );
    for row in &memory_rows {
        println!("{row}");
    }
    println!(
        "{:<20} {:>12} {:>12} {:>12}",
        "total", rss_total, "", pss_total
    );
    println!(
        "total: {:.1} MiB resident, {:.1} MiB proportional (shared pages split with the active)",
        rss_total as f64 / 1024.0,
        pss_total as f64 / 1024.0
    );
    println!();
}

fn main() {
    let mut startups = Vec::new();
    for _ in 0..5 {
        let (system, elapsed) = System::start();
        startups.push(elapsed.as_secs_f64() * 1000.0);
        system.stop();
    }
    println!("Start-up of `cortex run --sim` to every child ticking (5 runs)");
    println!("{:<28} {:>10} {:>10}", "", "median ms", "max ms");
    let max = startups.iter().cloned().fold(0.0, f64::max);
    println!(
        "{:<28} {:>10.1} {:>10.1}",
        "start-up",
        percentile(&mut startups, 0.5),
        max
    );
    println!();

    failover();

    // The first restart of a child has no back-off (later ones within 10 s of uptime back off
    // exponentially, by design), so each child is killed once per fresh system.
    println!("SIGKILL of a child without a standby to its replacement's first tick (first restart; 5 systems)");
    println!(
        "{:<28} {:>10} {:>10} {:>10}",
        "child", "median ms", "p90 ms", "max ms"
    );
    let children = ["audio", "debug"];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); children.len()];
    for _ in 0..5 {
        let (system, _) = System::start();
        std::thread::sleep(Duration::from_millis(300));
        for (index, name) in children.iter().enumerate() {
            times[index].push(system.kill_and_time(name).as_secs_f64() * 1000.0);
            std::thread::sleep(Duration::from_millis(100));
        }
        system.stop();
    }
    let mut all = Vec::new();
    for (name, mut samples) in children.iter().zip(times) {
        all.extend(samples.iter().cloned());
        let max = samples.iter().cloned().fold(0.0, f64::max);
        println!(
            "{name:<28} {:>10.2} {:>10.2} {max:>10.2}",
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.9)
        );
    }
    println!(
        "{:<28} {:>10.2} {:>10.2}",
        "all",
        percentile(&mut all, 0.5),
        percentile(&mut all, 0.9)
    );
    println!();

    let (system, _) = System::start();
    std::thread::sleep(Duration::from_millis(500));
    let seconds: u64 = std::env::var("CORTEX_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let lola = system.board.read(system.slot("lola")).unwrap().unwrap();
    let motion_before = system.board.read(system.slot("motion")).unwrap().unwrap();
    let victims = [
        "perception.upper",
        "perception.lower",
        "cognition",
        "audio",
        "debug",
    ];
    let started = Instant::now();
    let mut kills = 0;
    while started.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(2));
        let victim = victims[kills % victims.len()];
        let record = system.board.read(system.slot(victim)).unwrap().unwrap();
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(record.pid as i32).unwrap(),
            rustix::process::Signal::KILL,
        );
        kills += 1;
    }
    let lola_after = system.board.read(system.slot("lola")).unwrap().unwrap();
    let motion_after = system.board.read(system.slot("motion")).unwrap().unwrap();
    println!("Endurance: {seconds} s, another child SIGKILLed every 2 s ({kills} kills)");
    println!(
        "{:<40} {:>10}",
        "LoLA frames (bridge ticks)",
        lola_after.ticks - lola.ticks
    );
    println!(
        "{:<40} {:>10}",
        "motion ticks",
        motion_after.ticks - motion_before.ticks
    );
    println!(
        "{:<40} {:>10}",
        "LoLA cycles motion missed",
        lola_after.overruns - lola.overruns
    );
    system.stop();
}
