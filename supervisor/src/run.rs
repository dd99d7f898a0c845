//! `cortex run`: the supervisor.
//!
//! Start-up: (the LoLA simulator with `--sim`,) the `lola` bridge, wait for the robot identity,
//! resolve the configuration for that robot, build the graph, create every segment, start the
//! other children. Then, every millisecond: reap exited children and restart them (capped
//! exponential back-off from zero, a restart-intensity window that escalates to the safe state,
//! no restart after a configuration error), check every heartbeat against its watchdog
//! (SIGABRT, then SIGKILL, then restart), and act on complete control requests, which the
//! control socket's own threads read (the loop never waits on a client). Shutdown (SIGTERM,
//! SIGINT, SIGHUP, SIGQUIT or `cortex stop`): children in reverse start order with SIGTERM
//! (SIGKILL after a timeout), the bridge last.
//!
//! Every child and the simulator run in a process group of their own, so that a terminal's
//! Ctrl-C reaches the supervisor only. A child dies with the supervisor (`PDEATHSIG`): SIGKILL,
//! except the bridge, which gets SIGTERM and sits the robot down. The run directory is locked
//! (`run_lock`), so a later `cortex run` cleans up after a killed one.
//!
//! The supervisor holds no robot data and runs no robot code.

use crate::behaviour_faults::{self, BehaviourWatch, BEHAVIOUR_MODULE};
use crate::child_env::{exit_reason_text, ChildEnvironment};
use crate::control::{ControlServer, Incoming, Reply, Request, SegmentList};
use crate::paths::RunDir;
use crate::program;
use crate::run_lock::{self, Recorded, RunLock};
use crate::{paths, ConfigOptions};
use anyhow::{bail, Context, Result};
use behaviours::marker::MARKER_VARIABLE;
use config::{ProcessKind, ProcessSpec, RestartPolicy};
use framework::graph::{channel_name, LOLA_PROVIDES, LOLA_USES};
use framework::RepresentationRegistry;
use ipc::health::{monotonic_ns, ExitReason, HealthRecord};
use ipc::{HealthBoard, TripleBuffer};
use std::collections::{BTreeMap, VecDeque};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of `cortex run`.
#[derive(clap::Args, Debug, Clone)]
pub struct RunOptions {
    /// Simulate all hardware (starts the LoLA simulator unless --lola-socket is given).
    #[arg(long)]
    sim: bool,
    /// The run directory (control socket, simulator sockets).
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    /// The instance name (selects the default run directory).
    #[arg(long, value_name = "NAME", value_parser = paths::parse_instance)]
    instance: Option<String>,
    #[command(flatten)]
    config: ConfigOptions,
    /// The behaviour folder (default: the shipped `behaviours/python`).
    #[arg(long, value_name = "DIR")]
    behaviours: Option<PathBuf>,
    /// Use this LoLA-compatible socket instead of the robot's `/tmp/robocup` or the simulator.
    #[arg(long, value_name = "PATH")]
    lola_socket: Option<PathBuf>,
    /// With --sim: the MuJoCo physics simulator (simulator/physics/) instead of the kinematic one.
    #[arg(long, requires = "sim")]
    physics: bool,
}

/// The robot's LoLA socket.
const ROBOT_LOLA_SOCKET: &str = "/tmp/robocup";
/// How long the bridge has to report the robot identity.
const IDENTITY_TIMEOUT: Duration = Duration::from_secs(10);
/// Time a new child has for its first tick on top of its watchdog (loading Python, say).
const STARTUP_GRACE: Duration = Duration::from_secs(5);
/// Between SIGABRT and SIGKILL for a frozen child.
const FREEZE_GRACE: Duration = Duration::from_millis(50);
/// Between SIGTERM and SIGKILL at shutdown.
const STOP_TIMEOUT: Duration = Duration::from_secs(3);
/// Back-off after the first quick restart, doubled each time up to the cap.
const BACKOFF_STEP: Duration = Duration::from_millis(10);
const BACKOFF_CAP: Duration = Duration::from_secs(1);
/// A child that ran this long resets its back-off.
const STABLE_UPTIME: Duration = Duration::from_secs(10);
/// Poll interval of the main loop.
const POLL: Duration = Duration::from_millis(1);
/// The signals that stop the supervisor like `cortex stop`.
const STOP_SIGNALS: [i32; 4] = [
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
];
/// The stop cell's value after `cortex stop` (otherwise it holds the signal's number, 0: none).
const STOP_BY_REQUEST: usize = usize::MAX;

