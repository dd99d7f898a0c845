//! The tick budget: a thread that interrupts a tick (or a load) running past its deadline by
//! raising `robot.TickTimeout` in the behaviour's thread.
//!
//! The exception is set with `PyThreadState_SetAsyncExc`, which needs the GIL: the watchdog asks
//! for it, the interpreter hands it over at its next switch check (every 5 ms by default), and
//! the behaviour's thread raises the exception at its next bytecode. A long call into C that
//! keeps the GIL (a huge `sum()`, a blocking C library) cannot be interrupted this way; the
//! supervisor's freeze watchdog restarts `cognition` then.
//!
//! A blocking call that releases the GIL (`time.sleep(1000)`, a read) does not look at
//! asynchronous exceptions. When the watched thread is the interpreter's main thread (always so
//! in `cognition`), the watchdog therefore sends it a signal instead (`SIGUSR2`, see
//! `loader.py`): the call returns with `EINTR`, CPython runs the Python-level handler, and the
//! handler raises `robot.TickTimeout` if the watchdog still wants it (a flag set and cleared
//! with the GIL held). A pure-Python loop sees the signal at its next bytecode in the same way.
//!
//! Races are excluded with the GIL: the behaviour's thread marks its tick as running and as
//! finished while it holds the GIL, and the watchdog checks the mark while it holds the GIL. An
//! exception that was set but not yet raised when the tick finished is cleared before the GIL
//! is given up, so it can never hit the next tick.

use pyo3::ffi;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct State {
    tick: u64,
    deadline: Option<Instant>,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    /// The id of the tick now running, 0 for none. Written only with the GIL held.
    running: AtomicU64,
    /// The Python thread id of the behaviour's thread.
    thread_ident: AtomicU64,
    /// The id of the last tick that was interrupted.
    interrupted: AtomicU64,
    exception: Py<PyAny>,
    signal: Option<SignalInterrupt>,
}

/// Interrupting the main thread with a signal (see the module documentation).
pub(crate) struct SignalInterrupt {
    /// The Python thread id of the main thread (the only one that runs signal handlers).
    pub(crate) thread: u64,
    /// `loader.interrupt_pending`, a one-element list.
    pub(crate) pending: Py<PyAny>,
    /// `signal.pthread_kill`.
    pub(crate) pthread_kill: Py<PyAny>,
    /// `loader.INTERRUPT_SIGNAL`.
    pub(crate) signal: Py<PyAny>,
}

impl SignalInterrupt {
    /// From the loader module, if its `harden` installed the handler.
    pub(crate) fn from_loader(loader: &Bound<'_, PyAny>) -> PyResult<Option<SignalInterrupt>> {
        let py = loader.py();
        let thread: u64 = loader.getattr("interrupt_thread")?.extract()?;
        if thread == 0 {
            return Ok(None);
        }
        Ok(Some(SignalInterrupt {
            thread,
            pending: loader.getattr("interrupt_pending")?.unbind(),
            pthread_kill: py.import("signal")?.getattr("pthread_kill")?.unbind(),
            signal: loader.getattr("INTERRUPT_SIGNAL")?.unbind(),
        }))
    }

