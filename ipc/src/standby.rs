//! The activation word of a warm standby: how the supervisor hands a process over to its
//! standby without a fork on the critical path.
//!
//! ```text
//!  supervisor                                   standby (built, not ticking)
//!  reset()          word = WAITING              publishes state Standby on the standby board
//!                                               wait(): FUTEX_WAIT while the word is WAITING
//!  active died ──► activate(): WAITING → ACTIVATE, FUTEX_WAKE
//!                                               ──► takes the writer roles, ticks
//!  shutdown    ──► shut_down(): → SHUT_DOWN, FUTEX_WAKE ──► exits without ticking
//! ```
//!
//! The word is the wake word of the standby's slot on a second health board (the standby
//! board); it is never used as a consumer's wake word there. Only the supervisor writes it;
//! nothing here can be held by a dead process (a standby that dies asleep leaves a word nobody
//! waits on, and the supervisor resets it before the next standby starts).

use rustix::thread::futex;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const WAITING: u32 = 0;
const ACTIVATE: u32 = 1;
const SHUT_DOWN: u32 = 2;

/// What the supervisor told a standby.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Take over: claim the writer roles and tick.
    Activate,
    /// End without ticking.
    ShutDown,
}

/// One standby's activation word.
#[derive(Debug, Clone, Copy)]
pub struct Activation<'a> {
    word: &'a AtomicU32,
}

impl<'a> Activation<'a> {
    pub(crate) fn new(word: &'a AtomicU32) -> Activation<'a> {
        Activation { word }
    }

    /// Back to waiting (the supervisor, before it starts a new standby on this slot).
    pub fn reset(&self) {
        self.word.store(WAITING, Ordering::SeqCst);
    }

    /// Activates the waiting standby and wakes it. `false` if it was told something already
    /// (activated before, or shut down): then nothing changes.
    pub fn activate(&self) -> bool {
        let swapped = self
            .word
            .compare_exchange(WAITING, ACTIVATE, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if swapped {
            // Waking can only fail for a bad address, which the mapping rules out.
            let _ = futex::wake(self.word, futex::Flags::empty(), i32::MAX as u32);
        }
        swapped
    }

    /// Tells the standby to end (shutdown, a new plan generation) and wakes it; an activated
    /// one is no standby any more and is left alone (it is stopped like any process).
    pub fn shut_down(&self) {
        if self
            .word
            .compare_exchange(WAITING, SHUT_DOWN, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            let _ = futex::wake(self.word, futex::Flags::empty(), i32::MAX as u32);
        }
    }

    /// The command given so far, if any.
    pub fn command(&self) -> Option<Command> {
        match self.word.load(Ordering::SeqCst) {
            ACTIVATE => Some(Command::Activate),
            SHUT_DOWN => Some(Command::ShutDown),
            _ => None,
        }
    }

    /// Sleeps until a command arrives or `timeout` passes (`None`: timed out; a signal also
    /// ends the sleep early with `None`, so that the caller can look at its stop flag).
    pub fn wait(&self, timeout: Duration) -> io::Result<Option<Command>> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(command) = self.command() {
                return Ok(Some(command));
            }
            let Some(remaining) = deadline
                .checked_duration_since(Instant::now())
                .filter(|remaining| !remaining.is_zero())
            else {
                return Ok(None);
            };
            let timespec = rustix::time::Timespec {
                tv_sec: remaining.as_secs() as i64,
                tv_nsec: i64::from(remaining.subsec_nanos()),
            };
            match futex::wait(self.word, futex::Flags::empty(), WAITING, Some(&timespec)) {
                Ok(()) | Err(rustix::io::Errno::AGAIN) => {}
                Err(rustix::io::Errno::INTR | rustix::io::Errno::TIMEDOUT) => {
                    return Ok(self.command())
                }
                Err(error) => return Err(error.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HealthBoard;

    #[test]
    fn a_waiting_standby_is_woken_by_its_activation_only() {
        let board = HealthBoard::create("standby-test", 2).unwrap();
        let word = board.activation(1).unwrap();
        word.reset();
        assert_eq!(word.wait(Duration::from_millis(5)).unwrap(), None);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| {
                let word = board.activation(1).unwrap();
                word.wait(Duration::from_secs(30)).unwrap()
            });
            std::thread::sleep(Duration::from_millis(20));
            // The other slot's word wakes nobody here.
            assert!(board.activation(0).unwrap().activate());
            assert!(word.activate());
            assert_eq!(waiter.join().unwrap(), Some(Command::Activate));
        });
        // Told once: a shutdown after the activation changes nothing.
        word.shut_down();
        assert!(!word.activate());
        assert_eq!(word.command(), Some(Command::Activate));
        word.reset();
        word.shut_down();
        assert!(!word.activate(), "a shut-down standby is never activated");
        assert_eq!(word.wait(Duration::ZERO).unwrap(), Some(Command::ShutDown));
        assert!(board.activation(2).is_err());
    }
}
