//! The client's requests: what each one does, and which ones end the session.

use super::subscriptions::Payload;
use super::{Fatal, Session};
use crate::protocol::{self, Request};
use crate::snapshot::no_image_channel;
use crate::sources::ChannelSource;
use std::time::Duration;

/// The default image rate, per second.
const IMAGE_HZ: f64 = 10.0;

impl Session<'_> {
    pub(super) fn handle(
        &mut self,
        request: Result<Request, protocol::ParseError>,
    ) -> Result<(), Fatal> {
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
                self.subscribe(index, Payload::Values(*format), every, min_interval);
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
                self.subscribe(index, Payload::Images { quality }, 1, min_interval);
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
                process,
                representation,
                module,
                ..
            } => self.switch_provider(&request, process.as_deref(), representation, module),
            Request::Outputs { .. } => self.list_outputs(&request),
            Request::SubscribeOutput {
                process,
                output,
                max_hz,
                format,
                ..
            } => {
                let min_interval = interval(*max_hz)?;
                self.subscribe_output(&request, process, output, min_interval, *format)?;
            }
            Request::UnsubscribeOutput {
                process, output, ..
            } => self.unsubscribe_output(&request, process, output),
        }
        Ok(())
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
