//! `cortex simulator`: the LoLA simulator as a process of its own (started by `run --sim`),
//! with a control socket for what a person does to the robot (`cortex sim press chest`).
//!
//! Control protocol: one line per connection, `press BUTTON MS` or `eyes` (the colours LoLA was
//! last told); the reply is one line.

use crate::tools::SimulatorOptions;
use anyhow::{bail, Context, Result};
use simulator::lola_simulator::{Button, LolaSimulator, SimulatorConfig, SimulatorHandle};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The buttons by the names people type.
const BUTTONS: [(&str, Button); 14] = [
    ("chest", Button::Chest),
    ("head-front", Button::HeadFront),
    ("head-middle", Button::HeadMiddle),
    ("head-rear", Button::HeadRear),
    ("left-foot-left", Button::LeftFootBumperLeft),
    ("left-foot-right", Button::LeftFootBumperRight),
    ("left-hand-back", Button::LeftHandBack),
    ("left-hand-left", Button::LeftHandLeft),
    ("left-hand-right", Button::LeftHandRight),
    ("right-foot-left", Button::RightFootBumperLeft),
    ("right-foot-right", Button::RightFootBumperRight),
    ("right-hand-back", Button::RightHandBack),
    ("right-hand-left", Button::RightHandLeft),
    ("right-hand-right", Button::RightHandRight),
];

fn handle_line(line: &str, handle: &SimulatorHandle) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["press", name, duration] => {
            let Some((_, button)) = BUTTONS.iter().find(|(known, _)| known == name) else {
                let names: Vec<&str> = BUTTONS.iter().map(|(n, _)| *n).collect();
                return format!(
                    "error: unknown button `{name}`; buttons: {}",
                    names.join(", ")
                );
            };
            let Ok(milliseconds) = duration.parse::<u64>() else {
                return format!("error: `{duration}` is not a duration in ms");
            };
            handle.press(*button, Duration::from_millis(milliseconds));
            format!("pressed {name} for {milliseconds} ms")
        }
        ["eyes"] => {
            let actuators = handle.actuators();
            let name = |eye: Option<types::EyeLeds>| {
                eye.map_or("unset", |eye| colour_name(eye.segments[0]))
            };
            format!(
                "left {} right {}",
                name(actuators.left_eye),
                name(actuators.right_eye)
            )
        }
        _ => format!("error: unknown command `{line}`; expected `press BUTTON MS` or `eyes`"),
    }
}

/// The name of a pure colour, for the `eyes` command.
fn colour_name(colour: types::Rgb) -> &'static str {
    let on = |value: f32| value > 0.5;
    match (on(colour.red), on(colour.green), on(colour.blue)) {
        (false, false, false) => "off",
        (true, false, false) => "red",
        (false, true, false) => "green",
        (false, false, true) => "blue",
        (true, true, true) => "white",
        _ => "mixed",
    }
}

/// How long the simulated robot stays after SIGTERM while its LoLA client is still connected.
const LINGER: Duration = Duration::from_secs(10);

/// Whether a LoLA client is connected.
fn client_connected(handle: &SimulatorHandle) -> bool {
    let statistics = handle.statistics();
    statistics.clients_accepted > statistics.clients_dropped + statistics.clients_disconnected
}

/// Runs the simulator until SIGTERM. The simulated robot, like a real one, outlives a client
/// that is still talking to it: after SIGTERM it keeps serving until the bridge has let go (at
/// most [`LINGER`]), so that a bridge that got its `PDEATHSIG` together with the simulator (the
/// supervisor was killed) can still sit the robot down.
pub fn run(options: SimulatorOptions) -> Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
    let mut config = SimulatorConfig::new(&options.socket);
    config.robot_identity.body_id = options.body_serial.clone();
    config.robot_identity.head_id = options.head_serial.clone();
    let simulator = LolaSimulator::start(config)
        .with_context(|| format!("serving LoLA on {}", options.socket.display()))?;
    let handle = simulator.handle();
    let _ = std::fs::remove_file(&options.control);
    let listener = UnixListener::bind(&options.control)
        .with_context(|| format!("binding {}", options.control.display()))?;
    listener.set_nonblocking(true)?;
    let mut stopping_since = None;
    loop {
        if stop.load(Ordering::Relaxed) {
            let since = *stopping_since.get_or_insert_with(std::time::Instant::now);
            if !client_connected(&handle) || since.elapsed() >= LINGER {
                break;
            }
        }
        match listener.accept() {
            Ok((stream, _)) => {
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
                let mut line = String::new();
                if BufReader::new(&stream).read_line(&mut line).is_ok() {
                    let reply = handle_line(line.trim(), &handle);
                    let _ = (&stream).write_all(format!("{reply}\n").as_bytes());
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    drop(simulator);
    let _ = std::fs::remove_file(&options.control);
    let _ = std::fs::remove_file(&options.socket);
    Ok(ExitCode::SUCCESS)
}

/// Sends one control line to a simulator and returns its reply.
pub fn send(control: &Path, line: &str) -> Result<String> {
    let mut stream = UnixStream::connect(control).with_context(|| {
        format!(
            "no simulator answers on {} (is a `cortex run --sim` running?)",
            control.display()
        )
    })?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.write_all(format!("{line}\n").as_bytes())?;
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply)?;
    let reply = reply.trim().to_owned();
    if let Some(error) = reply.strip_prefix("error: ") {
        bail!("{error}");
    }
    Ok(reply)
}
