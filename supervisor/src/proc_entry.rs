//! `cortex proc NAME`: the life of one child. It reads what the supervisor gave it (environment
//! and inherited descriptors), loads the same configuration and graph, and runs either the
//! process runtime loop with its modules or, for the `lola` kind, the bridge.

use crate::child_env::ChildEnvironment;
use crate::exit_code::EX_SOFTWARE;
use crate::program::{self, ConfigFailure};
use anyhow::{anyhow, bail, Context, Result};
use config::ProcessKind;
use framework::runtime::{self, Channels, Exit, ProcessSetup, RuntimeOptions};
use ipc::{HealthBoard, TripleBuffer};
use std::process::ExitCode;
use std::sync::Arc;

/// Set for a warm standby: `FD:SLOT` of the standby board it reports on and waits on
/// (`ipc::standby`). Without it the child ticks at once.
pub const STANDBY_VARIABLE: &str = "CORTEX_STANDBY";

/// `FD:SLOT` of the liveness board (`ipc::liveness`): the active instance holds its slot while
/// it ticks, so that the supervisor sees its death at once.
pub const LIVENESS_VARIABLE: &str = "CORTEX_LIVENESS";

/// The liveness board and this process's slot on it, if the supervisor handed one over. A
/// board that cannot be used is logged and left out: the supervisor then sees this process's
/// death through its pidfd, a little later.
fn liveness_board() -> Option<(ipc::liveness::LivenessBoard, usize)> {
    let text = std::env::var(LIVENESS_VARIABLE).ok()?;
    let parsed = (|| -> Result<(ipc::liveness::LivenessBoard, usize)> {
        let (fd, slot) = text
            .split_once(':')
            .with_context(|| format!("{LIVENESS_VARIABLE}={text}: expected FD:SLOT"))?;
        let fd: i32 = fd
            .parse()
            .with_context(|| format!("{LIVENESS_VARIABLE}={text}: the descriptor"))?;
        let slot: usize = slot
            .parse()
            .with_context(|| format!("{LIVENESS_VARIABLE}={text}: the slot"))?;
        let descriptor = ipc::fd::take_inherited(fd).context("the liveness board")?;
        let board = ipc::liveness::LivenessBoard::from_fd(descriptor)?;
        Ok((board, slot))
    })();
    match parsed {
        Ok(board) => Some(board),
        Err(error) => {
            tracing::warn!("{error:#}");
            None
        }
    }
}

/// A standby's idle work: cognition's behaviour is kept current by hot reload while it waits.
fn refresh_behaviour(wiring: &mut framework::wiring::Wiring) {
    wiring.for_each_module(|module| {
        if let Some(control) = module
            .as_any_mut()
            .downcast_mut::<behaviours::BehaviourControl>()
        {
            control.refresh_while_standby();
        }
    });
}

/// The standby board and this process's slot on it, if this process is a standby.
fn standby_board() -> Result<Option<(HealthBoard, usize)>> {
    let Ok(text) = std::env::var(STANDBY_VARIABLE) else {
        return Ok(None);
    };
    let (fd, slot) = text
        .split_once(':')
        .with_context(|| format!("{STANDBY_VARIABLE}={text}: expected FD:SLOT"))?;
    let fd: i32 = fd
        .parse()
        .with_context(|| format!("{STANDBY_VARIABLE}={text}: the descriptor"))?;
    let slot: usize = slot
        .parse()
        .with_context(|| format!("{STANDBY_VARIABLE}={text}: the slot"))?;
    let descriptor = ipc::fd::take_inherited(fd).context("the standby board")?;
    let board = HealthBoard::from_fd(descriptor).context("the standby board")?;
    Ok(Some((board, slot)))
}

