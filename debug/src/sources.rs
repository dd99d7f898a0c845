//! What the debug link serves from: the channels (shared memory, read with seqlock readers), the
//! health board, the program's catalogue (which process provides what, which modules exist) and
//! the supervisor's control requests (status, parameters), behind the [`Control`] trait so that
//! this crate does not know how the supervisor is reached.

use ipc::{HealthBoard, TripleBuffer};
use serde::Serialize;

/// What a channel carries and where it is.
#[derive(Debug)]
pub enum ChannelKind {
    /// A representation encoded with `rmp-serde` as a named map (every typed channel), in a
    /// channel that stays the same for the life of the instance.
    Encoded(Box<dyn ChannelBuffer>),
    /// A camera image on a plain-data channel of its perception process, which makes a new one
    /// when it is restarted (or a standby takes over): `source` finds the one in use now.
    Image(ImageLayout),
}

/// Where a camera's image channel is, and where it keeps its pixels.
#[derive(Debug)]
pub struct ImageLayout {
    /// Finds width, height and the YUYV 4:2:2 pixels (2 bytes per pixel) in a slot's bytes, or
    /// says what is wrong with them.
    pub yuyv: fn(&[u8]) -> Result<YuyvView<'_>, String>,
    /// The channel now.
    pub source: Box<dyn ImageSource>,
}

/// Finds a camera's image channel as it is now.
pub trait ImageSource: Send + Sync + std::fmt::Debug {
    /// The channel its producer publishes into now (the same `Arc` while the producer is the
    /// same process), or why there is none.
    fn current(&self) -> Result<std::sync::Arc<dyn ChannelBuffer>, String>;
}

/// A YUYV image borrowed from a channel's slot.
#[derive(Debug, Clone, Copy)]
pub struct YuyvView<'a> {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width * height * 2` bytes: Y0 U Y1 V for each pair of pixels.
    pub pixels: &'a [u8],
}

/// One channel the link can read.
#[derive(Debug)]
pub struct ChannelSource {
    /// The channel's name (`SensorData`, `upper.BallPercept`).
    pub name: String,
    /// The representation it carries.
    pub representation: String,
    /// The process that publishes it.
    pub producer: String,
    /// What it carries, and the channel itself (a reader is made from it per subscriber).
    pub kind: ChannelKind,
}

/// Something that holds a channel's triple buffer: a [`TripleBuffer`] itself, or a typed
/// channel around one (a camera's plain-data `PodChannel`).
pub trait ChannelBuffer: Send + Sync + std::fmt::Debug {
    /// The triple buffer.
    fn buffer(&self) -> &TripleBuffer;
}

impl ChannelBuffer for TripleBuffer {
    fn buffer(&self) -> &TripleBuffer {
        self
    }
}

/// One module of the program, for `list`.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleEntry {
    /// The module's name.
    pub name: String,
    /// The process it runs in.
    pub process: String,
    /// What it provides there.
    pub provides: Vec<String>,
}

/// The supervisor's side of the link: what only the supervisor knows or may do. Replies are the
/// control socket's JSON replies; a refusal is its message, for the client.
pub trait Control: Send + Sync {
    /// The instance's status (`cortex status --json`).
    fn status(&self) -> Result<serde_json::Value, String>;
    /// A module's parameters and where each came from (`cortex params MODULE --json`).
    fn params(&self, module: &str) -> Result<serde_json::Value, String>;
    /// Sets one parameter, checked as `cortex set MODULE.KEY=VALUE` is.
    fn set(&self, assignment: &str) -> Result<serde_json::Value, String>;
}

/// Everything the link serves from.
pub struct Sources {
    /// Every channel, in the order `list` shows them.
    pub channels: Vec<ChannelSource>,
    /// Every module of the program.
    pub modules: Vec<ModuleEntry>,
    /// The health board (module timings); `None` in tests that have none.
    pub health: Option<HealthBoard>,
    /// The supervisor.
    pub control: Box<dyn Control>,
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Sources")
            .field("channels", &self.channels.len())
            .field("modules", &self.modules.len())
            .finish()
    }
}

impl ChannelSource {
    /// Whether it carries camera images.
    pub fn is_image(&self) -> bool {
        matches!(self.kind, ChannelKind::Image(_))
    }
}

impl Sources {
    /// The channel named `name`, with its index.
    pub fn channel(&self, name: &str) -> Option<(usize, &ChannelSource)> {
        self.channels
            .iter()
            .enumerate()
            .find(|(_, channel)| channel.name == name)
    }

    /// The names of every channel, for error messages.
    pub fn channel_names(&self) -> String {
        let names: Vec<&str> = self.channels.iter().map(|c| c.name.as_str()).collect();
        names.join(", ")
    }

    /// Each process's tick and module times as its health record has them now.
    pub fn timings(&self) -> serde_json::Value {
        let Some(board) = &self.health else {
            return serde_json::Value::Array(Vec::new());
        };
        let milliseconds = |ns: u64| (ns > 0).then(|| ns as f64 / 1e6);
        let mut processes = Vec::new();
        for slot in 0..board.slots() {
            let Ok(Some(record)) = board.read(slot) else {
                continue;
            };
            let modules: Vec<serde_json::Value> = record
                .modules()
                .iter()
                .map(|module| {
                    serde_json::json!({
                        "module": module.name(),
                        "last_ms": milliseconds(module.last_ns),
                        "mean_ms": milliseconds(module.mean_ns),
                        "max_ms": milliseconds(module.max_ns),
                    })
                })
                .collect();
            processes.push(serde_json::json!({
                "process": record.name(),
                "pid": record.pid,
                "ticks": record.ticks,
                "rate_hz": (record.rate_mhz > 0).then(|| record.rate_mhz as f64 / 1000.0),
                "tick_mean_ms": milliseconds(record.tick_mean_ns),
                "tick_max_ms": milliseconds(record.tick_max_ns),
                "overruns": record.overruns,
                "modules": modules,
            }));
        }
        serde_json::Value::Array(processes)
    }
}
