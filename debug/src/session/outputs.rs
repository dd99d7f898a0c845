//! A session's debug-output subscriptions (`framework::debug_output`): `outputs` lists them,
//! `subscribe_output` counts the session in (the process's module starts drawing within a
//! tick), each poll sends the records of the process's newest frame, and `unsubscribe_output`
//! or the session's end counts it out (the last one out clears the module's flag at once).

use super::{Fatal, Session};
use crate::outputs::{catalog_of, newest_frame, processes};
use crate::protocol::{Format, Request};
use framework::debug_output::{decode_frame, OutputKind};
use std::time::{Duration, Instant};
use tungstenite::Message;

/// How long a switch looks again for a process that has not published its providers.
const LOOK_AGAIN: Duration = Duration::from_secs(2);
/// How long a switch waits for the process to report the provider running.
const SWITCH_WAIT: Duration = Duration::from_secs(3);

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
        let mut providers = Vec::new();
        let mut unavailable = Vec::new();
        for process in processes(board) {
            let frame = self
                .shared
                .outputs
                .current(board, &process)
                .ok()
                .and_then(|found| newest_frame(&found.channels));
            if let Some(frame) = &frame {
                providers.extend(frame.providers.iter().map(|choice| {
                    serde_json::json!({
                        "process": process,
                        "representation": choice.representation,
                        "modules": choice.modules,
                        "active": choice.active,
                    })
                }));
            }
            match frame.map(|frame| frame.catalog) {
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
            serde_json::json!({"outputs": outputs, "providers": providers,
                "unavailable": unavailable}),
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

    /// `switch_provider`: checked against the alternatives the processes report (the process
    /// table's), then asked of the process; the reply says which module runs after its next
    /// tick, or why the switch was refused.
    pub(super) fn switch_provider(
        &mut self,
        request: &Request,
        process: Option<&str>,
        representation: &str,
        module: &str,
    ) {
        let board = match self.health() {
            Ok(board) => board,
            Err(message) => return self.refuse(request, message),
        };
        // Every running process's representations with alternatives (a process that was just
        // replaced may not have published its own yet: looked at again for a moment).
        let look_until = Instant::now() + LOOK_AGAIN;
        let mut choices = Vec::new();
        loop {
            let mut unavailable = false;
            for name in processes(board) {
                if process.is_some_and(|wanted| wanted != name) {
                    continue;
                }
                let frame = self
                    .shared
                    .outputs
                    .current(board, &name)
                    .ok()
                    .and_then(|found| newest_frame(&found.channels));
                match frame {
                    Some(frame) => choices.extend(
                        frame
                            .providers
                            .into_iter()
                            .map(|choice| (name.clone(), choice)),
                    ),
                    None => unavailable = true,
                }
            }
            let found = choices
                .iter()
                .any(|(_, c)| c.representation == representation);
            if found || !unavailable || Instant::now() > look_until {
                break;
            }
            choices.clear();
            std::thread::sleep(Duration::from_millis(50));
        }
        let describe = |choices: &[(String, framework::debug_output::ProviderChoice)]| {
            if choices.is_empty() {
                return "none".to_owned();
            }
            let items: Vec<String> = choices
                .iter()
                .map(|(process, choice)| {
                    format!(
                        "{} in {process} ({})",
                        choice.representation,
                        choice.modules.join(", ")
                    )
                })
                .collect();
            items.join("; ")
        };
        let matching: Vec<_> = choices
            .iter()
            .filter(|(_, choice)| choice.representation == representation)
            .cloned()
            .collect();
        let (target, choice) = match matching.as_slice() {
            [] => {
                return self.refuse(
                    request,
                    format!(
                        "no running process{} has alternative providers for `{representation}` \
                         (the process table's [process.alternatives]); the representations with \
                         alternatives are: {}",
                        process.map(|p| format!(" named `{p}`")).unwrap_or_default(),
                        describe(&choices)
                    ),
                )
            }
            [one] => one.clone(),
            several => {
                let names: Vec<&str> = several.iter().map(|(p, _)| p.as_str()).collect();
                return self.refuse(
                    request,
                    format!(
                        "`{representation}` has alternatives in {}: say which with \"process\"",
                        names.join(" and ")
                    ),
                );
            }
        };
        if !choice.modules.iter().any(|candidate| candidate == module) {
            return self.refuse(
                request,
                format!(
                    "`{module}` cannot provide `{representation}` in {target}: the alternatives \
                     are {}",
                    choice.modules.join(", ")
                ),
            );
        }
        self.shared
            .outputs
            .switch(board, &target, representation, module);
        // The process switches at its next tick; its frame says what runs then.
        let deadline = Instant::now() + SWITCH_WAIT;
        loop {
            let now = self
                .shared
                .outputs
                .current(board, &target)
                .ok()
                .and_then(|found| newest_frame(&found.channels))
                .and_then(|frame| {
                    frame
                        .providers
                        .into_iter()
                        .find(|choice| choice.representation == representation)
                });
            if let Some(now) = &now {
                if now.active == module {
                    return self.answer(
                        request,
                        serde_json::json!({"process": target, "representation": representation,
                            "active": now.active, "alternatives": now.modules}),
                    );
                }
                if let Some(error) = now
                    .error
                    .as_ref()
                    .filter(|e| e.contains(&format!("`{module}`")))
                {
                    return self.refuse(request, format!("{target}: {error}"));
                }
            }
            if Instant::now() > deadline {
                return self.refuse(
                    request,
                    format!(
                        "{target} did not report `{module}` providing `{representation}` within \
                         {SWITCH_WAIT:?} (it is asked to, and will when it ticks)"
                    ),
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
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
        let shared = self.shared;
        let Some(board) = shared.sources.health.as_ref() else {
            return false;
        };
        // Every session renews the link's requests (subscriptions and provider switches), so
        // they outlive the session that made them and reach a process that was replaced.
        shared.outputs.renew(board);
        if self.output_subscriptions.is_empty() {
            return false;
        }
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
