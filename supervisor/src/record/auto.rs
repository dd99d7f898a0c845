//! Recording during games (Recorder.toml `auto`): `cortex run` starts `cortex record serve
//! --auto` ([`Auto`]), which watches the `GameState` channel (the GameController's state as
//! cognition publishes it) and runs a [`Recorder`] while the game is in the chosen states.
//!
//! ```text
//! auto = "playing":  Initial ─ Ready ─ Set ─ Playing ══ Ready ══ Set ══ Playing ══ Finished
//!                                            ▲ file begins (kick-off)   goal: same file     ▲ file finished
//! auto = "ready":    Initial ─ Ready ══ Set ══ Playing ══ … ══ Finished
//! ```
//!
//! Each file finished is logged (`RUN_DIR/recorder.log`) and its summary left in
//! `RUN_DIR/recorder.last`, as for `cortex record stop`. `cortex record stop` ends the automatic
//! recorder too (for the rest of the run).

use super::{
    metadata, open_channels, wait_while_recording, write_summary, InstanceWatch, LOG_FILE,
};
use anyhow::{Context, Result};
use debug::recorder::{AutoRecord, Recorder, RecorderParameters};
use debug::{ChannelKind, ChannelSource};
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use types::game::{GameState, PlayState};

/// How long the supervisor waits for the automatic recorder to finish its file at shutdown.
const FINISH_WAIT: Duration = Duration::from_secs(15);

/// The automatic recorder of a `cortex run`, stopped (its file finished) when dropped.
#[derive(Debug)]
pub struct Auto {
    child: Child,
}

impl Auto {
    /// Starts `cortex record serve --auto` if Recorder.toml asks for it; a configuration that
    /// cannot be read is a warning (the robot plays without recording).
    pub fn start(run_dir: &Path, config_root: &Path) -> Option<Auto> {
        let parameters = match super::load_parameters(config_root) {
            Ok(parameters) => parameters,
            Err(error) => {
                tracing::warn!("no automatic recording: {error:#}");
                return None;
            }
        };
        if parameters.auto == AutoRecord::Off {
            return None;
        }
        let folder = super::output_dir(run_dir, config_root, &parameters, None);
        let spawned = (|| -> Result<Child> {
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(run_dir.join(LOG_FILE))
                .with_context(|| format!("{}", run_dir.join(LOG_FILE).display()))?;
            let mut command = Command::new(std::env::current_exe().context("the cortex binary")?);
            command
                .args(["record", "serve", "--auto", "--run-dir"])
                .arg(run_dir)
                .arg("--config-dir")
                .arg(config_root)
                .arg("--output")
                .arg(&folder)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log);
            // Its own group: a Ctrl-C in the terminal reaches the supervisor, which stops it
            // after the last file is finished.
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
            command.spawn().context("starting the automatic recorder")
        })();
        match spawned {
            Ok(child) => {
                tracing::info!(
                    "recording during games (Recorder.toml auto = \"{}\") into {}",
                    parameters.auto.name(),
                    folder.display()
                );
                Some(Auto { child })
            }
            Err(error) => {
                tracing::warn!("no automatic recording: {error:#}");
                None
            }
        }
    }
}