    fn set_pending(&self, py: Python<'_>, pending: bool) {
        if let Err(error) = self.pending.bind(py).set_item(0, pending) {
            tracing::error!("tick watchdog: {error}");
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The watchdog thread; stopped and joined when dropped.
pub(crate) struct Watchdog {
    shared: Arc<Shared>,
    next_tick: u64,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Watchdog {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Watchdog")
    }
}

/// A running, watched tick; [`Armed::disarm`] ends it.
#[must_use]
pub(crate) struct Armed {
    tick: u64,
}

impl Watchdog {
    /// Starts the thread; `exception` is the exception type to raise; `signal`, if given, is
    /// used for the main thread.
    pub(crate) fn new(
        exception: Py<PyAny>,
        signal: Option<SignalInterrupt>,
    ) -> std::io::Result<Watchdog> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                tick: 0,
                deadline: None,
                stop: false,
            }),
            wake: Condvar::new(),
            running: AtomicU64::new(0),
            thread_ident: AtomicU64::new(0),
            interrupted: AtomicU64::new(0),
            exception,
            signal,
        });
        let thread = std::thread::Builder::new()
            .name("behaviour-watchdog".into())
            .spawn({
                let shared = shared.clone();
                move || watch(&shared)
            })?;
        Ok(Watchdog {
            shared,
            next_tick: 0,
            thread: Some(thread),
        })
    }

    /// Watches the code that runs from now until [`Armed::disarm`] on this thread, with the GIL
    /// held throughout. A zero budget watches nothing.
    pub(crate) fn arm(&mut self, _py: Python<'_>, budget: Duration) -> Armed {
        self.next_tick += 1;
        let tick = self.next_tick;
        // SAFETY: the caller holds the GIL (`_py`); the function only reads the thread id.
        let ident = unsafe { ffi::PyThread_get_thread_ident() };
        self.shared
            .thread_ident
            .store(ident as u64, Ordering::SeqCst);
        self.shared.running.store(tick, Ordering::SeqCst);
        if !budget.is_zero() {
            let mut state = self.shared.lock();
            state.tick = tick;
            state.deadline = Some(Instant::now() + budget);
            drop(state);
            self.shared.wake.notify_one();
        }
        Armed { tick }
    }

    /// Ends the watched section; returns whether it was interrupted.
    pub(crate) fn disarm(&mut self, py: Python<'_>, armed: Armed) -> bool {
        self.shared.running.store(0, Ordering::SeqCst);
        let interrupted = self.shared.interrupted.load(Ordering::SeqCst) == armed.tick;
        let ident = self.shared.thread_ident.load(Ordering::SeqCst);
        let signal = self
            .shared
            .signal
            .as_ref()
            .filter(|signal| signal.thread == ident);
        if let (true, Some(signal)) = (interrupted, signal) {
            // The handler may still be pending: run it now, while it can only decline.
            signal.set_pending(py, false);
            if let Err(error) = py.check_signals() {
                tracing::warn!("a signal handler raised after the watched section: {error}");
            }
        } else if interrupted {
            // SAFETY: the GIL is held (`py`); a null exception clears a pending asynchronous
            // exception of that thread (this thread), if it was not raised yet.
            unsafe {
                ffi::PyThreadState_SetAsyncExc(ident as std::ffi::c_long, std::ptr::null_mut());
            }
        }
        let mut state = self.shared.lock();
        if state.tick == armed.tick {
            state.deadline = None;
        }
        interrupted
    }
}

fn watch(shared: &Shared) {
    let mut state = shared.lock();
    loop {
        if state.stop {
            return;
        }
        let Some(deadline) = state.deadline else {
            state = shared
                .wake
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            continue;
        };
        let now = Instant::now();
        if now < deadline {
            state = shared
                .wake
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
            continue;
        }
        let tick = state.tick;
        state.deadline = None;
        // Never wait for the GIL while holding the lock: the behaviour's thread takes the lock
        // with the GIL held.
        drop(state);
        Python::attach(|py| {
            if shared.running.load(Ordering::SeqCst) != tick {
                return;
            }
            let ident = shared.thread_ident.load(Ordering::SeqCst);
            shared.interrupted.store(tick, Ordering::SeqCst);
            if let Some(signal) = shared.signal.as_ref().filter(|s| s.thread == ident) {
                signal.set_pending(py, true);
                let sent = signal
                    .pthread_kill
                    .bind(py)
                    .call1((ident, signal.signal.bind(py)));
                if let Err(error) = sent {
                    tracing::error!("tick watchdog: signalling the behaviour's thread: {error}");
                }
            } else {
                // SAFETY: the GIL is held; the exception is a live exception type owned by
                // `shared`; the thread id is the behaviour's thread, which is inside the
                // watched section (checked under the GIL just above).
                unsafe {
                    ffi::PyThreadState_SetAsyncExc(
                        ident as std::ffi::c_long,
                        shared.exception.bind(py).as_ptr(),
                    );
                }
            }
        });
        state = shared.lock();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
