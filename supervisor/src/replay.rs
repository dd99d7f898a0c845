//! `cortex replay FILE.mcap [--process NAME]... [--speed X]`: runs processes of the control
//! program against a recording instead of the hardware, deterministically.
//!
//! A replay is a `cortex run` of its own (run directory, instance, control socket, health board,
//! debug link and web view, `cortex status`, `cortex get`, `cortex record`) that starts only the
//! replayed processes and the `debug` process: no simulator, no bridge, no camera, no network.
//! The replayer is a thread of that supervisor (`Replayer`): it reads the file chunk by chunk
//! (`debug::mcap_reader`) and publishes each recorded message into the channel it was recorded
//! from, for every channel a replayed process reads and no replayed process writes; what the
//! replayed processes write is computed afresh.
//!
//! Lockstep (`framework::lockstep`): a replayed process ticks once per recorded message of its
//! trigger (cognition: each `upper.BallPercept` and `lower.BallPercept`; motion: each
//! `SensorData`), only after every message before it has been published, and the replayer waits
//! for the tick's end before it goes on; during the tick the modules' "now"
//! (`framework::clock`) is the trigger message's recorded time (its publish time: the robot's
//! `CLOCK_MONOTONIC`). So the same file gives the same outputs on every run, whatever the load.
//! `--speed X` paces the messages by their log times (2: twice as fast; `max`: as fast as the
//! processes go). `--record-outputs FILE` writes every output of the replayed processes after
//! each of their ticks (log time = the step's time) to an MCAP file: two runs give the same bytes.
//!
//! A damaged file (cut, a chunk left open by a killed recorder, flipped bytes) is replayed up to
//! the damage; the replay then says where it stopped (byte offset, the last good log time) and
//! ends with status 65. A file that is not MCAP: 65; a missing file: 66.

use crate::exit_code::{Failure, EX_CANTCREAT, EX_DATAERR, EX_NOINPUT, EX_USAGE};
use crate::{paths, program, ConfigOptions};
use anyhow::{bail, Context, Result};
use debug::mcap_reader::{Damage, Entry, McapReader, OpenError};
use framework::lockstep::{Leader, Lockstep};
use ipc::TripleBuffer;
use std::collections::{BTreeMap, BTreeSet};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `STEP_FD:DONE_FD` of a replayed child's lockstep channels (`framework::lockstep`).
pub const LOCKSTEP_VARIABLE: &str = "CORTEX_REPLAY_LOCKSTEP";
/// How long a replayed process has to get ready (build its modules, import the behaviour).
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// How long one replayed tick may take before the replay gives up on the process.
const TICK_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the replayer's waits look at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);
/// A replayed process never ticks on its own: the supervisor's freeze watchdog would take the
/// pauses between steps (a paced replay, the end of the file) for a freeze. The replayer's own
/// tick timeout catches a process that hangs.
pub const REPLAY_WATCHDOG: Duration = Duration::from_secs(30 * 24 * 3600);

/// The instance of a replay without `--instance` or `--run-dir`.
pub const DEFAULT_INSTANCE: &str = "replay";

/// The overrides a replay of the behaviour runs with (before the user's own `--set`).
const REPLAY_OVERRIDES: [&str; 2] = [
    "BehaviourControl.tick_budget_ms=0",
    "BehaviourControl.load_budget_ms=0",
];

/// How fast to replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// The recorded log times divided by this factor.
    Factor(f64),
    /// As fast as the processes go.
    Max,
}

fn parse_speed(text: &str) -> Result<Speed, String> {
    if text == "max" {
        return Ok(Speed::Max);
    }
    match text.parse::<f64>() {
        Ok(factor) if factor.is_finite() && (0.01..=1000.0).contains(&factor) => {
            Ok(Speed::Factor(factor))
        }
        _ => Err(format!(
            "`{text}` is not a speed: a factor from 0.01 to 1000 (1: as recorded, 2: twice as \
             fast) or `max`"
        )),
    }
}

