//! Faults a module survived but someone should see (a Python error in the behaviour): a module
//! reports them here, and the runtime loop copies them into the process's health record with
//! each heartbeat, where `cortex status` shows them.
//!
//! ```text
//! BehaviourControl::update ── report_fault("behaviour.py:12: ZeroDivisionError: …")
//! runtime heartbeat ───────── record.faults, record.fault ← current_fault()
//! ```
//!
//! One value per process (the process has one health record). A module that recovers calls
//! [`clear_fault`]; the count stays.

use std::sync::Mutex;

#[derive(Debug)]
struct Faults {
    count: u64,
    current: String,
}

static FAULTS: Mutex<Faults> = Mutex::new(Faults {
    count: 0,
    current: String::new(),
});

fn lock() -> std::sync::MutexGuard<'static, Faults> {
    FAULTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Counts one fault and makes `text` the current one.
pub fn report_fault(text: &str) {
    let mut faults = lock();
    faults.count += 1;
    if faults.current != text {
        faults.current = text.to_owned();
    }
}

/// Makes `text` the current fault without counting one (a fault that goes on).
pub fn show_fault(text: &str) {
    let mut faults = lock();
    if faults.current != text {
        faults.current = text.to_owned();
    }
}

/// The current fault is over (the count stays).
pub fn clear_fault() {
    lock().current.clear();
}

/// Faults counted since the process started, and the current one (empty: none).
pub fn current_fault() -> (u64, String) {
    let faults = lock();
    (faults.count, faults.current.clone())
}

/// Copies the faults into a health record.
pub fn fill_record(record: &mut ipc::HealthRecord) {
    let faults = lock();
    record.faults = faults.count;
    record.set_fault(&faults.current);
}
