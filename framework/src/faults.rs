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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_counted_shown_cleared_and_copied_into_the_record() {
        let (before, _) = current_fault();
        report_fault("behaviour.py:4: ZeroDivisionError: division by zero");
        report_fault("behaviour.py:4: ZeroDivisionError: division by zero");
        show_fault("reload failed: behaviour.py:3: SyntaxError");
        let (count, text) = current_fault();
        assert_eq!(count, before + 2, "show_fault does not count");
        assert_eq!(text, "reload failed: behaviour.py:3: SyntaxError");
        let mut record = ipc::HealthRecord::named("cognition");
        fill_record(&mut record);
        assert_eq!(record.faults, before + 2);
        assert_eq!(
            record.fault().as_deref(),
            Some("reload failed: behaviour.py:3: SyntaxError")
        );
        clear_fault();
        fill_record(&mut record);
        assert_eq!(record.fault(), None);
        assert_eq!(record.faults, before + 2, "the count stays");
    }
}
