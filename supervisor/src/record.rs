//! `cortex record start|stop`: recording a running instance's representations to MCAP files.
//!
//! The recorder is a process of its own (`cortex record serve`, started in the background by
//! `start`, in its own process group): it opens the channels exactly as the debug link does
//! (`debug_link::open_channels`, over the control socket's `segments`) and runs
//! [`debug::recorder::Recorder`] on a thread. Being its own process, it costs the debug process
//! nothing, a crash of either leaves the other alone, and it records whether or not the table
//! runs a debug process. `stop` sends it SIGTERM, waits for it to finish the file and prints the
//! file's path. It stops by itself when the instance is gone.
//!
//! ```text
//! cortex record start ─spawn─▶ cortex record serve ─segments─▶ control socket
//!        ◀── "RECORDING <file>" ──┘   └─ Recorder thread: seqlock readers ─▶ recordings/*.mcap
//! cortex record stop ─SIGTERM─▶ (pid in RUN_DIR/recorder.pid) ─▶ RUN_DIR/recorder.last ─▶ path
//! ```

use crate::control::{self, Request};
use crate::debug_link;
use crate::exit_code::{Failure, EX_CONFIG, EX_UNAVAILABLE};
use anyhow::{Context, Result};
use debug::recorder::{MetadataRecord, RecordSummary, Recorder, RecorderParameters};

mod auto;
pub use auto::Auto;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The recorder's pid, while it runs.
const PID_FILE: &str = "recorder.pid";
/// What the last recording wrote (JSON), left by the recorder when it ends.
const LAST_FILE: &str = "recorder.last";
/// `recorder.last` once `cortex record stop` has told it.
const REPORTED_FILE: &str = "recorder.reported";
/// The recorder's log.
const LOG_FILE: &str = "recorder.log";
/// How long `start` waits for the recorder to open its file.
const START_WAIT: Duration = Duration::from_secs(30);
/// How long `stop` waits for the recorder to finish its file.
const STOP_WAIT: Duration = Duration::from_secs(30);

/// The recorder's configuration from `Recorder.toml` of `config_root` (defaults for what it
/// leaves out), checked: errors name file:line:key (exit 78).
pub fn load_parameters(config_root: &Path) -> Result<RecorderParameters> {
    let config = config::Config::load(config_root, None, &[])
        .map_err(|error| Failure::error(EX_CONFIG, error.to_string()))?;
    config
        .validated_parameters_or_default::<RecorderParameters>("Recorder")
        .map_err(|error| Failure::error(EX_CONFIG, error.to_string()))
}

/// The folder recordings go to: `output`, else Recorder.toml's `folder` (relative to the folder
/// holding the configuration root), else `RUN_DIR/recordings`.
pub fn output_dir(
    run_dir: &Path,
    config_root: &Path,
    parameters: &RecorderParameters,
    output: Option<&Path>,
) -> PathBuf {
    if let Some(output) = output {
        return output.to_owned();
    }
    if parameters.folder.is_empty() {
        return run_dir.join("recordings");
    }
    let folder = Path::new(&parameters.folder);
    if folder.is_absolute() {
        return folder.to_owned();
    }
    let absolute_root = std::path::absolute(config_root).unwrap_or_else(|_| config_root.to_owned());
    absolute_root
        .parent()
        .unwrap_or(Path::new("/"))
        .join(folder)
}

/// The recorder's pid if one runs for this instance.
fn running(run_dir: &Path) -> Option<i32> {
    let pid: i32 = std::fs::read_to_string(run_dir.join(PID_FILE))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let command_line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let is_recorder = command_line
        .split(|byte| *byte == 0)
        .any(|argument| argument == b"record")
        && command_line.split(|byte| *byte == 0).any(|a| a == b"serve");
    is_recorder.then_some(pid)
}

