//! The control socket of a running instance (`control.sock` in the run directory, mode 0600):
//! one JSON request line per connection, one JSON reply; the `segments` reply carries the
//! shared-memory descriptors (`SCM_RIGHTS`) so that tools read representations directly.
//!
//! The socket is served off the supervision path: an accept thread hands each connection to a
//! thread of its own, at most [`Limits::connections`] at a time, each with a deadline for the
//! whole request line and a cap on its length. When all are taken, the connection that has been
//! waiting longest for its request line is closed to make room (a tool sends its line at once;
//! an idle client cannot lock people out); if none is still sending, the newcomer gets `busy`.
//! Only a complete, parsed request reaches the supervision loop, through a channel it polls
//! without waiting:
//!
//! ```text
//! client ──line──▶ connection thread ──Incoming──▶ supervision loop (try_recv, never blocks)
//!        ◀─reply── (write timeout)     ◀──Reply───
//! ```
//!
//! Every request carries the client's deadline (`deadline_ns`, `CLOCK_MONOTONIC`, the same
//! clock in every process of the machine). The client waits a little longer than that for the
//! reply; the supervisor refuses a request whose deadline has passed when it would act on it,
//! so a request the client gave up on (the supervisor was stopped, say) never takes effect
//! afterwards. A request without a deadline gets [`DEFAULT_TIMEOUT`] from its arrival, and any
//! request whose client has closed its connection before the supervisor acts is refused too.

mod client;
mod serve;

pub use client::{request, segments, status};

use anyhow::{bail, Context, Result};
use ipc::health::monotonic_ns;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use supervisor::status::{ControlCounters, Status};

/// How long a client waits for the supervisor to act (its request's deadline).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// How much longer than the deadline a client waits for the reply to arrive.
const REPLY_GRACE: Duration = Duration::from_secs(1);
/// The longest a connection thread waits for the supervision loop, whatever the deadline says.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// What a tool asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Request {
    /// The status of every process.
    Status,
    /// Restart one process.
    Restart {
        /// Its name.
        process: String,
    },
    /// Stop the instance.
    Stop,
    /// The channel descriptors and the health board.
    Segments,
    /// Check the live configuration folder and, if it is good, run it (`cortex reload`).
    Reload,
    /// Change one module parameter while it runs (`cortex set MODULE.KEY=VALUE`).
    Set {
        /// `MODULE.KEY=VALUE`.
        assignment: String,
    },
    /// A module's parameters and where each came from (`cortex params MODULE`).
    Params {
        /// The module.
        module: String,
    },
}

impl Request {
    /// The command's name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Status => "status",
            Request::Restart { .. } => "restart",
            Request::Stop => "stop",
            Request::Segments => "segments",
            Request::Reload => "reload",
            Request::Set { .. } => "set",
            Request::Params { .. } => "params",
        }
    }
}

/// A request line: the request and the client's deadline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Envelope {
    #[serde(flatten)]
    request: Request,
    /// `CLOCK_MONOTONIC` nanoseconds after which the client no longer waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline_ns: Option<u64>,
}

/// The reply to [`Request::Segments`]; the descriptors follow in this order: the health board,
/// then one per channel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SegmentList {
    /// Channel names with their representation, in descriptor order.
    pub channels: Vec<(String, String)>,
}

/// The bounds of the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections served at once; more are answered `busy` and closed.
    pub connections: usize,
    /// The longest request line, bytes.
    pub request_bytes: usize,
    /// Time from accepting a connection to its complete request line.
    pub request_time: Duration,
    /// Time a reply may take to write.
    pub write_time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 64,
            request_bytes: 64 * 1024,
            request_time: Duration::from_secs(2),
            write_time: Duration::from_secs(1),
        }
    }
}

/// What happened on the socket since start, for `cortex status`.
#[derive(Debug, Default)]
pub struct Counters {
    /// Connections open now.
    pub open: AtomicUsize,
    /// Requests handed to the supervisor.
    pub requests: AtomicU64,
    /// Connections refused because [`Limits::connections`] were open and none was idle.
    pub busy: AtomicU64,
    /// Idle connections closed to make room for a new one.
    pub evicted: AtomicU64,
    /// Request lines longer than [`Limits::request_bytes`].
    pub oversized: AtomicU64,
    /// Connections that sent no complete line within [`Limits::request_time`].
    pub timed_out: AtomicU64,
    /// Lines that were not a request.
    pub malformed: AtomicU64,
    /// Requests refused because their deadline had passed.
    pub expired: AtomicU64,
}

impl Counters {
    /// The counters now, for `status`.
    pub fn snapshot(&self) -> ControlCounters {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        ControlCounters {
            open: self.open.load(Ordering::Relaxed) as u64,
            requests: get(&self.requests),
            refused_busy: get(&self.busy),
            evicted_idle: get(&self.evicted),
            refused_oversized: get(&self.oversized),
            timed_out: get(&self.timed_out),
            malformed: get(&self.malformed),
            expired: get(&self.expired),
        }
    }
}

