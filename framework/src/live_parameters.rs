//! Parameters changed while a process runs (`cortex set`, `cortex reload`'s overrides): the
//! supervisor keeps the current overrides (the `--set` list plus every accepted `cortex set`) and
//! writes them, with a generation number, into a small triple buffer per process that it alone
//! writes. The runtime looks at it at the start of a tick (one atomic load when nothing
//! changed); on a new generation it re-resolves the parameters of the modules whose overrides
//! changed and hands them over ([`crate::wiring::Wiring::set_parameters`],
//! [`crate::Module::set_parameters`]).
//!
//! ```text
//! cortex set M.k=v ──► supervisor: checked like a file ──► ParameterUpdate { generation, overrides }
//!                                                             │ (one triple buffer per process)
//! runtime, start of a tick: new generation? ──► modules whose overrides changed: load, set
//! ```
//!
//! A module whose parameters fail to load in the child keeps its old ones (the error is logged),
//! and its overrides stay the old ones too, so that a module set built again after a panic gets
//! what ran before.

use crate::wiring::Wiring;
use config::{Config, Override, OverrideTarget};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The most bytes the encoded overrides may take (the channel's slot size).
pub const CHANNEL_BYTES: usize = 64 * 1024;

/// The schema of the channel (checked when a child opens it).
pub fn schema_hash() -> u64 {
    ipc::channel::schema_hash("ParameterUpdate/1")
}

/// What the supervisor writes into a process's parameter channel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParameterUpdate {
    /// Counts the updates of this run; a process acts when it changes.
    pub generation: u64,
    /// Every override in force, in the order they apply (`Module.key=value`,
    /// `settings.key=value`).
    pub overrides: Vec<String>,
}

/// Why an update could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum LiveParameterError {
    /// The channel's bytes are not an update.
    #[error("the parameter channel holds no update: {0}")]
    Decode(#[from] rmp_serde::decode::Error),
    /// An override is not `key.path=value`.
    #[error("parameter update {generation}: {source}")]
    Override {
        /// The update's generation.
        generation: u64,
        /// What is wrong with it.
        source: Box<config::ConfigError>,
    },
    /// Shared memory refused.
    #[error("the parameter channel: {0}")]
    Ipc(#[from] ipc::Error),
}

/// The modules whose overrides differ between `old` and `new` (the texts that target each
/// module, in order). Settings overrides are not a module's: a process reads the settings when
/// it starts.
pub fn affected_modules(old: &[Override], new: &[Override]) -> BTreeSet<String> {
    let targeting = |list: &[Override], module: &str| -> Vec<String> {
        list.iter()
            .filter(|item| item.target() == OverrideTarget::Module(module))
            .map(|item| item.text().to_owned())
            .collect()
    };
    let mut modules = BTreeSet::new();
    for item in old.iter().chain(new) {
        if let OverrideTarget::Module(module) = item.target() {
            if !modules.contains(module) && targeting(old, module) != targeting(new, module) {
                modules.insert(module.to_owned());
            }
        }
    }
    modules
}

/// A module that panicked while it took its new parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetPanic {
    /// The module.
    pub module: String,
    /// The panic's message.
    pub message: String,
}

/// A process's side of its parameter channel.
#[derive(Debug)]
pub struct LiveParameters<'c> {
    reader: ipc::Reader<'c>,
    seen: u64,
    generation: u64,
    scratch: Vec<u8>,
}

