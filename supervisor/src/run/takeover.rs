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
//! A second, faster path (`ipc::liveness`): each active holds its slot of the liveness board
//! from its tick thread, and a death-watch thread per armed child sleeps on that slot's futex
//! word. The kernel marks the word the moment the tick thread starts to die, before it unmaps
//! the process's memory and closes its files (which is when the pidfd becomes readable,
//! milliseconds later for a process with many shared segments). A death seen there is a
//! failure by construction: an orderly end releases the slot first. Whichever path sees the
//! death first activates the standby; the other finds the takeover done.
//!
//! The thread never reaps (`WNOWAIT`): the supervision loop reaps and does the bookkeeping.
//! `arm`, `disarm` and `take` hold the same lock as the thread's decision, so a child is taken
//! over once, by whichever notices first; an exit that is no failure (status 0 after SIGTERM,
//! 78 for a configuration error) is left to the loop.

use ipc::health::{monotonic_ns, ProcessState};
use ipc::liveness::{Holder, LivenessBoard};
use ipc::HealthBoard;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::process::{Pid, PidfdFlags, WaitId, WaitIdOptions};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

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
    /// Signalled whenever the list changes or at the end (the death-watch threads sleep on it
    /// while their child is not armed).
    changed: Condvar,
    /// The liveness board (`None` if this C library's mutexes cannot serve: the pidfd only).
    liveness: Option<LivenessBoard>,
}

