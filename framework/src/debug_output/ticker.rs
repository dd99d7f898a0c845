//! The runtime's side of the debug outputs: the requests read at the start of a tick (flags and
//! provider switches), the frame published at its end.

use super::channels::{decode_switches, OutputChannels};
use super::{DebugFrame, DebugOutputs, ProviderChoice, BITS_END, FRAME_BYTES};
use std::sync::atomic::Ordering;

/// The runtime's side: reads the requests at the start of a tick, publishes the frame at its
/// end.
#[derive(Debug)]
pub struct Ticker<'c> {
    outputs: &'static DebugOutputs,
    requests: ipc::Reader<'c>,
    requests_seen: u64,
    /// Until when the flags now set are valid (0: none set).
    valid_until_ns: u64,
    frames: ipc::Writer<'c>,
    catalog_published: u64,
    frame: DebugFrame,
    scratch: Vec<u8>,
    request_scratch: Vec<u8>,
    /// The provider switches of the newest request.
    switches: Vec<(String, String)>,
    /// A switch that failed, not tried again until the request changes: (representation,
    /// module, why).
    failed: Vec<(String, String, String)>,
    /// The switch state changed: the next frame says so.
    providers_changed: bool,
}

impl<'c> Ticker<'c> {
    /// Takes the frame channel's writer role.
    pub fn new(
        channels: &'c OutputChannels,
        outputs: &'static DebugOutputs,
    ) -> Result<Ticker<'c>, ipc::Error> {
        Ok(Ticker {
            outputs,
            requests: channels.requests.reader(),
            requests_seen: 0,
            valid_until_ns: 0,
            frames: channels.frames.writer()?,
            catalog_published: 0,
            frame: DebugFrame::default(),
            scratch: Vec::new(),
            request_scratch: Vec::new(),
            switches: Vec::new(),
            failed: Vec::new(),
            providers_changed: true,
        })
    }

    /// The start of a tick: new requests, or lapsed ones, set the flags.
    pub fn begin_tick(&mut self, now_ns: u64) {
        let published = self.requests.published();
        if published != self.requests_seen {
            self.requests_seen = published;
            if let Ok(Some(_)) = self.requests.read_latest(&mut self.request_scratch) {
                let bytes = &self.request_scratch;
                let until = bytes
                    .get(..8)
                    .and_then(|word| word.try_into().ok())
                    .map_or(0, u64::from_le_bytes);
                let valid = until > now_ns;
                self.valid_until_ns = if valid { until } else { 0 };
                let bits = bytes.get(8..BITS_END).unwrap_or(&[]);
                self.outputs.set_subscribed(if valid { bits } else { &[] });
                let switches = decode_switches(bytes);
                if switches != self.switches {
                    self.switches = switches;
                    self.failed.clear();
                }
            }
        } else if self.valid_until_ns != 0 && self.valid_until_ns <= now_ns {
            // The link stopped renewing (it died): nobody looks any more.
            self.valid_until_ns = 0;
            self.outputs.set_subscribed(&[]);
        }
    }

    /// Between ticks: makes the providers the link asked for (or, without a request, the
    /// table's) the ones that run, for each representation with `alternatives` in the table.
    /// `true` when a module was replaced (the health record's module names change). Cheap when
    /// nothing changes: a name comparison per representation with alternatives.
    pub fn switch_providers(
        &mut self,
        wiring: &mut crate::wiring::Wiring,
        plan: &crate::graph::ProcessPlan,
        spec: &config::ProcessSpec,
        modules: &crate::ModuleRegistry,
        config: &config::Config,
    ) -> bool {
        let mut replaced = false;
        for alternatives in &spec.alternatives {
            let representation = &alternatives.representation;
            let Some(index) = plan
                .order
                .iter()
                .position(|step| step.representations.contains(representation))
            else {
                continue;
            };
            if index >= wiring.module_count() {
                continue;
            }
            let wanted = self
                .switches
                .iter()
                .find(|(switched, _)| switched == representation)
                .map(|(_, module)| module.as_str())
                .unwrap_or(plan.order[index].module.as_str());
            if wiring.module_name(index) == wanted
                || self
                    .failed
                    .iter()
                    .any(|(r, m, _)| r == representation && m == wanted)
            {
                continue;
            }
            let refuse = |why: String| (representation.clone(), wanted.to_owned(), why);
            let outcome = if !alternatives.modules.iter().any(|module| module == wanted) {
                Err(refuse(format!(
                    "`{wanted}` is not among the alternatives for {representation}: {}",
                    alternatives.modules.join(", ")
                )))
            } else {
                match modules.get(wanted) {
                    None => Err(refuse(format!("this program has no module `{wanted}`"))),
                    Some(entry) => match entry.construct(config) {
                        Err(error) => Err(refuse(format!("building `{wanted}`: {error}"))),
                        Ok(module) => match wiring.replace_module(plan, index, module) {
                            Ok(old) => {
                                tracing::info!(
                                    "{representation}: provided by {wanted} instead of {} from now on",
                                    old.name()
                                );
                                drop(old);
                                Ok(())
                            }
                            Err((error, _)) => Err(refuse(format!("wiring `{wanted}`: {error}"))),
                        },
                    },
                }
            };
            match outcome {
                Ok(()) => replaced = true,
                Err(failed) => {
                    tracing::warn!("switching {representation} to {wanted}: {}", failed.2);
                    self.failed.push(failed);
                }
            }
            self.providers_changed = true;
        }
        if self.providers_changed {
            self.frame.providers = spec
                .alternatives
                .iter()
                .filter_map(|alternatives| {
                    let representation = &alternatives.representation;
                    let index = plan
                        .order
                        .iter()
                        .position(|step| step.representations.contains(representation))?;
                    let active = (index < wiring.module_count())
                        .then(|| wiring.module_name(index).to_owned())?;
                    Some(ProviderChoice {
                        representation: representation.clone(),
                        modules: alternatives.modules.clone(),
                        active,
                        error: self
                            .failed
                            .iter()
                            .find(|(r, _, _)| r == representation)
                            .map(|(_, _, why)| why.clone()),
                    })
                })
                .collect();
        }
        replaced
    }

    /// The end of a tick: publishes the records, and the catalogue when it changed.
    pub fn end_tick(&mut self, tick: u64) {
        let version = self.outputs.catalog_version.load(Ordering::Acquire);
        let new_catalog = version != self.catalog_published || self.providers_changed;
        self.providers_changed = false;

        if !new_catalog && !self.outputs.any_subscribed.load(Ordering::Relaxed) {
            return;
        }
        self.outputs.take_frame(tick, new_catalog, &mut self.frame);
        if self.frame.records.is_empty() && !new_catalog {
            return;
        }
        self.catalog_published = version;
        self.scratch.clear();
        let encoded = rmp_serde::encode::write_named(&mut self.scratch, &self.frame);
        if encoded.is_err() || self.scratch.len() > FRAME_BYTES {
            // Over the slot (the estimate was short): the records go, counted.
            let lost = self.frame.records.len() as u64;
            self.outputs.dropped.fetch_add(lost, Ordering::Relaxed);
            self.frame.records.clear();
            self.frame.dropped = self.outputs.dropped();
            self.scratch.clear();
            if rmp_serde::encode::write_named(&mut self.scratch, &self.frame).is_err() {
                return;
            }
        }
        if let Err(error) = self.frames.publish(&self.scratch) {
            tracing::debug!("debug outputs: {error}");
        }
    }
}
