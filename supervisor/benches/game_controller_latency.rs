//! GameController packet → `GameState`: how long a state change takes to reach the `network`
//! process and then cognition's `GameState`, with the network process at 50, 100 and 200 Hz
//! side by side (the shipped table says 100 Hz; docs/performance.md has the numbers).
//!
//! Each rate gets its own `cortex run --sim` (a copy of the shipped configuration with the
//! network process's `rate_hz` changed, loopback ports). The bench plays a GameController at
//! 2 Hz and switches Ready ↔ Set 20 times at irregular moments; every switch is sent at once,
//! its monotonic send time noted. Both processes log the monotonic time of the tick that saw
//! the change (`now_ns=`), on the same clock: the delays are exact, not polled.
//!
//! `cargo bench -p supervisor --bench game_controller_latency`

use spl_network::fake_game_controller::GameSetup;
use spl_network::State;
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SWITCHES: usize = 20;
const RATES_HZ: [u32; 3] = [50, 100, 200];

fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn status(run_dir: &Path) -> Option<serde_json::Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_cortex"))
        .args(["status", "--json", "--run-dir"])
        .arg(run_dir)
        .output()
        .ok()?;
    serde_json::from_slice(&output.stdout).ok()
}

fn network_tick_mean_ms(run_dir: &Path) -> Option<f64> {
    status(run_dir)?["processes"]
        .as_array()?
        .iter()
        .find(|process| process["name"] == "network")?["tick_mean_ms"]
        .as_f64()
}

/// The `now_ns=` of every log line containing all of `needles`, in order.
fn logged_times(log: &str, needles: &[&str]) -> Vec<u64> {
    log.lines()
        .filter(|line| needles.iter().all(|needle| line.contains(needle)))
        .filter_map(|line| {
            line.split("now_ns=")
                .nth(1)?
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

struct Row {
    rate_hz: u32,
    to_network_ms: (f64, f64),
    to_game_state_ms: (f64, f64),
    tick_mean_ms: f64,
}

fn measure(rate_hz: u32) -> Row {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("config");
    testkit::files::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/data"),
        &config,
    );
    let table = config.join("default/processes.toml");
    let text = std::fs::read_to_string(&table).unwrap();
    let text = text.replace(
        "kind = \"network\"\nrate_hz = 100\n",
        &format!("kind = \"network\"\nrate_hz = {rate_hz}\n"),
    );
    std::fs::write(&table, text).unwrap();
    let run_dir = folder.path().join("run");
    let log_path = folder.path().join("cortex.log");
    let game_controller = UdpSocket::bind("127.0.0.1:0").unwrap();
    let robot_port = free_port();
    let sets = [
        "settings.team_number=5".to_owned(),
        "GameControllerInterface.address=127.0.0.1".to_owned(),
        format!("GameControllerInterface.port={robot_port}"),
        format!(
            "GameControllerInterface.return_port={}",
            game_controller.local_addr().unwrap().port()
        ),
        "TeamCommunication.address=127.0.0.1".to_owned(),
        format!("TeamCommunication.port_base={}", free_port() - 5),
        "TeamCommunication.broadcast_address=127.0.0.1".to_owned(),
        "TeamCommunication.broadcast=false".to_owned(),
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_cortex"));
    command
        .args(["run", "--sim", "--instance"])
        .arg(format!("gc-latency-{rate_hz}-{}", std::process::id()))
        .arg("--run-dir")
        .arg(&run_dir)
        .arg("--config-dir")
        .arg(&config);
    for set in &sets {
        command.args(["--set", set]);
    }
    let mut child: Child = command
        .env("CORTEX_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let ready = status(&run_dir).is_some_and(|status| {
            status["processes"].as_array().is_some_and(|all| {
                all.iter()
                    .all(|p| p["state"] == "running" && p["ticks"].as_u64().unwrap_or(0) > 0)
            })
        });
        if ready {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "did not start");
        std::thread::sleep(Duration::from_millis(50));
    }

    let target = SocketAddr::from(([127, 0, 0, 1], robot_port));
    let mut setup = GameSetup::new(5, 12);
    let mut packet_number = 0_u8;
    let mut send = |setup: &GameSetup| {
        let bytes = setup.message(packet_number).encode();
        packet_number = packet_number.wrapping_add(1);
        let sent_ns = ipc::health::monotonic_ns();
        game_controller.send_to(&bytes, target).unwrap();
        sent_ns
    };
    // Heard in Initial first.
    for _ in 0..6 {
        send(&setup);
        std::thread::sleep(Duration::from_millis(500));
    }
    let mut sent = Vec::new();
    let mut tick_means = Vec::new();
    for switch in 0..SWITCHES {
        setup.state = if switch % 2 == 0 {
            State::Ready
        } else {
            State::Set
        };
        sent.push(send(&setup));
        // Irregular moments, so that the sends do not lock to the process's ticks; the
        // repeats at 2 Hz in between are what a GameController sends.
        let pause = Duration::from_millis(1000 + (switch as u64 * 37) % 100);
        let until = Instant::now() + pause;
        while Instant::now() + Duration::from_millis(500) < until {
            std::thread::sleep(Duration::from_millis(500));
            send(&setup);
        }
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
        tick_means.extend(network_tick_mean_ms(&run_dir));
    }
    testkit::processes::send_signal(child.id() as i32, 15);
    let _ = child.wait();
    let log = std::fs::read_to_string(&log_path).unwrap();
    let network: Vec<u64> = logged_times(&log, &["GameController 127.0.0.1", "(was "])
        .into_iter()
        .skip(1) // heard in Initial
        .collect();
    let cognition: Vec<u64> = log
        .lines()
        .filter(|line| {
            line.contains("game state ")
                && line.contains("(GameController)")
                && (line.contains("game state Ready") || line.contains("game state Set"))
        })
        .flat_map(|line| logged_times(line, &["now_ns="]))
        .collect();
    assert_eq!(network.len(), SWITCHES, "network saw every switch:\n{log}");
    assert_eq!(
        cognition.len(),
        SWITCHES,
        "cognition saw every switch:\n{log}"
    );
    let delays = |times: &[u64]| {
        let mut delays: Vec<f64> = times
            .iter()
            .zip(&sent)
            .map(|(seen, sent)| (*seen as f64 - *sent as f64) / 1e6)
            .collect();
        let max = delays.iter().copied().fold(f64::MIN, f64::max);
        (median(&mut delays), max)
    };
    Row {
        rate_hz,
        to_network_ms: delays(&network),
        to_game_state_ms: delays(&cognition),
        tick_mean_ms: median(&mut tick_means),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is expected.
    let rows: Vec<Row> = RATES_HZ.iter().map(|&rate| measure(rate)).collect();
    println!(
        "GameController packet → GameState, {SWITCHES} switches per rate (cognition at 60 Hz)\n"
    );
    println!("| network rate | → network: median | max | → GameState: median | max | network tick mean |");
    println!("|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} Hz | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.3} ms |",
            row.rate_hz,
            row.to_network_ms.0,
            row.to_network_ms.1,
            row.to_game_state_ms.0,
            row.to_game_state_ms.1,
            row.tick_mean_ms
        );
    }
}
