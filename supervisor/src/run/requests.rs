//! Acting on control requests (the control socket's threads read them; see `control`):
//! `stop`, `restart`, `segments`, `status`, and `reload`, `set`, `params` (`live.rs`); a request
//! whose client gave up is refused. While
//! starting or stopping, only `status` and `stop` are answered.

use super::child::State;
use super::{Supervisor, STOP_BY_REQUEST};
use crate::control::{ControlServer, Incoming, Reply, Request, SegmentList};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

impl Supervisor {
    /// Acts on one control request; returns whether to stop. A request whose client has given
    /// up (its deadline passed, e.g. while the supervisor was stopped) is refused, not done.
    pub(super) fn answer(&mut self, incoming: Incoming, control: &ControlServer) -> bool {
        let refusal = match incoming.expired_by() {
            Some(late) => Some(format!(
                "its deadline passed {late:.1?} ago, the client has given up"
            )),
            None if incoming.client_gone() => {
                Some("the client closed its connection (it gave up)".to_owned())
            }
            None => None,
        };
        if let Some(why) = refusal {
            control.counters().expired.fetch_add(1, Ordering::Relaxed);
            let message = format!(
                "`{}` refused: {why}; not carried out",
                incoming.request.name()
            );
            if incoming.request != Request::Status {
                tracing::warn!("control: {message}");
            }
            incoming.answer(Reply::json(serde_json::json!({ "error": message })));
            return false;
        }
        let reply = match &incoming.request {
            Request::Status => Reply::status(&self.status(control.counters().snapshot())),
            Request::Stop => {
                tracing::info!("stop requested by the control socket");
                incoming.answer(Reply::json(serde_json::json!({ "stopping": true })));
                return true;
            }
            Request::Restart { process } => Reply::json(self.request_restart(process)),
            Request::Segments => self.segments(),
            Request::Reload => Reply::json(self.request_reload()),
            Request::Set { assignment } => Reply::json(self.request_set(assignment)),
            Request::Params { module } => Reply::json(self.request_params(module)),
        };
        incoming.answer(reply);
        false
    }

    fn request_restart(&mut self, process: &str) -> serde_json::Value {
        let names = || {
            self.children
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.children.iter().position(|child| child.name == process) {
            Some(index) if self.children[index].state == State::Running => {
                self.takeover.disarm(index);
                let child = &mut self.children[index];
                child.restart_requested = true;
                child.signal(rustix::process::Signal::TERM);
                tracing::info!(process = %process, "restart requested");
                serde_json::json!({ "restarting": process })
            }
            Some(index) => serde_json::json!({
                "error": format!("{process} is not running ({:?})", self.children[index].state)
            }),
            None => serde_json::json!({
                "error": format!("no process {process:?}; processes: {}", names())
            }),
        }
    }

    fn segments(&self) -> Reply {
        let list = SegmentList {
            channels: self
                .channels
                .keys()
                .map(|name| {
                    (
                        name.clone(),
                        name.rsplit('.').next().unwrap_or(name).to_owned(),
                    )
                })
                .collect(),
        };
        let mut fds = Vec::new();
        for fd in std::iter::once(self.board.as_fd())
            .chain(self.channels.values().map(|buffer| buffer.as_fd()))
        {
            match fd.try_clone_to_owned() {
                Ok(fd) => fds.push(fd),
                Err(error) => {
                    return Reply::json(serde_json::json!({
                        "error": format!("duplicating a segment descriptor: {error}")
                    }))
                }
            }
        }
        match serde_json::to_value(&list) {
            Ok(value) => Reply { value, fds },
            Err(error) => Reply::json(serde_json::json!({ "error": error.to_string() })),
        }
    }

    /// While starting or stopping (`phase`): `status` and `stop` are answered, anything else is
    /// refused, so that no client waits in vain. Waits at most `timeout` for a request.
    pub(super) fn answer_outside_supervision(
        &self,
        control: &ControlServer,
        stop: &AtomicUsize,
        phase: &str,
        timeout: Duration,
    ) {
        if let Some(incoming) = control.wait_next(timeout) {
            let reply = match &incoming.request {
                Request::Status => Reply::status(&self.status(control.counters().snapshot())),
                Request::Stop if incoming.expired_by().is_none() && !incoming.client_gone() => {
                    if stop.load(Ordering::Relaxed) == 0 {
                        tracing::info!("stop requested by the control socket while {phase}");
                        stop.store(STOP_BY_REQUEST, Ordering::Relaxed);
                    }
                    Reply::json(serde_json::json!({ "stopping": true }))
                }
                other => Reply::json(serde_json::json!({
                    "error": format!("`{}` refused: the instance is {phase}", other.name())
                })),
            };
            incoming.answer(reply);
        }
    }
}
