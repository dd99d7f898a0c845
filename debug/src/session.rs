//! One WebSocket client: its requests, its subscriptions and its bounded queue, on its own
//! thread. The socket is non-blocking; every [`Limits::poll`](crate::Limits) the session reads
//! what the client sent, looks at each subscribed channel's publish counter (one atomic load),
//! reads and sends what is due, and writes as much of its queue as the client takes. A slow
//! client loses its oldest queued messages (each value says how many were `dropped` so far); a
//! client that takes nothing for `write_stall` is closed. Nothing here waits for a real-time
//! process: channels are read with seqlock readers, which never block a writer.

use crate::protocol::{self, Format, Request};
use crate::server::{no_image_channel, Shared};
use crate::sources::{ChannelBuffer, ChannelKind, ChannelSource};
use std::collections::VecDeque;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tungstenite::{Error as WsError, Message, WebSocket};

/// The default image rate, per second.
const IMAGE_HZ: f64 = 10.0;
/// How long a closing session waits for the client's close reply.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

enum Payload {
    /// Values of an encoded channel.
    Values(Format),
    /// JPEG images of an image channel.
    Images { quality: u8 },
}

struct Subscription {
    channel: usize,
    payload: Payload,
    every: u64,
    min_interval: Duration,
    last_count: u64,
    last_sent: Option<Instant>,
    lease_until_ns: u64,
    /// A camera's image channel as last found (a new one after its process was replaced).
    image_channel: Option<Arc<dyn ChannelBuffer>>,
}

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
        queue: VecDeque::new(),
        queued_bytes: 0,
        dropped: 0,
        unflushed: false,
        last_progress: Instant::now(),
        scratch: Vec::new(),
        jpeg_scratch: Vec::new(),
    };
    let outcome = session.serve(&mut socket);
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

    fn handle(&mut self, request: Result<Request, protocol::ParseError>) -> Result<(), Fatal> {
        let request = request.map_err(|error| Fatal::policy(error.to_string()))?;
        let shared = self.shared;
        match &request {
            Request::List { .. } => {
                let representations: Vec<serde_json::Value> = shared
                    .sources
                    .channels
                    .iter()
                    .map(|channel| {
                        serde_json::json!({
                            "channel": channel.name,
                            "representation": channel.representation,
                            "process": channel.producer,
                            "kind": if channel.is_image() { "image" } else { "encoded" },
                        })
                    })
                    .collect();
                let modules = serde_json::to_value(&shared.sources.modules).unwrap_or_default();
                self.answer(
                    &request,
                    serde_json::json!({"representations": representations, "modules": modules}),
                );
            }
            Request::Subscribe {
                channel,
                every,
                max_hz,
                format,
                ..
            } => {
                let (index, source) = self.channel(channel)?;
                if source.is_image() {
                    return Err(Fatal::policy(format!(
                        "`{channel}` is a camera image: ask for it with {{\"op\": \"image\"}}"
                    )));
                }
                let every = every.unwrap_or(1);
                if every == 0 {
                    return Err(Fatal::policy("`every` must be at least 1".into()));
                }
                let min_interval = interval(*max_hz)?;
                self.subscribe(Subscription {
                    channel: index,
                    payload: Payload::Values(*format),
                    every,
                    min_interval,
                    last_count: 0,
                    last_sent: None,
                    lease_until_ns: 0,
                    image_channel: None,
                });
                self.answer(&request, serde_json::json!({"channel": channel}));
            }
            Request::Unsubscribe { channel, .. } => {
                let (index, _) = self.channel(channel)?;
                let before = self.subscriptions.len();
                self.subscriptions
                    .retain(|subscription| subscription.channel != index);
                let removed = before != self.subscriptions.len();
                self.answer(
                    &request,
                    serde_json::json!({"channel": channel, "was_subscribed": removed}),
                );
            }
            Request::Image {
                channel,
                max_hz,
                quality,
                ..
            } => {
                let Some((index, source)) = shared.sources.channel(channel) else {
                    let message = no_image_channel(&shared.sources, channel);
                    let any_images = shared.sources.channels.iter().any(ChannelSource::is_image);
                    if any_images {
                        return Err(Fatal::policy(message));
                    }
                    self.refuse(&request, message);
                    return Ok(());
                };
                if !source.is_image() {
                    return Err(Fatal::policy(format!(
                        "`{channel}` carries {}, not a camera image",
                        source.representation
                    )));
                }
                let quality = quality.unwrap_or(75);
                if !(1..=100).contains(&quality) {
                    return Err(Fatal::policy(format!(
                        "JPEG quality {quality} is not in 1..=100"
                    )));
                }
                let min_interval = interval(Some(max_hz.unwrap_or(IMAGE_HZ)))?;
                self.subscribe(Subscription {
                    channel: index,
                    payload: Payload::Images { quality },
                    every: 1,
                    min_interval,
                    last_count: 0,
                    last_sent: None,
                    lease_until_ns: 0,
                    image_channel: None,
                });
                self.answer(&request, serde_json::json!({"channel": channel}));
            }
            Request::Timings { .. } => {
                let processes = shared.sources.timings();
                self.answer(&request, serde_json::json!({"processes": processes}));
            }
            Request::Status { .. } => match shared.status() {
                Ok(status) => self.answer(&request, serde_json::json!({"status": status})),
                Err(message) => self.refuse(&request, message),
            },
            Request::Params { module, .. } => {
                self.known_module(module)?;
                match shared.sources.control.params(module) {
                    Ok(reply) => self.answer(&request, reply),
                    Err(message) => self.refuse(&request, message),
                }
            }
            Request::Set { assignment, .. } => {
                let module = assignment.split('.').next().unwrap_or_default();
                if !assignment.contains('.') || !assignment.contains('=') {
                    return Err(Fatal::policy(format!(
                        "`{assignment}` is not MODULE.KEY=VALUE"
                    )));
                }
                self.known_module(module)?;
                match shared.sources.control.set(assignment) {
                    Ok(mut reply) => {
                        reply["assignment"] = assignment.clone().into();
                        self.answer(&request, reply)
                    }
                    Err(message) => self.refuse(&request, message),
                }
            }
            Request::SwitchProvider {
                representation,
                module,
                ..
            } => {
                self.refuse(
                    &request,
                    format!(
                        "cannot let {module} provide {representation}: the process table \
                         (processes.toml, [process.providers]) names exactly one provider per \
                         representation and the framework has no alternatives to switch \
                         between at run time; change the table and run `cortex reload`"
                    ),
                );
            }
        }
        Ok(())
    }

    fn subscribe(&mut self, subscription: Subscription) {
        self.subscriptions
            .retain(|existing| existing.channel != subscription.channel);
        self.subscriptions.push(subscription);
    }

    /// Renews the leases and sends what is due; `true` if something was sent.
    fn poll_subscriptions(&mut self) -> bool {
        let shared = self.shared;
        let lease = shared.limits.lease.as_nanos() as u64;
        let now_ns = ipc::health::monotonic_ns();
        let now = Instant::now();
        let mut messages = Vec::new();
        let mut failed = Vec::new();
        for (position, subscription) in self.subscriptions.iter_mut().enumerate() {
            let source = &shared.sources.channels[subscription.channel];
            let image_holder: Option<Arc<dyn ChannelBuffer>>;
            let buffer = match &source.kind {
                ChannelKind::Encoded(buffer) => buffer.buffer(),
                ChannelKind::Image(layout) => {
                    // The camera's process not running now is no error: its images come back
                    // with its next run.
                    let Ok(current) = layout.source.current() else {
                        continue;
                    };
                    let same = subscription.image_channel.as_ref().is_some_and(|known| {
                        std::ptr::addr_eq(Arc::as_ptr(known), Arc::as_ptr(&current))
                    });
                    if !same {
                        // Another process publishes now: start over with its channel.
                        subscription.image_channel = Some(current);
                        subscription.last_count = 0;
                        subscription.lease_until_ns = 0;
                    }
                    image_holder = subscription.image_channel.clone();
                    match &image_holder {
                        Some(channel) => channel.buffer(),
                        None => continue,
                    }
                }
            };
            let mut reader = buffer.reader();
            if subscription.lease_until_ns < now_ns + lease / 2 {
                subscription.lease_until_ns = now_ns + lease;
                reader.watch(subscription.lease_until_ns);
            }
            let published = reader.published();
            let due_count = subscription.last_count == 0
                || published >= subscription.last_count + subscription.every;
            let due_time = subscription
                .last_sent
                .is_none_or(|sent| now.duration_since(sent) >= subscription.min_interval);
            if published == 0 || published <= subscription.last_count || !due_count || !due_time {
                continue;
            }
            let count = match reader.read_latest(&mut self.scratch) {
                Ok(Some(count)) => count,
                Ok(None) => continue,
                Err(error) => {
                    failed.push((position, format!("reading `{}`: {error}", source.name)));
                    continue;
                }
            };
            subscription.last_count = count;
            subscription.last_sent = Some(now);
            match &subscription.payload {
                Payload::Values(Format::Msgpack) => messages.push(Message::binary(
                    protocol::msgpack_value(&source.name, count, self.dropped, &self.scratch),
                )),
                Payload::Values(Format::Json) => match crate::value::decode(&self.scratch) {
                    Ok(value) => {
                        let message = serde_json::json!({
                            "type": "value",
                            "channel": source.name,
                            "publish": count,
                            "dropped": self.dropped,
                            "value": value,
                        });
                        messages.push(Message::text(message.to_string()));
                    }
                    Err(error) => {
                        failed.push((position, format!("decoding `{}`: {error}", source.name)))
                    }
                },
                Payload::Images { quality } => {
                    let ChannelKind::Image(layout) = &source.kind else {
                        continue;
                    };
                    let encoded = (layout.yuyv)(&self.scratch).and_then(|view| {
                        crate::jpeg::encode_yuyv(&view, *quality, &mut self.jpeg_scratch)
                            .map(|jpeg| (view.width, view.height, jpeg))
                            .map_err(|error| error.to_string())
                    });
                    match encoded {
                        Ok((width, height, jpeg)) => {
                            messages.push(Message::binary(protocol::msgpack_image(
                                &source.name,
                                count,
                                self.dropped,
                                (width, height),
                                &jpeg,
                            )))
                        }
                        Err(message) => {
                            failed.push((position, format!("`{}`: {message}", source.name)))
                        }
                    }
                }
            }
        }
        let sent = !messages.is_empty();
        for message in messages {
            self.enqueue(message);
        }
        // A channel that cannot be read or shown ends its subscription, with the reason.
        for (position, message) in failed.into_iter().rev() {
            let subscription = self.subscriptions.remove(position);
            let channel = &shared.sources.channels[subscription.channel].name;
            let error = serde_json::json!({
                "type": "error",
                "request": "subscribe",
                "channel": channel,
                "error": format!("{message}; unsubscribed"),
            });
            self.reply(Format::Json, error);
        }
        sent
    }
}

/// The shortest time between two values for `max_hz`.
fn interval(max_hz: Option<f64>) -> Result<Duration, Fatal> {
    match max_hz {
        None => Ok(Duration::ZERO),
        Some(hz) if hz.is_finite() && hz > 0.0 && hz <= 10_000.0 => {
            Ok(Duration::from_secs_f64(1.0 / hz))
        }
        Some(hz) => Err(Fatal::policy(format!(
            "`max_hz` {hz} is not a rate in (0, 10000]"
        ))),
    }
}
