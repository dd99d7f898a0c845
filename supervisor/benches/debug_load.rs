//! Does the debug link slow the real-time processes down? One `cortex run --sim`, two phases
//! side by side (then both again, so that a drift of the machine shows):
//!
//! - quiet: nobody on the debug port;
//! - load: 20 WebSocket clients subscribed to every representation (JSON, each publish) and
//!   two JPEG image streams (both cameras, 30 Hz).
//!
//! Per phase: motion's time per tick (the sum of its modules' last update times, read from the
//! health board at every tick: median, p90, p99, max), the longest tick of any one-second
//! window, the bridge's missed LoLA cycles (its `overruns`, which it filled in with a hold),
//! the bridge's rate, what the clients received, and the debug process's CPU time.
//!
//! `cargo bench -p supervisor --bench debug_load [-- SECONDS]` (default 60 s per phase)

#[path = "../../tests/support/mod.rs"]
mod support;

use support::cpu_seconds;

use ipc::HealthBoard;
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::Message;

const SUBSCRIBERS: usize = 20;

fn health_board(run_dir: &std::path::Path) -> HealthBoard {
    let mut stream = UnixStream::connect(run_dir.join("control.sock")).unwrap();
    stream.write_all(b"{\"command\":\"segments\"}\n").unwrap();
    let mut buffer = vec![0u8; 65536];
    let (_, mut fds) = ipc::fd::recv_fds(&stream, &mut buffer).unwrap();
    HealthBoard::from_fd(fds.remove(0)).unwrap()
}

fn record(board: &HealthBoard, name: &str) -> ipc::HealthRecord {
    (0..board.slots())
        .filter_map(|slot| board.read(slot).ok().flatten())
        .find(|record| record.name() == name)
        .unwrap()
}

struct Phase {
    name: &'static str,
    tick_us: Vec<f64>,
    window_max_ms: f64,
    missed: u64,
    bridge_hz: f64,
    messages: u64,
    megabytes: f64,
    debug_cpu_percent: f64,
}

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}

