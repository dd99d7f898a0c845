//! The takeover thread: notices the moment an active child with a ready standby dies and
//! activates the standby at once, without waiting for the supervision loop.
//!
//! ```text
//!  supervision loop                         takeover thread
//!  standby ready ──► arm(child, pidfd of     poll(pidfds…, eventfd)
//!                    the active, standby)    active's pidfd readable: it is dead (a zombie
//!                                            that can never run again)
//!                                            waitid(WNOWAIT): killed by a signal or a failure
//!                                            status? and its standby still Standby on the
//!                                            standby board? ──► activation word: ACTIVATE, wake
//!  reap(): take(child) ──► Fired { detected_ns } → the standby is the child now
//! ```
//!
//! The thread never reaps (`WNOWAIT`): the supervision loop reaps and does the bookkeeping.
//! `arm`, `disarm` and `take` hold the same lock as the thread's decision, so a child is taken
//! over once, by whichever notices first; an exit that is no failure (status 0 after SIGTERM,
//! 78 for a configuration error) is left to the loop.

use ipc::health::{monotonic_ns, ProcessState};
use ipc::HealthBoard;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::process::{Pid, PidfdFlags, WaitId, WaitIdOptions};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// How long the thread sleeps without an event before it looks at its list again.
const IDLE: rustix::time::Timespec = rustix::time::Timespec {
    tv_sec: 0,
    tv_nsec: 200_000_000,
};

/// A takeover the thread carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fired {
    /// `CLOCK_MONOTONIC` ns when the thread saw the active dead.
    pub(super) detected_ns: u64,
    /// The standby it activated.
    pub(super) standby_pid: u32,
}

#[derive(Debug)]
struct Armed {
    active_pid: u32,
    pidfd: Arc<OwnedFd>,
    standby_pid: u32,
    /// The standby's pidfd: a standby that died is never activated.
    standby_pidfd: OwnedFd,
    fired: Option<Fired>,
    /// The active ended without a failure: left to the loop.
    passed: bool,
}

#[derive(Debug)]
struct Shared {
    armed: Mutex<Vec<Option<Armed>>>,
    /// Interrupts the thread's poll when the list changes or at the end.
    event: OwnedFd,
    stop: AtomicBool,
    standby_board: HealthBoard,
}

