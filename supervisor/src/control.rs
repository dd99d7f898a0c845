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

use anyhow::{bail, Context, Result};
use ipc::health::monotonic_ns;
use serde::{Deserialize, Serialize};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
}

impl Request {
    /// The command's name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Status => "status",
            Request::Restart { .. } => "restart",
            Request::Stop => "stop",
            Request::Segments => "segments",
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
    /// The counters as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        serde_json::json!({
            "open": self.open.load(Ordering::Relaxed),
            "requests": get(&self.requests),
            "refused_busy": get(&self.busy),
            "evicted_idle": get(&self.evicted),
            "refused_oversized": get(&self.oversized),
            "timed_out": get(&self.timed_out),
            "malformed": get(&self.malformed),
            "expired": get(&self.expired),
        })
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
                move || accept_loop(listener, limits, sender, counters, stop)
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

/// At most one log line per second and kind for what a client can trigger at will.
#[derive(Debug, Default)]
struct RateLimitedLog {
    /// Kind → when it was last logged, how many were left out since.
    kinds: std::collections::BTreeMap<&'static str, (Instant, u64)>,
}

impl RateLimitedLog {
    fn warn(&mut self, kind: &'static str, message: std::fmt::Arguments<'_>) {
        let now = Instant::now();
        match self.kinds.get_mut(kind) {
            Some((last, suppressed)) if now.duration_since(*last) < Duration::from_secs(1) => {
                *suppressed += 1;
            }
            entry => {
                let suppressed = entry.map_or(0, |(_, suppressed)| *suppressed);
                if suppressed > 0 {
                    tracing::warn!(
                        "control socket: {message} ({suppressed} more since the last report)"
                    );
                } else {
                    tracing::warn!("control socket: {message}");
                }
                self.kinds.insert(kind, (now, 0));
            }
        }
    }
}

/// The connections still sending their request line, oldest first.
#[derive(Debug, Default)]
struct Sending {
    next_id: u64,
    connections: std::collections::VecDeque<(u64, UnixStream)>,
}

impl Sending {
    fn add(&mut self, stream: &UnixStream) -> Option<u64> {
        let clone = stream.try_clone().ok()?;
        self.next_id += 1;
        self.connections.push_back((self.next_id, clone));
        Some(self.next_id)
    }

    fn remove(&mut self, id: u64) {
        self.connections.retain(|(entry, _)| *entry != id);
    }

    /// Closes the connection that has been sending longest; whether there was one.
    fn evict_oldest(&mut self) -> bool {
        let Some((_, oldest)) = self.connections.pop_front() else {
            return false;
        };
        let _ = oldest.set_nonblocking(true);
        let reply = serde_json::json!({
            "error": "closed: no complete request line while other clients waited",
        });
        let _ = (&oldest).write_all(format!("{reply}\n").as_bytes());
        let _ = oldest.shutdown(std::net::Shutdown::Both);
        true
    }
}

fn accept_loop(
    listener: UnixListener,
    limits: Limits,
    sender: SyncSender<Incoming>,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
) {
    let log = Arc::new(std::sync::Mutex::new(RateLimitedLog::default()));
    let sending = Arc::new(std::sync::Mutex::new(Sending::default()));
    while !stop.load(Ordering::Relaxed) {
        let mut fds = [rustix::event::PollFd::new(
            &listener,
            rustix::event::PollFlags::IN,
        )];
        let timeout = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 50_000_000,
        };
        let _ = rustix::event::poll(&mut fds, Some(&timeout));
        loop {
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                Err(error) => {
                    // Out of descriptors, say: the listener stays readable, so do not spin.
                    lock(&log).warn("accept", format_args!("cannot accept: {error}"));
                    std::thread::sleep(Duration::from_millis(10));
                    break;
                }
            };
            if counters.open.load(Ordering::Relaxed) >= limits.connections {
                if lock(&sending).evict_oldest() {
                    counters.evicted.fetch_add(1, Ordering::Relaxed);
                    lock(&log).warn(
                        "evicted",
                        format_args!(
                            "{} connections open: closed the one idle longest",
                            limits.connections
                        ),
                    );
                } else {
                    counters.busy.fetch_add(1, Ordering::Relaxed);
                    refuse_busy(&stream, limits.connections);
                    lock(&log).warn(
                        "busy",
                        format_args!("refused a connection: {} already open", limits.connections),
                    );
                    continue;
                }
            }
            let id = lock(&sending).add(&stream);
            counters.open.fetch_add(1, Ordering::Relaxed);
            let spawned = std::thread::Builder::new()
                .name("control-client".to_owned())
                .stack_size(128 * 1024)
                .spawn({
                    let sender = sender.clone();
                    let counters = counters.clone();
                    let log = log.clone();
                    let sending = sending.clone();
                    move || {
                        let done_sending = || {
                            if let Some(id) = id {
                                lock(&sending).remove(id);
                            }
                        };
                        serve(&stream, limits, &sender, &counters, &log, done_sending);
                        counters.open.fetch_sub(1, Ordering::Relaxed);
                    }
                });
            if let Err(error) = spawned {
                if let Some(id) = id {
                    lock(&sending).remove(id);
                }
                counters.open.fetch_sub(1, Ordering::Relaxed);
                lock(&log).warn(
                    "thread",
                    format_args!("cannot start a client thread: {error}"),
                );
            }
        }
    }
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Tells a connection over the cap so, without waiting on it.
fn refuse_busy(stream: &UnixStream, connections: usize) {
    let _ = stream.set_nonblocking(true);
    let reply = serde_json::json!({
        "error": format!("busy: {connections} control connections are open; try again"),
    });
    let _ = (&*stream).write_all(format!("{reply}\n").as_bytes());
}

