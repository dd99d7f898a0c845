//! Heartbeats: every child's last tick on the health board, checked against its watchdog (a
//! frozen child gets SIGABRT and SIGCONT, then SIGKILL; the restart policy restarts it), and
//! systemd's readiness (`sd_notify` `READY=1`) once every child has ticked.

use super::child::State;
use super::Supervisor;
use ipc::health::{monotonic_ns, HealthRecord};
use std::time::{Duration, Instant};

/// Time a new child has for its first tick on top of its watchdog (loading Python, say).
const STARTUP_GRACE: Duration = Duration::from_secs(5);
/// Between SIGABRT and SIGKILL for a frozen child.
const FREEZE_GRACE: Duration = Duration::from_millis(50);

impl Supervisor {
    pub(super) fn watch_heartbeats(&mut self) {
        let now = monotonic_ns();
        for child in &mut self.children {
            if child.state != State::Running || child.process.is_none() {
                continue;
            }
            if let Some(sent) = child.abort_sent {
                if sent.elapsed() >= FREEZE_GRACE {
                    child.signal(rustix::process::Signal::KILL);
                }
                continue;
            }
            let record = self.board.read(child.slot).ok().flatten();
            // The takeover thread has already woken the standby (it writes the slot only once it
            // is active, and it is woken only once the active is dead): the active crashed, it did
            // not freeze, and the loop hands the child over when it reaps it.
            if let (Some(record), Some(standby)) = (&record, &child.standby) {
                if record.pid == standby.pid && record.pid != child.pid {
                    continue;
                }
            }
            let last = match record {
                Some(HealthRecord {
                    pid, last_tick_ns, ..
                }) if pid == child.pid && last_tick_ns > 0 => last_tick_ns,
                _ => child.started_ns + STARTUP_GRACE.as_nanos() as u64,
            };
            let deadline = last + child.watchdog.as_nanos() as u64;
            if now > deadline {
                let inside = child
                    .behaviour
                    .as_ref()
                    .and_then(|watch| watch.blame(child.pid))
                    .map(|marker| format!(" {} {}", marker.phase().describe(), marker.file()))
                    .unwrap_or_default();
                tracing::error!(
                    process = %child.name,
                    "{} froze{inside}: no heartbeat for {:.1} ms (watchdog {:?}); sending SIGABRT",
                    child.name,
                    (now - last) as f64 / 1e6,
                    child.watchdog
                );
                child.signal(rustix::process::Signal::ABORT);
                child.signal(rustix::process::Signal::CONT);
                child.abort_sent = Some(Instant::now());
                child.frozen_ns = Some(now);
            }
        }
    }

    /// Tells systemd (`Type=notify`) that the system is up once every child has ticked.
    pub(super) fn notify_ready(&mut self) {
        if self.ready_notified {
            return;
        }
        let all_ticking = self.children.iter().all(|child| {
            matches!(self.board.read(child.slot), Ok(Some(record)) if record.pid == child.pid && record.ticks > 0)
        });
        if !all_ticking {
            return;
        }
        self.ready_notified = true;
        tracing::info!("every process ticks");
        // The first standbys are built once the start-up is over, not in the middle of it.
        let due = Instant::now() + super::standby::FIRST_STANDBY_DELAY;
        for child in &mut self.children {
            child.standby_due = due;
        }
        // Nothing to do without `NOTIFY_SOCKET` (not under systemd).
        let ready = [
            sd_notify::NotifyState::Ready,
            sd_notify::NotifyState::Status("every process ticks"),
        ];
        if let Err(error) = sd_notify::notify(&ready) {
            tracing::warn!("notifying systemd: {error}");
        }
    }
}
