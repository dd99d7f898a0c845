//! Helpers shared by the integration tests.
#![allow(dead_code)]

use behaviours::{BehaviourEngine, EngineSettings};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The behaviour's modules live in the interpreter's `sys.modules`: one engine at a time per
/// test process.
pub fn one_engine_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The shipped behaviour package.
pub fn shipped_behaviours() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("python")
}

pub fn settings(folder: &Path) -> EngineSettings {
    EngineSettings {
        folder: folder.to_path_buf(),
        entry_module: "behaviour".to_owned(),
        tick_budget: Duration::from_millis(100),
        load_budget: Duration::from_millis(2000),
        reload_budget: Duration::from_millis(2000),
        error_sound_interval: Duration::from_secs(10),
        reload_settle: Duration::from_millis(20),
        watch: true,
    }
}

pub fn engine(folder: &Path) -> BehaviourEngine {
    BehaviourEngine::new(settings(folder)).expect("the interpreter starts")
}

/// Writes `text` to `folder/name`, creating folders.
pub fn write(folder: &Path, name: &str, text: &str) {
    let path = folder.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