/// Why a connection brought no request.
#[derive(Debug)]
enum ReadFailure {
    /// Closed without a word (another `cortex run` probing whether this one is alive).
    Silent,
    /// A reply for the client and the counter to count it in.
    Refused(String, Refusal),
}

/// The kinds of refused request lines.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    Oversized,
    TimedOut,
    Malformed,
}

impl Refusal {
    fn counter(self, counters: &Counters) -> &AtomicU64 {
        match self {
            Refusal::Oversized => &counters.oversized,
            Refusal::TimedOut => &counters.timed_out,
            Refusal::Malformed => &counters.malformed,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Refusal::Oversized => "oversized",
            Refusal::TimedOut => "timed out",
            Refusal::Malformed => "malformed",
        }
    }
}

/// Reads one request line within the deadline and the size cap.
fn read_request(stream: &UnixStream, limits: Limits) -> Result<Envelope, ReadFailure> {
    let deadline = Instant::now() + limits.request_time;
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(timed_out(limits, line.len()));
        }
        let _ = stream.set_read_timeout(Some(remaining));
        match (&*stream).read(&mut chunk) {
            Ok(0) if line.is_empty() => return Err(ReadFailure::Silent),
            Ok(0) => break,
            Ok(count) => {
                let end = chunk[..count].iter().position(|&b| b == b'\n');
                line.extend_from_slice(&chunk[..end.unwrap_or(count)]);
                if line.len() > limits.request_bytes {
                    return Err(ReadFailure::Refused(
                        format!(
                            "request longer than {} bytes; not read further",
                            limits.request_bytes
                        ),
                        Refusal::Oversized,
                    ));
                }
                if end.is_some() {
                    break;
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(timed_out(limits, line.len()))
            }
            Err(error) => {
                return Err(ReadFailure::Refused(
                    format!("reading the request: {error}"),
                    Refusal::Malformed,
                ))
            }
        }
    }
    parse_line(&line)
}

fn timed_out(limits: Limits, received: usize) -> ReadFailure {
    ReadFailure::Refused(
        format!(
            "no complete request line within {:?} ({received} bytes received)",
            limits.request_time
        ),
        Refusal::TimedOut,
    )
}

fn parse_line(line: &[u8]) -> Result<Envelope, ReadFailure> {
    let malformed = |message: String| ReadFailure::Refused(message, Refusal::Malformed);
    let text = std::str::from_utf8(line).map_err(|error| {
        malformed(format!(
            "not a request: not UTF-8 at byte {}",
            error.valid_up_to()
        ))
    })?;
    serde_json::from_str(text.trim()).map_err(|error| {
        let excerpt: String = text.trim().chars().take(80).collect();
        malformed(format!(
            "not a request ({error}): {excerpt:?}; expected e.g. {{\"command\":\"status\"}}"
        ))
    })
}

