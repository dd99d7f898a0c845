//! Debug outputs that modules fill only while someone subscribes (B-Human's debug requests,
//! plots and drawings; HULKs' `fill_if_subscribed`): named plots (numeric values) and 2-D
//! drawings on a camera image (pixels) or on the field (field or robot coordinates, metres).
//!
//! A module declares its outputs when it is built and asks, each tick, whether anyone looks:
//!
//! ```
//! use framework::debug_output::{Color, DebugOutput, Space};
//! let candidates = DebugOutput::image_drawing("BallPerceptor.candidates");
//! let tilt = DebugOutput::plot("WalkingEngine.torso");
//! // In `update`: nothing below runs while nobody subscribes (one atomic load each).
//! candidates.draw(Space::Image(types::CameraName::Upper), |drawing| {
//!     drawing.circle([320.0, 240.0], 12.0, Color::ORANGE);
//! });
//! tilt.plot_values(&[("pitch_rad", 0.02), ("gyro_y_rad_per_s", -0.1)]);
//! ```
//!
//! How the values leave the process: two small channels of the process's own (sealed `memfd`s,
//! found by the debug process through `/proc/<pid>/fd` as camera images are):
//!
//! ```text
//!  process (runtime loop)                                     debug process (debug link)
//!   start of tick: requests changed or lapsed? ◀── `<process>.DebugRequests`: which outputs are
//!     → each output's flag (a process-local atomic)          subscribed, valid for 1 s; written
//!   modules: is_subscribed()? draw / plot                    by the link, renewed every 0.3 s,
//!     → pending records (bounded, drops counted)             cleared when the last one leaves
//!   end of tick: any records, or a new catalogue?
//!     → publish a frame ──────────────────────────────▶ `<process>.DebugOutputs`: the newest
//!                                                        frame (tick, catalogue, records)
//! ```
//!
//! Both are seqlock triple buffers: the process never waits for the link, and a link that dies
//! leaves flags that lapse by themselves within [`REQUEST_LEASE`]. A tick's records beyond
//! [`FRAME_BYTES`] are dropped and counted (`DebugFrame::dropped`), never waited for. With
//! nobody subscribed a tick costs one atomic load of the request channel's publish count and
//! one comparison of the lease with the tick's start.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use types::CameraName;

/// The most outputs one process declares; further declarations are never subscribed.
pub const MAX_OUTPUTS: usize = 128;
/// The slot size of a process's frame channel: a tick's records must fit.
pub const FRAME_BYTES: usize = 64 * 1024;
/// The budget of a tick's records (an estimate kept below [`FRAME_BYTES`], which also holds
/// the catalogue).
pub const RECORD_BUDGET: usize = 48 * 1024;
/// How long a request written by the link stays valid without renewal (nanoseconds).
pub const REQUEST_LEASE: u64 = 1_000_000_000;
/// The bytes of the request channel: `valid_until_ns`, one bit per output, then the provider
/// switches (msgpack, at most [`SWITCH_BYTES`]).
pub const REQUEST_BYTES: usize = 8 + MAX_OUTPUTS / 8 + SWITCH_BYTES;
/// The most bytes of a request's provider switches.
pub const SWITCH_BYTES: usize = 4096;
const BITS_END: usize = 8 + MAX_OUTPUTS / 8;

/// What an output carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputKind {
    /// Named numeric values, one set per tick.
    Plot,
    /// Shapes in pixel coordinates of a camera's image.
    ImageDrawing,
    /// Shapes on the field: field coordinates or the robot's, metres.
    FieldDrawing,
}

/// Where a drawing's coordinates are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Space {
    /// Pixels of this camera's image (x right, y down).
    Image(CameraName),
    /// Field coordinates, metres (origin at the centre, x toward the opponent goal).
    Field,
    /// The robot's ground frame, metres (x forward, y left).
    Robot,
    /// A plot's values.
    Values,
}

/// An RGBA colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Color(pub [u8; 4]);

impl Color {
    /// The ball's colour.
    pub const ORANGE: Color = Color([255, 140, 0, 255]);
    /// Red.
    pub const RED: Color = Color([230, 30, 30, 255]);
    /// Blue.
    pub const BLUE: Color = Color([40, 90, 230, 255]);
    /// Yellow.
    pub const YELLOW: Color = Color([240, 220, 30, 255]);
    /// White.
    pub const WHITE: Color = Color([255, 255, 255, 255]);
    /// Black.
    pub const BLACK: Color = Color([0, 0, 0, 255]);
}