/// Options of `cortex replay`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayOptions {
    /// The recording (`cortex record`).
    #[arg(value_name = "FILE.mcap")]
    file: PathBuf,
    /// A process to replay, e.g. `cognition` (repeat for more); default: every process ticked
    /// by a trigger whose trigger the file holds.
    #[arg(long = "process", value_name = "NAME")]
    processes: Vec<String>,
    /// Pace: 1 as recorded, 2 twice as fast, `max` as fast as the processes go.
    #[arg(long, value_name = "X", default_value = "1", value_parser = parse_speed)]
    speed: Speed,
    /// Write the replayed processes' outputs to this MCAP file (after each of their ticks).
    #[arg(long, value_name = "FILE.mcap")]
    record_outputs: Option<PathBuf>,
    /// Keep the system up after the end of the file (the web view, `cortex get`) until
    /// `cortex stop` or Ctrl-C.
    #[arg(long)]
    keep_running: bool,
    /// The run directory of the replay's instance.
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    /// The instance name of the replay (selects the default run directory); default `replay`,
    /// so that a replay never takes the place of the robot's own instance.
    #[arg(long, value_name = "NAME", value_parser = paths::parse_instance)]
    instance: Option<String>,
    #[command(flatten)]
    config: ConfigOptions,
    /// The behaviour folder (default: the shipped `behaviours/python`).
    #[arg(long, value_name = "DIR")]
    behaviours: Option<PathBuf>,
    /// The debug link's port (default: one the kernel picks; see `cortex status --json`).
    #[arg(long, value_name = "PORT")]
    debug_port: Option<u16>,
    /// The address the debug link listens on (default 127.0.0.1).
    #[arg(long, value_name = "IP")]
    debug_address: Option<std::net::IpAddr>,
}

/// What the file holds, from a first pass over it.
#[derive(Debug, Default)]
struct Scan {
    /// Messages per topic.
    topics: BTreeMap<String, u64>,
    /// First and last log time.
    first_log: Option<u64>,
    last_log: Option<u64>,
    /// The first message's "now" (publish time).
    first_now: Option<u64>,
    damage: Option<Damage>,
}

/// The recorded time a replayed tick runs at: the publish time (the robot's monotonic clock, as
/// the recorder writes it), or the log time for a file whose two times are the same.
fn tick_time(message: &debug::mcap_reader::Message) -> u64 {
    if message.publish_time != 0 && message.publish_time != message.log_time {
        message.publish_time
    } else {
        message.log_time
    }
}

fn open(path: &Path) -> Result<McapReader> {
    McapReader::open(path).map_err(|error| match &error {
        OpenError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Failure::error(EX_NOINPUT, format!("{error}: no recording to replay"))
        }
        OpenError::Io { .. } => Failure::error(EX_NOINPUT, error.to_string()),
        OpenError::NotMcap { .. } => Failure::error(EX_DATAERR, error.to_string()),
    })
}

fn scan(path: &Path) -> Result<Scan> {
    let mut reader = open(path)?;
    let mut scan = Scan::default();
    let mut topics: BTreeMap<u16, String> = BTreeMap::new();
    loop {
        match reader.next_entry() {
            Ok(Some(Entry::Channel(channel))) => {
                topics.insert(channel.id, channel.topic);
            }
            Ok(Some(Entry::Message(message))) => {
                if let Some(topic) = topics.get(&message.channel) {
                    *scan.topics.entry(topic.clone()).or_default() += 1;
                }
                scan.first_log.get_or_insert(message.log_time);
                scan.first_now.get_or_insert(tick_time(&message));
                scan.last_log = Some(message.log_time);
            }
            Ok(Some(Entry::Metadata(..))) => {}
            Ok(None) => return Ok(scan),
            Err(damage) => {
                scan.damage = Some(damage);
                return Ok(scan);
            }
        }
    }
}

