//! The supervisor's part in `cortex replay` (`crate::replay`): only the replayed processes and
//! the `debug` process are started (the others are shown as not replayed, never restarted), no
//! warm standbys, no freeze watchdog on the replayed processes (they tick only when the replayer
//! steps them; the replayer times their ticks out itself), the replayer thread started once every
//! child is, the run ended when the replay is over.

use super::child::State;
use super::{RunOptions, Supervisor};
use anyhow::{Context, Result};
use config::ProcessKind;

/// `cortex run`'s options parsed from an argument list (the replay builds its instance's).
#[derive(clap::Parser, Debug)]
struct Arguments {
    #[command(flatten)]
    run: RunOptions,
}

impl RunOptions {
    /// `cortex run`'s options from `arguments` (the first is the program's name).
    pub(crate) fn from_arguments(arguments: Vec<std::ffi::OsString>) -> Result<RunOptions> {
        use clap::Parser;
        Ok(Arguments::try_parse_from(arguments)
            .context("the replay's instance options")?
            .run)
    }
}

impl Supervisor {
    /// Before the children start: which run in a replay, and how they are watched.
    pub(super) fn prepare_replay(&mut self) {
        let Some(replay) = self.options.replay.clone() else {
            return;
        };
        for child in &mut self.children {
            child.standby_enabled = false;
            if replay.runs(&child.name) {
                child.watchdog = crate::replay::REPLAY_WATCHDOG;
            } else if child.kind != ProcessKind::Debug {
                child.state = State::Failed("not replayed".to_owned());
            }
        }
    }

    /// Every child started: the replayer begins.
    pub(super) fn begin_replay(&mut self) -> Result<()> {
        match self.options.replay.clone() {
            Some(replay) => replay.begin(&self.channels),
            None => Ok(()),
        }
    }

    /// The replay is over (and the system is not kept up after it).
    pub(super) fn replay_over(&self) -> bool {
        let over = self.options.replay.as_ref().is_some_and(|r| r.over());
        if over {
            tracing::info!("the replay is over: stopping");
        }
        over
    }

    /// Before the children stop: the replayer ends (it would wait for their ticks).
    pub(super) fn end_replay(&mut self) {
        if let Some(replay) = &self.options.replay {
            replay.end();
        }
    }
}