/// One element of a drawing or a plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Shape {
    /// A circle outline.
    Circle {
        /// Centre.
        center: [f32; 2],
        /// Radius.
        radius: f32,
        /// Colour.
        color: Color,
    },
    /// A line.
    Line {
        /// Start.
        from: [f32; 2],
        /// End.
        to: [f32; 2],
        /// Width (pixels on an image, metres on the field).
        width: f32,
        /// Colour.
        color: Color,
    },
    /// An axis-aligned rectangle outline.
    Rectangle {
        /// One corner.
        min: [f32; 2],
        /// The opposite corner.
        max: [f32; 2],
        /// Colour.
        color: Color,
    },
    /// Text whose baseline starts at `at`.
    Text {
        /// Where.
        at: [f32; 2],
        /// What.
        text: String,
        /// Colour.
        color: Color,
    },
    /// A plot's named value.
    Value {
        /// The value's name.
        name: String,
        /// The value.
        value: f64,
    },
}

impl Shape {
    /// A generous estimate of its encoded size (named msgpack map).
    fn estimated_bytes(&self) -> usize {
        match self {
            Shape::Text { text, .. } => 64 + text.len(),
            Shape::Value { name, .. } => 40 + name.len(),
            _ => 96,
        }
    }
}

/// One output's records of one tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The output's index in the catalogue.
    pub output: u32,
    /// Where the shapes are.
    pub space: Space,
    /// The shapes or values.
    pub shapes: Vec<Shape>,
}

/// An output of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// Its name, `Module.what` by convention.
    pub name: String,
    /// What it carries.
    pub kind: OutputKind,
}

/// What a process publishes into its frame channel: the catalogue and a tick's records.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DebugFrame {
    /// The process's tick count when the frame was published.
    pub tick: u64,
    /// Every output the process declared, by index.
    pub catalog: Vec<Declared>,
    /// Records dropped since the process started (a tick's budget exceeded, or outputs declared
    /// beyond [`MAX_OUTPUTS`]).
    pub dropped: u64,
    /// This tick's records.
    pub records: Vec<Record>,
    /// The representations of this process with alternative providers (the process table's
    /// `alternatives`), and which one runs.
    #[serde(default)]
    pub providers: Vec<ProviderChoice>,
}

/// A representation with alternative providers, as the process runs it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderChoice {
    /// The representation.
    pub representation: String,
    /// The modules the table allows.
    pub modules: Vec<String>,
    /// The one that provides it now.
    pub active: String,
    /// Why the last switch asked for was not made.
    pub error: Option<String>,
}

#[derive(Debug, Default)]
struct Pending {
    records: Vec<Record>,
    bytes: usize,
}

/// A process's debug outputs: the catalogue, each output's subscribed flag and the pending
/// records of the tick. One per process ([`outputs`]); tests make their own.
#[derive(Debug)]
pub struct DebugOutputs {
    catalog: Mutex<Vec<Declared>>,
    catalog_version: AtomicU64,
    subscribed: [AtomicBool; MAX_OUTPUTS],
    any_subscribed: AtomicBool,
    pending: Mutex<Pending>,
    dropped: AtomicU64,
}

impl Default for DebugOutputs {
    fn default() -> Self {
        DebugOutputs {
            catalog: Mutex::new(Vec::new()),
            catalog_version: AtomicU64::new(0),
            subscribed: std::array::from_fn(|_| AtomicBool::new(false)),
            any_subscribed: AtomicBool::new(false),
            pending: Mutex::new(Pending::default()),
            dropped: AtomicU64::new(0),
        }
    }
}