/// One replayed process.
#[derive(Debug)]
pub struct Replayed {
    name: String,
    lockstep: Arc<Lockstep>,
    /// Its trigger channels.
    triggers: Vec<String>,
    /// Its outbound channels (recorded with `--record-outputs`).
    outputs: Vec<String>,
}

/// How a replay ended.
#[derive(Debug, Clone)]
enum End {
    /// The whole file.
    Complete,
    /// Up to the damage.
    Damaged(Damage),
    /// Stopped before the end (`cortex stop`, Ctrl-C).
    Stopped,
    /// The replay could not go on.
    Failed(String),
}

/// What the replayer did.
#[derive(Debug, Clone)]
struct Outcome {
    end: End,
    /// Ticks per replayed process.
    ticks: BTreeMap<String, u64>,
    /// Messages published into channels.
    published: u64,
    /// Messages written with `--record-outputs`.
    outputs: u64,
    /// The log time of the last message replayed.
    last_log: Option<u64>,
}

/// A replay in progress: what `cortex run`'s supervisor needs of it (`run/replay.rs`).
#[derive(Debug)]
pub struct Session {
    file: PathBuf,
    processes: Vec<Replayed>,
    /// Channels published from the file.
    inputs: BTreeSet<String>,
    speed: Speed,
    record_outputs: Option<PathBuf>,
    keep_running: bool,
    stop: AtomicBool,
    done: AtomicBool,
    outcome: Mutex<Option<Outcome>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Session {
    /// Whether `process` is replayed.
    pub fn runs(&self, process: &str) -> bool {
        self.processes.iter().any(|p| p.name == process)
    }

    /// Hands the lockstep channels of `process` (if it is replayed) to the child being started.
    pub fn pass_to<'a>(
        &'a self,
        process: &str,
        command: &mut std::process::Command,
        fds: &mut Vec<BorrowedFd<'a>>,
    ) {
        if let Some(replayed) = self.processes.iter().find(|p| p.name == process) {
            let (step, done) = (
                replayed.lockstep.step.as_fd(),
                replayed.lockstep.done.as_fd(),
            );
            fds.push(step);
            fds.push(done);
            command.env(
                LOCKSTEP_VARIABLE,
                format!("{}:{}", step.as_raw_fd(), done.as_raw_fd()),
            );
        }
    }