/// The takeover thread and its list of armed children (by child index).
#[derive(Debug)]
pub(super) struct Takeover {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Takeover {
    /// Starts the thread for `children` children; `standby_board` is a descriptor of the
    /// standby board (the thread maps it itself).
    pub(super) fn start(children: usize, standby_board: OwnedFd) -> anyhow::Result<Takeover> {
        use anyhow::Context;
        let event = rustix::event::eventfd(
            0,
            rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK,
        )
        .context("creating the takeover thread's eventfd")?;
        let shared = Arc::new(Shared {
            armed: Mutex::new((0..children).map(|_| None).collect()),
            event,
            stop: AtomicBool::new(false),
            standby_board: HealthBoard::from_fd(standby_board).context("the standby board")?,
        });
        let thread = std::thread::Builder::new()
            .name("takeover".to_owned())
            .spawn({
                let shared = shared.clone();
                move || watch(&shared)
            })
            .context("starting the takeover thread")?;
        Ok(Takeover {
            shared,
            thread: Some(thread),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Option<Armed>>> {
        self.shared
            .armed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn poke(&self) {
        let _ = rustix::io::write(&self.shared.event, &1u64.to_ne_bytes());
    }

    /// Arms child `index`: when `active_pid` dies of a failure, activate `standby_pid`.
    /// `false` if the active is already gone (its pidfd cannot be opened). An entry for the same
    /// pair stays as it is (a takeover it fired is kept for [`Takeover::take`]).
    pub(super) fn arm(&self, index: usize, active_pid: u32, standby_pid: u32) -> bool {
        if self.is_armed(index, active_pid, standby_pid) {
            return true;
        }
        let Some(pid) = Pid::from_raw(active_pid as i32) else {
            return false;
        };
        let Ok(pidfd) = rustix::process::pidfd_open(pid, PidfdFlags::empty()) else {
            return false;
        };
        let Some(standby) = Pid::from_raw(standby_pid as i32) else {
            return false;
        };
        let Ok(standby_pidfd) = rustix::process::pidfd_open(standby, PidfdFlags::empty()) else {
            return false;
        };
        self.lock()[index] = Some(Armed {
            active_pid,
            pidfd: Arc::new(pidfd),
            standby_pid,
            standby_pidfd,
            fired: None,
            passed: false,
        });
        self.poke();
        true
    }

    /// Whether child `index` is armed for `active_pid` and `standby_pid` (fired or not).
    pub(super) fn is_armed(&self, index: usize, active_pid: u32, standby_pid: u32) -> bool {
        self.lock()[index]
            .as_ref()
            .is_some_and(|armed| armed.active_pid == active_pid && armed.standby_pid == standby_pid)
    }

    /// Child `index` is not to be taken over (a requested restart, a standby gone, shutdown).
    pub(super) fn disarm(&self, index: usize) {
        if self.lock()[index].take().is_some() {
            self.poke();
        }
    }

    /// Disarms child `index` (its active `active_pid` ended); the takeover if the thread did
    /// one for that active.
    pub(super) fn take(&self, index: usize, active_pid: u32) -> Option<Fired> {
        let armed = self.lock()[index].take();
        self.poke();
        armed
            .filter(|armed| armed.active_pid == active_pid)
            .and_then(|armed| armed.fired)
    }
}

impl Drop for Takeover {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.poke();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Whether a wait status is a failure a standby takes over from: a signal, or an exit status
/// other than 0 (a clean stop) and 78 (a configuration error, which the standby would share).
fn is_failure(status: &rustix::process::WaitIdStatus) -> bool {
    if status.killed() || status.dumped() {
        return true;
    }
    match status.exit_status() {
        Some(0) => false,
        Some(code) => code != i32::from(config::EX_CONFIG),
        None => false,
    }
}

/// Whether the process of `pidfd` still runs (its pidfd is not readable).
fn is_alive(pidfd: &OwnedFd) -> bool {
    let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
    matches!(
        poll(
            &mut fds,
            Some(&rustix::time::Timespec {
                tv_sec: 0,
                tv_nsec: 0
            })
        ),
        Ok(0)
    )
}

/// The thread: sleeps on the armed pidfds and the eventfd.
fn watch(shared: &Shared) {
    while !shared.stop.load(Ordering::SeqCst) {
        let watched: Vec<(usize, Arc<OwnedFd>)> = shared
            .armed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .enumerate()
            .filter_map(|(index, armed)| {
                armed
                    .as_ref()
                    .filter(|armed| armed.fired.is_none() && !armed.passed)
                    .map(|armed| (index, armed.pidfd.clone()))
            })
            .collect();
        let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(watched.len() + 1);
        fds.push(PollFd::new(&shared.event, PollFlags::IN));
        for (_, pidfd) in &watched {
            fds.push(PollFd::new(pidfd.as_ref(), PollFlags::IN));
        }
        match poll(&mut fds, Some(&IDLE)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(error) => {
                tracing::error!("takeover thread: poll: {error}; retrying");
                std::thread::sleep(std::time::Duration::from_millis(10));
                continue;
            }
        }
        let ready: Vec<bool> = fds.iter().map(|fd| !fd.revents().is_empty()).collect();
        drop(fds);
        if ready[0] {
            let mut buffer = [0u8; 8];
            let _ = rustix::io::read(&shared.event, &mut buffer);
        }
        for ((index, pidfd), _) in watched.iter().zip(&ready[1..]).filter(|(_, r)| **r) {
            let detected_ns = monotonic_ns();
            let status = rustix::process::waitid(
                WaitId::PidFd(pidfd.as_fd()),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            );
            let mut armed = shared
                .armed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let Some(entry) = armed[*index]
                .as_mut()
                .filter(|entry| Arc::ptr_eq(&entry.pidfd, pidfd) && entry.fired.is_none())
            else {
                continue;
            };
            let failure = matches!(&status, Ok(Some(status)) if is_failure(status));
            if !failure {
                entry.passed = true;
                continue;
            }
            let ready = is_alive(&entry.standby_pidfd)
                && matches!(
                    shared.standby_board.read(*index),
                    Ok(Some(record)) if record.pid == entry.standby_pid
                        && record.state == ProcessState::Standby as u32
                );
            let activated = ready
                && shared
                    .standby_board
                    .activation(*index)
                    .is_ok_and(|word| word.activate());
            if activated {
                entry.fired = Some(Fired {
                    detected_ns,
                    standby_pid: entry.standby_pid,
                });
            } else {
                entry.passed = true;
            }
        }
    }
}
