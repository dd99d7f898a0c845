//! The loop every process runs (`docs/architecture.md` §5, rUNSWift's safelyRun across
//! processes):
//!
//! 1. wait for the trigger: an absolute deadline for rate-driven processes, a futex wake-up for
//!    data-driven ones (with a timeout so that a process whose producer died still ticks); in a
//!    replay (`cortex replay`) the replayer's next step instead ([`crate::lockstep`]);
//! 2. decode the inbound channels that have a new value into their slots;
//! 3. run the providers in the graph's order, each under a stopwatch, through the typed
//!    wiring ([`crate::wiring`]: every input and output was resolved once, at start);
//! 4. encode and publish the outbound channels another process reads, and those someone
//!    watches (`cortex get`, the debug link); a value nobody reads is not encoded;
//! 5. write the heartbeat and timing into the health board (the whole tick's, and each
//!    module's: [`ModuleTimings`]).
//!
//! A panic in a module is caught at the tick boundary: it is logged with the module's name, the
//! module set is destroyed and built again from configuration, and the process goes on. Too
//! many panics within a window end the process with [`Exit::TooManyPanics`] (the binary exits
//! with a failure status and the supervisor takes over). SIGTERM / SIGINT (a flag set by
//! [`install_stop_signals`]) end the loop after the current tick.

use super::graph::ProcessPlan;
use super::module::{DynModule, ModuleRegistry};
use super::module_timing::ModuleTimings;
use super::representation::RepresentationRegistry;
use super::wiring::{Slots, Wiring};
use config::{ProcessSpec, Schedule};
use ipc::health::{monotonic_ns, ExitReason, HealthRecord, ProcessState, TickStats};
use ipc::{HealthBoard, TripleBuffer};
use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tunables of the loop that are not in the process table.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// More than this many module panics within `panic_window` end the process.
    pub panic_limit: usize,
    /// See `panic_limit`.
    pub panic_window: Duration,
    /// Window of the tick and module statistics in the health board.
    pub stats_window: Duration,
    /// At most one overrun log line per this interval.
    pub overrun_log_interval: Duration,
    /// How long a triggered process without a configured timeout waits before it ticks anyway.
    pub default_trigger_timeout: Duration,
    /// Stop after this many ticks (tests and benchmarks); `None`: until signalled.
    pub max_ticks: Option<u64>,
    /// Replay (`cortex replay`): tick once per step of the replayer, at the step's recorded
    /// time ([`crate::lockstep`], [`crate::clock`]), never on the trigger or the deadline.
    pub replay: Option<Arc<crate::lockstep::Lockstep>>,
    /// Restart count and previous exit, as the supervisor tells them (for the health board).
    pub restarts: u32,
    /// See `restarts`.
    pub last_exit: ExitReason,
    /// Run as a warm standby: build everything, then wait for the activation word before
    /// taking the writer roles and ticking; `None`: tick at once.
    pub standby: Option<Standby>,
    /// The liveness board and this process's slot on it (`ipc::liveness`): the tick thread
    /// holds the slot while it is the active instance, so that the supervisor sees its death
    /// the moment the kernel marks it.
    pub liveness: Option<(Arc<ipc::liveness::LivenessBoard>, usize)>,
}

/// Where a warm standby reports and waits (`ipc::standby`).
#[derive(Debug, Clone)]
pub struct Standby {
    /// The standby board (one slot per process of the table).
    pub board: Arc<HealthBoard>,
    /// This process's slot on it (the same index as on the health board).
    pub slot: usize,
    /// Called once, right after activation, before the first tick (the behaviour marker).
    pub activated: fn(),
    /// Called with the modules about every 100 ms while the standby waits: work that keeps it
    /// current without ticking (cognition: loading a changed behaviour, so that the takeover
    /// does not have to).
    pub idle: fn(&mut Wiring),
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            panic_limit: 5,
            panic_window: Duration::from_secs(10),
            stats_window: Duration::from_secs(1),
            overrun_log_interval: Duration::from_secs(1),
            default_trigger_timeout: Duration::from_millis(100),
            max_ticks: None,
            replay: None,
            restarts: 0,
            last_exit: ExitReason::None,
            standby: None,
            liveness: None,
        }
    }
}