/// Runs the child named `name` until it is told to stop.
pub fn main(name: &str) -> Result<ExitCode> {
    // The kernel's name of the process (`ps -o comm`, `top`): 15 bytes at most.
    let short: String = name.chars().take(15).collect();
    if let Ok(text) = std::ffi::CString::new(short) {
        let _ = rustix::thread::set_name(&text);
    }
    ipc::sched::restore_default_fault_signals().context("restoring SIGSEGV and SIGBUS")?;
    let environment = ChildEnvironment::from_process()?;
    let parent = rustix::process::getppid().map_or(0, |pid| pid.as_raw_nonzero().get() as u32);
    if parent != environment.supervisor {
        bail!(
            "the supervisor (pid {}) is gone; not starting",
            environment.supervisor
        );
    }
    let identity = environment
        .identity
        .as_ref()
        .map(|(body, head)| (body.as_str(), head.as_str()));
    let config = program::load_config(&environment.config_dir, identity, &environment.overrides)?;
    let graph = program::graph(&config)?;
    let plan = graph
        .process(name)
        .ok_or_else(|| ConfigFailure(anyhow!("the process table has no process `{name}`")))?;
    let spec = config
        .process_table()
        .get(name)
        .expect("the graph's processes come from the table");

    let health_fd = ipc::fd::take_inherited(environment.health.0).context("the health board")?;
    let board = HealthBoard::from_fd(health_fd).context("the health board")?;
    let representations = program::representations();
    let mut channels = Channels::new();
    for (channel, fd) in &environment.channels {
        let representation = channel.rsplit('.').next().unwrap_or(channel);
        let info = representations
            .get(representation)
            .with_context(|| format!("channel `{channel}` carries no known representation"))?;
        let descriptor =
            ipc::fd::take_inherited(*fd).with_context(|| format!("channel `{channel}`"))?;
        let buffer = TripleBuffer::from_fd_with_schema(descriptor, info.schema_hash)
            .with_context(|| format!("channel `{channel}`"))?;
        channels.insert(channel.clone(), buffer);
    }
    let parameters = match environment.parameters {
        Some(fd) => {
            let descriptor = ipc::fd::take_inherited(fd).context("the parameter channel")?;
            Some(
                TripleBuffer::from_fd_with_schema(
                    descriptor,
                    framework::live_parameters::schema_hash(),
                )
                .context("the parameter channel")?,
            )
        }
        None => None,
    };
    let stop = runtime::install_stop_signals().context("installing signal handlers")?;
    let standby = standby_board()?;
    let liveness = liveness_board();
    if standby.is_some() {
        if spec.kind == ProcessKind::Lola {
            bail!("the lola bridge cannot run as a standby (LoLA accepts one client)");
        }
        // The active holds the behaviour marker; the standby takes it when it is activated.
        behaviours::marker::set_standby();
        tracing::debug!("starting as the warm standby of {name}");
    }

    if spec.kind == ProcessKind::Lola {
        let socket = environment
            .lola_socket
            .clone()
            .context("the lola bridge needs CORTEX_LOLA_SOCKET")?;
        let outcome = lola::bridge::run(lola::bridge::BridgeSetup {
            plan,
            spec,
            config: &config,
            channels: &channels,
            health: (&board, environment.health.1),
            socket: &socket,
            stop,
            restarts: environment.restarts,
            last_exit: environment.last_exit,
        })?;
        return Ok(ExitCode::from(outcome.exit_status()));
    }

    if spec.kind == ProcessKind::Debug {
        // The debug link serves from its own threads; the tick loop below keeps the heartbeat.
        crate::debug_link::start_in_debug_process(&graph)?;
    }
    let modules = program::modules();
    let exit = runtime::run(ProcessSetup {
        plan,
        spec,
        config: &config,
        modules: &modules,
        representations: &representations,
        channels: &channels,
        parameters: parameters.as_ref(),
        health: (&board, environment.health.1),
        stop,
        options: RuntimeOptions {
            replay: crate::replay::lockstep_from_environment()?,
            restarts: environment.restarts,
            last_exit: environment.last_exit,
            standby: standby.map(|(board, slot)| runtime::Standby {
                board: Arc::new(board),
                slot,
                activated: behaviours::marker::activated,
                idle: refresh_behaviour,
            }),
            liveness: liveness.map(|(board, slot)| (Arc::new(board), slot)),
            ..RuntimeOptions::default()
        },
    })
    .map_err(|error| match error {
        runtime::RuntimeError::Config { .. } => anyhow::Error::new(ConfigFailure(error.into())),
        other => other.into(),
    })?;
    Ok(match exit {
        Exit::Stopped | Exit::TickLimit => ExitCode::SUCCESS,
        Exit::TooManyPanics { module, count } => {
            tracing::error!(
                "{count} panics within the window, the last in module {module}: giving up"
            );
            ExitCode::from(EX_SOFTWARE)
        }
    })
}
