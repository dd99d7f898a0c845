//! `cortex simulator`: the LoLA simulator and the simulated world as a process of its own
//! (started by `run --sim`), with a control socket for what a person does to the robot and the
//! world (`cortex sim press chest`, `cortex sim ball 1 0`).
//!
//! Control protocol: one line per connection, `press BUTTON MS`, `eyes` (the colours LoLA was
//! last told) or a world command (`simulator::world_commands`: `ball X Y [VX VY]`,
//! `robot X Y THETA`, `other-robot X Y THETA`, `clear-other-robots`); the reply is one line,
//! `error: …` for a refused one.
//!
//! The world steps every [`WORLD_PERIOD`] on a thread of its own: the ball rolls, the robot
//! moves as the simulated legs carry it, and the new `GroundTruth` is published to the channel
//! the supervisor handed over (`--ground-truth-fd`), the only writer of it.

use crate::tools::SimulatorOptions;
use anyhow::{bail, Context, Result};
use simulator::lola_simulator::{Button, LolaSimulator, SimulatorConfig, SimulatorHandle};
use simulator::world::World;
use simulator::world_commands::WorldCommand;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// How often the world steps and `GroundTruth` is published.
pub const WORLD_PERIOD: Duration = Duration::from_millis(10);

fn handle_line(line: &str, handle: &SimulatorHandle, world: &Mutex<World>) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    match WorldCommand::parse(&words) {
        Ok(Some(command)) => {
            let mut world = world
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            return command
                .apply(&mut world)
                .unwrap_or_else(|error| format!("error: {error}"));
        }
        Ok(None) => {}
        Err(error) => return format!("error: {error}"),
    }
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
        _ => format!(
            "error: unknown command `{}`; expected `press BUTTON MS`, `eyes`, `ball X Y [VX VY]`, \
             `robot X Y THETA`, `other-robot X Y THETA` or `clear-other-robots`",
            line.chars().take(80).collect::<String>()
        ),
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
    let world = Arc::new(Mutex::new(World::new()));
    // The world goes on while the simulator lingers for the bridge after SIGTERM.
    let world_stop = Arc::new(AtomicBool::new(false));
    let world_thread = {
        let ground_truth = options
            .ground_truth_fd
            .map(open_ground_truth)
            .transpose()
            .context("opening the GroundTruth channel")?;
        let (world, handle, stop) = (world.clone(), handle.clone(), world_stop.clone());
        std::thread::Builder::new()
            .name("world".into())
            .spawn(move || run_world(&world, &handle, ground_truth.as_ref(), &stop))
            .context("starting the world thread")?
    };
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
                // At most one line of 4 KiB: nothing a client sends can grow this process.
                let reply =
                    match BufReader::new(std::io::Read::take(&stream, 4096)).read_line(&mut line) {
                        Ok(_) => Some(handle_line(line.trim(), &handle, &world)),
                        Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                            Some("error: the command is not UTF-8 text".to_owned())
                        }
                        // Silent or gone: nobody to answer.
                        Err(_) => None,
                    };
                if let Some(reply) = reply {
                    let _ = (&stream).write_all(format!("{reply}\n").as_bytes());
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    world_stop.store(true, Ordering::Relaxed);
    if world_thread.join().is_err() {
        tracing::error!("the world thread panicked");
    }
    drop(simulator);
    let _ = std::fs::remove_file(&options.control);
    let _ = std::fs::remove_file(&options.socket);
    Ok(ExitCode::SUCCESS)
}

/// The GroundTruth channel inherited from the supervisor under descriptor `fd`.
fn open_ground_truth(fd: i32) -> Result<ipc::TripleBuffer> {
    let representations = crate::program::representations();
    let info = representations
        .get(<types::GroundTruth as types::Representation>::NAME)
        .context("GroundTruth is not a registered representation")?;
    let fd = ipc::fd::take_inherited(fd)?;
    Ok(ipc::TripleBuffer::from_fd_with_schema(
        fd,
        info.schema_hash,
    )?)
}

/// Steps the world every [`WORLD_PERIOD`] with the simulated body's joint angles and publishes
/// the new `GroundTruth`, until `stop`.
fn run_world(
    world: &Mutex<World>,
    handle: &SimulatorHandle,
    ground_truth: Option<&ipc::TripleBuffer>,
    stop: &AtomicBool,
) {
    let mut writer = match ground_truth.map(ipc::TripleBuffer::writer).transpose() {
        Ok(writer) => writer,
        Err(error) => {
            tracing::error!(
                "GroundTruth channel: cannot write: {error}; the world is not published"
            );
            None
        }
    };
    let mut bytes = Vec::new();
    let mut last = Instant::now();
    let mut deadline = last;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        // A stalled machine does not make the ball jump across the field.
        let elapsed = (now - last).min(Duration::from_millis(100));
        last = now;
        let joints = handle.joint_positions_rad();
        let truth = {
            let mut world = world
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            world.step(elapsed.as_secs_f64(), Some(&joints));
            world.ground_truth()
        };
        if let Some(writer) = writer.as_mut() {
            bytes.clear();
            let published = ipc::channel::encode(&truth, &mut bytes)
                .map_err(|error| error.to_string())
                .and_then(|()| writer.publish(&bytes).map_err(|error| error.to_string()));
            if let Err(error) = published {
                tracing::warn!("GroundTruth: cannot publish: {error}");
            }
        }
        deadline += WORLD_PERIOD;
        let now = Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        } else {
            deadline = now;
        }
    }
}

/// Sends one control line to a simulator and returns its reply.
pub fn send(control: &Path, line: &str) -> Result<String> {
    let mut stream = UnixStream::connect(control).map_err(|error| {
        crate::exit_code::Failure::error(
            crate::exit_code::EX_UNAVAILABLE,
            format!(
                "no simulator answers on {} (is a `cortex run --sim` running?): {error}",
                control.display()
            ),
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