fn measure(
    name: &'static str,
    board: &HealthBoard,
    seconds: f64,
    received: &(AtomicU64, AtomicU64),
) -> Phase {
    let lola_before = record(board, "lola");
    let debug_pid = record(board, "debug").pid;
    let cpu_before = cpu_seconds(debug_pid);
    let messages_before = received.0.load(Ordering::Relaxed);
    let bytes_before = received.1.load(Ordering::Relaxed);
    let started = Instant::now();
    let mut last_ticks = record(board, "motion").ticks;
    let mut tick_us = Vec::new();
    let mut window_max_ms: f64 = 0.0;
    while started.elapsed().as_secs_f64() < seconds {
        let motion = record(board, "motion");
        if motion.ticks != last_ticks {
            last_ticks = motion.ticks;
            let total: u64 = motion.modules().iter().map(|module| module.last_ns).sum();
            tick_us.push(total as f64 / 1000.0);
            window_max_ms = window_max_ms.max(motion.tick_max_ns as f64 / 1e6);
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    let elapsed = started.elapsed().as_secs_f64();
    let lola_after = record(board, "lola");
    tick_us.sort_by(f64::total_cmp);
    Phase {
        name,
        tick_us,
        window_max_ms,
        missed: lola_after.overruns.saturating_sub(lola_before.overruns),
        bridge_hz: (lola_after.ticks - lola_before.ticks) as f64 / elapsed,
        messages: received.0.load(Ordering::Relaxed) - messages_before,
        megabytes: (received.1.load(Ordering::Relaxed) - bytes_before) as f64 / 1e6,
        debug_cpu_percent: (cpu_seconds(debug_pid) - cpu_before) / elapsed * 100.0,
    }
}

fn client(
    address: SocketAddr,
    requests: Vec<String>,
    stop: Arc<AtomicBool>,
    received: Arc<(AtomicU64, AtomicU64)>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let (mut socket, _) =
            tungstenite::client::client(format!("ws://{address}/ws").as_str(), stream).unwrap();
        for request in requests {
            socket.send(Message::text(request)).unwrap();
        }
        while !stop.load(Ordering::Relaxed) {
            match socket.read() {
                Ok(message) => {
                    received.0.fetch_add(1, Ordering::Relaxed);
                    received
                        .1
                        .fetch_add(message.len() as u64, Ordering::Relaxed);
                }
                Err(tungstenite::Error::Io(error))
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        let _ = socket.close(None);
    })
}

fn main() {
    let seconds: f64 = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse().ok())
        .unwrap_or(60.0);
    let instance = support::Instance::start("debug-load", &[]);
    let board = health_board(&instance.run_dir);
    let url = instance.debug_url();
    let address: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    // Every channel, from the link itself.
    let (mut socket, _) = tungstenite::client::client(
        format!("ws://{address}/ws").as_str(),
        TcpStream::connect(address).unwrap(),
    )
    .unwrap();
    socket.send(Message::text(r#"{"op":"list"}"#)).unwrap();
    let list: serde_json::Value = loop {
        if let Message::Text(text) = socket.read().unwrap() {
            break serde_json::from_str(text.as_str()).unwrap();
        }
    };
    drop(socket);
    let channels = list["representations"].as_array().unwrap();
    let encoded: Vec<String> = channels
        .iter()
        .filter(|channel| channel["kind"] == "encoded")
        .map(|channel| channel["channel"].as_str().unwrap().to_owned())
        .collect();
    let images: Vec<String> = channels
        .iter()
        .filter(|channel| channel["kind"] == "image")
        .map(|channel| channel["channel"].as_str().unwrap().to_owned())
        .collect();
    println!(
        "debug link load: {SUBSCRIBERS} subscribers × {} representations + {} image streams, \
         {seconds} s per phase",
        encoded.len(),
        images.len()
    );
    let received = Arc::new((AtomicU64::new(0), AtomicU64::new(0)));
    let mut phases = Vec::new();
    for round in 0..2 {
        // Settle after start-up (or after the last phase's clients left).
        std::thread::sleep(Duration::from_secs(if round == 0 { 5 } else { 3 }));
        phases.push(measure("quiet", &board, seconds, &received));
        let stop = Arc::new(AtomicBool::new(false));
        let mut clients = Vec::new();
        for _ in 0..SUBSCRIBERS {
            let requests = encoded
                .iter()
                .map(|channel| format!(r#"{{"op":"subscribe","channel":"{channel}"}}"#))
                .collect();
            clients.push(client(
                address,
                requests,
                Arc::clone(&stop),
                Arc::clone(&received),
            ));
        }
        for image in &images {
            let request = format!(r#"{{"op":"image","channel":"{image}","max_hz":30}}"#);
            clients.push(client(
                address,
                vec![request],
                Arc::clone(&stop),
                Arc::clone(&received),
            ));
        }
        std::thread::sleep(Duration::from_secs(2));
        phases.push(measure("load", &board, seconds, &received));
        stop.store(true, Ordering::Relaxed);
        for client in clients {
            let _ = client.join();
        }
    }
    println!(
        "{:<6} {:>7} {:>9} {:>8} {:>8} {:>8} {:>13} {:>12} {:>9} {:>10} {:>8} {:>10}",
        "phase",
        "ticks",
        "median µs",
        "p90 µs",
        "p99 µs",
        "max µs",
        "window max ms",
        "missed LoLA",
        "bridge Hz",
        "messages",
        "MB",
        "debug CPU"
    );
    for phase in &phases {
        println!(
            "{:<6} {:>7} {:>9.1} {:>8.1} {:>8.1} {:>8.1} {:>13.3} {:>12} {:>9.2} {:>10} {:>8.1} {:>9.1}%",
            phase.name,
            phase.tick_us.len(),
            percentile(&phase.tick_us, 0.5),
            percentile(&phase.tick_us, 0.9),
            percentile(&phase.tick_us, 0.99),
            phase.tick_us.last().copied().unwrap_or(f64::NAN),
            phase.window_max_ms,
            phase.missed,
            phase.bridge_hz,
            phase.messages,
            phase.megabytes,
            phase.debug_cpu_percent
        );
    }
    let quiet: Vec<&Phase> = phases.iter().filter(|p| p.name == "quiet").collect();
    let load: Vec<&Phase> = phases.iter().filter(|p| p.name == "load").collect();
    let median_of = |group: &[&Phase]| {
        group
            .iter()
            .map(|phase| percentile(&phase.tick_us, 0.5))
            .sum::<f64>()
            / group.len() as f64
    };
    println!(
        "motion median tick, load / quiet: {:.2}x",
        median_of(&load) / median_of(&quiet)
    );
}
