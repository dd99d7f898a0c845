//! The commands for people: `check`, `status`, `get`, `stop`, `restart`, `sim`, and the
//! simulator process that `run --sim` starts.

use crate::control::{self, Request};
use crate::program;
use crate::ConfigOptions;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `cortex check`: validates the configuration (everything `cortex run` would refuse: the
/// process table, the graph, every module's parameters, the keyframe motions, the bridge's
/// parameters, every `--set`) and prints the graph.
pub fn check(options: &ConfigOptions, robot: Option<&[String]>) -> Result<ExitCode> {
    let root = options.root();
    let identity = robot.map(|serials| (serials[0].as_str(), serials[1].as_str()));
    let config = program::load_config(&root, identity, &options.overrides)?;
    // The same checks `cortex run` makes before it starts a child.
    let graph = program::check(&config)?;
    if identity.is_some() {
        let without_robot = program::load_config(&root, None, &options.overrides)?;
        program::check(&without_robot)?;
        let names = without_robot.process_table().processes().iter();
        program::check_same_processes(names.map(|process| process.name.as_str()), &config)?;
    }
    println!("configuration {}", root.display());
    let search: Vec<String> = config
        .search_path()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    println!("search path: {}", search.join(", "));
    println!("process table: {}", config.process_table().file().display());
    println!();
    print!("{graph}");
    Ok(ExitCode::SUCCESS)
}

/// `cortex status`; with `modules`, one row per module instead of one per process.
pub fn status(run_dir: &Path, json: bool, watch: bool, modules: bool) -> Result<ExitCode> {
    loop {
        let status = control::status(run_dir)?;
        if json && modules {
            println!("{}", serde_json::to_string(&status.module_table())?);
        } else if json {
            println!("{}", serde_json::to_string(&status)?);
        } else {
            // Clear the screen only on a terminal: a file or a pipe gets plain tables.
            if watch && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                print!("\x1b[2J\x1b[H");
            } else if watch {
                println!();
            }
            if modules {
                print!("{}", status.module_table().table());
            } else {
                print!("{}", status.table());
            }
        }
        if !watch {
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// How long `cortex get` waits for the producer's next publish.
const GET_WAIT: Duration = Duration::from_secs(1);
/// How long one `cortex get` keeps a value nobody else reads published (so that `get` in a loop
/// sees every value without a gap).
const GET_WATCH_LEASE: Duration = Duration::from_secs(2);

/// `cortex get NAME`: watches the channel (so that its producer publishes it) and reads its next
/// value straight from shared memory.
pub fn get(run_dir: &Path, name: &str, json: bool) -> Result<ExitCode> {
    let (list, fds) = control::segments(run_dir)?;
    let Some(index) = list
        .channels
        .iter()
        .position(|(channel, _)| channel == name)
    else {
        let known: Vec<&str> = list
            .channels
            .iter()
            .map(|(channel, _)| channel.as_str())
            .collect();
        bail!(
            "no shared representation `{name}`; known: {}",
            known.join(", ")
        );
    };
    let representation = &list.channels[index].1;
    let info = program::representations();
    let info = info
        .get(representation)
        .with_context(|| format!("unknown representation {representation}"))?;
    let fd = fds
        .into_iter()
        .nth(index + 1)
        .expect("counted in control::segments");
    let buffer = ipc::TripleBuffer::from_fd_with_schema(fd, info.schema_hash)?;
    // Published while subscribed: a value no other process reads is encoded only while someone
    // watches it. Watch it, and take the next publish (within one tick of its producer).
    let mut reader = buffer.reader();
    let before = reader.published();
    reader.watch(ipc::health::monotonic_ns() + GET_WATCH_LEASE.as_nanos() as u64);
    let fresh = reader.wait_newer(before, GET_WAIT)?;
    let mut bytes = Vec::new();
    let Some(count) = reader.read_latest(&mut bytes)? else {
        bail!("`{name}` has not been published yet (is its process running?)");
    };
    if fresh.is_none() {
        eprintln!(
            "cortex get: no new value of `{name}` within {GET_WAIT:?} (is its process running?); \
             showing the last one, publish {count}"
        );
    }
    let value = crate::show::decode(&bytes).with_context(|| format!("decoding `{name}`"))?;
    if json {
        println!("{}", serde_json::to_string(&value)?);
    } else {
        let joint_names: Vec<String> = types::JointId::ALL
            .iter()
            .map(|joint| format!("{joint:?}"))
            .collect();
        let value = crate::show::label_joints(value, &joint_names);
        println!("{name} (publish {count}, {} bytes):", bytes.len());
        println!("{}", serde_json::to_string_pretty(&value)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// `cortex stop`: asks the instance to stop and waits until it is gone.
pub fn stop(run_dir: &Path) -> Result<ExitCode> {
    control::request(run_dir, &Request::Stop)?;
    let socket = crate::paths::control_socket(run_dir);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while socket.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if socket.exists() {
        bail!("the instance did not stop within 30 s");
    }
    Ok(ExitCode::SUCCESS)
}

/// `cortex restart PROCESS`.
pub fn restart(run_dir: &Path, process: &str) -> Result<ExitCode> {
    control::request(
        run_dir,
        &Request::Restart {
            process: process.to_owned(),
        },
    )?;
    println!("restarting {process}");
    Ok(ExitCode::SUCCESS)
}

/// Actions on the simulated robot.
#[derive(clap::Subcommand, Debug)]
pub enum SimAction {
    /// Press a button or touch sensor: chest, head-front, head-middle, head-rear, left-foot-left, …
    Press {
        /// The button.
        button: String,
        /// How long, in milliseconds.
        #[arg(long, default_value_t = 200)]
        ms: u64,
    },
    /// Play a WAV file into the simulated robot's microphone (heard in real time from now;
    /// sounds play one after another). The file is checked first: a bad file is an error here.
    Sound {
        /// The WAV file (PCM or float, any rate and channel count).
        file: PathBuf,
    },
    /// Put the ball at X Y (metres), at rest or rolling.
    ///
    /// Field coordinates: metres from the centre spot, x towards the opponent's goal, y to the
    /// left. The ball must lie on the carpet: |x| ≤ 5.15, |y| ≤ 3.65.
    #[command(allow_negative_numbers = true)]
    Ball {
        /// x, m.
        x: String,
        /// y, m.
        y: String,
        /// Set it rolling at VX VY m/s (at most 10 m/s; it slows down at 0.4 m/s²).
        #[arg(long, num_args = 2, value_names = ["VX", "VY"], allow_negative_numbers = true)]
        velocity: Option<Vec<String>>,
    },
    /// Put our robot at X Y (metres) facing THETA (radians).
    ///
    /// Field coordinates as for `ball`; on the carpet (|x| ≤ 5.2, |y| ≤ 3.7); THETA
    /// counter-clockwise from the x axis, |THETA| ≤ 2π. From there its legs carry it.
    #[command(allow_negative_numbers = true)]
    Robot { x: String, y: String, theta: String },
    /// Add another robot standing still at X Y (metres) facing THETA (radians).
    ///
    /// The same ranges as for `robot`; at most 13 other robots.
    #[command(allow_negative_numbers = true)]
    OtherRobot { x: String, y: String, theta: String },
    /// Remove every other robot.
    ClearOtherRobots,
}

/// The world command line of `action`, checked here first so that a bad value is a usage error
/// (exit 64) naming the value, whether or not a simulator runs.
fn world_line(action: &SimAction) -> Option<Result<String>> {
    let words: Vec<String> = match action {
        SimAction::Ball { x, y, velocity } => {
            let mut words = vec!["ball".to_owned(), x.clone(), y.clone()];
            words.extend(velocity.iter().flatten().cloned());
            words
        }
        SimAction::Robot { x, y, theta } => {
            vec!["robot".to_owned(), x.clone(), y.clone(), theta.clone()]
        }
        SimAction::OtherRobot { x, y, theta } => {
            vec![
                "other-robot".to_owned(),
                x.clone(),
                y.clone(),
                theta.clone(),
            ]
        }
        SimAction::ClearOtherRobots => vec!["clear-other-robots".to_owned()],
        SimAction::Press { .. } | SimAction::Sound { .. } => return None,
    };
    if let Some(blank) = words
        .iter()
        .find(|word| word.trim().is_empty() || word.contains(char::is_whitespace))
    {
        return Some(Err(crate::exit_code::Failure::error(
            crate::exit_code::EX_USAGE,
            format!("`{blank}` is not a number"),
        )));
    }
    let borrowed: Vec<&str> = words.iter().map(String::as_str).collect();
    Some(
        match simulator::world_commands::WorldCommand::parse(&borrowed) {
            Ok(_) => Ok(words.join(" ")),
            Err(error) => Err(crate::exit_code::Failure::error(
                crate::exit_code::EX_USAGE,
                error.to_string(),
            )),
        },
    )
}

/// `cortex sim …`: talks to the simulator's control socket, or drops a sound into the
/// simulated microphone.
pub fn sim(run_dir: &Path, action: SimAction) -> Result<ExitCode> {
    if let Some(line) = world_line(&action) {
        let reply =
            crate::simulator_process::send(&crate::paths::simulator_control(run_dir), &line?)?;
        println!("{reply}");
        return Ok(ExitCode::SUCCESS);
    }
    match action {
        SimAction::Press { button, ms } => {
            let reply = crate::simulator_process::send(
                &crate::paths::simulator_control(run_dir),
                &format!("press {button} {ms}"),
            )?;
            println!("{reply}");
        }
        SimAction::Sound { file } => sim_sound(run_dir, &file)?,
        // Sent above.
        SimAction::Ball { .. }
        | SimAction::Robot { .. }
        | SimAction::OtherRobot { .. }
        | SimAction::ClearOtherRobots => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// `cortex sim sound FILE`: reads the whole file (so that a broken one is the caller's error,
/// with its byte offset, and never reaches the audio process), then copies it into the
/// microphone's inbox under a dot-name and renames it: the audio process never sees half a file.
fn sim_sound(run_dir: &Path, file: &Path) -> Result<()> {
    use audio::AudioSource;
    if !crate::paths::simulator_control(run_dir).exists() {
        bail!(
            "no simulated robot runs in {} (start one with `cortex run --sim`)",
            run_dir.display()
        );
    }
    let mut source = audio::WavSource::open(file, audio::inbox::FRAMES_PER_BUFFER)?;
    let mut frames = audio::AudioFrames::empty(source.sample_rate_hz(), source.channel_count());
    let mut seconds = 0.0;
    while source.read(&mut frames)? {
        seconds += frames.duration().as_secs_f64();
    }
    let folder = crate::paths::microphone(run_dir);
    match std::fs::create_dir(&folder) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => {
            return Err(error).with_context(|| format!("creating {}", folder.display()));
        }
    }
    // Sorted by name = heard in the order they were sent.
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let name = format!("{:020}-{}.wav", since_epoch.as_nanos(), std::process::id());
    let partial = folder.join(format!(".{name}"));
    std::fs::copy(file, &partial)
        .with_context(|| format!("copying {} to {}", file.display(), partial.display()))?;
    let target = folder.join(&name);
    std::fs::rename(&partial, &target)
        .with_context(|| format!("renaming {} to {}", partial.display(), target.display()))?;
    println!(
        "{}: {seconds:.2} s, sent to the simulated microphone",
        file.display()
    );
    Ok(())
}

/// Options of the internal `cortex simulator` process.
#[derive(clap::Args, Debug)]
pub struct SimulatorOptions {
    /// The LoLA socket to serve.
    #[arg(long)]
    pub socket: PathBuf,
    /// The control socket (button presses).
    #[arg(long)]
    pub control: PathBuf,
    /// Body serial number in RobotConfig.
    #[arg(long, default_value = "P0000073A07S94700012")]
    pub body_serial: String,
    /// Head serial number in RobotConfig.
    #[arg(long, default_value = "P0000074A05S93M00061")]
    pub head_serial: String,
    /// The inherited descriptor of the GroundTruth channel to publish the world to.
    #[arg(long)]
    pub ground_truth_fd: Option<i32>,
}

/// `cortex simulator`.
pub fn simulator(options: SimulatorOptions) -> Result<ExitCode> {
    crate::simulator_process::run(options)
}

/// The options of `cortex sync` besides the target.
#[derive(Debug)]
pub struct SyncArguments {
    /// The behaviour package to copy.
    pub behaviours: Option<PathBuf>,
    /// The configuration root to copy.
    pub config_dir: Option<PathBuf>,
    /// The folder on the robot.
    pub remote_dir: String,
    /// The ssh port.
    pub port: Option<u16>,
    /// An ssh configuration file.
    pub ssh_config: Option<PathBuf>,
    /// Only list what would change.
    pub dry_run: bool,
    /// Keep files the source does not have.
    pub keep: bool,
}

/// `cortex sync`: copies the behaviours and the configuration with rsync.
pub fn sync(
    target: Option<String>,
    local: Option<PathBuf>,
    arguments: SyncArguments,
) -> Result<ExitCode> {
    let target = match (target, local) {
        (_, Some(folder)) => behaviours::sync::SyncTarget::Local(folder),
        (Some(robot), None) => behaviours::sync::SyncTarget::Remote(robot),
        (None, None) => bail!("give a robot (`cortex sync nao@robot`) or `--local DIR`"),
    };
    let mut options = behaviours::sync::SyncOptions::default();
    if let Some(folder) = arguments.behaviours {
        options.behaviours = folder;
    }
    if let Some(folder) = arguments.config_dir {
        options.config = folder;
    }
    options.remote_dir = arguments.remote_dir;
    options.ssh_port = arguments.port;
    options.ssh_config = arguments.ssh_config;
    options.dry_run = arguments.dry_run;
    options.delete = !arguments.keep;
    let report = behaviours::sync::sync(&target, &options)?;
    print!("{report}");
    // Deletions and links left out also go to stderr: a script that drops stdout still says.
    for warning in &report.warnings {
        eprintln!("cortex sync: warning: {warning}");
    }
    if !report.deleted.is_empty() {
        let verb = if report.dry_run {
            "would delete"
        } else {
            "deleted"
        };
        eprintln!(
            "cortex sync: {verb} {} file(s) the source does not have: {}",
            report.deleted.len(),
            report.deleted.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