/// The process's debug outputs.
pub fn outputs() -> &'static DebugOutputs {
    static OUTPUTS: OnceLock<DebugOutputs> = OnceLock::new();
    OUTPUTS.get_or_init(DebugOutputs::default)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding it leaves plain data that is still consistent enough to drop.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl DebugOutputs {
    /// Declares an output (again: the same handle, so a module built anew after a panic or new
    /// parameters keeps its subscriptions).
    pub fn declare(&'static self, name: &str, kind: OutputKind) -> DebugOutput {
        let mut catalog = lock(&self.catalog);
        let index = match catalog.iter().position(|entry| entry.name == name) {
            Some(index) => Some(index),
            None if catalog.len() < MAX_OUTPUTS => {
                catalog.push(Declared {
                    name: name.to_owned(),
                    kind,
                });
                self.catalog_version.fetch_add(1, Ordering::Release);
                Some(catalog.len() - 1)
            }
            None => {
                tracing::warn!(
                    "debug output `{name}`: this process has {MAX_OUTPUTS} already; it is never shown"
                );
                None
            }
        };
        DebugOutput {
            outputs: self,
            index,
            kind,
        }
    }

    /// The catalogue now.
    pub fn catalog(&self) -> Vec<Declared> {
        lock(&self.catalog).clone()
    }

    /// Sets the flags from a request (`bits`: one per output; all clear when it lapsed).
    pub fn set_subscribed(&self, bits: &[u8]) {
        let mut any = false;
        for (index, flag) in self.subscribed.iter().enumerate() {
            let on = bits
                .get(index / 8)
                .is_some_and(|byte| byte & (1 << (index % 8)) != 0);
            any |= on;
            flag.store(on, Ordering::Relaxed);
        }
        self.any_subscribed.store(any, Ordering::Relaxed);
        if !any {
            // Nothing drawn now is wanted any more.
            let mut pending = lock(&self.pending);
            pending.records.clear();
            pending.bytes = 0;
        }
    }

    /// Whether output `index` is subscribed.
    pub fn is_subscribed(&self, index: usize) -> bool {
        self.subscribed
            .get(index)
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// Records dropped since the start.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    fn push(&self, record: Record) {
        let bytes: usize = 16
            + record
                .shapes
                .iter()
                .map(Shape::estimated_bytes)
                .sum::<usize>();
        let mut pending = lock(&self.pending);
        if pending.bytes + bytes > RECORD_BUDGET {
            drop(pending);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        pending.bytes += bytes;
        pending.records.push(record);
    }

    /// Takes the tick's records into `frame` (its `catalog` filled when `with_catalog`).
    fn take_frame(&self, tick: u64, with_catalog: bool, frame: &mut DebugFrame) {
        let mut pending = lock(&self.pending);
        frame.tick = tick;
        frame.records.clear();
        frame.records.append(&mut pending.records);
        pending.bytes = 0;
        drop(pending);
        if with_catalog || frame.catalog.is_empty() {
            frame.catalog = self.catalog();
        }
        frame.dropped = self.dropped();
    }
}

/// A module's handle on one of its debug outputs.
#[derive(Debug, Clone, Copy)]
pub struct DebugOutput {
    outputs: &'static DebugOutputs,
    index: Option<usize>,
    kind: OutputKind,
}

impl DebugOutput {
    /// Declares a plot of this process.
    pub fn plot(name: &str) -> DebugOutput {
        outputs().declare(name, OutputKind::Plot)
    }
    /// Declares a drawing on a camera image.
    pub fn image_drawing(name: &str) -> DebugOutput {
        outputs().declare(name, OutputKind::ImageDrawing)
    }
    /// Declares a drawing on the field.
    pub fn field_drawing(name: &str) -> DebugOutput {
        outputs().declare(name, OutputKind::FieldDrawing)
    }

    /// Whether anyone subscribes to it now (one atomic load).
    pub fn is_subscribed(&self) -> bool {
        self.index
            .is_some_and(|index| self.outputs.is_subscribed(index))
    }

    /// Records the values of a plot, if subscribed.
    pub fn plot_values(&self, values: &[(&str, f64)]) {
        let Some(index) = self.index.filter(|_| self.is_subscribed()) else {
            return;
        };
        let shapes = values
            .iter()
            .map(|(name, value)| Shape::Value {
                name: (*name).to_owned(),
                value: *value,
            })
            .collect();
        self.outputs.push(Record {
            output: index as u32,
            space: Space::Values,
            shapes,
        });
    }

    /// Runs `draw` and records what it drew, only if subscribed.
    pub fn draw(&self, space: Space, draw: impl FnOnce(&mut Drawing)) {
        let Some(index) = self.index.filter(|_| self.is_subscribed()) else {
            return;
        };
        let mut drawing = Drawing { shapes: Vec::new() };
        draw(&mut drawing);
        if drawing.shapes.is_empty() {
            return;
        }
        self.outputs.push(Record {
            output: index as u32,
            space,
            shapes: drawing.shapes,
        });
    }

    /// What it carries.
    pub fn kind(&self) -> OutputKind {
        self.kind
    }
}

/// The shapes of one drawing, collected while the module draws.
#[derive(Debug)]
pub struct Drawing {
    shapes: Vec<Shape>,
}

impl Drawing {
    /// A circle outline.
    pub fn circle(&mut self, center: [f32; 2], radius: f32, color: Color) -> &mut Self {
        self.shapes.push(Shape::Circle {
            center,
            radius,
            color,
        });
        self
    }
    /// A line.
    pub fn line(&mut self, from: [f32; 2], to: [f32; 2], width: f32, color: Color) -> &mut Self {
        self.shapes.push(Shape::Line {
            from,
            to,
            width,
            color,
        });
        self
    }
    /// A rectangle outline.
    pub fn rectangle(&mut self, min: [f32; 2], max: [f32; 2], color: Color) -> &mut Self {
        self.shapes.push(Shape::Rectangle { min, max, color });
        self
    }
    /// Text.
    pub fn text(&mut self, at: [f32; 2], text: impl Into<String>, color: Color) -> &mut Self {
        self.shapes.push(Shape::Text {
            at,
            text: text.into(),
            color,
        });
        self
    }
}

/// The name of a process's frame channel (and its memfd's, after `cortex:`).
pub fn frames_name(process: &str) -> String {
    format!("{process}.DebugOutputs")
}

/// The name of a process's request channel.
pub fn requests_name(process: &str) -> String {
    format!("{process}.DebugRequests")
}

/// The two channels of a process.
#[derive(Debug)]
pub struct OutputChannels {
    /// The frames the process publishes.
    pub frames: ipc::TripleBuffer,
    /// The subscriptions the link writes.
    pub requests: ipc::TripleBuffer,
}

/// Why a process's debug-output channels could not be made or found.
#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    /// Shared memory refused.
    #[error("debug outputs of `{process}`: {source}")]
    Ipc {
        /// The process.
        process: String,
        /// The ipc error.
        source: ipc::Error,
    },
    /// `/proc/<pid>/fd` could not be read.
    #[error("cannot list the descriptors of process {pid} ({path}): {source}")]
    List {
        /// The pid.
        pid: u32,
        /// The folder.
        path: PathBuf,
        /// The system error.
        source: std::io::Error,
    },
    /// The process holds no such channel (not started yet, or not a Cortex process).
    #[error("process {pid} has no channel `{name}` (it has not ticked yet, or runs no modules)")]
    Absent {
        /// The pid.
        pid: u32,
        /// The channel.
        name: String,
    },
    /// A descriptor could not be opened again.
    #[error("opening {path}: {source}")]
    Open {
        /// The path.
        path: PathBuf,
        /// The system error.
        source: std::io::Error,
    },
}