/// `cortex record start`: checks the configuration, starts the recorder in the background and
/// prints the file it writes.
pub fn start(run_dir: &Path, config_root: &Path, output: Option<&Path>) -> Result<ExitCode> {
    let parameters = load_parameters(config_root)?;
    if let Some(pid) = running(run_dir) {
        return Err(Failure::error(
            EX_UNAVAILABLE,
            format!(
                "a recorder already runs for this instance (pid {pid}); `cortex record stop` first"
            ),
        ));
    }
    // The instance must be running: its status answers.
    control::request(run_dir, &Request::Status).context("is the instance running?")?;
    let log = std::fs::File::create(run_dir.join(LOG_FILE))
        .with_context(|| format!("{}", run_dir.join(LOG_FILE).display()))?;
    let mut command = Command::new(std::env::current_exe().context("the cortex binary")?);
    command
        .arg("record")
        .arg("serve")
        .arg("--run-dir")
        .arg(run_dir)
        .arg("--config-dir")
        .arg(config_root)
        .arg("--output")
        .arg(output_dir(run_dir, config_root, &parameters, output))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log);
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().context("starting the recorder")?;
    let stdout = child.stdout.take().context("the recorder's output")?;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    match receiver.recv_timeout(START_WAIT) {
        Ok(line) if line.starts_with("RECORDING ") => {
            println!("{}", line.trim_start_matches("RECORDING ").trim());
            Ok(ExitCode::SUCCESS)
        }
        other => {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(run_dir.join(LOG_FILE)).unwrap_or_default();
            let reason = match other {
                Ok(line) if !line.is_empty() => line.trim().to_owned(),
                _ => log.lines().last().unwrap_or("no reason given").to_owned(),
            };
            Err(Failure::error(
                EX_UNAVAILABLE,
                format!("the recorder did not start: {reason}"),
            ))
        }
    }
}