impl<'c> LiveParameters<'c> {
    /// Reads `buffer` (the channel the supervisor created for this process). Its first update is
    /// compared with the overrides the process started with, so that one written between the
    /// spawn and the first tick is not lost.
    pub fn new(buffer: &'c ipc::TripleBuffer) -> LiveParameters<'c> {
        LiveParameters {
            reader: buffer.reader(),
            seen: 0,
            generation: 0,
            scratch: Vec::new(),
        }
    }

    /// The newest update, if one was published since the last call.
    pub fn poll(&mut self) -> Result<Option<ParameterUpdate>, LiveParameterError> {
        if self.reader.published() == self.seen {
            return Ok(None);
        }
        let Some(count) = self.reader.read_latest(&mut self.scratch)? else {
            return Ok(None);
        };
        self.seen = count;
        let update: ParameterUpdate = ipc::channel::decode(&self.scratch)?;
        if update.generation == self.generation {
            return Ok(None);
        }
        self.generation = update.generation;
        Ok(Some(update))
    }

    /// Applies the newest update, if any, to the modules of `wiring` (named `names`, in wiring
    /// order) and to `config` (kept for building modules again after a panic). Errors loading a
    /// module's parameters are logged and that module keeps its old ones; a panic while a module
    /// is built comes back so that the caller rebuilds the module set.
    pub fn apply(
        &mut self,
        process: &str,
        config: &mut Config,
        wiring: &mut Wiring,
    ) -> Result<Option<SetPanic>, LiveParameterError> {
        let Some(update) = self.poll()? else {
            return Ok(None);
        };
        let generation = update.generation;
        let new: Vec<Override> = update
            .overrides
            .iter()
            .map(|text| Override::parse(text))
            .collect::<Result<_, _>>()
            .map_err(|source| LiveParameterError::Override {
                generation,
                source: Box::new(source),
            })?;
        let affected = affected_modules(config.overrides(), &new);
        if affected.is_empty() {
            return Ok(None);
        }
        let candidate = config.with_overrides(&new);
        let mut failed: BTreeSet<String> = BTreeSet::new();
        let mut panicked = None;
        for index in 0..wiring.module_count() {
            let name = wiring.module_name(index);
            if !affected.contains(name) {
                continue;
            }
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                wiring.set_parameters(index, &candidate)
            }));
            match outcome {
                Ok(Ok(())) => {
                    tracing::info!(process = %process, module = %name, "new parameters (update {generation})");
                }
                Ok(Err(error)) => {
                    tracing::error!(
                        process = %process,
                        module = %name,
                        "parameter update {generation} refused: {error}; keeping the old parameters"
                    );
                    failed.insert(name.to_owned());
                }
                Err(payload) => {
                    panicked = Some(SetPanic {
                        module: name.to_owned(),
                        message: crate::runtime::panic_message(payload.as_ref()),
                    });
                    break;
                }
            }
        }
        // What the modules now run with: the new overrides, but the old ones of a module that
        // refused its new parameters.
        let kept: Vec<Override> = new
            .into_iter()
            .filter(|item| match item.target() {
                OverrideTarget::Module(module) => !failed.contains(module),
                OverrideTarget::Settings => true,
            })
            .chain(config.overrides().iter().filter(|item| {
                matches!(item.target(), OverrideTarget::Module(module) if failed.contains(module))
            }).cloned())
            .collect();
        *config = config.with_overrides(&kept);
        Ok(panicked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overrides(texts: &[&str]) -> Vec<Override> {
        texts.iter().map(|t| Override::parse(t).unwrap()).collect()
    }

    #[test]
    fn only_modules_whose_overrides_changed_are_affected() {
        let old = overrides(&["settings.player_number=3", "A.x=1", "B.y=2"]);
        let new = overrides(&["settings.player_number=3", "A.x=1", "B.y=3", "C.z=true"]);
        let affected: Vec<String> = affected_modules(&old, &new).into_iter().collect();
        assert_eq!(affected, ["B", "C"]);
        assert!(affected_modules(&new, &new).is_empty());
        // Taking an override back affects its module too.
        let affected: Vec<String> = affected_modules(&new, &old).into_iter().collect();
        assert_eq!(affected, ["B", "C"]);
    }

    #[test]
    fn updates_round_trip_through_the_channel_encoding() {
        let update = ParameterUpdate {
            generation: 7,
            overrides: vec!["A.x=1".to_owned()],
        };
        let mut bytes = Vec::new();
        ipc::channel::encode(&update, &mut bytes).unwrap();
        let back: ParameterUpdate = ipc::channel::decode(&bytes).unwrap();
        assert_eq!(back, update);
        assert!(ipc::channel::decode::<ParameterUpdate>(b"\xc1").is_err());
    }
}