/// The channels of a process, by channel name (created by the supervisor, inherited).
#[derive(Debug, Default)]
pub struct Channels {
    buffers: BTreeMap<String, TripleBuffer>,
}

impl Channels {
    /// No channels.
    pub fn new() -> Channels {
        Channels::default()
    }
    /// Adds a channel.
    pub fn insert(&mut self, name: impl Into<String>, buffer: TripleBuffer) {
        self.buffers.insert(name.into(), buffer);
    }
    /// The channel named `name`.
    pub fn get(&self, name: &str) -> Option<&TripleBuffer> {
        self.buffers.get(name)
    }
    /// All channels by name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &TripleBuffer)> {
        self.buffers.iter()
    }
}

/// Why the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// SIGTERM or SIGINT: the last tick finished, modules dropped.
    Stopped,
    /// `max_ticks` reached.
    TickLimit,
    /// Too many module panics within the window.
    TooManyPanics {
        /// The module that panicked last.
        module: String,
        /// Panics within the window.
        count: usize,
    },
}

/// What keeps the loop from starting.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// A module's parameters could not be loaded.
    #[error("process `{process}`: building module `{module}`: {source}")]
    Config {
        /// The process.
        process: String,
        /// The module.
        module: String,
        /// What is wrong in the configuration.
        source: Box<config::ConfigError>,
    },
    /// The plan names something the program or the channel set lacks.
    #[error("process `{process}`: {what}")]
    Plan {
        /// The process.
        process: String,
        /// What is missing.
        what: String,
    },
    /// The replay's lockstep channels refused.
    #[error(transparent)]
    Lockstep(#[from] crate::lockstep::LockstepError),
    /// Shared memory refused (a writer role held by a live process, a corrupt segment).
    #[error("process `{process}`: {source}")]
    Ipc {
        /// The process.
        process: String,
        /// The ipc error.
        source: ipc::Error,
    },
}

/// Everything the loop needs.
#[derive(Debug)]
pub struct ProcessSetup<'a> {
    /// The process's plan from the graph builder.
    pub plan: &'a ProcessPlan,
    /// Its entry of the process table (schedule, priority, CPUs).
    pub spec: &'a ProcessSpec,
    /// The configuration (module parameters).
    pub config: &'a config::Config,
    /// The modules of the program.
    pub modules: &'a ModuleRegistry,
    /// The representations of the program.
    pub representations: &'a RepresentationRegistry,
    /// The channels the plan names.
    pub channels: &'a Channels,
    /// The parameter channel the supervisor writes (`cortex set`; see [`crate::live_parameters`]);
    /// `None`: the parameters never change while the process runs.
    pub parameters: Option<&'a TripleBuffer>,
    /// The health board and this process's slot.
    pub health: (&'a HealthBoard, usize),
    /// Set by SIGTERM / SIGINT.
    pub stop: Arc<AtomicBool>,
    /// Tunables.
    pub options: RuntimeOptions,
}

/// Installs handlers that set the returned flag on SIGTERM and SIGINT.
pub fn install_stop_signals() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, flag.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, flag.clone())?;
    Ok(flag)
}

/// Applies the process table's real-time priority and CPU affinity to the calling thread. A
/// refusal by the system is a warning, not a failure: a PC without `CAP_SYS_NICE` still runs.
pub fn apply_scheduling(spec: &ProcessSpec) {
    if let Some(priority) = spec.priority {
        match ipc::sched::set_realtime_priority(priority) {
            Ok(()) => tracing::info!(process = %spec.name, priority, "SCHED_FIFO applied"),
            Err(error) => tracing::warn!(
                process = %spec.name,
                priority,
                "the system refused SCHED_FIFO priority {priority} ({error}); running with the normal scheduler"
            ),
        }
    }
    if !spec.cpus.is_empty() {
        if let Err(error) = ipc::sched::set_affinity(&spec.cpus) {
            tracing::warn!(process = %spec.name, cpus = ?spec.cpus, "the system refused the CPU affinity ({error})");
        }
    }
}

