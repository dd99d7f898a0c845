//! Subscriptions: each poll renews the watch leases and sends what is due, read with seqlock
//! readers straight from shared memory.

use super::Session;
use crate::protocol::{self, Format};
use crate::sources::{ChannelBuffer, ChannelKind};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::Message;

/// What a subscription sends.
pub(super) enum Payload {
    /// Values of an encoded channel.
    Values(Format),
    /// JPEG images of an image channel.
    Images { quality: u8 },
}

/// One channel a client subscribed to.
pub(super) struct Subscription {
    pub(super) channel: usize,
    pub(super) payload: Payload,
    pub(super) every: u64,
    pub(super) min_interval: Duration,
    pub(super) last_count: u64,
    pub(super) last_sent: Option<Instant>,
    pub(super) lease_until_ns: u64,
    /// A camera's image channel as last found (a new one after its process was replaced).
    pub(super) image_channel: Option<Arc<dyn ChannelBuffer>>,
}

impl Session<'_> {
    /// Subscribes to `channel` (replacing an earlier subscription to it), nothing sent yet.
    pub(super) fn subscribe(
        &mut self,
        channel: usize,
        payload: Payload,
        every: u64,
        min_interval: Duration,
    ) {
        self.subscriptions
            .retain(|existing| existing.channel != channel);
        self.subscriptions.push(Subscription {
            channel,
            payload,
            every,
            min_interval,
            last_count: 0,
            last_sent: None,
            lease_until_ns: 0,
            image_channel: None,
        });
    }

    /// Renews the leases and sends what is due; `true` if something was sent.
    pub(super) fn poll_subscriptions(&mut self) -> bool {
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
