//! The writer role of a triple buffer: a word holding the owner's pid and start time, taken
//! with a compare-and-swap and considered free when the owner process is gone.
//!
//! A process id alone is not enough: a dead writer's pid can be reused, and a killed writer is
//! a zombie (still "alive" for `kill(pid, 0)`) until its parent reaps it. So the word packs the
//! pid with the low 32 bits of the process start time (`/proc/PID/stat`, field 22), and a
//! process counts as the owner only if it exists, is not a zombie and started at that time.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The process this one took over from, if it is a standby that was activated because its
/// active died (0: none). The supervisor activates a standby the moment the kernel marks the
/// active's tick thread dead (`crate::liveness`), while the kernel is still tearing the process
/// down and `/proc` shows it running; its roles are free all the same.
static PREDECESSOR: AtomicU32 = AtomicU32::new(0);

/// Declares `pid` the dead predecessor of this process: roles it held count as free (a standby
/// calls this when it is activated, with the pid of the active it replaces).
pub fn set_predecessor(pid: u32) {
    PREDECESSOR.store(pid, Ordering::SeqCst);
}

/// An owner word: pid in the high half, start time (clock ticks since boot, low 32 bits) below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// Process id.
    pub pid: u32,
    start: u32,
}

impl Owner {
    fn pack(self) -> u64 {
        (u64::from(self.pid) << 32) | u64::from(self.start)
    }
    fn unpack(word: u64) -> Option<Owner> {
        (word != 0).then_some(Owner {
            pid: (word >> 32) as u32,
            start: word as u32,
        })
    }

    /// The calling process.
    pub fn current() -> Owner {
        let pid = std::process::id();
        let start = process_start(pid).map(|(start, _)| start).unwrap_or(0);
        Owner { pid, start }
    }

    /// Whether this owner process still runs (exists, not a zombie, same start time).
    pub fn is_alive(self) -> bool {
        match process_start(self.pid) {
            Some((start, state)) => start == self.start && state != 'Z' && state != 'X',
            None => false,
        }
    }
}

/// Start time (low 32 bits) and state letter of a process, from `/proc/PID/stat`.
fn process_start(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces and ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // After the state (field 3) come fields 4..; the start time is field 22.
    let start: u64 = fields.nth(22 - 4)?.parse().ok()?;
    Some((start as u32, state))
}

/// Tries to take the role for the calling process. On refusal, returns the live owner.
pub fn acquire(word: &AtomicU64) -> Result<(), Owner> {
    let me = Owner::current();
    loop {
        let current = word.load(Ordering::Acquire);
        if let Some(owner) = Owner::unpack(current) {
            if owner.pid != PREDECESSOR.load(Ordering::SeqCst) && owner.is_alive() {
                return Err(owner);
            }
        }
        if word
            .compare_exchange(current, me.pack(), Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return Ok(());
        }
    }
}

/// Gives the role back if the calling process holds it.
pub fn release(word: &AtomicU64) {
    let me = Owner::current().pack();
    let _ = word.compare_exchange(me, 0, Ordering::AcqRel, Ordering::Relaxed);
}

/// The current holder of the role, if it is alive.
pub fn holder(word: &AtomicU64) -> Option<Owner> {
    Owner::unpack(word.load(Ordering::Acquire)).filter(|owner| owner.is_alive())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_is_alive_and_a_made_up_one_is_not() {
        let me = Owner::current();
        assert!(me.start != 0, "start time read from /proc");
        assert!(me.is_alive());
        assert!(!Owner {
            pid: me.pid,
            start: me.start.wrapping_add(1)
        }
        .is_alive());
        assert!(!Owner {
            pid: u32::MAX - 1,
            start: 1
        }
        .is_alive());
    }

    #[test]
    fn the_role_is_exclusive_and_freed_by_release_or_by_death() {
        let word = AtomicU64::new(0);
        acquire(&word).unwrap();
        assert_eq!(acquire(&word).unwrap_err().pid, std::process::id());
        release(&word);
        acquire(&word).unwrap();
        // A writer that died: a pid/start pair that no running process has.
        word.store(
            Owner {
                pid: u32::MAX - 1,
                start: 7,
            }
            .pack(),
            Ordering::Relaxed,
        );
        assert!(holder(&word).is_none());
        acquire(&word).unwrap();
        assert_eq!(holder(&word).map(|o| o.pid), Some(std::process::id()));
    }

    #[test]
    fn the_roles_of_a_declared_predecessor_are_free_while_it_still_runs() {
        // A live process (a `sleep`) holds the role: refused, until it is declared the
        // predecessor this process took over from.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let (start, _) = process_start(pid).unwrap();
        let word = AtomicU64::new(Owner { pid, start }.pack());
        assert_eq!(acquire(&word).unwrap_err().pid, pid);
        set_predecessor(pid);
        acquire(&word).unwrap();
        assert_eq!(holder(&word).map(|o| o.pid), Some(std::process::id()));
        set_predecessor(0);
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_zombie_is_not_an_owner() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Wait until the child has exited but is not reaped yet.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while process_start(pid).map(|(_, s)| s) != Some('Z')
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let (start, state) = process_start(pid).unwrap();
        assert_eq!(state, 'Z');
        assert!(!Owner { pid, start }.is_alive());
        child.wait().unwrap();
    }
}
