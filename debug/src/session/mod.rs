//! One WebSocket client: its requests, its subscriptions and its bounded queue, on its own
//! thread. The socket is non-blocking; every [`Limits::poll`](crate::Limits) the session reads
//! what the client sent, looks at each subscribed channel's publish counter (one atomic load),
//! reads and sends what is due, and writes as much of its queue as the client takes. A slow
//! client loses its oldest queued messages (each value says how many were `dropped` so far); a
//! client that takes nothing for `write_stall` is closed. Nothing here waits for a real-time
//! process: channels are read with seqlock readers, which never block a writer.
//!
//! `requests.rs` answers the client's requests, `subscriptions.rs` sends what its
//! subscriptions are due, `outputs.rs` does the same for the processes' debug outputs.

mod outputs;
mod requests;
mod subscriptions;

use crate::protocol::{self, Format, Request};
use crate::server::Shared;
use crate::sources::ChannelSource;
use std::collections::VecDeque;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use subscriptions::Subscription;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tungstenite::{Error as WsError, Message, WebSocket};

/// How long a closing session waits for the client's close reply.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// A request that ends the session: the message for the client and the close code.
struct Fatal {
    message: String,
    code: CloseCode,
}

impl Fatal {
    fn policy(message: String) -> Fatal {
        Fatal {
            message,
            code: CloseCode::Policy,
        }
    }
}

struct Session<'a> {
    shared: &'a Shared,
    subscriptions: Vec<Subscription>,
    output_subscriptions: Vec<outputs::OutputSubscription>,
    queue: VecDeque<Message>,
    queued_bytes: usize,
    dropped: u64,
    /// tungstenite holds a frame the socket did not take yet.
    unflushed: bool,
    last_progress: Instant,
    scratch: Vec<u8>,
    jpeg_scratch: Vec<u8>,
}

/// Serves a client whose upgrade was accepted; `rest` is what it sent after its request head.
pub fn run(shared: &Shared, stream: TcpStream, rest: Vec<u8>) {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".to_owned(), |address| address.to_string());
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let limits = shared.limits;
    let config = WebSocketConfig::default()
        .max_message_size(Some(limits.message_bytes))
        .max_frame_size(Some(limits.message_bytes));
    let mut socket = WebSocket::from_partially_read(stream, rest, Role::Server, Some(config));
    let mut session = Session {
        shared,
        subscriptions: Vec::new(),
        output_subscriptions: Vec::new(),
        queue: VecDeque::new(),
        queued_bytes: 0,
        dropped: 0,
        unflushed: false,
        last_progress: Instant::now(),
        scratch: Vec::new(),
        jpeg_scratch: Vec::new(),
    };
    let outcome = session.serve(&mut socket);
    // Its debug outputs are not drawn for it any more (the last one out clears the flags).
    session.release_outputs();
    if let Some(fatal) = outcome {
        tracing::debug!("debug link: {peer}: closing: {}", fatal.message);
        shared
            .counters
            .closed_for_errors
            .fetch_add(1, Ordering::Relaxed);
        session.close_with(&mut socket, fatal);
    }
}

fn would_block(error: &WsError) -> bool {
    matches!(error, WsError::Io(io) if io.kind() == std::io::ErrorKind::WouldBlock)
}