fn build_modules(
    setup: &ProcessSetup<'_>,
    config: &config::Config,
) -> Result<Vec<Box<dyn DynModule>>, RuntimeError> {
    setup
        .plan
        .order
        .iter()
        .map(|step| {
            let entry = setup
                .modules
                .get(&step.module)
                .ok_or_else(|| RuntimeError::Plan {
                    process: setup.plan.name.clone(),
                    what: format!(
                        "the plan names module `{}`, which this program does not have",
                        step.module
                    ),
                })?;
            entry
                .construct(config)
                .map_err(|source| RuntimeError::Config {
                    process: setup.plan.name.clone(),
                    module: step.module.clone(),
                    source: Box::new(source),
                })
        })
        .collect()
}

fn wire_error(setup: &ProcessSetup<'_>, error: super::wiring::WireError) -> RuntimeError {
    RuntimeError::Plan {
        process: setup.plan.name.clone(),
        what: error.to_string(),
    }
}

/// The text of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// Runs the loop until a stop signal, the tick limit or too many panics.
pub fn run(setup: ProcessSetup<'_>) -> Result<Exit, RuntimeError> {
    let process = setup.plan.name.clone();
    let ipc_error = |source: ipc::Error| RuntimeError::Ipc {
        process: process.clone(),
        source,
    };
    let channel = |name: &str| {
        setup.channels.get(name).ok_or_else(|| RuntimeError::Plan {
            process: process.clone(),
            what: format!("channel `{name}` was not handed to this process"),
        })
    };

    let (board, slot) = setup.health;
    let mut record = HealthRecord::named(&process);
    record.pid = std::process::id();
    record.state = ProcessState::Starting as u32;
    record.restarts = setup.options.restarts;
    (record.last_exit_kind, record.last_exit_value) = setup.options.last_exit.to_raw();
    record.started_ns = monotonic_ns();
    // A standby reports on the standby board until it is activated; the active's slot and
    // writer roles are not touched before.
    let standby = setup.options.standby.clone();
    let mut standby_health = match &standby {
        Some(standby) => {
            let mut writer = standby.board.slot_writer(standby.slot).map_err(ipc_error)?;
            writer.publish(&record).map_err(ipc_error)?;
            Some(writer)
        }
        None => None,
    };
    let mut health = match standby_health {
        Some(_) => None,
        None => {
            let mut writer = board.slot_writer(slot).map_err(ipc_error)?;
            writer.publish(&record).map_err(ipc_error)?;
            Some(writer)
        }
    };

    apply_scheduling(setup.spec);
    // The configuration the modules are built from: `cortex set` changes its overrides.
    let mut config = setup.config.clone();
    let mut live = setup
        .parameters
        .map(super::live_parameters::LiveParameters::new);
    // Replay: the clock is the recording's from here on (the modules are built at the time of
    // step 0), and the ticks are the replayer's steps.
    let lockstep = setup.options.replay.clone();
    let mut follower = match &lockstep {
        Some(lockstep) => Some(lockstep.follower(&process)?),
        None => None,
    };
    let slots =
        Slots::of_plan(setup.plan, setup.representations).map_err(|e| wire_error(&setup, e))?;
    let mut wiring = Wiring::new(setup.plan, slots, build_modules(&setup, &config)?)
        .map_err(|e| wire_error(&setup, e))?;
    let module_count = wiring.module_count();
    if module_count > ipc::health::MODULE_SLOTS {
        tracing::warn!(
            process = %process,
            "{module_count} modules, the health board shows the times of the first {}",
            ipc::health::MODULE_SLOTS
        );
    }
    record.set_modules(wiring.module_names());
    let mut timings = ModuleTimings::new(module_count, setup.options.stats_window);
    // Time of each module's last update, for the overrun report.
    let mut last_durations = vec![Duration::ZERO; module_count];

    struct Input<'c> {
        reader: ipc::Reader<'c>,
        slot: usize,
        channel: String,
        seen: u64,
    }
    let slot_of = |wiring: &Wiring, name: &str| {
        wiring
            .slots()
            .index(name)
            .ok_or_else(|| RuntimeError::Plan {
                process: process.clone(),
                what: format!("the plan names `{name}`, which has no slot"),
            })
    };
    let mut inputs = Vec::new();
    for inbound in &setup.plan.inbound {
        inputs.push(Input {
            reader: channel(&inbound.channel)?.reader(),
            slot: slot_of(&wiring, &inbound.channel)?,
            channel: inbound.channel.clone(),
            seen: 0,
        });
    }
    struct Output<'c> {
        writer: ipc::Writer<'c>,
        slot: usize,
        channel: String,
        /// Another process reads it: published every tick; otherwise only while watched.
        read: bool,
    }
    // Plots and drawings for the debug link (`debug_output`); without them the process runs on.
    // Made before a standby's wait: they are this process's own (the link finds them through
    // its pid once it is the active), and making them costs a takeover a few hundred µs.
    let debug_channels = super::debug_output::OutputChannels::create(&process)
        .inspect_err(|error| tracing::warn!(process = %process, "no debug outputs: {error}"));
    let mut debug_outputs = debug_channels.as_ref().ok().and_then(|c| c.ticker().ok());
    // A standby is built: it says so and sleeps until it is activated (or told to end).
    if let (Some(standby), Some(writer)) = (&standby, standby_health.as_mut()) {
        record.state = ProcessState::Standby as u32;
        writer.publish(&record).map_err(ipc_error)?;
        if !wait_for_activation(standby, &setup.stop, &mut wiring).map_err(ipc_error)? {
            return Ok(Exit::Stopped);
        }
        // The active's slot: its writer is dead (the supervisor activates only then), though
        // the kernel may still be tearing it down: its roles are ours.
        if let Ok(Some(previous)) = board.read(slot) {
            ipc::set_predecessor(previous.pid);
        }
        record.state = ProcessState::Starting as u32;
        record.started_ns = monotonic_ns();
        let mut writer = board.slot_writer(slot).map_err(ipc_error)?;
        writer.publish(&record).map_err(ipc_error)?;
        health = Some(writer);
        (standby.activated)();
        tracing::info!(process = %process, "standby activated: taking over");
    }
    if let Some(mut writer) = standby_health.take() {
        // No standby any more: its board slot says so (the supervisor never activates it twice).
        record.state = ProcessState::Running as u32;
        writer.publish(&record).map_err(ipc_error)?;
    }
    let mut health = health.expect("the active's health writer is claimed above");
    let mut outputs = Vec::new();
    for name in &setup.plan.outbound {
        let buffer = channel(name)?;
        let representation = name.rsplit('.').next().unwrap_or(name);
        outputs.push(Output {
            writer: buffer.writer().map_err(ipc_error)?,
            slot: slot_of(&wiring, representation)?,
            channel: name.clone(),
            read: setup.plan.outbound_read.contains(name),
        });
    }
    // The active instance from here on (writer roles claimed): the liveness slot says so
    // until this function returns (a death while holding it is seen by the supervisor at once).
    let liveness = setup.options.liveness.clone();
    let _alive = liveness
        .as_ref()
        .and_then(|(board, slot)| match board.hold(*slot) {
            Ok(held) => Some(held),
            Err(error) => {
                tracing::warn!(process = %process, "{error}: the supervisor sees this process's death through its pidfd only");
                None
            }
        });
    let mut triggers: Vec<(ipc::Reader<'_>, u64)> = Vec::new();
    for name in &setup.plan.triggers {
        let reader = channel(name)?.reader();
        let seen = reader.published();
        triggers.push((reader, seen));
    }

    let period_ns = match &setup.spec.schedule {
        Schedule::Rate { hz } => Some((1e9 / hz) as u64),
        Schedule::Trigger { .. } => None,
    };
    let trigger_timeout = match &setup.spec.schedule {
        Schedule::Trigger {
            timeout: Some(timeout),
            ..
        } => *timeout,
        _ => setup.options.default_trigger_timeout,
    };

    let mut stats = TickStats::new(setup.options.stats_window);
    let mut panics: VecDeque<Instant> = VecDeque::new();
    let mut last_overrun_log: Option<Instant> = None;
    let mut overruns_since_log = 0u64;
    let mut scratch = Vec::new();
    // The first tick runs at once (a restarted process is back without waiting a period); the
    // deadlines after it are absolute.
    let mut deadline_ns = monotonic_ns().saturating_sub(period_ns.unwrap_or(0));
    let mut exit = Exit::TickLimit;
    record.state = ProcessState::Running as u32;
    // A standby that took over ticks at once with the newest inputs, whatever its trigger:
    // its predecessor may have died between its trigger and its publish.
    let mut tick_at_once = standby.is_some();

    loop {
        // 1. Trigger.
        if let Some(follower) = follower.as_mut() {
            // Replay: the next step (its inputs are published), or a stop.
            follower.wait(&setup.stop)?;
        } else if std::mem::take(&mut tick_at_once) {
            // The standby's first tick: no wait.
        } else if let Some(period) = period_ns {
            deadline_ns += period;
            let now = monotonic_ns();
            if now > deadline_ns + period {
                // More than a whole period behind (a debugger, SIGSTOP): start afresh.
                deadline_ns = now;
            } else {
                ipc::sched::sleep_until(deadline_ns);
            }
        } else if !triggers.is_empty() {
            wait_for_trigger(&mut triggers, trigger_timeout, &setup.stop, setup.health)
                .map_err(ipc_error)?;
        }
        if setup.stop.load(Ordering::Relaxed) {
            exit = Exit::Stopped;
            break;
        }
        let tick_start = Instant::now();
        let tick_start_ns = monotonic_ns();

        // 2. Inbound channels.
        for input in &mut inputs {
            if input.reader.published() == input.seen {
                continue;
            }
            match input.reader.read_latest(&mut scratch) {
                Ok(Some(count)) => {
                    input.seen = count;
                    if let Err(error) = wiring.decode(input.slot, &scratch) {
                        tracing::error!(process = %process, channel = %input.channel, "{error}; keeping the previous value");
                    }
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::error!(process = %process, channel = %input.channel, "{error}")
                }
            }
        }

        // 3. New parameters (`cortex set`), then the providers.
        if let Some(debug_outputs) = debug_outputs.as_mut() {
            debug_outputs.begin_tick(tick_start_ns);
            let (plan, spec) = (setup.plan, setup.spec);
            if debug_outputs.switch_providers(&mut wiring, plan, spec, setup.modules, &config) {
                record.set_modules(wiring.module_names());
            }
        }
        let mut panicked = None;
        if let Some(live) = live.as_mut() {
            match live.apply(&process, &mut config, &mut wiring) {
                Ok(None) => {}
                Ok(Some(set_panic)) => panicked = Some((set_panic.module, set_panic.message)),
                Err(error) => {
                    tracing::error!(process = %process, "{error}; keeping the parameters")
                }
            }
        }
        for (index, last_duration) in last_durations.iter_mut().enumerate() {
            if panicked.is_some() {
                break;
            }
            let started = Instant::now();
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| wiring.update(index))) {
                panicked = Some((
                    wiring.module_name(index).to_owned(),
                    panic_message(payload.as_ref()),
                ));
                break;
            }
            *last_duration = started.elapsed();
            timings.record(index, *last_duration, started);
        }
        if let Some((module, message)) = panicked {
            record.panics += 1;
            let now = Instant::now();
            panics.push_back(now);
            while panics
                .front()
                .is_some_and(|t| now.duration_since(*t) > setup.options.panic_window)
            {
                panics.pop_front();
            }
            tracing::error!(
                process = %process,
                module = %module,
                "module {module} panicked: {message}; rebuilding the module set ({} panics in {:?})",
                panics.len(),
                setup.options.panic_window
            );
            if panics.len() > setup.options.panic_limit {
                health.publish(&record).map_err(ipc_error)?;
                return Ok(Exit::TooManyPanics {
                    module,
                    count: panics.len(),
                });
            }
            // The old modules go first (they may hold files or an interpreter); the values in
            // the slots stay.
            wiring
                .rewire(setup.plan, Vec::new())
                .map_err(|e| wire_error(&setup, e))?;
            wiring
                .rewire(setup.plan, build_modules(&setup, &config)?)
                .map_err(|e| wire_error(&setup, e))?;
        }

        if let Some(debug_outputs) = debug_outputs.as_mut() {
            debug_outputs.end_tick(record.ticks + 1);
        }

        // 4. Outbound channels: those another process reads, and those someone watches.
        let mut now_ns = None;
        for output in &mut outputs {
            if !output.read {
                let now = *now_ns.get_or_insert_with(monotonic_ns);
                if !output.writer.watched(now) {
                    continue;
                }
            }
            match wiring.encode(output.slot, &mut scratch) {
                Ok(()) => {
                    if let Err(error) = output.writer.publish(&scratch) {
                        tracing::error!(process = %process, channel = %output.channel, "{error}");
                    }
                }
                Err(error) => {
                    tracing::error!(process = %process, channel = %output.channel, "{error}")
                }
            }
        }

        // 5. Heartbeat.
        let duration = tick_start.elapsed();
        let now = Instant::now();
        stats.record(duration, now);
        let end_ns = monotonic_ns();
        let overran = match period_ns {
            Some(period) => end_ns > deadline_ns + period,
            None => duration > trigger_timeout,
        };
        if overran {
            record.overruns += 1;
            overruns_since_log += 1;
            let due = last_overrun_log
                .is_none_or(|t| now.duration_since(t) >= setup.options.overrun_log_interval);
            if due {
                let slowest = last_durations
                    .iter()
                    .enumerate()
                    .max_by_key(|(_, duration)| **duration)
                    .map(|(index, duration)| (wiring.module_name(index), *duration));
                let late = match period_ns {
                    Some(_) => Duration::from_nanos(tick_start_ns.saturating_sub(deadline_ns)),
                    None => Duration::ZERO,
                };
                let limit =
                    Duration::from_nanos(period_ns.unwrap_or(trigger_timeout.as_nanos() as u64));
                tracing::warn!(
                    process = %process,
                    "{} ({overruns_since_log} overruns since the last report)",
                    overrun_report(limit, late, duration, slowest),
                );
                last_overrun_log = Some(now);
                overruns_since_log = 0;
            }
        }
        if record.ticks == 0 {
            record.first_tick_ns = end_ns;
        }
        record.ticks += 1;
        record.last_tick_ns = end_ns;
        stats.fill(&mut record);
        timings.fill(&mut record);
        super::faults::fill_record(&mut record);
        health.publish(&record).map_err(ipc_error)?;
        if let Some(follower) = follower.as_mut() {
            // Replay: the step is over; the replayer may publish the next one's inputs.
            follower.done()?;
        }

        if setup
            .options
            .max_ticks
            .is_some_and(|limit| record.ticks >= limit)
        {
            break;
        }
    }

    record.state = ProcessState::Stopping as u32;
    health.publish(&record).map_err(ipc_error)?;
    drop(wiring);
    record.state = ProcessState::Stopped as u32;
    health.publish(&record).map_err(ipc_error)?;
    Ok(exit)
}

