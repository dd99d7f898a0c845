//! The accept loop and the bounds of the server: one thread accepts, a thread per connection
//! serves it (HTTP reply or WebSocket session), at most [`Limits::connections`] at once. A
//! connection beyond that gets `503 Service Unavailable` and is closed at once.
//!
//! ```text
//! TcpListener ─accept─▶ over the limit? ─yes─▶ 503, close
//!                           │ no
//!                           ▼
//!                connection thread: read the head (deadline, cap)
//!                   ├─ GET / /app.js /style.css     → the web view's files
//!                   ├─ GET /image/CHANNEL.jpg       → one JPEG
//!                   └─ Upgrade: websocket (/ws)     → session (requests, subscriptions)
//! ```

use crate::http;
use crate::session;
use crate::sources::Sources;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The bounds of the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections served at once (HTTP and WebSocket); more get 503.
    pub connections: usize,
    /// The longest HTTP request head, bytes.
    pub head_bytes: usize,
    /// Time from accepting a connection to its complete request head.
    pub head_timeout: Duration,
    /// The largest WebSocket message (and frame) a client may send, bytes.
    pub message_bytes: usize,
    /// Messages waiting for a slow client; beyond this the oldest is dropped.
    pub queue_messages: usize,
    /// Bytes waiting for a slow client; beyond this the oldest message is dropped.
    pub queue_bytes: usize,
    /// A client that takes nothing for this long is closed.
    pub write_stall: Duration,
    /// How often a session looks at its subscriptions.
    pub poll: Duration,
    /// How long a subscription's watch lease runs (renewed at half of it).
    pub lease: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 32,
            head_bytes: 8 * 1024,
            head_timeout: Duration::from_secs(5),
            message_bytes: 64 * 1024,
            queue_messages: 64,
            queue_bytes: 4 * 1024 * 1024,
            write_stall: Duration::from_secs(10),
            poll: Duration::from_millis(5),
            lease: Duration::from_secs(1),
        }
    }
}

/// What the server counted since start.
#[derive(Debug, Default)]
pub struct Counters {
    /// Connections accepted and served.
    pub accepted: AtomicU64,
    /// Connections refused with 503.
    pub refused_busy: AtomicU64,
    /// HTTP requests answered with an error status.
    pub bad_http: AtomicU64,
    /// WebSocket sessions closed because of a bad request or frame.
    pub closed_for_errors: AtomicU64,
    /// Messages dropped for slow clients.
    pub dropped: AtomicU64,
}

/// What every connection thread shares.
pub struct Shared {
    /// What is served.
    pub sources: Sources,
    /// The bounds.
    pub limits: Limits,
    /// The counters.
    pub counters: Counters,
    /// Connections open now.
    pub open: AtomicUsize,
    /// Set to end every session.
    pub stop: AtomicBool,
    /// The processes' debug outputs: their subscribers over every session.
    pub outputs: crate::outputs::OutputLink,
    /// The last status reply and when it was fetched (several clients, one request).
    status_cache: Mutex<Option<(Instant, Result<serde_json::Value, String>)>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Shared")
            .field("limits", &self.limits)
            .field("open", &self.open)
            .finish()
    }
}

/// How old a cached status may be.
const STATUS_CACHE: Duration = Duration::from_millis(250);

