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
use debug::recorder::{MetadataRecord, Recorder, RecorderParameters};
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

/// The folder recordings go to: `output`, else `RUN_DIR/recordings`.
fn output_dir(run_dir: &Path, output: Option<&Path>) -> PathBuf {
    output.map_or_else(|| run_dir.join("recordings"), Path::to_owned)
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
    load_parameters(config_root)?;
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
        .arg(output_dir(run_dir, output))
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
/// earlier files of a rotated recording, and the counts, go to stderr).
pub fn stop(run_dir: &Path) -> Result<ExitCode> {
    let Some(pid) = running(run_dir) else {
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
    let summary: serde_json::Value =
        serde_json::from_str(&last).context("the recorder's summary")?;
    if let Some(error) = summary["error"].as_str() {
        eprintln!("the recorder ended with an error: {error}");
    }
    let files: Vec<&str> = summary["files"]
        .as_array()
        .map(|files| files.iter().filter_map(|f| f.as_str()).collect())
        .unwrap_or_default();
    for earlier in files.iter().rev().skip(1).rev() {
        eprintln!("also written: {earlier}");
    }
    eprintln!(
        "messages: {}; missed: {}",
        summary["messages"], summary["missed"]
    );
    match files.last() {
        Some(path) => {
            println!("{path}");
            Ok(ExitCode::SUCCESS)
        }
        None => Err(Failure::error(EX_UNAVAILABLE, "the recorder wrote no file")),
    }
}

/// `cortex record serve` (started by `start`): records until SIGTERM or until the instance is
/// gone.
pub fn serve(run_dir: &Path, config_root: &Path, output: &Path) -> Result<ExitCode> {
    let parameters = load_parameters(config_root)?;
    // The cameras' processes, for their image channels (recorded only with `images_hz`).
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
    let (channels, _health) =
        debug_link::open_channels(run_dir, &[], &processes, Duration::from_secs(10))?;
    let metadata = metadata(run_dir, config_root);
    let recorder = Recorder::start(channels, parameters, output, metadata)?;
    std::fs::write(run_dir.join(PID_FILE), std::process::id().to_string())
        .context("writing the recorder's pid file")?;
    println!("RECORDING {}", recorder.first_file().display());
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(signal, stop.clone()).context("the recorder's signals")?;
    }
    let mut last_check = Instant::now();
    let mut failures = 0;
    while !stop.load(Ordering::Relaxed) && !recorder.is_finished() {
        std::thread::sleep(Duration::from_millis(50));
        if last_check.elapsed() >= Duration::from_secs(1) {
            last_check = Instant::now();
            match control::request(run_dir, &Request::Status) {
                Ok(_) => failures = 0,
                Err(error) => {
                    failures += 1;
                    if failures >= 3 {
                        tracing::info!("the instance is gone ({error:#}): the recording ends");
                        break;
                    }
                }
            }
        }
    }
    let result = recorder.stop();
    let summary = match &result {
        Ok(summary) => serde_json::json!({
            "files": summary.files,
            "messages": summary.messages,
            "missed": summary.missed,
            "deleted": summary.deleted,
        }),
        Err(error) => serde_json::json!({ "error": error.to_string(), "files": [] }),
    };
    std::fs::write(run_dir.join(LAST_FILE), summary.to_string())
        .context("writing the recorder's summary")?;
    let _ = std::fs::remove_file(run_dir.join(PID_FILE));
    result?;
    Ok(ExitCode::SUCCESS)
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
        } => serve(&run_dir, &config_dir, &output),
    }
}