/// Why the supervisor stops, from the stop cell.
fn stop_reason(cell: usize) -> String {
    match cell {
        STOP_BY_REQUEST => "`cortex stop`".to_owned(),
        signal => signal_name(signal as i32),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    Running,
    /// Waiting to be restarted at this time.
    Backoff(Instant),
    /// Not restarted (configuration error, intensity reached, safe state).
    Failed(String),
    Stopped,
}

#[derive(Debug)]
struct Child {
    name: String,
    kind: ProcessKind,
    slot: usize,
    watchdog: Duration,
    restart: RestartPolicy,
    channels: Vec<String>,
    process: Option<std::process::Child>,
    pid: u32,
    /// The kernel's start time of `pid` (for the run directory's lock file).
    start_time: u64,
    started: Instant,
    started_ns: u64,
    restarts: u32,
    failures: VecDeque<Instant>,
    backoff: Duration,
    last_exit: ExitReason,
    state: State,
    /// SIGABRT sent at (a freeze); SIGKILL follows after the grace.
    abort_sent: Option<Instant>,
    /// An operator asked for the restart (not a failure).
    restart_requested: bool,
    /// The marker of a process that runs the Python behaviour (its faults are restarted
    /// without counting toward the safe state, see `behaviour_faults`).
    behaviour: Option<BehaviourWatch>,
    /// `RLIMIT_DATA` from the process table, MB.
    memory_limit_mb: Option<u64>,
}

/// Name of a signal for people.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return format!("signal {signal}"),
    };
    name.to_owned()
}

/// An exit reason for people.
pub fn describe_exit(reason: ExitReason) -> String {
    match reason {
        ExitReason::None => "-".to_owned(),
        ExitReason::Status(0) => "exit 0".to_owned(),
        ExitReason::Status(status) if status == i32::from(config::EX_CONFIG) => {
            format!("exit {status} (configuration error)")
        }
        ExitReason::Status(status) => format!("exit {status}"),
        ExitReason::Signal(signal) => signal_name(signal),
        ExitReason::Frozen => "frozen (killed by the watchdog)".to_owned(),
    }
}

struct Supervisor {
    exe: PathBuf,
    options: RunOptions,
    config_root: PathBuf,
    lola_socket: PathBuf,
    /// The simulated microphone's folder (`--sim`), given to the audio process.
    microphone: Option<PathBuf>,
    /// Where the audio process records what it played (`--sim`).
    sound_record: Option<PathBuf>,
    identity: Option<(String, String)>,
    board: HealthBoard,
    channels: BTreeMap<String, TripleBuffer>,
    children: Vec<Child>,
    simulator: Option<std::process::Child>,
    safe_state: Option<String>,
    ready_notified: bool,
    lock: RunLock,
    /// The counters of the control socket, for `status`.
    control: serde_json::Value,
    /// Shutting down (for `status`).
    stopping: bool,
}

/// Runs the supervisor until SIGTERM, SIGINT, SIGHUP, SIGQUIT or `cortex stop`.
pub fn run(options: RunOptions) -> Result<ExitCode> {
    let stop = Arc::new(AtomicUsize::new(0));
    for signal in STOP_SIGNALS {
        signal_hook::flag::register_usize(signal, stop.clone(), signal as usize)
            .with_context(|| format!("installing the {} handler", signal_name(signal)))?;
    }
    let mut run_dir = RunDir::prepare(options.run_dir.as_deref(), options.instance.as_deref())?;
    let lock = match RunLock::acquire(&mut run_dir) {
        Ok(lock) => lock,
        Err(error) => {
            run_dir.remove_if_created();
            return Err(error);
        }
    };
    let control = match ControlServer::bind(&paths::control_socket(run_dir.path())) {
        Ok(control) => control,
        Err(error) => {
            lock.release(&run_dir);
            run_dir.remove_if_created();
            return Err(error);
        }
    };
    let outcome = supervise_in(&run_dir, &options, &stop, lock, control);
    run_dir.remove_if_created();
    outcome?;
    tracing::info!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// Everything after the run directory is ours: whatever happens, the children are stopped and
/// the files this run made are removed.
fn supervise_in(
    run_dir: &RunDir,
    options: &RunOptions,
    stop: &AtomicUsize,
    lock: RunLock,
    control: ControlServer,
) -> Result<()> {
    let sim_sockets = options.sim && options.lola_socket.is_none();
    let cleanup = |lock: RunLock, control: ControlServer| {
        drop(control);
        if sim_sockets {
            for socket in [
                paths::lola_socket(run_dir.path()),
                paths::simulator_control(run_dir.path()),
            ] {
                let _ = std::fs::remove_file(socket);
            }
        }
        lock.release(run_dir);
    };
    let prepared = (|| {
        let config_root = options.config.root();
        // Check the whole configuration before anything starts: a broken one is refused with
        // its culprit named (exit 78), not discovered by a crash-looping child.
        let config = program::load_config(&config_root, None, &options.config.overrides)?;
        // Every module's parameters, the keyframe motions, the bridge's parameters, `--set`.
        program::check(&config)?;
        let specs: Vec<ProcessSpec> = config.process_table().processes().to_vec();
        let board = HealthBoard::create("health", specs.len())?;
        let exe = std::env::current_exe().context("finding the cortex binary")?;
        Ok::<_, anyhow::Error>((config_root, specs, board, exe))
    })();
    let (config_root, specs, board, exe) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            cleanup(lock, control);
            return Err(error);
        }
    };
    let lola_socket = match (&options.lola_socket, options.sim) {
        (Some(path), _) => path.clone(),
        (None, true) => paths::lola_socket(run_dir.path()),
        (None, false) => PathBuf::from(ROBOT_LOLA_SOCKET),
    };
    let mut supervisor = Supervisor {
        exe,
        options: options.clone(),
        config_root,
        lola_socket,
        microphone: options.sim.then(|| paths::microphone(run_dir.path())),
        sound_record: options.sim.then(|| paths::sound_record(run_dir.path())),
        identity: None,
        board,
        channels: BTreeMap::new(),
        children: specs
            .iter()
            .enumerate()
            .map(|(slot, spec)| Child::new(spec, slot))
            .collect(),
        simulator: None,
        safe_state: None,
        ready_notified: false,
        lock,
        control: serde_json::Value::Null,
        stopping: false,
    };
    let outcome = match supervisor.start(run_dir.path(), stop, &control) {
        Ok(()) => supervisor.supervise(&control, stop),
        // A stop signal during start-up is a stop, not a failure.
        Err(error) if stop.load(Ordering::Relaxed) != 0 => {
            tracing::info!(
                "stop requested ({}) during start-up: {error:#}",
                stop_reason(stop.load(Ordering::Relaxed))
            );
            Ok(())
        }
        Err(error) => Err(error),
    };
    supervisor.shutdown(&control, stop);
    let Supervisor {
        lock,
        microphone,
        sound_record,
        ..
    } = supervisor;
    // Sounds injected but not yet heard (`cortex sim sound`), the record of what was played.
    for folder in [microphone, sound_record].into_iter().flatten() {
        let _ = std::fs::remove_dir_all(folder);
    }
    cleanup(lock, control);
    outcome
}

