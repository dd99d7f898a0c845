//! Lockstep for replay (`cortex replay`, `docs/architecture.md` §9): a replayed process ticks
//! once per step its replayer gives, never on its own trigger or deadline, and says when each
//! tick is over, so that the replayer publishes the inputs of the next step only then.
//!
//! Two small triple buffers per replayed process, made by the supervisor and inherited:
//!
//! ```text
//!  replayer (Leader) ──step {number, time_ns}──▶ runtime (Follower): set the clock, tick
//!        ▲                                               │
//!        └───────────────done {number}───────────────────┘ after outputs and heartbeat
//! ```
//!
//! Step 0 is published before the process starts: its time is the clock while the modules are
//! built. A follower starts at the last step any instance of it finished (the `done` channel
//! keeps it), so a process restarted in the middle of a step carries that step out. Waiting is
//! the channels' futex wake-up (`Reader::wait_newer`), in slices so that a stop is seen.

use ipc::TripleBuffer;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Bytes of a step value: number and time, little-endian u64 each.
pub const STEP_BYTES: usize = 16;
/// The schema hash of both channels (`"cortex-lockstep/1"`, checked when they are opened).
pub const SCHEMA_HASH: u64 = 0x636f_7274_6578_4c31;
/// How often a waiting follower looks at its stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// One replayed tick: its number (1, 2, ...; 0 is the start) and the recorded time that is
/// "now" during it ([`crate::clock`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The step's number.
    pub number: u64,
    /// The recorded time of the tick (ns).
    pub time_ns: u64,
}

impl Step {
    fn encode(self) -> [u8; STEP_BYTES] {
        let mut bytes = [0u8; STEP_BYTES];
        bytes[..8].copy_from_slice(&self.number.to_le_bytes());
        bytes[8..].copy_from_slice(&self.time_ns.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<Step> {
        let number = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let time_ns = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
        Some(Step { number, time_ns })
    }
}

/// The two channels of one replayed process.
#[derive(Debug)]
pub struct Lockstep {
    /// Written by the replayer: the step to carry out.
    pub step: TripleBuffer,
    /// Written by the process: the last step it finished.
    pub done: TripleBuffer,
}

/// What went wrong in lockstep.
#[derive(Debug, thiserror::Error)]
pub enum LockstepError {
    /// Shared memory refused.
    #[error("lockstep of `{process}`: {source}")]
    Ipc {
        /// The process.
        process: String,
        /// Why.
        source: ipc::Error,
    },
    /// A channel holds something that is not a step.
    #[error("lockstep of `{process}`: the {channel} channel holds {bytes} bytes, not a step")]
    Malformed {
        /// The process.
        process: String,
        /// `step` or `done`.
        channel: &'static str,
        /// How many bytes it held.
        bytes: usize,
    },
}

impl Lockstep {
    /// Makes the channels of `process` and publishes step 0 at `start_ns` (the supervisor, before
    /// the process starts).
    pub fn create(process: &str, start_ns: u64) -> Result<Lockstep, LockstepError> {
        let ipc = ipc_error(process);
        let step = TripleBuffer::create_with_schema(
            &format!("{process}.replay-step"),
            STEP_BYTES,
            SCHEMA_HASH,
        )
        .map_err(ipc)?;
        let done = TripleBuffer::create_with_schema(
            &format!("{process}.replay-done"),
            STEP_BYTES,
            SCHEMA_HASH,
        )
        .map_err(ipc)?;
        step.writer()
            .and_then(|mut writer| {
                writer.publish(
                    &Step {
                        number: 0,
                        time_ns: start_ns,
                    }
                    .encode(),
                )
            })
            .map_err(ipc)?;
        Ok(Lockstep { step, done })
    }

    /// The process's side: claims `done` and sets the clock to the current step's time (the
    /// modules are built next); the first [`Follower::wait`] says which step it is at (ready).
    pub fn follower(&self, process: &str) -> Result<Follower<'_>, LockstepError> {
        let ipc = ipc_error(process);
        let done = self.done.writer().map_err(ipc)?;
        let mut step = self.step.reader();
        let mut bytes = Vec::new();
        let finished = match self.done.reader().read_latest(&mut bytes).map_err(ipc)? {
            Some(_) => decode(process, "done", &bytes)?.number,
            None => 0,
        };
        if step.read_latest(&mut bytes).map_err(ipc)?.is_some() {
            crate::clock::set_replay_time(decode(process, "step", &bytes)?.time_ns);
        }
        Ok(Follower {
            process: process.to_owned(),
            step,
            done,
            finished,
            announced: false,
            current: None,
            bytes,
        })
    }

    /// The replayer's side: claims `step`.
    pub fn leader(&self, process: &str) -> Result<Leader<'_>, LockstepError> {
        let ipc = ipc_error(process);
        let mut bytes = Vec::new();
        let number = match self.step.reader().read_latest(&mut bytes).map_err(ipc)? {
            Some(_) => decode(process, "step", &bytes)?.number,
            None => 0,
        };
        Ok(Leader {
            process: process.to_owned(),
            step: self.step.writer().map_err(ipc)?,
            done: self.done.reader(),
            number,
            bytes,
        })
    }
}

