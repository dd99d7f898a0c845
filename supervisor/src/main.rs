//! `cortex`: runs the control program of a NAO as supervised processes, and the tools to look
//! at a running instance.
//!
//! ```text
//! cortex run --sim            # the whole system against simulated hardware
//! cortex status [--json]      # one row per process
//! cortex status --modules    # one row per module: update time last, mean, max
//! cortex get JointRequest     # the newest value of a representation, from shared memory
//! cortex set GameStateProvider.long_press_ms=500  # a module parameter, live
//! cortex params GameStateProvider                 # its values and where each came from
//! cortex reload               # check the edited configuration, then run it
//! cortex check                # validate a configuration and print the graph
//! cortex sync nao@robot       # copy behaviours and configuration to a robot
//! cortex deploy alan grace    # build for the NAO, upload, set player numbers, restart
//! cortex logs alan            # fetch its recordings and logs after a game
//! cortex gc --state playing   # a GameController in the terminal
//! cortex hear --json a.wav    # the whistle detector on recordings
//! cortex perceive --json a.png # the ball detector on camera images
//! cortex image upper --out a.png  # the newest frame of a running camera
//! cortex replay game.mcap --process cognition --speed max  # a recording, deterministically
//! ```
//!
//! Exit statuses (`sysexits.h`, see [`exit_code`]): 0 success, 1 failure, 64 usage, 65 a
//! malformed image (`perceive`), 66 no such configuration or an unreadable file, 74 I/O error,
//! 78 configuration error (`EX_CONFIG`).

mod behaviour_faults;
mod child_env;
mod control;
mod debug_link;
mod deploy;
mod exit_code;
mod gc;
mod hear;
mod image_tool;
mod live_tools;
mod logs;
mod paths;
mod perceive;
mod physics;
mod plan_store;
mod proc_entry;
mod program;
mod record;
mod replay;
mod run;
mod run_lock;
mod show;
mod simulator_process;
mod tools;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "cortex",
    version,
    about = "Runs and supervises the processes of Cortex"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where a running instance is.
#[derive(clap::Args, Debug, Clone)]
struct Instance {
    /// The run directory (control socket, simulator socket).
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    /// The instance name (selects the default run directory).
    #[arg(long, value_name = "NAME", value_parser = paths::parse_instance)]
    instance: Option<String>,
}

impl Instance {
    fn dir(&self) -> PathBuf {
        paths::run_dir(self.run_dir.as_deref(), self.instance.as_deref())
    }
}