impl Child {
    fn new(spec: &ProcessSpec, slot: usize) -> Child {
        Child {
            name: spec.name.clone(),
            kind: spec.kind,
            slot,
            watchdog: spec.watchdog,
            restart: spec.restart,
            channels: Vec::new(),
            process: None,
            pid: 0,
            start_time: 0,
            started: Instant::now(),
            started_ns: 0,
            restarts: 0,
            failures: VecDeque::new(),
            backoff: Duration::ZERO,
            last_exit: ExitReason::None,
            state: State::Stopped,
            abort_sent: None,
            restart_requested: false,
            behaviour: None,
            memory_limit_mb: spec.memory_limit_mb,
        }
    }

    fn signal(&self, signal: rustix::process::Signal) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
            if self.process.is_some() {
                let _ = rustix::process::kill_process(pid, signal);
            }
        }
    }
}

impl Supervisor {
    fn start(&mut self, run_dir: &Path, stop: &AtomicUsize, control: &ControlServer) -> Result<()> {
        let started = Instant::now();
        if self.options.sim && self.options.lola_socket.is_none() {
            self.start_simulator(run_dir)?;
        }
        let representations = program::representations();
        let lola = self
            .children
            .iter()
            .position(|child| child.kind == ProcessKind::Lola);
        if let Some(index) = lola {
            let name = self.children[index].name.clone();
            for representation in LOLA_PROVIDES.iter().chain(&LOLA_USES) {
                self.create_channel(
                    &channel_name(&name, representation),
                    representation,
                    &representations,
                )?;
            }
            self.children[index].channels = LOLA_PROVIDES
                .iter()
                .chain(&LOLA_USES)
                .map(|r| channel_name(&name, r))
                .collect();
            self.spawn(index)?;
            self.identity = Some(self.wait_for_identity(index, &name, stop, control)?);
        } else {
            tracing::warn!("the process table has no lola process: no robot, no binding");
        }
        let identity = self
            .identity
            .as_ref()
            .map(|(body, head)| (body.as_str(), head.as_str()));
        let config =
            program::load_config(&self.config_root, identity, &self.options.config.overrides)?;
        program::check_same_processes(
            self.children.iter().map(|child| child.name.as_str()),
            &config,
        )?;
        // The robot's layers may hold parameter files of their own.
        let graph = program::check(&config)?;
        for channel in &graph.channels {
            if !self.channels.contains_key(&channel.name) {
                self.create_channel(&channel.name, &channel.representation, &representations)?;
            }
        }
        for (index, spec) in config.process_table().processes().iter().enumerate() {
            let plan = graph.process(&spec.name).expect("every process has a plan");
            let mut names: Vec<String> = plan.inbound.iter().map(|i| i.channel.clone()).collect();
            names.extend(plan.outbound.iter().cloned());
            names.sort();
            names.dedup();
            let child = &mut self.children[index];
            child.watchdog = spec.watchdog;
            child.restart = spec.restart;
            child.memory_limit_mb = spec.memory_limit_mb;
            let runs_behaviour = plan
                .order
                .iter()
                .any(|step| step.module == BEHAVIOUR_MODULE);
            if runs_behaviour && child.behaviour.is_none() {
                child.behaviour = Some(BehaviourWatch::create(&child.name)?);
            }
            if child.kind != ProcessKind::Lola {
                child.channels = names;
            }
        }
        for index in 0..self.children.len() {
            if self.children[index].state == State::Stopped {
                self.spawn(index)?;
            }
        }
        tracing::info!(
            "{} processes started in {:?}",
            self.children.len(),
            started.elapsed()
        );
        Ok(())
    }