/// A reply from the supervision loop.
#[derive(Debug)]
pub struct Reply {
    /// The JSON line.
    pub value: serde_json::Value,
    /// Descriptors to attach (`segments`).
    pub fds: Vec<OwnedFd>,
}

impl Reply {
    /// A reply without descriptors.
    pub fn json(value: serde_json::Value) -> Reply {
        Reply {
            value,
            fds: Vec::new(),
        }
    }

    /// The reply to [`Request::Status`].
    pub fn status(status: &Status) -> Reply {
        Reply::json(serde_json::to_value(status).unwrap_or_else(
            |error| serde_json::json!({ "error": format!("encoding the status: {error}") }),
        ))
    }
}

/// A complete request for the supervision loop.
#[derive(Debug)]
pub struct Incoming {
    /// What is asked.
    pub request: Request,
    /// The client's deadline (`CLOCK_MONOTONIC` ns).
    pub deadline_ns: u64,
    reply: SyncSender<Reply>,
    /// The client's connection, to see whether it is still there.
    client: Option<UnixStream>,
}

impl Incoming {
    /// Whether the client has closed its connection (it gave up waiting). A client that only
    /// shut down its sending side (`socat`, `nc -N`) still waits for the reply.
    pub fn client_gone(&self) -> bool {
        let Some(client) = &self.client else {
            return false;
        };
        let mut fds = [rustix::event::PollFd::new(
            client,
            rustix::event::PollFlags::empty(),
        )];
        let now = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        rustix::event::poll(&mut fds, Some(&now)).unwrap_or(0) > 0
            && fds[0].revents().contains(rustix::event::PollFlags::HUP)
    }

    /// How long ago the deadline passed, if it has.
    pub fn expired_by(&self) -> Option<Duration> {
        let now = monotonic_ns();
        (now > self.deadline_ns).then(|| Duration::from_nanos(now - self.deadline_ns))
    }

    /// Sends the reply (dropped if the client's connection thread has given up).
    pub fn answer(self, reply: Reply) {
        let _ = self.reply.try_send(reply);
    }
}

/// The listening side, owned by the supervisor.
#[derive(Debug)]
pub struct ControlServer {
    path: PathBuf,
    requests: Receiver<Incoming>,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl ControlServer {
    /// Binds the socket with the default limits.
    pub fn bind(path: &Path) -> Result<ControlServer> {
        ControlServer::bind_with(path, Limits::default())
    }

    /// Binds the socket (mode 0600 from the start) and starts serving it. Refuses if another
    /// instance answers on it; removes a stale one.
    pub fn bind_with(path: &Path, limits: Limits) -> Result<ControlServer> {
        if std::fs::symlink_metadata(path).is_ok() {
            if UnixStream::connect(path).is_ok() {
                bail!(
                    "another instance is running with control socket {}",
                    path.display()
                );
            }
            std::fs::remove_file(path)
                .with_context(|| format!("removing the stale socket {}", path.display()))?;
        }
        // The socket file gets its mode at bind: no window in which others may connect, and no
        // chmod by path that a link could redirect.
        let previous = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o177));
        let bound = UnixListener::bind(path);
        rustix::process::umask(previous);
        let listener = bound.with_context(|| format!("binding {}", path.display()))?;
        listener.set_nonblocking(true)?;
        let (sender, requests) = mpsc::sync_channel(limits.connections.max(1));
        let counters = Arc::new(Counters::default());
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = std::thread::Builder::new()
            .name("control".to_owned())
            .spawn({
                let counters = counters.clone();
                let stop = stop.clone();
                move || serve::accept_loop(listener, limits, sender, counters, stop)
            })
            .context("starting the control socket's thread")?;
        Ok(ControlServer {
            path: path.to_owned(),
            requests,
            counters,
            stop,
            acceptor: Some(acceptor),
        })
    }

    /// The next complete request, without waiting.
    pub fn try_next(&self) -> Option<Incoming> {
        self.requests.try_recv().ok()
    }

    /// The next complete request, waiting at most `timeout` (the supervision loop's idle wait).
    pub fn wait_next(&self, timeout: Duration) -> Option<Incoming> {
        match self.requests.recv_timeout(timeout) {
            Ok(incoming) => Some(incoming),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(timeout);
                None
            }
        }
    }

    /// What happened on the socket.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes a JSON reply line.
pub fn reply(mut stream: &UnixStream, value: &impl Serialize) -> Result<()> {
    let mut text = serde_json::to_string(value)?;
    text.push('\n');
    stream.write_all(text.as_bytes())?;
    Ok(())
}

/// Writes a JSON reply with descriptors attached.
pub fn reply_with_fds(
    stream: &UnixStream,
    value: &impl Serialize,
    fds: &[BorrowedFd<'_>],
) -> Result<()> {
    let mut text = serde_json::to_vec(value)?;
    text.push(b'\n');
    ipc::fd::send_fds(stream, &text, fds)?;
    Ok(())
}

#[cfg(test)]
mod tests;