    /// Starts the replayer thread on the supervisor's channels (every child started).
    pub fn begin(self: &Arc<Self>, channels: &BTreeMap<String, TripleBuffer>) -> Result<()> {
        let mut opened = BTreeMap::new();
        let mut wanted: BTreeSet<&String> = self.inputs.iter().collect();
        for replayed in &self.processes {
            wanted.extend(replayed.outputs.iter());
        }
        for name in wanted {
            let buffer = channels
                .get(name)
                .with_context(|| format!("replay: the supervisor made no channel `{name}`"))?;
            let fd = buffer
                .as_fd()
                .try_clone_to_owned()
                .with_context(|| format!("replay: duplicating channel `{name}`"))?;
            opened.insert(
                name.clone(),
                TripleBuffer::from_fd(fd).with_context(|| format!("replay: channel `{name}`"))?,
            );
        }
        let session = Arc::clone(self);
        let thread = std::thread::Builder::new()
            .name("replayer".into())
            .spawn(move || {
                let outcome = session.replay(&opened);
                match &outcome.end {
                    End::Complete => tracing::info!("replay: the end of the file"),
                    End::Damaged(damage) => tracing::warn!("replay: {damage}"),
                    End::Stopped => tracing::info!("replay: stopped"),
                    End::Failed(why) => tracing::error!("replay: {why}"),
                }
                if session.keep_running && !matches!(outcome.end, End::Stopped) {
                    tracing::info!("replay over; the system stays up until `cortex stop`");
                }
                *session.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                session.done.store(true, Ordering::Release);
            })
            .context("starting the replayer thread")?;
        *self.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread);
        Ok(())
    }

    /// The replay is over and the system should stop (not with `--keep-running`).
    pub fn over(&self) -> bool {
        !self.keep_running && self.done.load(Ordering::Acquire)
    }

    /// Stops the replayer (before the children are stopped) and waits for it.
    pub fn end(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(thread) = thread {
            if thread.join().is_err() {
                tracing::error!("the replayer thread panicked");
            }
        }
    }

    /// Sleeps until `deadline` in slices; `false`: stopped meanwhile.
    fn sleep_until(&self, deadline: Instant) -> bool {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            std::thread::sleep((deadline - now).min(STOP_CHECK));
        }
    }

    /// Waits for `leader`'s process to finish its step; `Ok(false)`: stopped meanwhile.
    fn wait_done(
        &self,
        leader: &mut Leader<'_>,
        process: &str,
        timeout: Duration,
        what: &str,
    ) -> Result<bool, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match leader.wait_done(STOP_CHECK) {
                Ok(true) => return Ok(true),
                Ok(false) => {}
                Err(error) => return Err(error.to_string()),
            }
            if self.stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{process} did not {what} within {timeout:?} (crashed or hung: see its log \
                     and `cortex status`)"
                ));
            }
        }
    }

    /// The replayer: the file front to back, lockstep with the replayed processes.
    fn replay(&self, channels: &BTreeMap<String, TripleBuffer>) -> Outcome {
        let mut outcome = Outcome {
            end: End::Complete,
            ticks: self.processes.iter().map(|p| (p.name.clone(), 0)).collect(),
            published: 0,
            outputs: 0,
            last_log: None,
        };
        outcome.end = match self.replay_into(channels, &mut outcome) {
            Ok(end) => end,
            Err(why) => End::Failed(why),
        };
        outcome
    }

    fn replay_into(
        &self,
        channels: &BTreeMap<String, TripleBuffer>,
        outcome: &mut Outcome,
    ) -> Result<End, String> {
        let mut leaders = Vec::new();
        for replayed in &self.processes {
            leaders.push(
                replayed
                    .lockstep
                    .leader(&replayed.name)
                    .map_err(|e| e.to_string())?,
            );
        }
        let mut writers = BTreeMap::new();
        for name in &self.inputs {
            let writer = channels[name]
                .writer()
                .map_err(|error| format!("publishing `{name}`: {error}"))?;
            writers.insert(name.clone(), writer);
        }
        let mut outputs = match &self.record_outputs {
            Some(path) => Some(OutputFile::create(path, &self.processes, channels)?),
            None => None,
        };
        for (replayed, leader) in self.processes.iter().zip(&mut leaders) {
            if !self.wait_done(leader, &replayed.name, READY_TIMEOUT, "get ready")? {
                return Ok(End::Stopped);
            }
        }
        tracing::info!("replay: every replayed process is ready");
        let mut reader = McapReader::open(&self.file).map_err(|e| e.to_string())?;
        // Channel id → the channel name it is published into and the processes it triggers.
        let mut routes: BTreeMap<u16, (String, Vec<usize>)> = BTreeMap::new();
        let mut pace: Option<(u64, Instant)> = None;
        let end = loop {
            if self.stop.load(Ordering::Relaxed) {
                break End::Stopped;
            }
            let message = match reader.next_entry() {
                Ok(Some(Entry::Channel(channel))) => {
                    if self.inputs.contains(&channel.topic) {
                        let triggered = self
                            .processes
                            .iter()
                            .enumerate()
                            .filter(|(_, p)| p.triggers.contains(&channel.topic))
                            .map(|(index, _)| index)
                            .collect();
                        routes.insert(channel.id, (channel.topic, triggered));
                    }
                    continue;
                }
                Ok(Some(Entry::Message(message))) => message,
                Ok(Some(Entry::Metadata(..))) => continue,
                Ok(None) => break End::Complete,
                Err(damage) => break End::Damaged(damage),
            };
            let Some((name, triggered)) = routes.get(&message.channel) else {
                continue;
            };
            if let Speed::Factor(factor) = self.speed {
                let (first, started) = *pace.get_or_insert((message.log_time, Instant::now()));
                let offset = message.log_time.saturating_sub(first) as f64 / factor;
                let due = started + Duration::from_nanos(offset.min(1e18) as u64);
                if !self.sleep_until(due) {
                    break End::Stopped;
                }
            }
            if let Some(writer) = writers.get_mut(name) {
                match writer.publish(&message.data) {
                    Ok(_) => outcome.published += 1,
                    Err(error) => tracing::warn!("replay: {name}: {error}; message skipped"),
                }
            }
            outcome.last_log = Some(message.log_time);
            let mut stopped = false;
            for &index in triggered {
                let leader = &mut leaders[index];
                let process = &self.processes[index].name;
                leader
                    .step(tick_time(&message))
                    .map_err(|e| e.to_string())?;
                let what = format!("finish its tick {}", leader.number());
                if !self.wait_done(leader, process, TICK_TIMEOUT, &what)? {
                    stopped = true;
                    break;
                }
                *outcome.ticks.entry(process.clone()).or_default() += 1;
                if let Some(outputs) = outputs.as_mut() {
                    outcome.outputs +=
                        outputs.write(index, leader.number(), tick_time(&message))?;
                }
            }
            if stopped {
                break End::Stopped;
            }
        };
        // The outputs file is finished (summary, footer) however the replay ended.
        if let Some(outputs) = outputs.take() {
            outputs.finish()?;
        }
        Ok(end)
    }
}

