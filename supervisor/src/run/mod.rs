//! `cortex run`: the supervisor.
//!
//! Start-up: (the LoLA simulator with `--sim`,) the `lola` bridge, wait for the robot identity,
//! resolve the configuration for that robot, build the graph, create every segment, start the
//! other children. Then, every millisecond: reap exited children and restart them (capped
//! exponential back-off from zero, a restart-intensity window that escalates to the safe state,
//! no restart after a configuration error), check every heartbeat against its watchdog
//! (SIGABRT, then SIGKILL, then restart), keep each child's warm standby (a takeover thread
//! activates it the moment the active dies), and act on complete control requests, which the
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
//!
//! One file per job; this one holds the options, the [`Supervisor`]'s state, the life of a run
//! ([`run`]: run directory, lock, control socket, start, supervise, shutdown, clean-up) and the
//! supervision loop that calls the others:
//!
//! | file | job |
//! |---|---|
//! | `child.rs` | what the supervisor knows of one child, and how an exit reads for people |
//! | `start.rs` | start-up: simulator, bridge, robot identity, graph, segments, first spawns |
//! | `spawn.rs` | starting one child (fork+exec with its descriptors) and recording it in the lock |
//! | `restart_policy.rs` | reaping exits: back-off, restart intensity, the safe state |
//! | `watchdog.rs` | heartbeats: the freeze watchdog and systemd's readiness |
//! | `requests.rs` | control requests: `stop`, `restart`, `segments`, and answers while starting or stopping |
//! | `live.rs` | `reload` (a new plan generation, children restarted one after another), `set`, `params` |
//! | `status.rs` | the `status` reply |
//! | `shutdown.rs` | stopping every child in order |
//! | `standby.rs` | warm standbys: started once the active ticks, armed when ready, promoted after a takeover, replaced when they die |
//! | `takeover.rs` | the takeover thread: an active's pidfd readable → its standby's activation word |

mod child;
mod live;
mod replay;
mod requests;
mod restart_policy;
mod shutdown;
mod spawn;
mod standby;
mod start;
mod status;
mod takeover;
mod watchdog;

use crate::control::ControlServer;
use crate::paths::RunDir;
use crate::plan_store::PlanStore;
use crate::program;
use crate::run_lock::RunLock;
use crate::{paths, ConfigOptions};
use anyhow::{Context, Result};
use child::signal_name;
use child::Child;
use config::ProcessSpec;
use ipc::{HealthBoard, TripleBuffer};
use std::collections::BTreeMap;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

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
    /// The debug link's port (web view and WebSocket); default 8080, with --sim one the kernel
    /// picks (see `cortex status --json`, `debug_url`).
    #[arg(long, value_name = "PORT")]
    debug_port: Option<u16>,
    /// The address the debug link listens on; default all interfaces, with --sim 127.0.0.1.
    #[arg(long, value_name = "IP")]
    debug_address: Option<std::net::IpAddr>,
    /// `cortex replay`: the replayed processes run against a recording (`run/replay.rs`).
    #[arg(skip)]
    pub(crate) replay: Option<Arc<crate::replay::Session>>,
}

/// The robot's LoLA socket.
const ROBOT_LOLA_SOCKET: &str = "/tmp/robocup";
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