/// The takeover thread and its list of armed children (by child index).
#[derive(Debug)]
pub(super) struct Takeover {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// The death-watch thread of each child, started when it is first armed.
    death_watch: Mutex<Vec<Option<JoinHandle<()>>>>,
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
        let liveness = match LivenessBoard::create(children) {
            Ok(board) => Some(board),
            Err(error) => {
                tracing::warn!("{error}");
                None
            }
        };
        let shared = Arc::new(Shared {
            armed: Mutex::new((0..children).map(|_| None).collect()),
            event,
            stop: AtomicBool::new(false),
            standby_board: HealthBoard::from_fd(standby_board).context("the standby board")?,
            changed: Condvar::new(),
            liveness,
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
            death_watch: Mutex::new((0..children).map(|_| None).collect()),
        })
    }

    /// The liveness board every child holds its slot of while it is active (to be inherited).
    pub(super) fn liveness(&self) -> Option<&LivenessBoard> {
        self.shared.liveness.as_ref()
    }

    /// Starts child `index`'s death-watch thread if it has none yet.
    fn watch_death_of(&self, index: usize) {
        if self.shared.liveness.is_none() {
            return;
        }
        let mut threads = self
            .death_watch
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if threads[index].is_some() {
            return;
        }
        let shared = self.shared.clone();
        match std::thread::Builder::new()
            .name(format!("death-watch-{index}"))
            .spawn(move || watch_death(&shared, index))
        {
            Ok(thread) => threads[index] = Some(thread),
            Err(error) => tracing::warn!(
                "starting a death-watch thread: {error}; deaths are seen through the pidfd"
            ),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Option<Armed>>> {
        self.shared
            .armed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn poke(&self) {
        let _ = rustix::io::write(&self.shared.event, &1u64.to_ne_bytes());
        self.shared.changed.notify_all();
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
        self.watch_death_of(index);
        true
    }

    /// Whether child `index` is armed for `active_pid` and `standby_pid` (fired or not).
    pub(super) fn is_armed(&self, index: usize, active_pid: u32, standby_pid: u32) -> bool {
        self.lock()[index]
            .as_ref()
            .is_some_and(|armed| armed.active_pid == active_pid && armed.standby_pid == standby_pid)
    }

    /// Child `index` is not to be taken over (a requested restart, a standby gone, shutdown).
    /// A takeover the thread already carried out is kept for [`Takeover::take`]: its standby
    /// runs as the active now and holds the writer roles, so the loop must promote it when it
    /// reaps the old active (dropped here, the loop would cold-start a second instance that
    /// finds its roles held by the live standby, again and again, until the safe state).
    pub(super) fn disarm(&self, index: usize) {
        let mut armed = self.lock();
        if armed[index]
            .as_ref()
            .is_some_and(|entry| entry.fired.is_none())
        {
            armed[index] = None;
            drop(armed);
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
        let threads = std::mem::take(
            &mut *self
                .death_watch
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        for thread in threads.into_iter().flatten() {
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
    take_takeover_priority("takeover thread");
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
            decide(shared, *index, entry, failure, detected_ns);
        }
    }
}

/// The active of child `index` (`entry`) ended, in a failure or not: activates its standby if
/// it is a failure and the standby is alive and waiting; otherwise leaves the child to the loop.
fn decide(shared: &Shared, index: usize, entry: &mut Armed, failure: bool, detected_ns: u64) {
    if !failure {
        entry.passed = true;
        return;
    }
    let ready = is_alive(&entry.standby_pidfd)
        && matches!(
            shared.standby_board.read(index),
            Ok(Some(record)) if record.pid == entry.standby_pid
                && record.state == ProcessState::Standby as u32
        );
    let activated = ready
        && shared
            .standby_board
            .activation(index)
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

/// `SCHED_FIFO` priority of the takeover and death-watch threads: above every process of the
/// shipped table (the bridge has 60), so that the thread that activates a standby is never
/// queued behind the dying process's teardown or a busy real-time child (on 2 cores, a normal
/// thread woken while both run waited up to a millisecond). They sleep but for a takeover.
const TAKEOVER_PRIORITY: u8 = 70;

/// Gives the calling thread [`TAKEOVER_PRIORITY`] if the system allows it (logged otherwise).
fn take_takeover_priority(what: &str) {
    if let Err(error) = ipc::sched::set_realtime_priority(TAKEOVER_PRIORITY) {
        tracing::debug!(
            "{what}: SCHED_FIFO {TAKEOVER_PRIORITY} refused ({error}); a takeover may wait for the CPU"
        );
    }
}

/// How long a death-watch thread sleeps at a time (it looks at its stop flag in between).
const DEATH_WATCH_SLICE: Duration = Duration::from_millis(200);
/// How often it looks again while the armed active has not taken its liveness slot yet.
const HOLDER_POLL: Duration = Duration::from_millis(5);

/// Whether thread `tid` belongs to process `pid`.
fn is_thread_of(pid: u32, tid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}/task/{tid}")).exists()
}

/// Child `index`'s death-watch thread: while the child is armed, sleeps on its active's
/// liveness slot and activates the standby the moment the kernel marks the holder dead.
fn watch_death(shared: &Shared, index: usize) {
    let Some(board) = shared.liveness.as_ref() else {
        return;
    };
    take_takeover_priority("death-watch thread");
    // The (active pid, tick thread) last seen holding the slot.
    let mut holder: Option<(u32, u32)> = None;
    let mut armed = shared
        .armed
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    while !shared.stop.load(Ordering::SeqCst) {
        let target = armed[index]
            .as_ref()
            .filter(|entry| entry.fired.is_none() && !entry.passed)
            .map(|entry| (entry.active_pid, entry.pidfd.clone()));
        let Some((active_pid, pidfd)) = target else {
            armed = shared
                .changed
                .wait_timeout(armed, DEATH_WATCH_SLICE)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
            continue;
        };
        drop(armed);
        let seen = match board.holder(index) {
            Ok(Holder::Thread(tid)) => {
                if holder != Some((active_pid, tid)) && is_thread_of(active_pid, tid) {
                    holder = Some((active_pid, tid));
                }
                if holder == Some((active_pid, tid)) {
                    board.wait_while_held(index, tid, DEATH_WATCH_SLICE).ok()
                } else {
                    None
                }
            }
            Ok(other) => Some(other),
            Err(error) => {
                tracing::warn!("death watch of child {index}: {error}");
                None
            }
        };
        let detected_ns = monotonic_ns();
        let died =
            seen == Some(Holder::OwnerDied) && holder.is_some_and(|(pid, _)| pid == active_pid);
        armed = shared
            .armed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if died {
            holder = None;
            if let Some(entry) = armed[index].as_mut().filter(|entry| {
                Arc::ptr_eq(&entry.pidfd, &pidfd) && entry.fired.is_none() && !entry.passed
            }) {
                decide(shared, index, entry, true, detected_ns);
            }
        } else if !matches!(seen, Some(Holder::Thread(_))) {
            // Not held by the active (yet): look again shortly, or when the list changes.
            armed = shared
                .changed
                .wait_timeout(armed, HOLDER_POLL)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wait status of a real child that ended with `shell`, read as the thread reads it.
    fn status_of(shell: &str) -> rustix::process::WaitIdStatus {
        let child = std::process::Command::new("sh")
            .args(["-c", shell])
            .spawn()
            .unwrap();
        let pid = Pid::from_raw(child.id() as i32).unwrap();
        let pidfd = rustix::process::pidfd_open(pid, PidfdFlags::empty()).unwrap();
        let status = rustix::process::waitid(WaitId::PidFd(pidfd.as_fd()), WaitIdOptions::EXITED)
            .unwrap()
            .unwrap();
        // Reaped by `waitid` above.
        drop(child);
        status
    }

    /// Two `sleep`s: the active instance and its standby, which says in slot 0 of `board` that it
    /// is ready (as `runtime::run` does; the returned writer keeps the slot) with its activation
    /// word reset.
    fn active_and_ready_standby(
        board: &HealthBoard,
    ) -> (
        std::process::Child,
        std::process::Child,
        ipc::health::HealthWriter<'_>,
    ) {
        let sleep = || {
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap()
        };
        let (active, standby) = (sleep(), sleep());
        let mut writer = board.slot_writer(0).unwrap();
        let mut record = ipc::HealthRecord::named("test");
        record.pid = standby.id();
        record.state = ProcessState::Standby as u32;
        writer.publish(&record).unwrap();
        board.activation(0).unwrap().reset();
        (active, standby, writer)
    }

    /// Waits (10 s at most) until the takeover thread has set `word`.
    fn wait_until_activated(word: &ipc::standby::Activation<'_>) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while word.command().is_none() {
            assert!(std::time::Instant::now() < deadline, "not activated");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn signals_and_failure_statuses_are_taken_over_a_clean_stop_and_78_are_not() {
        assert!(is_failure(&status_of("kill -9 $$")));
        assert!(is_failure(&status_of("kill -11 $$")));
        assert!(is_failure(&status_of("exit 70")));
        assert!(!is_failure(&status_of("exit 0")));
        assert!(!is_failure(&status_of("exit 78")));
    }

    #[test]
    fn the_thread_activates_a_ready_standby_when_the_active_dies() {
        let board = HealthBoard::create("standby-takeover-test", 1).unwrap();
        let takeover = Takeover::start(1, board.as_fd().try_clone_to_owned().unwrap()).unwrap();
        let (mut active, mut standby, _slot) = active_and_ready_standby(&board);
        let word = board.activation(0).unwrap();
        assert!(takeover.arm(0, active.id(), standby.id()));
        assert!(takeover.is_armed(0, active.id(), standby.id()));
        // A clean exit is not a takeover; SIGKILL is.
        active.kill().unwrap();
        wait_until_activated(&word);
        assert_eq!(word.command(), Some(ipc::standby::Command::Activate));
        let fired = takeover.take(0, active.id()).expect("the thread fired");
        assert_eq!(fired.standby_pid, standby.id());
        assert!(fired.detected_ns > 0);
        assert!(takeover.take(0, active.id()).is_none(), "reported once");
        active.wait().unwrap();
        standby.kill().unwrap();
        standby.wait().unwrap();
    }

    #[test]
    fn a_takeover_survives_a_disarm_until_the_loop_takes_it() {
        // The thread activates the standby; before the loop reaps the old active, something
        // disarms the child (a restart request, a reload). The activated standby runs as the
        // active now: the loop must still learn of the takeover, or it cold-starts a second
        // instance whose writer roles the standby holds.
        let board = HealthBoard::create("standby-disarm-test", 1).unwrap();
        let takeover = Takeover::start(1, board.as_fd().try_clone_to_owned().unwrap()).unwrap();
        let (mut active, mut standby, _slot) = active_and_ready_standby(&board);
        let word = board.activation(0).unwrap();
        assert!(takeover.arm(0, active.id(), standby.id()));
        active.kill().unwrap();
        wait_until_activated(&word);
        takeover.disarm(0);
        let fired = takeover
            .take(0, active.id())
            .expect("the takeover is still reported after a disarm");
        assert_eq!(fired.standby_pid, standby.id());
        // An entry that did not fire is removed by a disarm.
        assert!(takeover.arm(0, standby.id(), std::process::id()));
        takeover.disarm(0);
        assert!(!takeover.is_armed(0, standby.id(), std::process::id()));
        active.wait().unwrap();
        standby.kill().unwrap();
        standby.wait().unwrap();
    }

    #[test]
    fn the_death_of_the_tick_thread_holding_the_liveness_slot_activates_the_standby() {
        // The active here is this test process, whose pidfd never becomes readable: only the
        // liveness path can see the death, which is that of the thread holding the slot.
        let board = HealthBoard::create("standby-liveness-test", 1).unwrap();
        let takeover = Takeover::start(1, board.as_fd().try_clone_to_owned().unwrap()).unwrap();
        let Some(liveness) = takeover.liveness() else {
            eprintln!("SKIPPED: this C library's robust mutexes cannot serve as liveness slots");
            return;
        };
        let (mut standby, _slot) = {
            let (mut active, standby, writer) = active_and_ready_standby(&board);
            active.kill().unwrap();
            active.wait().unwrap();
            (standby, writer)
        };
        let word = board.activation(0).unwrap();
        assert!(takeover.arm(0, std::process::id(), standby.id()));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let held = liveness.hold(0).unwrap();
                // Long enough for the death watch to see this thread as the holder.
                std::thread::sleep(std::time::Duration::from_millis(300));
                assert_eq!(word.command(), None, "not activated while the holder lives");
                // The thread ends holding the slot, as a killed tick thread does.
                std::mem::forget(held);
            });
        });
        wait_until_activated(&word);
        let fired = takeover
            .take(0, std::process::id())
            .expect("the death watch fired");
        assert_eq!(fired.standby_pid, standby.id());
        standby.kill().unwrap();
        standby.wait().unwrap();
    }

    #[test]
    fn a_dead_standby_is_never_activated() {
        let board = HealthBoard::create("standby-dead-test", 1).unwrap();
        let takeover = Takeover::start(1, board.as_fd().try_clone_to_owned().unwrap()).unwrap();
        let (mut active, mut standby, _slot) = active_and_ready_standby(&board);
        let word = board.activation(0).unwrap();
        assert!(takeover.arm(0, active.id(), standby.id()));
        standby.kill().unwrap();
        standby.wait().unwrap();
        active.kill().unwrap();
        active.wait().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert_eq!(word.command(), None, "a dead standby stays unactivated");
        assert!(takeover.take(0, active.id()).is_none());
    }
}