impl OutputChannels {
    /// Makes the channels of `process` (the runtime does, when it starts ticking).
    pub fn create(process: &str) -> Result<OutputChannels, ChannelError> {
        let ipc = |source| ChannelError::Ipc {
            process: process.to_owned(),
            source,
        };
        Ok(OutputChannels {
            frames: ipc::TripleBuffer::create(&frames_name(process), FRAME_BYTES).map_err(ipc)?,
            requests: ipc::TripleBuffer::create(&requests_name(process), REQUEST_BYTES)
                .map_err(ipc)?,
        })
    }

    /// Opens the channels that process `pid` (named `process` in the table) made.
    pub fn open_of_process(pid: u32, process: &str) -> Result<OutputChannels, ChannelError> {
        let ipc = |source| ChannelError::Ipc {
            process: process.to_owned(),
            source,
        };
        let frames = find_memfd(pid, &frames_name(process))?;
        let requests = find_memfd(pid, &requests_name(process))?;
        Ok(OutputChannels {
            frames: ipc::TripleBuffer::from_fd(frames).map_err(ipc)?,
            requests: ipc::TripleBuffer::from_fd(requests).map_err(ipc)?,
        })
    }

    /// The process's side, for its runtime loop.
    pub fn ticker(&self) -> Result<Ticker<'_>, ipc::Error> {
        Ticker::new(self, outputs())
    }
}