/// How often a waiting standby looks at its stop flag (SIGTERM may not end a futex sleep).
const STANDBY_STOP_CHECK: Duration = Duration::from_millis(100);

/// Sleeps on the activation word; `true`: activated, `false`: told to end (shutdown, SIGTERM).
fn wait_for_activation(
    standby: &Standby,
    stop: &AtomicBool,
    wiring: &mut Wiring,
) -> Result<bool, ipc::Error> {
    let activation = standby.board.activation(standby.slot)?;
    loop {
        let command = activation
            .wait(STANDBY_STOP_CHECK)
            .map_err(|source| ipc::Error::Io {
                name: format!("standby[{}]", standby.slot),
                what: "waiting on the activation word",
                source,
            })?;
        match command {
            Some(ipc::standby::Command::Activate) => return Ok(true),
            Some(ipc::standby::Command::ShutDown) => return Ok(false),
            None if stop.load(Ordering::Relaxed) => return Ok(false),
            None => (standby.idle)(wiring),
        }
    }
}

/// Waits until one trigger channel has a publish newer than the last one seen, the timeout
/// passes, or a stop is requested. One sleep covers every trigger (`ipc::wait_any_as`: each
/// trigger's writer wakes the process directly, with no polling: through `futex_waitv`, or on a
/// kernel without it through this process's wake word in its health-board slot).
fn wait_for_trigger(
    triggers: &mut [(ipc::Reader<'_>, u64)],
    timeout: Duration,
    stop: &AtomicBool,
    (board, slot): (&HealthBoard, usize),
) -> Result<(), ipc::Error> {
    let consumer = board.consumer(slot)?;
    let channels = triggers.iter().map(|(reader, seen)| (reader, *seen));
    if let ipc::Wake::Published { index, count } =
        ipc::wait_any_as(channels, timeout, Some(stop), consumer)?
    {
        triggers[index].1 = count;
    }
    Ok(())
}

/// Why a tick ended after its deadline, in words: the tick itself took longer than its period
/// (`limit`), or the process woke `late` (the CPU was busy elsewhere) and an ordinary tick then
/// ended past the deadline. The two need different fixes, so the report says which.
pub fn overrun_report(
    limit: Duration,
    late: Duration,
    duration: Duration,
    slowest: Option<(&str, Duration)>,
) -> String {
    let slowest = match slowest {
        Some((name, took)) => format!("slowest module {name} took {took:?}"),
        None => "no module".to_owned(),
    };
    if duration > limit {
        format!("tick overran: the tick took {duration:?}, longer than its {limit:?} period ({slowest})")
    } else {
        format!(
            "tick ended after its deadline: the process woke {late:?} late (the CPU was busy \
             elsewhere); the tick itself took {duration:?} of its {limit:?} period ({slowest})"
        )
    }
}

#[cfg(test)]
mod overrun_tests {
    use std::time::Duration;

    #[test]
    fn an_overrun_says_whether_the_tick_was_long_or_the_process_woke_late() {
        let period = Duration::from_millis(12);
        let long = super::overrun_report(
            period,
            Duration::ZERO,
            Duration::from_millis(15),
            Some(("MotionCombinator", Duration::from_millis(14))),
        );
        assert!(
            long.contains("the tick took 15ms, longer than its 12ms period"),
            "{long}"
        );
        assert!(long.contains("MotionCombinator took 14ms"), "{long}");
        let late = super::overrun_report(
            period,
            Duration::from_millis(13),
            Duration::from_micros(2),
            None,
        );
        assert!(late.contains("woke 13ms late"), "{late}");
        assert!(late.contains("the tick itself took 2µs"), "{late}");
        assert!(!late.contains("longer than"), "{late}");
    }
}