/// `cortex record stop`: ends the recorder and prints the path of the finished file (the
/// earlier files of a rotated recording, and the counts, go to stderr). A recording that ended
/// early (a full disk, a folder that went away, channels that could not be read, the instance
/// gone) is told, with exit status 74 (69 for the instance), its files still printed.
pub fn stop(run_dir: &Path) -> Result<ExitCode> {
    let Some(pid) = running(run_dir) else {
        // A recorder that ended by itself left its summary: told once, here.
        let reported = run_dir.join(REPORTED_FILE);
        if std::fs::rename(run_dir.join(LAST_FILE), &reported).is_ok() {
            let last = std::fs::read_to_string(&reported).unwrap_or_default();
            eprintln!("the recorder had already ended by itself");
            return report(run_dir, &last);
        }
        return Err(Failure::error(
            EX_UNAVAILABLE,
            format!("no recorder runs for the instance at {}", run_dir.display()),
        ));
    };
    let _ = std::fs::remove_file(run_dir.join(LAST_FILE));
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        rustix::process::kill_process(pid, rustix::process::Signal::TERM)
            .with_context(|| format!("signalling the recorder (pid {pid:?})"))?;
    }
    let deadline = Instant::now() + STOP_WAIT;
    while Path::new(&format!("/proc/{pid}")).exists() && running(run_dir).is_some() {
        if Instant::now() > deadline {
            return Err(Failure::error(
                EX_UNAVAILABLE,
                format!("the recorder (pid {pid}) did not finish within {STOP_WAIT:?}"),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let last = std::fs::read_to_string(run_dir.join(LAST_FILE)).with_context(|| {
        format!(
            "the recorder left no summary; see {}",
            run_dir.join(LOG_FILE).display()
        )
    })?;
    let _ = std::fs::rename(run_dir.join(LAST_FILE), run_dir.join(REPORTED_FILE));
    report(run_dir, &last)
}

/// Prints a recording's summary (`recorder.last`): the files, the counts, and what went wrong.
fn report(run_dir: &Path, last: &str) -> Result<ExitCode> {
    let summary: serde_json::Value = serde_json::from_str(last).with_context(|| {
        format!(
            "the recorder's summary {}",
            run_dir.join(REPORTED_FILE).display()
        )
    })?;
    let files: Vec<&str> = summary["files"]
        .as_array()
        .map(|files| files.iter().filter_map(|f| f.as_str()).collect())
        .unwrap_or_default();
    for earlier in files.iter().rev().skip(1).rev() {
        eprintln!("also written: {earlier}");
    }
    if summary["auto"].is_string() {
        eprintln!(
            "(recording automatically: Recorder.toml auto = {})",
            summary["auto"]
        );
    }
    eprintln!(
        "messages: {}; missed: {}",
        summary["messages"], summary["missed"]
    );
    let missed: u64 = summary["missed"]
        .as_object()
        .map_or(0, |missed| missed.values().filter_map(|v| v.as_u64()).sum());
    let written: u64 = summary["messages"]
        .as_object()
        .map_or(0, |counts| counts.values().filter_map(|v| v.as_u64()).sum());
    eprintln!(
        "missed {missed} of {} published values ({:.3} %)",
        written + missed,
        100.0 * missed as f64 / (written + missed).max(1) as f64
    );
    if let Some(path) = files.last() {
        println!("{path}");
    }
    let mut failures = Vec::new();
    if let Some(problems) = summary["problems"].as_object() {
        for (channel, problem) in problems {
            failures.push(format!(
                "channel {channel} could not be read {} times (last: {})",
                problem[0],
                problem[1].as_str().unwrap_or("?")
            ));
        }
    }
    if let Some(error) = summary["error"].as_str() {
        failures.insert(0, format!("the recording ended early: {error}"));
    }
    if let Some(reason) = summary["ended"].as_str() {
        if failures.is_empty() {
            return Err(Failure::error(
                EX_UNAVAILABLE,
                format!("the recording ended by itself: {reason}"),
            ));
        }
    }
    if !failures.is_empty() {
        return Err(Failure::error(config::EX_IOERR, failures.join("; ")));
    }
    if files.is_empty() {
        return Err(Failure::error(EX_UNAVAILABLE, "the recorder wrote no file"));
    }
    Ok(ExitCode::SUCCESS)
}

/// `cortex record serve` (started by `start`, or with `auto` by `cortex run`): records until
/// SIGTERM or until the instance is gone; with `auto`, only while the game is in the states of
/// Recorder.toml's `auto`, one file per half.
pub fn serve(run_dir: &Path, config_root: &Path, output: &Path, auto: bool) -> Result<ExitCode> {
    let parameters = load_parameters(config_root)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(signal, stop.clone()).context("the recorder's signals")?;
    }
    if auto {
        std::fs::write(run_dir.join(PID_FILE), std::process::id().to_string())
            .context("writing the recorder's pid file")?;
        let result = auto::serve(run_dir, config_root, output, &parameters, &stop);
        let _ = std::fs::remove_file(run_dir.join(PID_FILE));
        return result;
    }
    let (channels, _health) = open_channels(run_dir, &parameters, Duration::from_secs(10))?;
    let metadata = metadata(run_dir, config_root);
    let recorder = Recorder::start(channels, parameters, output, metadata)?;
    std::fs::write(run_dir.join(PID_FILE), std::process::id().to_string())
        .context("writing the recorder's pid file")?;
    println!("RECORDING {}", recorder.first_file().display());
    let ended = wait_while_recording(
        &mut InstanceWatch::new(run_dir),
        &stop,
        || recorder.is_finished(),
        || false,
    );
    let (summary, error) = recorder.stop();
    write_summary(run_dir, &summary, error.as_ref(), ended.as_deref(), None)?;
    let _ = std::fs::remove_file(run_dir.join(PID_FILE));
    match error {
        Some(error) => Err(error.into()),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The channels to record (with the cameras' processes when images are recorded).
fn open_channels(
    run_dir: &Path,
    parameters: &RecorderParameters,
    wait: Duration,
) -> Result<(Vec<debug::ChannelSource>, Option<ipc::HealthBoard>)> {
    let processes: Vec<String> = if parameters.images_hz > 0.0 {
        control::request(run_dir, &Request::Status)?["processes"]
            .as_array()
            .map(|processes| {
                processes
                    .iter()
                    .filter_map(|p| p["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    debug_link::open_channels(run_dir, &[], &processes, wait)
}

/// Notices that the instance is gone: its control socket did not answer three times, a
/// second apart.
struct InstanceWatch<'a> {
    run_dir: &'a Path,
    last_check: Instant,
    failures: u32,
}

impl<'a> InstanceWatch<'a> {
    fn new(run_dir: &'a Path) -> Self {
        InstanceWatch {
            run_dir,
            last_check: Instant::now(),
            failures: 0,
        }
    }

    /// Why the instance counts as gone, once it does.
    fn gone(&mut self) -> Option<String> {
        if self.last_check.elapsed() < Duration::from_secs(1) {
            return None;
        }
        self.last_check = Instant::now();
        match control::request(self.run_dir, &Request::Status) {
            Ok(_) => self.failures = 0,
            Err(error) => {
                self.failures += 1;
                if self.failures >= 3 {
                    tracing::info!("the instance is gone ({error:#}): the recording ends");
                    return Some(format!("the instance is gone ({error:#})"));
                }
            }
        }
        None
    }
}

/// Waits until a stop signal, `finished()` (the recorder ended by itself), `leave()` or the
/// instance being gone; returns why it ended when the instance is gone.
fn wait_while_recording(
    watch: &mut InstanceWatch<'_>,
    stop: &AtomicBool,
    finished: impl Fn() -> bool,
    mut leave: impl FnMut() -> bool,
) -> Option<String> {
    while !stop.load(Ordering::Relaxed) && !finished() {
        std::thread::sleep(Duration::from_millis(50));
        if leave() {
            return None;
        }
        if let Some(reason) = watch.gone() {
            return Some(reason);
        }
    }
    None
}

/// Leaves what a recording wrote in `RUN_DIR/recorder.last` for `cortex record stop`.
fn write_summary(
    run_dir: &Path,
    summary: &RecordSummary,
    error: Option<&debug::recorder::RecordError>,
    ended: Option<&str>,
    auto: Option<&str>,
) -> Result<()> {
    let mut json = serde_json::json!({
        "files": summary.files,
        "messages": summary.messages,
        "missed": summary.missed,
        "deleted": summary.deleted,
        "problems": summary.problems,
    });
    if let Some(error) = error {
        json["error"] = error.to_string().into();
        tracing::error!("the recording ended early: {error}");
    }
    if let Some(reason) = ended {
        json["ended"] = reason.into();
    }
    if let Some(mode) = auto {
        json["auto"] = mode.into();
    }
    std::fs::write(run_dir.join(LAST_FILE), json.to_string())
        .context("writing the recorder's summary")
}

/// The metadata records of every file: the code's version, the configuration's files and each
/// module's live parameters (as `cortex params MODULE --json` has them).
fn metadata(run_dir: &Path, config_root: &Path) -> Vec<MetadataRecord> {
    let mut version =
        BTreeMap::from([("version".to_owned(), env!("CARGO_PKG_VERSION").to_owned())]);
    if let Some(commit) = option_env!("CORTEX_GIT_COMMIT") {
        version.insert("commit".into(), commit.into());
    }
    let mut files = BTreeMap::new();
    let mut modules = Vec::new();
    if let Ok(config) = config::Config::load(config_root, None, &[]) {
        for folder in config.search_path() {
            let Ok(entries) = std::fs::read_dir(folder) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let path = entry.path();
                if path.extension().is_none_or(|e| e != "toml") {
                    continue;
                }
                if let Ok(text) = config::read_text(&path) {
                    let name = path
                        .strip_prefix(config_root)
                        .unwrap_or(&path)
                        .display()
                        .to_string();
                    if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                        modules.push(stem.to_owned());
                    }
                    files.insert(name, text);
                }
            }
        }
    }
    modules.sort();
    modules.dedup();
    let mut parameters = BTreeMap::new();
    for module in modules {
        if let Ok(reply) = control::request(
            run_dir,
            &Request::Params {
                module: module.clone(),
            },
        ) {
            parameters.insert(module, reply.to_string());
        }
    }
    vec![
        ("cortex".to_owned(), version),
        ("configuration".to_owned(), files),
        ("parameters".to_owned(), parameters),
    ]
}

/// `cortex record` actions.
#[derive(clap::Subcommand, Debug)]
pub enum RecordAction {
    /// Start recording (the channels of `Recorder.toml`) in the background; prints the file.
    Start {
        #[command(flatten)]
        instance: crate::Instance,
        #[command(flatten)]
        config: crate::ConfigOptions,
        /// The folder for the files (default: RUN_DIR/recordings).
        #[arg(long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// Stop recording; prints the path of the finished file.
    Stop {
        #[command(flatten)]
        instance: crate::Instance,
    },
    /// The recorder itself (started by `start`).
    #[command(hide = true)]
    Serve {
        #[arg(long, value_name = "DIR")]
        run_dir: PathBuf,
        #[arg(long, value_name = "DIR")]
        config_dir: PathBuf,
        #[arg(long, value_name = "DIR")]
        output: PathBuf,
        /// Record during games only (Recorder.toml `auto`; `cortex run` starts it so).
        #[arg(long)]
        auto: bool,
    },
}

/// Runs a `cortex record` action; the instance options may come before the action
/// (`cortex record --run-dir DIR stop`) or after it.
pub fn run(action: RecordAction, outer: &crate::Instance) -> Result<ExitCode> {
    let dir = |inner: &crate::Instance| {
        if inner.run_dir.is_some() || inner.instance.is_some() {
            inner.dir()
        } else {
            outer.dir()
        }
    };
    match action {
        RecordAction::Start {
            instance,
            config,
            output,
        } => start(&dir(&instance), &config.root(), output.as_deref()),
        RecordAction::Stop { instance } => stop(&dir(&instance)),
        RecordAction::Serve {
            run_dir,
            config_dir,
            output,
            auto,
        } => serve(&run_dir, &config_dir, &output, auto),
    }
}