impl Session<'_> {
    /// Runs until the client leaves (`None`) or must be closed (`Some`).
    fn serve(&mut self, socket: &mut WebSocket<TcpStream>) -> Option<Fatal> {
        let limits = self.shared.limits;
        loop {
            if self.shared.stop.load(Ordering::Acquire) {
                return Some(Fatal {
                    message: "the debug link is stopping".into(),
                    code: CloseCode::Away,
                });
            }
            let mut busy = false;
            loop {
                match socket.read() {
                    Ok(Message::Text(text)) => {
                        busy = true;
                        let request = protocol::parse_text(text.as_str());
                        if let Err(fatal) = self.handle(request) {
                            return Some(fatal);
                        }
                    }
                    Ok(Message::Binary(bytes)) => {
                        busy = true;
                        let request = protocol::parse_binary(&bytes);
                        if let Err(fatal) = self.handle(request) {
                            return Some(fatal);
                        }
                    }
                    Ok(Message::Close(_)) => {
                        // tungstenite answers the close; flush it and leave.
                        let deadline = Instant::now() + CLOSE_GRACE;
                        while Instant::now() < deadline {
                            match socket.flush() {
                                Err(error) if would_block(&error) => {
                                    std::thread::sleep(limits.poll)
                                }
                                _ => break,
                            }
                        }
                        return None;
                    }
                    Ok(_) => busy = true,
                    Err(error) if would_block(&error) => break,
                    Err(WsError::Capacity(error)) => {
                        return Some(Fatal {
                            message: format!(
                                "message too large ({error}); the debug link takes at most {} \
                                 bytes per message",
                                limits.message_bytes
                            ),
                            code: CloseCode::Size,
                        })
                    }
                    Err(WsError::Protocol(error)) => {
                        return Some(Fatal {
                            message: format!("WebSocket protocol error: {error}"),
                            code: CloseCode::Protocol,
                        })
                    }
                    Err(WsError::Utf8(error)) => {
                        return Some(Fatal {
                            message: format!("a text message that is not UTF-8: {error}"),
                            code: CloseCode::Invalid,
                        })
                    }
                    Err(_) => return None,
                }
            }
            busy |= self.poll_subscriptions();
            busy |= self.poll_outputs();
            match self.pump(socket) {
                Ok(wrote) => busy |= wrote,
                Err(()) => return None,
            }
            if self.unflushed && self.last_progress.elapsed() > limits.write_stall {
                tracing::debug!(
                    "debug link: a client took nothing for {:?}",
                    limits.write_stall
                );
                return None;
            }
            if !busy {
                std::thread::sleep(limits.poll);
            }
        }
    }

    /// Sends the error, then a close frame, and waits a moment for the client's close.
    fn close_with(&mut self, socket: &mut WebSocket<TcpStream>, fatal: Fatal) {
        self.queue.clear();
        self.queued_bytes = 0;
        let error = serde_json::json!({"type": "error", "error": fatal.message, "closing": true});
        let _ = socket.write(Message::text(error.to_string()));
        // A close reason is at most 123 bytes.
        let mut reason = fatal.message;
        if reason.len() > 120 {
            let mut end = 120;
            while !reason.is_char_boundary(end) {
                end -= 1;
            }
            reason.truncate(end);
        }
        let _ = socket.close(Some(CloseFrame {
            code: fatal.code,
            reason: reason.into(),
        }));
        let deadline = Instant::now() + CLOSE_GRACE;
        while Instant::now() < deadline {
            match socket.read() {
                Ok(_) => {}
                Err(error) if would_block(&error) => {
                    let _ = socket.flush();
                    std::thread::sleep(self.shared.limits.poll);
                }
                Err(_) => break,
            }
        }
    }

    /// Writes queued messages while the client takes them; `Err` when it is gone.
    fn pump(&mut self, socket: &mut WebSocket<TcpStream>) -> Result<bool, ()> {
        let mut wrote = false;
        if self.unflushed {
            match socket.flush() {
                Ok(()) => {
                    self.unflushed = false;
                    self.last_progress = Instant::now();
                    wrote = true;
                }
                Err(error) if would_block(&error) => return Ok(false),
                Err(_) => return Err(()),
            }
        } else {
            self.last_progress = Instant::now();
        }
        while let Some(message) = self.queue.pop_front() {
            self.queued_bytes -= message.len();
            wrote = true;
            match socket.write(message) {
                Ok(()) => {}
                Err(error) if would_block(&error) => {
                    self.unflushed = true;
                    return Ok(true);
                }
                Err(WsError::WriteBufferFull(message)) => {
                    self.queued_bytes += message.len();
                    self.queue.push_front(*message);
                    self.unflushed = true;
                    return Ok(true);
                }
                Err(_) => return Err(()),
            }
            match socket.flush() {
                Ok(()) => self.last_progress = Instant::now(),
                Err(error) if would_block(&error) => {
                    self.unflushed = true;
                    return Ok(true);
                }
                Err(_) => return Err(()),
            }
        }
        Ok(wrote)
    }

    /// Queues a message; the oldest ones go when the queue is full.
    fn enqueue(&mut self, message: Message) {
        let limits = self.shared.limits;
        self.queued_bytes += message.len();
        self.queue.push_back(message);
        while self.queue.len() > 1
            && (self.queue.len() > limits.queue_messages || self.queued_bytes > limits.queue_bytes)
        {
            if let Some(old) = self.queue.pop_front() {
                self.queued_bytes -= old.len();
                self.dropped += 1;
                self.shared.counters.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn reply(&mut self, format: Format, value: serde_json::Value) {
        let message = match format {
            Format::Json => Message::text(value.to_string()),
            Format::Msgpack => match rmp_serde::to_vec_named(&value) {
                Ok(bytes) => Message::binary(bytes),
                Err(_) => Message::text(value.to_string()),
            },
        };
        self.enqueue(message);
    }

    /// A refusal that keeps the session.
    fn refuse(&mut self, request: &Request, message: String) {
        let mut value =
            serde_json::json!({"type": "error", "request": request.op(), "error": message});
        if let Some(id) = request.id() {
            value["id"] = id.into();
        }
        self.reply(request.format(), value);
    }

    fn answer(&mut self, request: &Request, mut value: serde_json::Value) {
        value["type"] = request.op().into();
        if let Some(id) = request.id() {
            value["id"] = id.into();
        }
        self.reply(request.format(), value);
    }

    fn channel(&self, name: &str) -> Result<(usize, &'_ ChannelSource), Fatal> {
        self.shared.sources.channel(name).ok_or_else(|| {
            Fatal::policy(format!(
                "unknown channel `{name}`; the channels are: {}",
                self.shared.sources.channel_names()
            ))
        })
    }

    fn known_module(&self, module: &str) -> Result<(), Fatal> {
        let modules = &self.shared.sources.modules;
        if modules.iter().any(|entry| entry.name == module) {
            return Ok(());
        }
        let names: Vec<&str> = modules.iter().map(|entry| entry.name.as_str()).collect();
        Err(Fatal::policy(format!(
            "unknown module `{module}`; the modules are: {}",
            names.join(", ")
        )))
    }
}