    fn create_channel(
        &mut self,
        name: &str,
        representation: &str,
        registry: &RepresentationRegistry,
    ) -> Result<()> {
        let info = registry
            .get(representation)
            .with_context(|| format!("channel {name}: unknown representation {representation}"))?;
        let buffer = TripleBuffer::create_with_schema(name, info.capacity, info.schema_hash)?;
        self.channels.insert(name.to_owned(), buffer);
        Ok(())
    }

    fn start_simulator(&mut self, run_dir: &Path) -> Result<()> {
        let socket = paths::lola_socket(run_dir);
        let control = paths::simulator_control(run_dir);
        let _ = std::fs::remove_file(&socket);
        let (mut command, start_timeout) = if self.options.physics {
            (
                crate::physics::command(&socket, &control)?,
                crate::physics::START_TIMEOUT,
            )
        } else {
            let mut command = Command::new(&self.exe);
            command
                .arg0("cortex-simulator")
                .arg("simulator")
                .arg("--socket")
                .arg(&socket)
                .arg("--control")
                .arg(&control);
            (command, Duration::from_secs(5))
        };
        command.stdin(Stdio::null()).process_group(0);
        // The simulated robot removes its sockets on SIGTERM, also when the supervisor dies.
        ipc::fd::signal_with_parent(&mut command, rustix::process::Signal::TERM);
        let mut child = command.spawn().context("starting the LoLA simulator")?;
        let deadline = Instant::now() + start_timeout;
        while !socket.exists() {
            if let Some(status) = child.try_wait()? {
                bail!("the LoLA simulator exited at start: {status}");
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!(
                    "the LoLA simulator did not create {} within {start_timeout:?}",
                    socket.display()
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        tracing::info!(
            pid = child.id(),
            "LoLA simulator listening on {}",
            socket.display()
        );
        self.simulator = Some(child);
        self.record_processes();
        Ok(())
    }

    fn wait_for_identity(
        &mut self,
        index: usize,
        name: &str,
        stop: &AtomicUsize,
        control: &ControlServer,
    ) -> Result<(String, String)> {
        let channel = &self.channels[&channel_name(name, "RobotIdentity")];
        let mut reader = channel.reader();
        let deadline = Instant::now() + IDENTITY_TIMEOUT;
        let mut bytes = Vec::new();
        loop {
            if reader.read_latest(&mut bytes)?.is_some() {
                let identity: types::RobotIdentity = ipc::channel::decode(&bytes)?;
                tracing::info!(body = %identity.body_id, head = %identity.head_id, "robot identity");
                return Ok((identity.body_id, identity.head_id));
            }
            if let Some(process) = self.children[index].process.as_mut() {
                if let Some(status) = process.try_wait()? {
                    bail!("the lola bridge exited before it reported the robot identity: {status}");
                }
            }
            let cell = stop.load(Ordering::Relaxed);
            if cell != 0 {
                bail!(
                    "stopped ({}) while waiting for the robot identity",
                    stop_reason(cell)
                );
            }
            if Instant::now() > deadline {
                bail!("the lola bridge reported no robot identity within {IDENTITY_TIMEOUT:?} (is LoLA at {}?)", self.lola_socket.display());
            }
            reader.wait_newer(0, Duration::from_millis(5))?;
            self.answer_outside_supervision(control, stop, "starting", Duration::ZERO);
        }
    }

    fn spawn(&mut self, index: usize) -> Result<()> {
        let child = &self.children[index];
        let mut fds: Vec<BorrowedFd<'_>> = vec![self.board.as_fd()];
        let mut channels = BTreeMap::new();
        for name in &child.channels {
            let buffer = &self.channels[name];
            fds.push(buffer.as_fd());
            channels.insert(name.clone(), buffer.as_fd().as_raw_fd());
        }
        if let Some(watch) = &child.behaviour {
            fds.push(watch.fd());
        }
        let environment = ChildEnvironment {
            config_dir: self.config_root.clone(),
            overrides: self.options.config.overrides.clone(),
            identity: self.identity.clone(),
            health: (self.board.as_fd().as_raw_fd(), child.slot),
            channels,
            restarts: child.restarts,
            last_exit: child.last_exit,
            lola_socket: (child.kind == ProcessKind::Lola).then(|| self.lola_socket.clone()),
            behaviours: self.options.behaviours.clone(),
            supervisor: std::process::id(),
        };
        let mut command = Command::new(&self.exe);
        command
            .arg0(format!("cortex-{}", child.name))
            .arg("proc")
            .arg(&child.name)
            .stdin(Stdio::null())
            // Its own process group: a terminal's Ctrl-C goes to the supervisor only, which
            // stops the children in order.
            .process_group(0);
        environment.apply(&mut command);
        if let Some(watch) = &child.behaviour {
            command.env(MARKER_VARIABLE, watch.fd().as_raw_fd().to_string());
        }
        if let (ProcessKind::Audio, Some(folder)) = (child.kind, &self.microphone) {
            command.env(audio::modules::MICROPHONE_DIR_VARIABLE, folder);
        }
        if let (ProcessKind::Audio, Some(folder)) = (child.kind, &self.sound_record) {
            command.env(audio::modules::RECORD_DIR_VARIABLE, folder);
        }
        ipc::fd::inherit_fds(&mut command, &fds);
        if child.kind == ProcessKind::Lola {
            // Gently: the bridge sits the robot down, then exits.
            ipc::fd::signal_with_parent(&mut command, rustix::process::Signal::TERM);
        } else {
            ipc::fd::kill_with_parent(&mut command);
        }
        let process = command
            .spawn()
            .with_context(|| format!("starting {}", child.name))?;
        let child = &mut self.children[index];
        child.pid = process.id();
        behaviour_faults::apply_limits(&child.name, child.pid, child.kind, child.memory_limit_mb);
        child.start_time = run_lock::start_time(child.pid).unwrap_or(0);
        child.process = Some(process);
        child.started = Instant::now();
        child.started_ns = monotonic_ns();
        child.state = State::Running;
        child.abort_sent = None;
        tracing::debug!(process = %child.name, pid = child.pid, "started");
        self.record_processes();
        Ok(())
    }

    /// Writes the running processes into the run directory's lock file, for a later run to
    /// clean up after this one if it is killed.
    fn record_processes(&mut self) {
        let mut processes: Vec<Recorded> = self
            .children
            .iter()
            .filter(|child| child.process.is_some())
            .map(|child| Recorded {
                name: child.name.clone(),
                pid: child.pid,
                start_time: child.start_time,
            })
            .collect();
        if let Some(simulator) = &self.simulator {
            processes.push(Recorded {
                name: "simulator".to_owned(),
                pid: simulator.id(),
                start_time: run_lock::start_time(simulator.id()).unwrap_or(0),
            });
        }
        self.lock.record(processes);
    }

    fn supervise(&mut self, control: &ControlServer, stop: &AtomicUsize) -> Result<()> {
        loop {
            let cell = stop.load(Ordering::Relaxed);
            if cell != 0 {
                tracing::info!("stop requested ({})", stop_reason(cell));
                return Ok(());
            }
            self.reap()?;
            self.restart_due()?;
            self.watch_heartbeats();
            self.notify_ready();
            // Complete requests only (the control threads read them); the wait is the loop's
            // idle time and ends early when a request arrives.
            let mut next = control.wait_next(POLL);
            while let Some(incoming) = next {
                self.control = control.counters().to_json();
                if self.answer(incoming, control) {
                    stop.store(STOP_BY_REQUEST, Ordering::Relaxed);
                    break;
                }
                next = control.try_next();
            }
        }
    }

    /// Acts on one control request; returns whether to stop. A request whose client has given
    /// up (its deadline passed, e.g. while the supervisor was stopped) is refused, not done.
    fn answer(&mut self, incoming: Incoming, control: &ControlServer) -> bool {
        let refusal = match incoming.expired_by() {
            Some(late) => Some(format!(
                "its deadline passed {late:.1?} ago, the client has given up"
            )),
            None if incoming.client_gone() => {
                Some("the client closed its connection (it gave up)".to_owned())
            }
            None => None,
        };
        if let Some(why) = refusal {
            control.counters().expired.fetch_add(1, Ordering::Relaxed);
            let message = format!(
                "`{}` refused: {why}; not carried out",
                incoming.request.name()
            );
            if incoming.request != Request::Status {
                tracing::warn!("control: {message}");
            }
            incoming.answer(Reply::json(serde_json::json!({ "error": message })));
            return false;
        }
        let reply = match &incoming.request {
            Request::Status => Reply::json(self.status()),
            Request::Stop => {
                tracing::info!("stop requested by the control socket");
                incoming.answer(Reply::json(serde_json::json!({ "stopping": true })));
                return true;
            }
            Request::Restart { process } => Reply::json(self.request_restart(process)),
            Request::Segments => self.segments(),
        };
        incoming.answer(reply);
        false
    }

    fn request_restart(&mut self, process: &str) -> serde_json::Value {
        let names = || {
            self.children
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.children.iter().position(|child| child.name == process) {
            Some(index) if self.children[index].state == State::Running => {
                let child = &mut self.children[index];
                child.restart_requested = true;
                child.signal(rustix::process::Signal::TERM);
                tracing::info!(process = %process, "restart requested");
                serde_json::json!({ "restarting": process })
            }
            Some(index) => serde_json::json!({
                "error": format!("{process} is not running ({:?})", self.children[index].state)
            }),
            None => serde_json::json!({
                "error": format!("no process {process:?}; processes: {}", names())
            }),
        }
    }

    fn segments(&self) -> Reply {
        let list = SegmentList {
            channels: self
                .channels
                .keys()
                .map(|name| {
                    (
                        name.clone(),
                        name.rsplit('.').next().unwrap_or(name).to_owned(),
                    )
                })
                .collect(),
        };
        let mut fds = Vec::new();
        for fd in std::iter::once(self.board.as_fd())
            .chain(self.channels.values().map(|buffer| buffer.as_fd()))
        {
            match fd.try_clone_to_owned() {
                Ok(fd) => fds.push(fd),
                Err(error) => {
                    return Reply::json(serde_json::json!({
                        "error": format!("duplicating a segment descriptor: {error}")
                    }))
                }
            }
        }
        match serde_json::to_value(&list) {
            Ok(value) => Reply { value, fds },
            Err(error) => Reply::json(serde_json::json!({ "error": error.to_string() })),
        }
    }

    fn reap(&mut self) -> Result<()> {
        for index in 0..self.children.len() {
            let Some(process) = self.children[index].process.as_mut() else {
                continue;
            };
            let Some(status) = process.try_wait()? else {
                continue;
            };
            let child = &mut self.children[index];
            child.process = None;
            let uptime = child.started.elapsed();
            let reason = if child.abort_sent.is_some() {
                ExitReason::Frozen
            } else if let Some(signal) = status.signal() {
                ExitReason::Signal(signal)
            } else {
                ExitReason::Status(status.code().unwrap_or(-1))
            };
            child.last_exit = reason;
            child.abort_sent = None;
            if std::mem::take(&mut child.restart_requested) {
                tracing::info!(process = %child.name, "{} exited after {uptime:.1?} ({}): restarting as requested", child.name, describe_exit(reason));
                child.restarts += 1;
                child.state = State::Backoff(Instant::now());
                continue;
            }
            if let Some(reason) = &self.safe_state {
                child.state = State::Failed(format!("safe state: {reason}"));
                continue;
            }
            if reason == ExitReason::Status(i32::from(config::EX_CONFIG)) {
                let message = format!(
                    "{} exited with a configuration error after {uptime:.1?}: not restarted",
                    child.name
                );
                tracing::error!(process = %child.name, "{message}");
                child.state = State::Failed("configuration error".to_owned());
                self.enter_safe_state(message);
                continue;
            }
            let now = Instant::now();
            if uptime >= STABLE_UPTIME {
                child.backoff = Duration::ZERO;
            }
            let blamed = child
                .behaviour
                .as_ref()
                .and_then(|watch| watch.blame(child.pid));
            if let (Some(marker), Some(watch)) = (blamed, child.behaviour.as_mut()) {
                // The behaviour's fault, not the process's: restart, never the safe state.
                let text = watch.crashed(&marker, &describe_exit(reason));
                let delay = child.backoff;
                child.backoff = (delay * 2).clamp(BACKOFF_STEP, BACKOFF_CAP);
                child.restarts += 1;
                child.state = State::Backoff(now + delay);
                tracing::error!(
                    process = %child.name,
                    "{} ended after {uptime:.2?}: {text}; the robot stands; restart {} in \
                     {delay:?} (behaviour faults do not count toward the safe state; the Python \
                     stack is above, fix the file and the restart loads it)",
                    child.name,
                    child.restarts
                );
                continue;
            }
            child.failures.push_back(now);
            while child
                .failures
                .front()
                .is_some_and(|t| now.duration_since(*t) > child.restart.window)
            {
                child.failures.pop_front();
            }
            if child.failures.len() > child.restart.intensity as usize {
                let message = format!(
                    "{} ended {} times within {:?} (last: {}): restart limit reached",
                    child.name,
                    child.failures.len(),
                    child.restart.window,
                    describe_exit(reason)
                );
                tracing::error!(process = %child.name, "{message}");
                child.state = State::Failed("restart limit reached".to_owned());
                self.enter_safe_state(message);
                continue;
            }
            let delay = child.backoff;
            child.backoff = if delay.is_zero() {
                BACKOFF_STEP
            } else {
                (delay * 2).min(BACKOFF_CAP)
            };
            child.restarts += 1;
            child.state = State::Backoff(now + delay);
            tracing::warn!(
                process = %child.name,
                "{} exited: {} after {uptime:.2?}; restart {} in {delay:?}",
                child.name,
                describe_exit(reason),
                child.restarts
            );
        }
        Ok(())
    }

    fn restart_due(&mut self) -> Result<()> {
        let now = Instant::now();
        for index in 0..self.children.len() {
            if let State::Backoff(at) = self.children[index].state {
                if now >= at {
                    self.spawn(index)?;
                }
            }
        }
        Ok(())
    }

    fn watch_heartbeats(&mut self) {
        let now = monotonic_ns();
        for child in &mut self.children {
            if child.state != State::Running || child.process.is_none() {
                continue;
            }
            if let Some(sent) = child.abort_sent {
                if sent.elapsed() >= FREEZE_GRACE {
                    child.signal(rustix::process::Signal::KILL);
                }
                continue;
            }
            let record = self.board.read(child.slot).ok().flatten();
            let last = match record {
                Some(HealthRecord {
                    pid, last_tick_ns, ..
                }) if pid == child.pid && last_tick_ns > 0 => last_tick_ns,
                _ => child.started_ns + STARTUP_GRACE.as_nanos() as u64,
            };
            let deadline = last + child.watchdog.as_nanos() as u64;
            if now > deadline {
                let inside = child
                    .behaviour
                    .as_ref()
                    .and_then(|watch| watch.blame(child.pid))
                    .map(|marker| format!(" {} {}", marker.phase().describe(), marker.file()))
                    .unwrap_or_default();
                tracing::error!(
                    process = %child.name,
                    "{} froze{inside}: no heartbeat for {:.1} ms (watchdog {:?}); sending SIGABRT",
                    child.name,
                    (now - last) as f64 / 1e6,
                    child.watchdog
                );
                child.signal(rustix::process::Signal::ABORT);
                child.signal(rustix::process::Signal::CONT);
                child.abort_sent = Some(Instant::now());
            }
        }
    }

    /// Sits the robot down for good: every child but the bridge is stopped, the bridge is told
    /// (SIGUSR1) to sit, turn stiffness off and show red eyes.
    fn enter_safe_state(&mut self, reason: String) {
        if self.safe_state.is_some() {
            return;
        }
        tracing::error!(
            "SAFE STATE: {reason}; the robot sits down with stiffness off; `cortex stop` to end"
        );
        self.safe_state = Some(reason);
        for child in self.children.iter_mut().rev() {
            if child.kind == ProcessKind::Lola {
                child.signal(rustix::process::Signal::USR1);
            } else if child.process.is_some() {
                child.signal(rustix::process::Signal::TERM);
            } else if matches!(child.state, State::Backoff(_)) {
                child.state = State::Failed("safe state".to_owned());
            }
        }
    }

    /// Tells systemd (`Type=notify`) that the system is up once every child has ticked.
    fn notify_ready(&mut self) {
        if self.ready_notified {
            return;
        }
        let all_ticking = self.children.iter().all(|child| {
            matches!(self.board.read(child.slot), Ok(Some(record)) if record.pid == child.pid && record.ticks > 0)
        });
        if !all_ticking {
            return;
        }
        self.ready_notified = true;
        tracing::info!("every process ticks");
        if let Some(socket) = std::env::var_os("NOTIFY_SOCKET") {
            let result = std::os::unix::net::UnixDatagram::unbound().and_then(|datagram| {
                datagram.send_to(b"READY=1\nSTATUS=every process ticks", socket)
            });
            if let Err(error) = result {
                tracing::warn!("notifying systemd: {error}");
            }
        }
    }

    fn status(&self) -> serde_json::Value {
        let processes: Vec<serde_json::Value> = self
            .children
            .iter()
            .map(|child| {
                let record = self.board.read(child.slot).ok().flatten().filter(|r| r.pid == child.pid);
                let state = match &child.state {
                    State::Running if child.abort_sent.is_some() => "frozen".to_owned(),
                    State::Running => match record.map(|r| r.ticks) {
                        Some(ticks) if ticks > 0 => "running".to_owned(),
                        _ => "starting".to_owned(),
                    },
                    State::Backoff(_) => "restarting".to_owned(),
                    State::Failed(reason) => format!("failed: {reason}"),
                    State::Stopped => "stopped".to_owned(),
                };
                let record = record.unwrap_or_else(|| HealthRecord::named(&child.name));
                let behaviour_crash = child.behaviour.as_ref().and_then(|w| w.recent_crash());
                // Each module's update time; 0 ns (no update or no complete window yet) is null.
                let milliseconds = |ns: u64| (ns > 0).then(|| ns as f64 / 1e6);
                let modules: Vec<serde_json::Value> = record
                    .modules()
                    .iter()
                    .map(|module| {
                        serde_json::json!({
                            "module": module.name(),
                            "last_ms": milliseconds(module.last_ns),
                            "mean_ms": milliseconds(module.mean_ns),
                            "max_ms": milliseconds(module.max_ns),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "name": child.name,
                    "kind": child.kind.as_str(),
                    "pid": child.process.as_ref().map(|_| child.pid),
                    "state": state,
                    "restarts": child.restarts,
                    "last_exit": describe_exit(child.last_exit),
                    "last_exit_code": exit_reason_text(child.last_exit),
                    "ticks": record.ticks,
                    "rate_hz": record.rate_mhz as f64 / 1000.0,
                    "tick_mean_ms": record.tick_mean_ns as f64 / 1e6,
                    "tick_max_ms": record.tick_max_ns as f64 / 1e6,
                    "overruns": record.overruns,
                    "panics": record.panics,
                    // Inputs refused as malformed (the bridge: LoLA frames), see `fault`.
                    "rejected_inputs": record.rejected_inputs,
                    "faults": record.faults,
                    "fault": record.fault().or_else(|| behaviour_crash.map(str::to_owned)),
                    "behaviour_crashes": child.behaviour.as_ref().map(|w| w.crashes()),
                    "behaviour_file": child.behaviour.as_ref().and_then(|w| w.file()),
                    "uptime_s": child.process.as_ref().map(|_| child.started.elapsed().as_secs_f64()),
                    "watchdog_ms": child.watchdog.as_secs_f64() * 1000.0,
                    "modules": modules,
                })
            })
            .collect();
        serde_json::json!({
            "instance_pid": std::process::id(),
            "robot": self.identity.as_ref().map(|(body, head)| serde_json::json!({"body": body, "head": head})),
            "safe_state": self.safe_state,
            "processes": processes,
            "control": self.control,
            "stopping": self.stopping,
        })
    }

    /// While starting or stopping (`phase`): `status` and `stop` are answered, anything else is
    /// refused, so that no client waits in vain. Waits at most `timeout` for a request.
    fn answer_outside_supervision(
        &self,
        control: &ControlServer,
        stop: &AtomicUsize,
        phase: &str,
        timeout: Duration,
    ) {
        if let Some(incoming) = control.wait_next(timeout) {
            let reply = match &incoming.request {
                Request::Status => self.status(),
                Request::Stop if incoming.expired_by().is_none() && !incoming.client_gone() => {
                    if stop.load(Ordering::Relaxed) == 0 {
                        tracing::info!("stop requested by the control socket while {phase}");
                        stop.store(STOP_BY_REQUEST, Ordering::Relaxed);
                    }
                    serde_json::json!({ "stopping": true })
                }
                other => serde_json::json!({
                    "error": format!("`{}` refused: the instance is {phase}", other.name())
                }),
            };
            incoming.answer(Reply::json(reply));
        }
    }

    fn shutdown(&mut self, control: &ControlServer, stop: &AtomicUsize) {
        self.stopping = true;
        let order: Vec<usize> = {
            let mut others: Vec<usize> = (0..self.children.len())
                .filter(|&i| self.children[i].kind != ProcessKind::Lola)
                .rev()
                .collect();
            others.extend(
                (0..self.children.len()).filter(|&i| self.children[i].kind == ProcessKind::Lola),
            );
            others
        };
        for index in order {
            let Some(mut process) = self.children[index].process.take() else {
                self.children[index].state = State::Stopped;
                continue;
            };
            let name = self.children[index].name.clone();
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_child(&process),
                rustix::process::Signal::TERM,
            );
            let deadline = Instant::now() + STOP_TIMEOUT;
            let status = loop {
                match process.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if Instant::now() < deadline => {
                        self.answer_outside_supervision(control, stop, "stopping", POLL)
                    }
                    _ => {
                        tracing::warn!(process = %name, "did not stop within {STOP_TIMEOUT:?}: SIGKILL");
                        let _ = process.kill();
                        break process.wait().ok();
                    }
                }
            };
            tracing::info!(process = %name, "stopped ({})", status.map_or("unknown".to_owned(), |s| s.to_string()));
            self.children[index].state = State::Stopped;
        }
        if let Some(mut simulator) = self.simulator.take() {
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_child(&simulator),
                rustix::process::Signal::TERM,
            );
            let deadline = Instant::now() + STOP_TIMEOUT;
            while simulator.try_wait().ok().flatten().is_none() {
                if Instant::now() > deadline {
                    let _ = simulator.kill();
                    let _ = simulator.wait();
                    break;
                }
                self.answer_outside_supervision(control, stop, "stopping", POLL);
            }
        }
    }
}
