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

mod channels;
#[cfg(test)]
mod tests;
mod ticker;

pub use channels::{
    decode_frame, encode_request, frames_name, requests_name, ChannelError, OutputChannels,
};
pub use ticker::Ticker;