fn find_memfd(pid: u32, name: &str) -> Result<std::os::fd::OwnedFd, ChannelError> {
    let folder = PathBuf::from(format!("/proc/{pid}/fd"));
    let wanted = format!("/memfd:cortex:{name} (deleted)");
    let list_error = |source| ChannelError::List {
        pid,
        path: folder.clone(),
        source,
    };
    for entry in std::fs::read_dir(&folder).map_err(list_error)? {
        let path = entry.map_err(list_error)?.path();
        let Ok(target) = std::fs::read_link(&path) else {
            continue; // closed meanwhile
        };
        if target.as_os_str() != wanted.as_str() {
            continue;
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|source| ChannelError::Open {
                path: path.clone(),
                source,
            })?;
        return Ok(file.into());
    }
    Err(ChannelError::Absent {
        pid,
        name: name.to_owned(),
    })
}

/// What the link writes: the subscriptions (valid until `valid_until_ns`, one bit per output)
/// and the provider switches (`(representation, module)`, kept by the process until the next
/// request; switches beyond [`SWITCH_BYTES`] are left out).
pub fn encode_request(
    valid_until_ns: u64,
    subscribed: &[usize],
    switches: &[(String, String)],
) -> Vec<u8> {
    let mut bytes = vec![0u8; BITS_END];
    bytes[..8].copy_from_slice(&valid_until_ns.to_le_bytes());
    for &index in subscribed.iter().filter(|&&index| index < MAX_OUTPUTS) {
        bytes[8 + index / 8] |= 1 << (index % 8);
    }
    let mut kept = switches.len();
    loop {
        let mut encoded = Vec::new();
        if rmp_serde::encode::write(&mut encoded, &switches[..kept]).is_ok()
            && encoded.len() <= SWITCH_BYTES
        {
            bytes.extend_from_slice(&encoded);
            return bytes;
        }
        if kept == 0 {
            return bytes;
        }
        kept -= 1;
    }
}

/// The provider switches of a request (none if it has none or they do not decode).
fn decode_switches(bytes: &[u8]) -> Vec<(String, String)> {
    bytes
        .get(BITS_END..)
        .filter(|rest| !rest.is_empty())
        .and_then(|rest| rmp_serde::from_slice(rest).ok())
        .unwrap_or_default()
}

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