fn serve(
    stream: &UnixStream,
    limits: Limits,
    sender: &SyncSender<Incoming>,
    counters: &Counters,
    log: &std::sync::Mutex<RateLimitedLog>,
    done_sending: impl FnOnce(),
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_write_timeout(Some(limits.write_time));
    let arrived = monotonic_ns();
    let read = read_request(stream, limits);
    done_sending();
    let envelope = match read {
        Ok(envelope) => envelope,
        Err(ReadFailure::Silent) => return,
        Err(ReadFailure::Refused(message, refusal)) => {
            refusal.counter(counters).fetch_add(1, Ordering::Relaxed);
            lock(log).warn(refusal.name(), format_args!("{message}"));
            let _ = reply(stream, &serde_json::json!({ "error": message }));
            return;
        }
    };
    let deadline_ns = envelope
        .deadline_ns
        .unwrap_or(arrived + DEFAULT_TIMEOUT.as_nanos() as u64);
    let (reply_sender, reply_receiver) = mpsc::sync_channel(1);
    counters.requests.fetch_add(1, Ordering::Relaxed);
    let incoming = Incoming {
        request: envelope.request,
        deadline_ns,
        reply: reply_sender,
        client: stream.try_clone().ok(),
    };
    if sender.send(incoming).is_err() {
        let _ = reply(
            stream,
            &serde_json::json!({ "error": "the supervisor is shutting down" }),
        );
        return;
    }
    let wait = Duration::from_nanos(deadline_ns.saturating_sub(monotonic_ns()))
        .saturating_add(REPLY_GRACE)
        .min(LONGEST_WAIT);
    let Ok(answer) = reply_receiver.recv_timeout(wait) else {
        return;
    };
    let result = if answer.fds.is_empty() {
        reply(stream, &answer.value)
    } else {
        let fds: Vec<BorrowedFd<'_>> = answer.fds.iter().map(|fd| fd.as_fd()).collect();
        reply_with_fds(stream, &answer.value, &fds)
    };
    if let Err(error) = result {
        tracing::debug!("control reply failed: {error:#}");
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

/// A connection with a request sent; returns the stream and how long to wait for the reply.
fn send(run_dir: &Path, request: &Request) -> Result<(UnixStream, Duration)> {
    let path = crate::paths::control_socket(run_dir);
    let mut stream = UnixStream::connect(&path).with_context(|| {
        format!(
            "no running instance answers on {} (start one with `cortex run`)",
            path.display()
        )
    })?;
    let envelope = Envelope {
        request: request.clone(),
        deadline_ns: Some(monotonic_ns() + DEFAULT_TIMEOUT.as_nanos() as u64),
    };
    let wait = DEFAULT_TIMEOUT + REPLY_GRACE;
    stream.set_read_timeout(Some(wait))?;
    stream.set_write_timeout(Some(DEFAULT_TIMEOUT))?;
    stream
        .write_all(format!("{}\n", serde_json::to_string(&envelope)?).as_bytes())
        .context("sending the request")?;
    Ok((stream, wait))
}

fn no_reply(request: &Request, error: std::io::Error) -> anyhow::Error {
    if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
        anyhow::anyhow!(
            "the supervisor did not answer `{}` within {DEFAULT_TIMEOUT:?} (stopped or \
             overloaded?); the request has expired and will not be carried out",
            request.name()
        )
    } else {
        anyhow::Error::new(error).context("reading the reply")
    }
}

/// Sends a request and returns the JSON reply.
pub fn request(run_dir: &Path, request: &Request) -> Result<serde_json::Value> {
    let (stream, _) = send(run_dir, request)?;
    let mut line = Vec::new();
    let mut limited = (&stream).take(16 * 1024 * 1024);
    let mut byte = [0u8; 4096];
    loop {
        match limited.read(&mut byte) {
            Ok(0) => break,
            Ok(count) => {
                line.extend_from_slice(&byte[..count]);
                if line.contains(&b'\n') {
                    break;
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(no_reply(request, error)),
        }
    }
    if line.is_empty() {
        bail!("the supervisor closed the connection without a reply");
    }
    let value: serde_json::Value = serde_json::from_slice(line.trim_ascii())
        .with_context(|| format!("a malformed reply: {:?}", String::from_utf8_lossy(&line)))?;
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        bail!("{error}");
    }
    Ok(value)
}

/// Asks for the segments and receives their descriptors.
pub fn segments(run_dir: &Path) -> Result<(SegmentList, Vec<OwnedFd>)> {
    let (stream, wait) = send(run_dir, &Request::Segments)?;
    let mut ready = [rustix::event::PollFd::new(
        &stream,
        rustix::event::PollFlags::IN,
    )];
    let timeout = rustix::time::Timespec {
        tv_sec: wait.as_secs() as i64,
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    if rustix::event::poll(&mut ready, Some(&timeout)).unwrap_or(0) == 0 {
        return Err(no_reply(
            &Request::Segments,
            std::io::Error::from(ErrorKind::TimedOut),
        ));
    }
    let mut buffer = vec![0u8; 64 * 1024];
    let (length, fds) = ipc::fd::recv_fds(&stream, &mut buffer)?;
    let text = buffer[..length].trim_ascii();
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(text) {
        if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
            bail!("{error}");
        }
    }
    let list: SegmentList = serde_json::from_slice(text).with_context(|| {
        format!(
            "a malformed segment list: {:?}",
            String::from_utf8_lossy(&buffer[..length])
        )
    })?;
    if fds.len() != list.channels.len() + 1 {
        bail!(
            "the supervisor sent {} descriptors for {} channels and the health board",
            fds.len(),
            list.channels.len()
        );
    }
    Ok((list, fds))
}

#[cfg(test)]
mod tests;