impl Drop for Auto {
    fn drop(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let deadline = Instant::now() + FINISH_WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        tracing::warn!("the automatic recorder did not finish within {FINISH_WAIT:?}: killed");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether the recorder should be recording in `state`, given whether it is.
pub fn wants_recording(mode: AutoRecord, state: PlayState, recording: bool) -> bool {
    let between_halves = matches!(state, PlayState::Initial | PlayState::Finished);
    match mode {
        AutoRecord::Off => false,
        _ if recording => !between_halves,
        AutoRecord::Playing => state == PlayState::Playing,
        AutoRecord::Ready => matches!(
            state,
            PlayState::Ready | PlayState::Set | PlayState::Playing
        ),
    }
}

/// The newest `GameState`, or `None` before the first or when it cannot be read.
struct GameStateReader {
    channel: ChannelSource,
    bytes: Vec<u8>,
    warned: bool,
}

impl GameStateReader {
    fn state(&mut self) -> Option<PlayState> {
        let ChannelKind::Encoded(buffer) = &self.channel.kind else {
            return None;
        };
        let mut reader = buffer.buffer().reader();
        match reader.read_latest(&mut self.bytes) {
            Ok(Some(_)) => match rmp_serde::from_slice::<GameState>(&self.bytes) {
                Ok(game_state) => Some(game_state.state),
                Err(error) => {
                    if !self.warned {
                        self.warned = true;
                        tracing::warn!("the GameState channel does not decode: {error}");
                    }
                    None
                }
            },
            Ok(None) => None,
            Err(error) => {
                if !self.warned {
                    self.warned = true;
                    tracing::warn!("reading the GameState channel: {error}");
                }
                None
            }
        }
    }
}

/// The automatic recorder's loop: one recording per stretch of the game in the chosen states.
pub fn serve(
    run_dir: &Path,
    config_root: &Path,
    output: &Path,
    parameters: &RecorderParameters,
    stop: &AtomicBool,
) -> Result<ExitCode> {
    let mode = parameters.auto;
    // The instance may still be starting (slowly, on a loaded machine): its channels are asked
    // for until it answers them, as long as it answers at all.
    let mut watch = InstanceWatch::new(run_dir);
    let (channels, _health) = loop {
        match open_channels(run_dir, parameters, Duration::from_secs(10)) {
            Ok(opened) => break opened,
            Err(error) => {
                tracing::debug!("automatic recorder: waiting for the channels: {error:#}");
                if stop.load(Ordering::Relaxed) || watch.gone().is_some() {
                    return Ok(ExitCode::SUCCESS);
                }
            }
        }
    };
    let Some(channel) = channels.into_iter().find(|c| c.name == "GameState") else {
        anyhow::bail!("the instance has no GameState channel: nothing to record games by");
    };
    let mut game = GameStateReader {
        channel,
        bytes: Vec::new(),
        warned: false,
    };
    tracing::info!(
        "automatic recorder: waiting for the game (auto = \"{}\")",
        mode.name()
    );
    // After a failed recording, no new one until the game has left the states (no loop of
    // failures within one half).
    let mut failed = false;
    while !stop.load(Ordering::Relaxed) {
        let state = game.state();
        let wanted = state.is_some_and(|state| wants_recording(mode, state, false));
        if !wanted || failed {
            if state.is_some_and(|state| !wants_recording(mode, state, true)) {
                failed = false;
            }
            if watch.gone().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let (channels, _health) = open_channels(run_dir, parameters, Duration::from_secs(10))?;
        let recorder = match Recorder::start(
            channels,
            parameters.clone(),
            output,
            metadata(run_dir, config_root),
        ) {
            Ok(recorder) => recorder,
            Err(error) => {
                tracing::error!("automatic recorder: cannot start a recording: {error}");
                failed = true;
                continue;
            }
        };
        tracing::info!(
            "the game is {:?}: recording into {}",
            state.unwrap_or_default(),
            recorder.first_file().display()
        );
        let ended = wait_while_recording(
            &mut watch,
            stop,
            || recorder.is_finished(),
            || {
                game.state()
                    .is_some_and(|state| !wants_recording(mode, state, true))
            },
        );
        let (summary, error) = recorder.stop();
        failed = error.is_some();
        let finished = summary.files.last().map(|f| f.display().to_string());
        tracing::info!(
            "recording finished ({}): {}",
            game.state()
                .map_or_else(|| "stopped".to_owned(), |s| format!("{s:?}")),
            finished.as_deref().unwrap_or("no file")
        );
        write_summary(
            run_dir,
            &summary,
            error.as_ref(),
            ended.as_deref(),
            Some(mode.name()),
        )?;
        if ended.is_some() {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_is_one_file_and_the_modes_begin_at_their_state() {
        use PlayState::*;
        // (state, recording?) along a half with a goal, for "playing".
        let mut recording = false;
        let mut begun = Vec::new();
        for state in [
            Initial, Standby, Ready, Set, Playing, Ready, Set, Playing, Finished, Initial,
        ] {
            let wanted = wants_recording(AutoRecord::Playing, state, recording);
            if wanted != recording {
                begun.push((state, wanted));
            }
            recording = wanted;
        }
        assert_eq!(begun, vec![(Playing, true), (Finished, false)]);
        assert!(wants_recording(AutoRecord::Ready, Ready, false));
        assert!(!wants_recording(AutoRecord::Ready, Standby, false));
        assert!(!wants_recording(AutoRecord::Playing, Set, false));
        assert!(!wants_recording(AutoRecord::Off, Playing, false));
        assert!(!wants_recording(AutoRecord::Ready, Initial, true));
    }
}