fn decode(process: &str, channel: &'static str, bytes: &[u8]) -> Result<Step, LockstepError> {
    Step::decode(bytes).ok_or_else(|| LockstepError::Malformed {
        process: process.to_owned(),
        channel,
        bytes: bytes.len(),
    })
}

/// Makes an ipc failure of `process`'s lockstep channels into its error.
fn ipc_error(process: &str) -> impl Fn(ipc::Error) -> LockstepError + Copy + '_ {
    move |source| LockstepError::Ipc {
        process: process.to_owned(),
        source,
    }
}

/// The replayed process's side of the lockstep (the runtime's replay mode).
#[derive(Debug)]
pub struct Follower<'a> {
    process: String,
    step: ipc::Reader<'a>,
    done: ipc::Writer<'a>,
    finished: u64,
    /// Whether it said it is ready (its modules built: at the first wait).
    announced: bool,
    current: Option<Step>,
    bytes: Vec<u8>,
}

impl Follower<'_> {
    /// Waits for a step after the last finished one and sets the clock to its time; `false`:
    /// `stop` was set meanwhile. The first call first says that the process is ready.
    pub fn wait(&mut self, stop: &AtomicBool) -> Result<bool, LockstepError> {
        if !std::mem::replace(&mut self.announced, true) {
            let ready = Step {
                number: self.finished,
                time_ns: 0,
            };
            self.done
                .publish(&ready.encode())
                .map_err(ipc_error(&self.process))?;
        }
        loop {
            let published = self.step.published();
            if published > 0 {
                self.step
                    .read_latest(&mut self.bytes)
                    .map_err(ipc_error(&self.process))?;
                let step = decode(&self.process, "step", &self.bytes)?;
                if step.number > self.finished {
                    crate::clock::set_replay_time(step.time_ns);
                    self.current = Some(step);
                    return Ok(true);
                }
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            self.step
                .wait_newer(published, STOP_CHECK)
                .map_err(ipc_error(&self.process))?;
        }
    }

    /// Says that the step [`Follower::wait`] returned is over (outputs published).
    pub fn done(&mut self) -> Result<(), LockstepError> {
        if let Some(step) = self.current.take() {
            self.finished = step.number;
            self.done
                .publish(&step.encode())
                .map_err(ipc_error(&self.process))?;
        }
        Ok(())
    }
}

/// The replayer's side of one process's lockstep.
#[derive(Debug)]
pub struct Leader<'a> {
    process: String,
    step: ipc::Writer<'a>,
    done: ipc::Reader<'a>,
    number: u64,
    bytes: Vec<u8>,
}

impl Leader<'_> {
    /// The number of the last step given.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Waits until the process has finished step `number()` (or said it is ready, for step 0);
    /// `false` after `timeout`.
    pub fn wait_done(&mut self, timeout: Duration) -> Result<bool, LockstepError> {
        let deadline = Instant::now() + timeout;
        loop {
            let published = self.done.published();
            if published > 0 {
                self.done
                    .read_latest(&mut self.bytes)
                    .map_err(ipc_error(&self.process))?;
                if decode(&self.process, "done", &self.bytes)?.number >= self.number {
                    return Ok(true);
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(false);
            }
            self.done
                .wait_newer(published, (deadline - now).min(STOP_CHECK))
                .map_err(ipc_error(&self.process))?;
        }
    }

    /// Gives the next step, at `time_ns`; the process ticks once.
    pub fn step(&mut self, time_ns: u64) -> Result<(), LockstepError> {
        self.number += 1;
        let step = Step {
            number: self.number,
            time_ns,
        };
        self.step
            .publish(&step.encode())
            .map_err(ipc_error(&self.process))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_ticks_once_per_step_and_reports_each() {
        let _turn = crate::clock::TEST_CLOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let lockstep = Lockstep::create("test", 5_000).unwrap();
        let stop = AtomicBool::new(false);
        let mut leader = lockstep.leader("test").unwrap();
        assert!(!leader.wait_done(Duration::from_millis(10)).unwrap());
        std::thread::scope(|scope| {
            let follower = scope.spawn(|| {
                let mut follower = lockstep.follower("test").unwrap();
                assert_eq!(crate::clock::now_ns(), 5_000);
                // Not ready before its first wait (the modules are built in between).
                std::thread::sleep(Duration::from_millis(20));
                let mut times = Vec::new();
                while follower.wait(&stop).unwrap() {
                    times.push(crate::clock::now_ns());
                    follower.done().unwrap();
                }
                times
            });
            assert!(leader.wait_done(Duration::from_secs(10)).unwrap());
            for time in [6_000, 7_000, 9_000] {
                leader.step(time).unwrap();
                assert!(leader.wait_done(Duration::from_secs(10)).unwrap());
            }
            stop.store(true, Ordering::Relaxed);
            assert_eq!(follower.join().unwrap(), vec![6_000, 7_000, 9_000]);
        });
        // A step nobody carries out is not reported done.
        leader.step(10_000).unwrap();
        assert!(!leader.wait_done(Duration::from_millis(50)).unwrap());
        // A new follower (a restarted process) carries out the pending step.
        let mut follower = lockstep.follower("test").unwrap();
        assert!(follower.wait(&AtomicBool::new(false)).unwrap());
        assert_eq!(crate::clock::now_ns(), 10_000);
        follower.done().unwrap();
        assert!(leader.wait_done(Duration::from_secs(1)).unwrap());
    }
}