/// Decodes a frame read from a frame channel.
pub fn decode_frame(bytes: &[u8]) -> Result<DebugFrame, rmp_serde::decode::Error> {
    rmp_serde::from_slice(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> &'static DebugOutputs {
        Box::leak(Box::default())
    }

    fn publish_request(channels: &OutputChannels, until: u64, subscribed: &[usize]) {
        let mut writer = channels.requests.writer().unwrap();
        writer
            .publish(&encode_request(until, subscribed, &[]))
            .unwrap();
    }

    fn latest_frame(channels: &OutputChannels) -> Option<(u64, DebugFrame)> {
        let mut bytes = Vec::new();
        let count = channels.frames.reader().read_latest(&mut bytes).unwrap()?;
        Some((count, decode_frame(&bytes).unwrap()))
    }

    #[test]
    fn nothing_is_computed_until_subscribed_and_the_flag_clears_when_the_request_goes() {
        let outputs = fresh();
        let ball = outputs.declare("BallModel.ball", OutputKind::FieldDrawing);
        let plot = outputs.declare("Walk.torso", OutputKind::Plot);
        assert_eq!(
            outputs
                .declare("BallModel.ball", OutputKind::FieldDrawing)
                .index,
            ball.index,
            "declared again: the same output"
        );
        let channels = OutputChannels::create("test.outputs").unwrap();
        let mut ticker = Ticker::new(&channels, outputs).unwrap();
        let mut computed = 0;
        let tick = |ticker: &mut Ticker, now: u64, computed: &mut u32| {
            ticker.begin_tick(now);
            ball.draw(Space::Field, |drawing| {
                *computed += 1;
                drawing.circle([1.0, 2.0], 0.05, Color::ORANGE);
            });
            plot.plot_values(&[("pitch_rad", 0.5)]);
            ticker.end_tick(now);
        };

        tick(&mut ticker, 10, &mut computed);
        assert_eq!(
            computed, 0,
            "nobody subscribed: the drawing is not computed"
        );
        let (count, frame) = latest_frame(&channels).expect("the catalogue is published");
        assert_eq!(frame.catalog.len(), 2);
        assert_eq!(frame.catalog[0].name, "BallModel.ball");
        assert!(frame.records.is_empty());
        tick(&mut ticker, 11, &mut computed);
        assert_eq!(channels.frames.published(), count, "nothing to publish");

        publish_request(&channels, 1_000, &[0]);
        tick(&mut ticker, 12, &mut computed);
        assert_eq!(computed, 1);
        assert!(ball.is_subscribed() && !plot.is_subscribed());
        let (_, frame) = latest_frame(&channels).unwrap();
        assert_eq!(frame.tick, 12);
        assert_eq!(frame.records.len(), 1, "only the subscribed output");
        assert_eq!(frame.records[0].space, Space::Field);
        assert!(matches!(
            frame.records[0].shapes[0],
            Shape::Circle { radius, .. } if radius == 0.05
        ));

        // The last subscriber leaves: the link clears the bits.
        publish_request(&channels, 1_000, &[]);
        tick(&mut ticker, 13, &mut computed);
        assert!(!ball.is_subscribed());
        assert_eq!(computed, 1);

        // A link that stops renewing: the flags lapse on their own.
        publish_request(&channels, 1_000, &[0, 1]);
        tick(&mut ticker, 14, &mut computed);
        assert!(ball.is_subscribed() && plot.is_subscribed());
        let (_, frame) = latest_frame(&channels).unwrap();
        assert_eq!(frame.records.len(), 2);
        tick(&mut ticker, 1_000, &mut computed);
        assert!(!ball.is_subscribed() && !plot.is_subscribed());
        assert_eq!(computed, 2);
    }

    #[test]
    fn a_tick_over_its_budget_drops_records_and_counts_them_without_waiting() {
        let outputs = fresh();
        let drawing = outputs.declare("Perceptor.many", OutputKind::ImageDrawing);
        let channels = OutputChannels::create("test.overflow").unwrap();
        let mut ticker = Ticker::new(&channels, outputs).unwrap();
        publish_request(&channels, u64::MAX, &[0]);
        ticker.begin_tick(1);
        for index in 0..2_000 {
            drawing.draw(Space::Image(CameraName::Upper), |d| {
                d.text([index as f32, 0.0], "candidate", Color::RED);
            });
        }
        ticker.end_tick(1);
        let (_, frame) = latest_frame(&channels).unwrap();
        assert!(frame.dropped > 0, "the overflow is counted");
        assert_eq!(frame.records.len() as u64 + frame.dropped, 2_000);
        assert!(channels.frames.slot_capacity() >= FRAME_BYTES);
        // The next tick starts with an empty budget.
        ticker.begin_tick(2);
        drawing.draw(Space::Image(CameraName::Upper), |d| {
            d.circle([1.0, 1.0], 3.0, Color::RED);
        });
        ticker.end_tick(2);
        let (_, frame) = latest_frame(&channels).unwrap();
        assert_eq!(frame.records.len(), 1);
    }

    #[test]
    fn declarations_beyond_the_limit_are_never_subscribed() {
        let outputs = fresh();
        for index in 0..MAX_OUTPUTS {
            outputs.declare(&format!("output{index}"), OutputKind::Plot);
        }
        let extra = outputs.declare("one too many", OutputKind::Plot);
        outputs.set_subscribed(&[0xff; MAX_OUTPUTS / 8]);
        assert!(!extra.is_subscribed());
        assert!(outputs.declare("output0", OutputKind::Plot).is_subscribed());
    }

    #[test]
    fn the_channels_are_found_through_proc() {
        let channels = OutputChannels::create("test.proc").unwrap();
        let opened = OutputChannels::open_of_process(std::process::id(), "test.proc").unwrap();
        publish_request(&opened, 5, &[3]);
        assert_eq!(channels.requests.published(), 1);
        let error = OutputChannels::open_of_process(std::process::id(), "test.none")
            .unwrap_err()
            .to_string();
        assert!(error.contains("test.none.DebugOutputs"), "{error}");
    }
}