/// The configuration to use.
#[derive(clap::Args, Debug, Clone)]
struct ConfigOptions {
    /// The configuration root (default: the shipped `config/data`, or $CORTEX_CONFIG_DIR).
    #[arg(long, value_name = "DIR")]
    config_dir: Option<PathBuf>,
    /// Override a setting or a module parameter, e.g. `--set settings.player_number=3`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

impl ConfigOptions {
    fn root(&self) -> PathBuf {
        self.config_dir.clone().unwrap_or_else(config::default_root)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the system in the foreground (SIGTERM or Ctrl-C stops it).
    Run(run::RunOptions),
    /// Validate a configuration and print each process's providers and channels.
    Check {
        #[command(flatten)]
        config: ConfigOptions,
        /// Check with the layers of the robot with these serial numbers (body, head).
        #[arg(long, num_args = 2, value_names = ["BODY", "HEAD"])]
        robot: Option<Vec<String>>,
    },
    /// One row per process: pid, state, restarts, tick rate and times.
    Status {
        #[command(flatten)]
        instance: Instance,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Print again every second.
        #[arg(long)]
        watch: bool,
        /// One row per module: its process and update time (last, mean, max over the window).
        #[arg(long)]
        modules: bool,
    },
    /// The newest value of a shared representation, read from shared memory.
    Get {
        /// A channel name: `JointRequest`, `upper.BallPercept`.
        representation: String,
        #[command(flatten)]
        instance: Instance,
        /// Print JSON (default: pretty text).
        #[arg(long)]
        json: bool,
    },
    /// Stop a running instance.
    Stop {
        #[command(flatten)]
        instance: Instance,
    },
    /// Check the configuration folder as `run` does and, if it is good, run it: every process
    /// but the bridge is restarted with it, one after another (a broken one is refused, exit 78).
    Reload {
        #[command(flatten)]
        instance: Instance,
        /// Print the reply as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change a module parameter of a running instance at the module's next tick, checked like a
    /// file (a bad value is refused, exit 78, and the old one stays); it survives restarts.
    Set {
        /// `MODULE.KEY=VALUE`, e.g. `GameStateProvider.long_press_ms=500`.
        assignment: String,
        #[command(flatten)]
        instance: Instance,
    },
    /// A running module's parameters and where each value came from (file and line, `--set`,
    /// `cortex set`).
    Params {
        /// The module, e.g. `MotionCombinator`.
        module: String,
        #[command(flatten)]
        instance: Instance,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Restart one process of a running instance.
    Restart {
        /// The process, e.g. `motion`.
        process: String,
        #[command(flatten)]
        instance: Instance,
    },
    /// Record representations of a running instance to MCAP files (`start`, `stop`).
    Record {
        #[command(subcommand)]
        action: record::RecordAction,
        #[command(flatten)]
        instance: Instance,
    },
    /// Run processes (default: those whose trigger the file holds) against a recording,
    /// deterministically, in an instance of their own (debug link, `status`, `get`).
    Replay(replay::ReplayOptions),
    /// Act on the simulated robot of a running `--sim` instance.
    Sim {
        #[command(subcommand)]
        action: tools::SimAction,
        #[command(flatten)]
        instance: Instance,
    },
    /// Copy the behaviours and the configuration to a robot (rsync over ssh) or a folder. A
    /// robot's own config/settings.toml (written by `cortex deploy`) is left alone; the
    /// repository's is copied only to a robot that has none.
    Sync {
        /// The robot: `host` or `user@host`.
        #[arg(required_unless_present = "local", conflicts_with = "local")]
        target: Option<String>,
        /// Copy to this folder instead (it receives `behaviours/` and `config/`).
        #[arg(long, value_name = "DIR")]
        local: Option<PathBuf>,
        /// The behaviour package to copy (default: the shipped `behaviours/python`).
        #[arg(long, value_name = "DIR")]
        behaviours: Option<PathBuf>,
        /// The configuration root to copy (default: the shipped `config/data`).
        #[arg(long, value_name = "DIR")]
        config_dir: Option<PathBuf>,
        /// The folder on the robot.
        #[arg(long, value_name = "DIR", default_value = "/home/nao/cortex")]
        remote_dir: String,
        /// The ssh port.
        #[arg(long)]
        port: Option<u16>,
        /// An ssh configuration file (`ssh -F`).
        #[arg(long, value_name = "FILE")]
        ssh_config: Option<PathBuf>,
        /// Only list what would be copied and deleted; change nothing (make no folders).
        #[arg(long)]
        dry_run: bool,
        /// Keep files at the destination that the source does not have (default: delete them,
        /// each one listed).
        #[arg(long)]
        keep: bool,
    },
    /// Build for the NAO, upload binary, configuration and behaviours to robots, write each
    /// robot's settings, install and restart the systemd unit.
    Deploy(deploy::DeployOptions),
    /// Fetch a robot's recordings and logs over ssh (again: only what is new).
    Logs(logs::LogsOptions),
    /// A small GameController: broadcasts v18 packets, prints the robots' return messages.
    Gc(gc::GcOptions),
    /// Run the whistle detector on WAV recordings: whether a whistle was heard, and when.
    Hear(hear::HearOptions),
    /// Run the ball detector on camera images (PNG or raw YUYV): the balls in each, and the time.
    Perceive(perceive::PerceiveOptions),
    /// Save the newest frame of a camera of a running instance as a PNG.
    Image {
        /// The camera: its process is `perception.upper` or `perception.lower`.
        #[arg(value_enum)]
        camera: image_tool::ImageCamera,
        /// The PNG file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        #[command(flatten)]
        instance: Instance,
    },
    /// A child process of `cortex run` (internal).
    #[command(hide = true)]
    Proc {
        /// The instance name from the process table.
        name: String,
    },
    /// The LoLA simulator as a process (internal; `cortex run --sim` starts it).
    #[command(hide = true)]
    Simulator(tools::SimulatorOptions),
}

fn init_logging(prefix: Option<&str>) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("CORTEX_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(exit_code::colour())
        .with_target(false);
    match prefix {
        Some(_) => builder.without_time().init(),
        None => builder.init(),
    }
}

fn main() -> ExitCode {
    let cli = match exit_code::parse_command_line::<Cli>() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // The tools end quietly when the reader of their output goes away (`cortex check | head`);
    // the supervisor and its children must not die of a closed log pipe.
    let long_running = matches!(
        cli.command,
        Command::Run(_) | Command::Replay(_) | Command::Proc { .. } | Command::Simulator(_)
    );
    if !long_running {
        if let Err(error) = ipc::sched::restore_default_pipe_signal() {
            tracing::debug!("cannot restore the default SIGPIPE action: {error}");
        }
    }
    let prefix = match &cli.command {
        Command::Proc { name } => Some(name.clone()),
        _ => None,
    };
    init_logging(prefix.as_deref());
    let span = prefix
        .as_ref()
        .map(|name| tracing::info_span!("proc", name = %name).entered());
    let result = match cli.command {
        Command::Run(options) => run::run(options),
        Command::Check { config, robot } => tools::check(&config, robot.as_deref()),
        Command::Status {
            instance,
            json,
            watch,
            modules,
        } => tools::status(&instance.dir(), json, watch, modules),
        Command::Get {
            representation,
            instance,
            json,
        } => tools::get(&instance.dir(), &representation, json),
        Command::Stop { instance } => tools::stop(&instance.dir()),
        Command::Restart { process, instance } => tools::restart(&instance.dir(), &process),
        Command::Reload { instance, json } => live_tools::reload(&instance.dir(), json),
        Command::Set {
            assignment,
            instance,
        } => live_tools::set(&instance.dir(), &assignment),
        Command::Params {
            module,
            instance,
            json,
        } => live_tools::params(&instance.dir(), &module, json),
        Command::Record { action, instance } => record::run(action, &instance),
        Command::Replay(options) => replay::run(options),
        Command::Sim { action, instance } => tools::sim(&instance.dir(), action),
        Command::Sync {
            target,
            local,
            behaviours,
            config_dir,
            remote_dir,
            port,
            ssh_config,
            dry_run,
            keep,
        } => {
            let arguments = tools::SyncArguments {
                behaviours,
                config_dir,
                remote_dir,
                port,
                ssh_config,
                dry_run,
                keep,
            };
            tools::sync(target, local, arguments)
        }
        Command::Deploy(options) => deploy::run(options),
        Command::Logs(options) => logs::run(options),
        Command::Gc(options) => gc::gc(&options),
        Command::Hear(options) => hear::run(options),
        Command::Perceive(options) => perceive::run(options),
        Command::Image {
            camera,
            out,
            instance,
        } => image_tool::run(&instance.dir(), camera, &out),
        Command::Proc { name } => proc_entry::main(&name),
        Command::Simulator(options) => tools::simulator(options),
    };
    drop(span);
    match result {
        Ok(code) => code,
        Err(error) => exit_code::report(&error),
    }
}
