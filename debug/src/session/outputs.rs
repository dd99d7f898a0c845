//! A session's debug-output subscriptions (`framework::debug_output`): `outputs` lists them,
//! `subscribe_output` counts the session in (the process's module starts drawing within a
//! tick), each poll sends the records of the process's newest frame, and `unsubscribe_output`
//! or the session's end counts it out (the last one out clears the module's flag at once).

use super::{Fatal, Session};
use crate::outputs::{catalog_of, processes};
use crate::protocol::{Format, Request};
use framework::debug_output::{decode_frame, OutputKind};
use std::time::{Duration, Instant};
use tungstenite::Message;

/// The most debug outputs one session subscribes to.
pub(super) const MAX_OUTPUT_SUBSCRIPTIONS: usize = 64;

/// One output a client subscribed to.
pub(super) struct OutputSubscription {
    pub(super) process: String,
    pub(super) output: String,
    pub(super) kind: OutputKind,
    pub(super) format: Format,
    pub(super) min_interval: Duration,
    pub(super) last_sent: Option<Instant>,
    /// The frame channel's publish count last read, and the pid it belonged to.
    pub(super) last_count: u64,
    pub(super) pid: u32,
}

impl Session<'_> {
    fn health(&self) -> Result<&ipc::HealthBoard, String> {
        self.shared
            .sources
            .health
            .as_ref()
            .ok_or_else(|| "this debug link has no health board: no debug outputs".to_owned())
    }

    /// `outputs`: every running process's catalogue.
    pub(super) fn list_outputs(&mut self, request: &Request) {
        let board = match self.health() {
            Ok(board) => board,
            Err(message) => return self.refuse(request, message),
        };
        let mut outputs = Vec::new();
        let mut unavailable = Vec::new();
        for process in processes(board) {
            let catalog = self
                .shared
                .outputs
                .current(board, &process)
                .ok()
                .and_then(|found| catalog_of(&found.channels));
            match catalog {
                Some(catalog) => outputs.extend(catalog.into_iter().map(|entry| {
                    serde_json::json!({
                        "process": process,
                        "output": entry.name,
                        "kind": entry.kind,
                        "subscribers": self.shared.outputs.subscribers(&process, &entry.name),
                    })
                })),
                None => unavailable.push(process),
            }
        }
        self.answer(
            request,
            serde_json::json!({"outputs": outputs, "unavailable": unavailable}),
        );
    }

    /// `subscribe_output`: checked against the process's catalogue.
    pub(super) fn subscribe_output(
        &mut self,
        request: &Request,
        process: &str,
        output: &str,
        min_interval: Duration,
        format: Format,
    ) -> Result<(), Fatal> {
        let board = match self.health() {
            Ok(board) => board,
            Err(message) => {
                self.refuse(request, message);
                return Ok(());
            }
        };
        let known = processes(board);
        if !known.iter().any(|name| name == process) {
            return Err(Fatal::policy(format!(
                "unknown process `{process}`; the processes are: {}",
                known.join(", ")
            )));
        }
        let found = match self.shared.outputs.current(board, process) {
            Ok(found) => found,
            Err(message) => {
                self.refuse(
                    request,
                    format!("no debug outputs of `{process}` now: {message}"),
                );
                return Ok(());
            }
        };
        let Some(catalog) = catalog_of(&found.channels) else {
            self.refuse(
                request,
                format!("`{process}` has published no debug outputs yet (it has not ticked)"),
            );
            return Ok(());
        };
        let Some(entry) = catalog.iter().find(|entry| entry.name == output) else {
            let names: Vec<&str> = catalog.iter().map(|entry| entry.name.as_str()).collect();
            return Err(Fatal::policy(format!(
                "unknown debug output `{output}` of `{process}`; its outputs are: {}",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        };
        let existing = self
            .output_subscriptions
            .iter()
            .position(|s| s.process == process && s.output == output);
        if existing.is_none() && self.output_subscriptions.len() >= MAX_OUTPUT_SUBSCRIPTIONS {
            self.refuse(
                request,
                format!("a session subscribes to at most {MAX_OUTPUT_SUBSCRIPTIONS} debug outputs"),
            );
            return Ok(());
        }
        let subscription = OutputSubscription {
            process: process.to_owned(),
            output: output.to_owned(),
            kind: entry.kind,
            format,
            min_interval,
            last_sent: None,
            last_count: found.channels.frames.published(),
            pid: found.pid,
        };
        match existing {
            Some(position) => self.output_subscriptions[position] = subscription,
            None => {
                self.shared.outputs.subscribe(board, process, output);
                self.output_subscriptions.push(subscription);
            }
        }
        self.answer(
            request,
            serde_json::json!({"process": process, "output": output, "kind": entry.kind}),
        );
        Ok(())
    }

    /// `unsubscribe_output`.
    pub(super) fn unsubscribe_output(&mut self, request: &Request, process: &str, output: &str) {
        let before = self.output_subscriptions.len();
        self.output_subscriptions
            .retain(|s| !(s.process == process && s.output == output));
        let removed = before != self.output_subscriptions.len();
        if removed {
            if let Ok(board) = self.health() {
                self.shared.outputs.release(board, process, output);
            }
        }
        self.answer(
            request,
            serde_json::json!({"process": process, "output": output, "was_subscribed": removed}),
        );
    }

    /// The session ends: every output it held is released.
    pub(super) fn release_outputs(&mut self) {
        let Some(board) = self.shared.sources.health.as_ref() else {
            return;
        };
        for subscription in std::mem::take(&mut self.output_subscriptions) {
            self.shared
                .outputs
                .release(board, &subscription.process, &subscription.output);
        }
    }

    /// Renews the requests and sends the records due; `true` if something was sent.
    pub(super) fn poll_outputs(&mut self) -> bool {
        if self.output_subscriptions.is_empty() {
            return false;
        }
        let shared = self.shared;
        let Some(board) = shared.sources.health.as_ref() else {
            return false;
        };
        shared.outputs.renew(board);
        let now = Instant::now();
        let mut messages = Vec::new();
        for subscription in &mut self.output_subscriptions {
            let Ok(found) = shared.outputs.current(board, &subscription.process) else {
                continue; // restarting: its outputs come back with its next run
            };
            if found.pid != subscription.pid {
                subscription.pid = found.pid;
                subscription.last_count = 0;
            }
            let published = found.channels.frames.published();
            let due_time = subscription
                .last_sent
                .is_none_or(|sent| now.duration_since(sent) >= subscription.min_interval);
            if published <= subscription.last_count || !due_time {
                continue;
            }
            let Ok(Some(count)) = found
                .channels
                .frames
                .reader()
                .read_latest(&mut self.scratch)
            else {
                continue;
            };
            subscription.last_count = count;
            let Ok(frame) = decode_frame(&self.scratch) else {
                continue;
            };
            let Some(index) = frame
                .catalog
                .iter()
                .position(|entry| entry.name == subscription.output)
            else {
                continue;
            };
            let records: Vec<_> = frame
                .records
                .iter()
                .filter(|record| record.output as usize == index)
                .collect();
            if records.is_empty() {
                continue;
            }
            subscription.last_sent = Some(now);
            let value = serde_json::json!({
                "type": "output",
                "process": subscription.process,
                "output": subscription.output,
                "kind": subscription.kind,
                "tick": frame.tick,
                "publish": count,
                "dropped": frame.dropped,
                "records": records,
            });
            messages.push(match subscription.format {
                Format::Json => Message::text(value.to_string()),
                Format::Msgpack => match rmp_serde::to_vec_named(&value) {
                    Ok(bytes) => Message::binary(bytes),
                    Err(_) => Message::text(value.to_string()),
                },
            });
        }
        let sent = !messages.is_empty();
        for message in messages {
            self.enqueue(message);
        }
        sent
    }
}
