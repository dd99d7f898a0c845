//! Watches the behaviour folder (recursively, with `notify`) and tells the engine when the files
//! have settled after a change. It never touches Python: the reload happens in the next tick.
//!
//! inotify watches an inode, not a path: a folder deleted and made again (`rm -r`, a sync tool
//! that swaps folders) would end hot reload for good. The watcher therefore compares the
//! folder's identity with the watched one every 100 ms and watches it again when it changed.

use notify::event::ModifyKind;
use notify::{EventKind, RecursiveMode, Watcher};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Pending {
    last_change: Option<Instant>,
}

/// A watched folder. The watch follows the folder's identity (device and inode): a folder
/// deleted and made again, or replaced by a rename, is watched again within
/// [`IDENTITY_CHECK_INTERVAL`], and that counts as a change.
pub(crate) struct FolderWatcher {
    folder: PathBuf,
    watcher: Option<notify::RecommendedWatcher>,
    /// `(device, inode)` of the folder the watcher watches; `None`: no folder there.
    identity: Option<(u64, u64)>,
    last_check: Instant,
    pending: Arc<Mutex<Pending>>,
    /// The watched folder itself was removed or renamed away (its watch is dead, even if a new
    /// folder with the same inode number appears).
    lost: Arc<AtomicBool>,
}

impl std::fmt::Debug for FolderWatcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("FolderWatcher")
            .field("folder", &self.folder)
            .field("watching", &self.watcher.is_some())
            .finish()
    }
}

/// How often the folder's identity is compared with the watched one.
pub(crate) const IDENTITY_CHECK_INTERVAL: Duration = Duration::from_millis(100);

fn identity(folder: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(folder)
        .ok()
        .filter(|metadata| metadata.is_dir())
        .map(|metadata| (metadata.dev(), metadata.ino()))
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
    /// Watches `folder` and everything below it; a folder that does not exist (yet) is watched
    /// once it appears.
    pub(crate) fn new(folder: &Path) -> FolderWatcher {
        let mut watcher = FolderWatcher {
            folder: folder.to_path_buf(),
            watcher: None,
            identity: None,
            last_check: Instant::now(),
            pending: Arc::new(Mutex::new(Pending::default())),
            lost: Arc::new(AtomicBool::new(false)),
        };
        watcher.arm();
        watcher
    }

    /// (Re)creates the watch for the folder as it is now.
    fn arm(&mut self) {
        self.watcher = None;
        self.identity = identity(&self.folder);
        if self.identity.is_none() {
            tracing::warn!(
                "the behaviour folder {} does not exist; hot reload waits for it",
                self.folder.display()
            );
            return;
        }
        match self.watch() {
            Ok(watcher) => self.watcher = Some(watcher),
            Err(error) => tracing::error!(
                "cannot watch the behaviour folder {}: {error}; trying again in {:?}",
                self.folder.display(),
                IDENTITY_CHECK_INTERVAL
            ),
        }
    }

    fn watch(&self) -> notify::Result<notify::RecommendedWatcher> {
        let pending = self.pending.clone();
        let (root, lost) = (self.folder.clone(), self.lost.clone());
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let changed = match &event {
                    Ok(event) => {
                        !matches!(event.kind, EventKind::Access(_))
                            && event.paths.iter().any(|path| relevant(path))
                    }
                    // Lost events (queue overflow): reload to be sure.
                    Err(_) => true,
                };
                if let Ok(event) = &event {
                    let root_gone = matches!(
                        event.kind,
                        EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
                    ) && event.paths.contains(&root);
                    if root_gone {
                        lost.store(true, Ordering::SeqCst);
                    }
                }
                if changed {
                    let mut pending = pending
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    pending.last_change = Some(Instant::now());
                }
            })?;
        watcher.watch(&self.folder, RecursiveMode::Recursive)?;
        Ok(watcher)
    }

    /// Re-arms the watch when the folder was replaced, deleted or made (at most every
    /// [`IDENTITY_CHECK_INTERVAL`]); a replacement counts as a change.
    fn follow_folder(&mut self) {
        if self.last_check.elapsed() < IDENTITY_CHECK_INTERVAL {
            return;
        }
        self.last_check = Instant::now();
        let now = identity(&self.folder);
        let lost = self.lost.swap(false, Ordering::SeqCst);
        if !lost && now == self.identity && (self.watcher.is_some() || now.is_none()) {
            return;
        }
        if now.is_some() {
            tracing::info!(
                "the behaviour folder {} was made or replaced; watching it again",
                self.folder.display()
            );
        }
        self.arm();
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .last_change = Some(Instant::now());
    }

    /// `true` once per burst of changes, when nothing has changed for `settle`.
    pub(crate) fn take_settled_change(&mut self, settle: Duration) -> bool {
        self.follow_folder();
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
