//! Watches the behaviour folder (recursively, with `notify`) and tells the engine when the files
//! have settled after a change. It never touches Python: the reload happens in the next tick.

use notify::{EventKind, RecursiveMode, Watcher};
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Pending {
    last_change: Option<Instant>,
}

/// A watched folder.
pub(crate) struct FolderWatcher {
    _watcher: notify::RecommendedWatcher,
    pending: Arc<Mutex<Pending>>,
}

impl std::fmt::Debug for FolderWatcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("FolderWatcher")
    }
}

/// Whether a change of `path` can change the behaviour (not bytecode caches or editor swap
/// files).
fn relevant(path: &Path) -> bool {
    if path
        .components()
        .any(|component| component == Component::Normal("__pycache__".as_ref()))
    {
        return false;
    }
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    !(name.ends_with(".pyc")
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with('~')
        || name.starts_with(".#"))
}

impl FolderWatcher {
    /// Watches `folder` and everything below it.
    pub(crate) fn new(folder: &Path) -> notify::Result<FolderWatcher> {
        let pending = Arc::new(Mutex::new(Pending::default()));
        let mut watcher = notify::recommended_watcher({
            let pending = pending.clone();
            move |event: notify::Result<notify::Event>| {
                let changed = match &event {
                    Ok(event) => {
                        !matches!(event.kind, EventKind::Access(_))
                            && event.paths.iter().any(|path| relevant(path))
                    }
                    // Lost events (queue overflow): reload to be sure.
                    Err(_) => true,
                };
                if changed {
                    let mut pending = pending
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    pending.last_change = Some(Instant::now());
                }
            }
        })?;
        watcher.watch(folder, RecursiveMode::Recursive)?;
        Ok(FolderWatcher {
            _watcher: watcher,
            pending,
        })
    }

    /// `true` once per burst of changes, when nothing has changed for `settle`.
    pub(crate) fn take_settled_change(&self, settle: Duration) -> bool {
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match pending.last_change {
            Some(changed) if changed.elapsed() >= settle => {
                pending.last_change = None;
                true
            }
            _ => false,
        }
    }
}