struct Supervisor {
    exe: PathBuf,
    options: RunOptions,
    /// The live configuration folder (`--config-dir`): read at start and by `cortex reload`;
    /// children read the plan generation copied from it (`plans`).
    config_root: PathBuf,
    /// The plan generations in the run directory.
    plans: PlanStore,
    /// The graph of the current generation (once the robot is known).
    graph: Option<framework::Graph>,
    /// The overrides in force (`--set`, then `cortex set`).
    overrides: live::Overrides,
    /// Each child's parameter channel (none for the bridge), by child index.
    parameter_channels: Vec<Option<TripleBuffer>>,
    /// The last parameter update published.
    parameter_generation: u64,
    /// A `cortex reload` restarting the children.
    reload: Option<live::Reloading>,
    lola_socket: PathBuf,
    /// The simulated microphone's folder (`--sim`), given to the audio process.
    microphone: Option<PathBuf>,
    /// Where the audio process records what it played (`--sim`).
    sound_record: Option<PathBuf>,
    identity: Option<(String, String)>,
    board: HealthBoard,
    /// The standbys' board: one slot per child (the same index), each standby's record and
    /// its activation word (`ipc::standby`).
    standby_board: HealthBoard,
    /// The takeover thread (`takeover.rs`).
    takeover: takeover::Takeover,
    channels: BTreeMap<String, TripleBuffer>,
    children: Vec<Child>,
    simulator: Option<std::process::Child>,
    safe_state: Option<String>,
    ready_notified: bool,
    lock: RunLock,
    /// Shutting down (for `status`).
    stopping: bool,
    /// The debug link's listening socket, handed to the `debug` process, and the web view's
    /// address (`status`: `debug_url`).
    debug_link: Option<crate::debug_link::LinkSocket>,
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
        crate::plan_store::remove(run_dir.path());
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
        // The children's plan: a copy of what was just checked (`plan_store`).
        let mut plans = PlanStore::create(run_dir.path())?;
        let generation = plans.snapshot(&config_root, None)?;
        plans.make_current(generation);
        let specs: Vec<ProcessSpec> = config.process_table().processes().to_vec();
        let board = HealthBoard::create("health", specs.len())?;
        let standby_board = HealthBoard::create("standby", specs.len())?;
        let takeover = takeover::Takeover::start(
            specs.len(),
            standby_board
                .as_fd()
                .try_clone_to_owned()
                .context("duplicating the standby board's descriptor")?,
        )?;
        let mut parameter_channels = Vec::new();
        for spec in &specs {
            parameter_channels.push(if spec.kind == config::ProcessKind::Lola {
                None
            } else {
                Some(TripleBuffer::create_with_schema(
                    &format!("{}.parameters", spec.name),
                    framework::live_parameters::CHANNEL_BYTES,
                    framework::live_parameters::schema_hash(),
                )?)
            });
        }
        let exe = std::env::current_exe().context("finding the cortex binary")?;
        Ok::<_, anyhow::Error>((
            config_root,
            plans,
            specs,
            (board, standby_board, takeover),
            parameter_channels,
            exe,
        ))
    })();
    let (config_root, plans, specs, (board, standby_board, takeover), parameter_channels, exe) =
        match prepared {
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
    // The debug link is not needed to keep the robot standing: a port that cannot be bound is
    // a warning, and the run goes on without the link.
    let debug_link = match crate::debug_link::bind(
        run_dir.path(),
        options.sim,
        options.debug_address,
        options.debug_port,
    ) {
        Ok(link) => {
            tracing::info!("web view: {}", link.url);
            Some(link)
        }
        Err(error) => {
            tracing::warn!("no debug link: {error:#}");
            None
        }
    };
    let mut supervisor = Supervisor {
        exe,
        options: options.clone(),
        config_root,
        plans,
        graph: None,
        overrides: live::Overrides {
            command_line: options.config.overrides.clone(),
            live: Vec::new(),
        },
        parameter_channels,
        parameter_generation: 0,
        reload: None,
        lola_socket,
        microphone: options.sim.then(|| paths::microphone(run_dir.path())),
        sound_record: options.sim.then(|| paths::sound_record(run_dir.path())),
        identity: None,
        board,
        standby_board,
        takeover,
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
        stopping: false,
        debug_link,
    };
    // Recorder.toml `auto`: recording during games (`crate::record::Auto`; not of a replay); its
    // last file is finished before the processes stop.
    let auto_recorder = supervisor
        .options
        .replay
        .is_none()
        .then(|| crate::record::Auto::start(run_dir.path(), &supervisor.config_root))
        .flatten();
    let outcome = match supervisor.start(run_dir.path(), stop, &control) {
        Ok(()) => supervisor
            .begin_replay()
            .and_then(|()| supervisor.supervise(&control, stop)),
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
    supervisor.end_replay();
    drop(auto_recorder);
    supervisor.shutdown(&control, stop);
    let Supervisor {
        lock,
        microphone,
        sound_record,
        plans,
        ..
    } = supervisor;
    plans.remove_all();
    // Sounds injected but not yet heard (`cortex sim sound`), the record of what was played.
    for folder in [microphone, sound_record].into_iter().flatten() {
        let _ = std::fs::remove_dir_all(folder);
    }
    cleanup(lock, control);
    outcome
}

impl Supervisor {
    fn supervise(&mut self, control: &ControlServer, stop: &AtomicUsize) -> Result<()> {
        loop {
            let cell = stop.load(Ordering::Relaxed);
            if cell != 0 {
                tracing::info!("stop requested ({})", stop_reason(cell));
                return Ok(());
            }
            if self.replay_over() {
                return Ok(());
            }
            self.reap()?;
            self.restart_due()?;
            self.manage_standbys();
            self.advance_reload();
            self.watch_heartbeats();
            self.notify_ready();
            // Complete requests only (the control threads read them); the wait is the loop's
            // idle time and ends early when a request arrives.
            let mut next = control.wait_next(POLL);
            while let Some(incoming) = next {
                if self.answer(incoming, control) {
                    stop.store(STOP_BY_REQUEST, Ordering::Relaxed);
                    break;
                }
                next = control.try_next();
            }
        }
    }
}