/// `--record-outputs`: the replayed processes' outputs after each of their ticks.
struct OutputFile<'c> {
    path: PathBuf,
    writer: mcap::Writer<std::io::BufWriter<std::fs::File>>,
    /// Per replayed process: (channel id, reader, last publish count written).
    channels: Vec<Vec<(u16, ipc::Reader<'c>, u64)>>,
    bytes: Vec<u8>,
}

impl<'c> OutputFile<'c> {
    fn create(
        path: &Path,
        processes: &[Replayed],
        buffers: &'c BTreeMap<String, TripleBuffer>,
    ) -> Result<OutputFile<'c>, String> {
        let error = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let file = std::fs::File::create(path).map_err(|e| error(&e))?;
        // Nothing time- or host-dependent goes in: the same replay gives the same bytes.
        let mut writer = mcap::WriteOptions::new()
            .profile("cortex-replay")
            .compression(Some(mcap::Compression::Zstd))
            .create(std::io::BufWriter::new(file))
            .map_err(|e| error(&e))?;
        let mut channels = Vec::new();
        for replayed in processes {
            let mut own = Vec::new();
            for name in &replayed.outputs {
                let representation = name.rsplit('.').next().unwrap_or(name);
                let schema = writer
                    .add_schema(representation, "", b"")
                    .map_err(|e| error(&e))?;
                let metadata = BTreeMap::from([
                    ("representation".to_owned(), representation.to_owned()),
                    ("process".to_owned(), replayed.name.clone()),
                ]);
                let id = writer
                    .add_channel(schema, name, "msgpack", &metadata)
                    .map_err(|e| error(&e))?;
                own.push((id, buffers[name].reader(), 0));
            }
            channels.push(own);
        }
        Ok(OutputFile {
            path: path.to_owned(),
            writer,
            channels,
            bytes: Vec::new(),
        })
    }

    /// Writes what process `index` published in its tick `step` (at `time_ns`); keeps the watch
    /// lease of every output, so that those no other process reads are published too.
    fn write(&mut self, index: usize, step: u64, time_ns: u64) -> Result<u64, String> {
        let mut written = 0;
        let lease = ipc::health::monotonic_ns() + 2_000_000_000;
        for (id, reader, last) in &mut self.channels[index] {
            reader.watch(lease);
            if reader.published() == *last {
                continue;
            }
            let Ok(Some(count)) = reader.read_latest(&mut self.bytes) else {
                continue;
            };
            *last = count;
            let header = mcap::records::MessageHeader {
                channel_id: *id,
                sequence: step as u32,
                log_time: time_ns,
                publish_time: time_ns,
            };
            self.writer
                .write_to_known_channel(&header, &self.bytes)
                .map_err(|e| format!("{}: {e}", self.path.display()))?;
            written += 1;
        }
        Ok(written)
    }

    fn finish(mut self) -> Result<(), String> {
        self.writer
            .finish()
            .map(|_summary| ())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// The child's side: the lockstep channels the supervisor handed over, if this is a replay.
pub fn lockstep_from_environment() -> Result<Option<Arc<Lockstep>>> {
    let Ok(text) = std::env::var(LOCKSTEP_VARIABLE) else {
        return Ok(None);
    };
    let (step, done) = text
        .split_once(':')
        .with_context(|| format!("{LOCKSTEP_VARIABLE}={text}: expected STEP_FD:DONE_FD"))?;
    let open = |fd: &str, what: &str| -> Result<TripleBuffer> {
        let fd: i32 = fd
            .parse()
            .with_context(|| format!("{LOCKSTEP_VARIABLE}={text}: the {what} descriptor"))?;
        let descriptor =
            ipc::fd::take_inherited(fd).with_context(|| format!("the {what} channel"))?;
        TripleBuffer::from_fd_with_schema(descriptor, framework::lockstep::SCHEMA_HASH)
            .with_context(|| format!("the replay's {what} channel"))
    };
    Ok(Some(Arc::new(Lockstep {
        step: open(step, "step")?,
        done: open(done, "done")?,
    })))
}

fn seconds(first: Option<u64>, last: Option<u64>) -> f64 {
    match (first, last) {
        (Some(first), Some(last)) => last.saturating_sub(first) as f64 / 1e9,
        _ => 0.0,
    }
}

/// `cortex replay`.
pub fn run(options: ReplayOptions) -> Result<ExitCode> {
    let scan = scan(&options.file)?;
    if let Some(outputs) = &options.record_outputs {
        let same = std::fs::canonicalize(outputs)
            .ok()
            .is_some_and(|path| std::fs::canonicalize(&options.file).ok() == Some(path));
        if same {
            return Err(Failure::error(
                EX_USAGE,
                format!(
                    "--record-outputs {}: that is the recording being replayed",
                    outputs.display()
                ),
            ));
        }
        // Made now, so that a folder that is not there fails before anything starts.
        std::fs::File::create(outputs).map_err(|error| {
            Failure::error(
                EX_CANTCREAT,
                format!("--record-outputs {}: {error}", outputs.display()),
            )
        })?;
    }
    let total: u64 = scan.topics.values().sum();
    let config = program::load_config(&options.config.root(), None, &options.config.overrides)?;
    let graph = program::graph(&config)?;
    // A damaged file is judged by what it holds before its damage, and says so.
    let before_damage = scan.damage.as_ref().map_or(String::new(), |damage| {
        format!(" before its damage ({damage})")
    });
    let replayable = |plan: &framework::graph::ProcessPlan| {
        !plan.triggers.is_empty() && plan.triggers.iter().any(|t| scan.topics.contains_key(t))
    };
    let chosen: Vec<&framework::graph::ProcessPlan> = if options.processes.is_empty() {
        let chosen: Vec<_> = graph.processes.iter().filter(|p| replayable(p)).collect();
        if chosen.is_empty() {
            return Err(Failure::error(
                EX_DATAERR,
                format!(
                    "{}: holds no trigger of any process{before_damage} ({} messages on {}); a \
                     process ticked by a trigger is replayed when the file holds its trigger",
                    options.file.display(),
                    total,
                    describe_topics(&scan.topics)
                ),
            ));
        }
        chosen
    } else {
        let mut chosen = Vec::new();
        for name in &options.processes {
            let Some(plan) = graph.process(name) else {
                let names: Vec<&str> = graph.processes.iter().map(|p| p.name.as_str()).collect();
                return Err(Failure::error(
                    EX_USAGE,
                    format!(
                        "--process {name}: no such process; the processes are {}",
                        names.join(", ")
                    ),
                ));
            };
            if plan.triggers.is_empty() {
                return Err(Failure::error(
                    EX_USAGE,
                    format!(
                        "--process {name}: it ticks at a rate on its own hardware (camera, \
                         microphone, sockets), not on a trigger; replay runs processes ticked by \
                         a trigger (those of this table: {})",
                        graph
                            .processes
                            .iter()
                            .filter(|p| !p.triggers.is_empty())
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            if !replayable(plan) {
                return Err(Failure::error(
                    EX_DATAERR,
                    format!(
                        "--process {name}: {} holds none of its triggers ({}){before_damage}; \
                         record them (Recorder.toml `channels`)",
                        options.file.display(),
                        plan.triggers.join(", ")
                    ),
                ));
            }
            if !chosen
                .iter()
                .any(|p: &&framework::graph::ProcessPlan| p.name == *name)
            {
                chosen.push(plan);
            }
        }
        chosen
    };
    let provided: BTreeSet<&String> = chosen.iter().flat_map(|p| p.outbound.iter()).collect();
    let required: BTreeSet<String> = chosen
        .iter()
        .flat_map(|p| p.inbound.iter().map(|i| i.channel.clone()))
        .filter(|channel| !provided.contains(channel))
        .collect();
    let inputs: BTreeSet<String> = required
        .iter()
        .filter(|channel| scan.topics.contains_key(*channel))
        .cloned()
        .collect();
    let missing: Vec<&String> = required.difference(&inputs).collect();
    let afresh: Vec<&String> = provided
        .iter()
        .copied()
        .filter(|channel| scan.topics.contains_key(*channel))
        .collect();
    let names: Vec<&str> = chosen.iter().map(|p| p.name.as_str()).collect();
    println!(
        "replaying {} from {} ({total} messages, {:.1} s recorded{})",
        names.join(", "),
        options.file.display(),
        seconds(scan.first_log, scan.last_log),
        if options.processes.is_empty() {
            ": every process whose trigger the file holds"
        } else {
            ""
        }
    );
    println!("  inputs from the file: {}", join(&inputs));
    if !missing.is_empty() {
        println!(
            "  inputs the file lacks (they keep their default value): {}",
            join(missing)
        );
    }
    if !afresh.is_empty() {
        println!(
            "  recorded outputs computed afresh instead: {}",
            join(afresh)
        );
    }
    if let Some(damage) = &scan.damage {
        println!(
            "  the file is damaged at byte {} of {}: replaying the {} messages before it",
            damage.offset, damage.length, damage.messages
        );
    }
    let start_ns = scan.first_now.unwrap_or(1);
    let mut processes = Vec::new();
    for plan in &chosen {
        processes.push(Replayed {
            name: plan.name.clone(),
            lockstep: Arc::new(
                Lockstep::create(&plan.name, start_ns).context("making the lockstep channels")?,
            ),
            triggers: plan.triggers.clone(),
            outputs: plan.outbound.clone(),
        });
    }
    let session = Arc::new(Session {
        file: options.file.clone(),
        processes,
        inputs,
        speed: options.speed,
        record_outputs: options.record_outputs.clone(),
        keep_running: options.keep_running,
        stop: AtomicBool::new(false),
        done: AtomicBool::new(false),
        outcome: Mutex::new(None),
        thread: Mutex::new(None),
    });
    let mut arguments: Vec<std::ffi::OsString> = vec!["cortex-replay".into()];
    if let Some(dir) = &options.run_dir {
        arguments.extend(["--run-dir".into(), dir.clone().into_os_string()]);
    }
    let instance = match (&options.instance, &options.run_dir) {
        (Some(instance), _) => Some(instance.as_str()),
        (None, None) => Some(DEFAULT_INSTANCE),
        (None, Some(_)) => None,
    };
    if let Some(instance) = instance {
        arguments.extend(["--instance".into(), instance.into()]);
    }
    if let Some(root) = &options.config.config_dir {
        arguments.extend(["--config-dir".into(), root.clone().into_os_string()]);
    }
    // The behaviour's tick budget is wall-clock time: on a loaded machine it would cut a tick
    // short in one run and not in the next. A replay is not real time, so it has none (the
    // replayer's tick timeout catches a behaviour that hangs); a `--set` of the user's wins.
    let runs_behaviour = chosen.iter().any(|plan| {
        plan.order
            .iter()
            .any(|step| step.module == crate::behaviour_faults::BEHAVIOUR_MODULE)
    });
    if runs_behaviour {
        println!(
            "  the behaviour's time budgets are off (a replay is not real time): {}",
            REPLAY_OVERRIDES.join(" ")
        );
        for assignment in REPLAY_OVERRIDES {
            arguments.extend(["--set".into(), assignment.into()]);
        }
    }
    for assignment in &options.config.overrides {
        arguments.extend(["--set".into(), assignment.into()]);
    }
    if let Some(folder) = &options.behaviours {
        arguments.extend(["--behaviours".into(), folder.clone().into_os_string()]);
    }
    let address = options
        .debug_address
        .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
    arguments.extend(["--debug-address".into(), address.to_string().into()]);
    arguments.extend([
        "--debug-port".into(),
        options.debug_port.unwrap_or(0).to_string().into(),
    ]);
    let mut run_options = crate::run::RunOptions::from_arguments(arguments)?;
    run_options.replay = Some(Arc::clone(&session));
    let ran = crate::run::run(run_options);
    session.end();
    ran?;
    let outcome = session
        .outcome
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let Some(outcome) = outcome else {
        bail!("the replay stopped before the replayer started");
    };
    let ticks: Vec<String> = outcome
        .ticks
        .iter()
        .map(|(name, ticks)| format!("{name} {ticks} ticks"))
        .collect();
    println!(
        "replayed: {}; {} messages published, {:.1} s of the recording",
        ticks.join(", "),
        outcome.published,
        seconds(scan.first_log, outcome.last_log)
    );
    if let Some(path) = &options.record_outputs {
        println!("outputs: {} ({} messages)", path.display(), outcome.outputs);
    }
    match outcome.end {
        End::Complete => {
            println!("the whole file was replayed");
            Ok(ExitCode::SUCCESS)
        }
        End::Stopped => {
            println!("stopped before the end of the file");
            Ok(ExitCode::SUCCESS)
        }
        End::Damaged(damage) => Err(Failure::error(
            EX_DATAERR,
            format!(
                "the replay stopped at the damage: {damage} ({:.1} s into the recording)",
                seconds(scan.first_log, damage.last_log_time)
            ),
        )),
        End::Failed(why) => bail!("the replay failed: {why}"),
    }
}

fn join<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.into_iter().map(String::as_str).collect();
    if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    }
}

fn describe_topics(topics: &BTreeMap<String, u64>) -> String {
    if topics.is_empty() {
        return "no channel".to_owned();
    }
    topics
        .iter()
        .map(|(topic, count)| format!("{topic} ×{count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::{parse_speed, Speed};

    #[test]
    fn speeds_are_factors_in_range_or_max() {
        assert_eq!(parse_speed("1"), Ok(Speed::Factor(1.0)));
        assert_eq!(parse_speed("2.5"), Ok(Speed::Factor(2.5)));
        assert_eq!(parse_speed("max"), Ok(Speed::Max));
        for bad in ["0", "-1", "NaN", "inf", "1e9", "fast", ""] {
            let error = parse_speed(bad).unwrap_err();
            assert!(error.contains("not a speed"), "{bad}: {error}");
        }
    }
}
