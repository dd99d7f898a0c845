//! Serving the control socket: the accept thread, one thread per connection, and reading a
//! request line within its deadline and size cap.

use super::{
    reply, reply_with_fds, Counters, Envelope, Incoming, Limits, DEFAULT_TIMEOUT, LONGEST_WAIT,
    REPLY_GRACE,
};
use ipc::health::monotonic_ns;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

pub(super) fn accept_loop(
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