impl Shared {
    /// The instance's status, fetched at most every `STATUS_CACHE`.
    pub fn status(&self) -> Result<serde_json::Value, String> {
        let mut cache = self
            .status_cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((fetched, status)) = cache.as_ref() {
            if fetched.elapsed() < STATUS_CACHE {
                return status.clone();
            }
        }
        let status = self.sources.control.status();
        *cache = Some((Instant::now(), status.clone()));
        status
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The listener refused a setting or has no address.
    #[error("the debug link's listening socket: {0}")]
    Listener(#[source] std::io::Error),
    /// No thread could be started.
    #[error("starting the debug link's accept thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    address: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves `sources` on `listener` (already bound: the supervisor binds it, so that its port
    /// is known before this process starts and outlives its restarts).
    pub fn start(
        listener: TcpListener,
        sources: Sources,
        limits: Limits,
    ) -> Result<Server, StartError> {
        listener
            .set_nonblocking(true)
            .map_err(StartError::Listener)?;
        let address = listener.local_addr().map_err(StartError::Listener)?;
        let shared = Arc::new(Shared {
            sources,
            limits,
            counters: Counters::default(),
            open: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            outputs: crate::outputs::OutputLink::default(),
            status_cache: Mutex::new(None),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("debug-accept".into())
                .spawn(move || accept_loop(&listener, &shared))
                .map_err(StartError::Thread)?
        };
        Ok(Server {
            address,
            shared,
            accept: Some(accept),
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// What it shares with its connections (counters, limits).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Stops accepting and ends every session (each closes within a poll interval).
    pub fn stop(mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.shared.open.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// A connection refused or answered, waiting a moment for the client to read the reply before
/// it is closed (closing a socket with unread input resets it, and the reply may be lost).
struct Lingering {
    stream: TcpStream,
    until: Instant,
}

const LINGER: Duration = Duration::from_millis(500);
/// A client thread's stack.
const CLIENT_STACK_BYTES: usize = 512 * 1024;
const MAX_LINGERING: usize = 256;

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut lingering: Vec<Lingering> = Vec::new();
    let mut last_error_log: Option<Instant> = None;
    while !shared.stop.load(Ordering::Acquire) {
        let mut accepted_any = false;
        loop {
            match listener.accept() {
                Ok((stream, peer)) => {
                    accepted_any = true;
                    accept_one(stream, peer, shared, &mut lingering);
                }
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(error) => {
                    // Out of descriptors, say: log at a limited rate and go on.
                    if last_error_log.is_none_or(|at| at.elapsed() > Duration::from_secs(10)) {
                        tracing::warn!("debug link: accept failed: {error}");
                        last_error_log = Some(Instant::now());
                    }
                    break;
                }
            }
        }
        drain_lingering(&mut lingering);
        if !accepted_any {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

fn drain_lingering(lingering: &mut Vec<Lingering>) {
    let now = Instant::now();
    let mut sink = [0u8; 4096];
    lingering.retain_mut(|entry| {
        if now >= entry.until {
            return false;
        }
        loop {
            match entry.stream.read(&mut sink) {
                Ok(0) => return false,
                Ok(_) => continue,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return true,
                Err(_) => return false,
            }
        }
    });
}

fn accept_one(
    stream: TcpStream,
    peer: SocketAddr,
    shared: &Arc<Shared>,
    lingering: &mut Vec<Lingering>,
) {
    // Accepted sockets do not inherit the listener's non-blocking mode on Linux; make sure.
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_nodelay(true);
    let limit = shared.limits.connections;
    if shared.open.load(Ordering::Acquire) >= limit {
        shared.counters.refused_busy.fetch_add(1, Ordering::Relaxed);
        refuse_busy(stream, limit, lingering);
        return;
    }
    shared.open.fetch_add(1, Ordering::AcqRel);
    shared.counters.accepted.fetch_add(1, Ordering::Relaxed);
    let for_thread = Arc::clone(shared);
    let spawned = std::thread::Builder::new()
        .name("debug-client".into())
        // Small stacks: 32 clients stay well inside the process's memory limit (thread stacks
        // count towards RLIMIT_DATA).
        .stack_size(CLIENT_STACK_BYTES)
        .spawn(move || {
            let _guard = OpenGuard(&for_thread.open);
            serve_connection(stream, peer, &for_thread);
        });
    if let Err(error) = spawned {
        shared.open.fetch_sub(1, Ordering::AcqRel);
        tracing::warn!("debug link: no thread for a client ({peer}): {error}");
    }
}

fn refuse_busy(mut stream: TcpStream, limit: usize, lingering: &mut Vec<Lingering>) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(50)));
    http::respond_error(
        &mut stream,
        "503 Service Unavailable",
        &format!("the debug link serves at most {limit} connections at once; try again later"),
    );
    let _ = stream.shutdown(Shutdown::Write);
    if stream.set_nonblocking(true).is_ok() {
        if lingering.len() >= MAX_LINGERING {
            lingering.remove(0);
        }
        lingering.push(Lingering {
            stream,
            until: Instant::now() + LINGER,
        });
    }
}

/// Counts a connection while its thread runs.
struct OpenGuard<'a>(&'a AtomicUsize);

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Closes after a reply: no more writes, then a short wait for the client's unread bytes so
/// that the reply is not lost to a reset.
pub fn close_gracefully(mut stream: TcpStream) {
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let deadline = Instant::now() + LINGER;
    let mut sink = [0u8; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

fn serve_connection(mut stream: TcpStream, peer: SocketAddr, shared: &Shared) {
    let limits = shared.limits;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let _ = stream.set_write_timeout(Some(limits.write_stall));
    let deadline = Instant::now() + limits.head_timeout;
    let head = match http::read_head(&mut stream, limits.head_bytes, deadline) {
        Ok(head) => head,
        Err(error) => {
            tracing::debug!("debug link: {peer}: {error}");
            if let Some(status) = error.status() {
                shared.counters.bad_http.fetch_add(1, Ordering::Relaxed);
                http::respond_error(&mut stream, status, &error.to_string());
                close_gracefully(stream);
            }
            return;
        }
    };
    if head.is_upgrade() {
        match http::upgrade_response(&head) {
            Ok(response) => {
                if stream.write_all(response.as_bytes()).is_err() {
                    return;
                }
                session::run(shared, stream, head.rest);
            }
            Err(message) => {
                shared.counters.bad_http.fetch_add(1, Ordering::Relaxed);
                http::respond_error(&mut stream, "400 Bad Request", &message);
                close_gracefully(stream);
            }
        }
        return;
    }
    if head.method != "GET" && head.method != "HEAD" {
        shared.counters.bad_http.fetch_add(1, Ordering::Relaxed);
        http::respond_error(
            &mut stream,
            "405 Method Not Allowed",
            &format!("{} is not served here: only GET", head.method),
        );
    } else if http::serve_file(&mut stream, &head.path) {
    } else if let Some(channel) = head
        .path
        .strip_prefix("/image/")
        .and_then(|rest| rest.strip_suffix(".jpg"))
    {
        crate::snapshot::serve(&mut stream, shared, channel, &head);
    } else {
        shared.counters.bad_http.fetch_add(1, Ordering::Relaxed);
        http::respond_error(
            &mut stream,
            "404 Not Found",
            &format!(
                "nothing at {}: the web view is at /, the WebSocket at /ws, one camera image at \
                 /image/CHANNEL.jpg",
                head.path
            ),
        );
    }
    close_gracefully(stream);
}
