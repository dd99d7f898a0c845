//! The link's requests and the shape of its replies.
//!
//! A client sends one request per WebSocket message: a JSON text frame, or the same map as
//! msgpack in a binary frame. Each has an `op`, an optional `id` (echoed in the reply) and an
//! optional `format` (`"json"`, the default, or `"msgpack"`: the reply as a binary frame).
//!
//! ```text
//! {"op": "list"}
//! {"op": "subscribe", "channel": "SensorData", "every": 10, "max_hz": 5, "format": "msgpack"}
//! {"op": "unsubscribe", "channel": "SensorData"}
//! {"op": "image", "channel": "upper.CameraImage.pixels", "max_hz": 10, "quality": 80}
//! {"op": "timings"}      {"op": "status"}
//! {"op": "params", "module": "MotionCombinator"}
//! {"op": "set", "assignment": "MotionCombinator.head_speed_rad_per_s=2.5"}
//! {"op": "switch_provider", "representation": "BallModel", "module": "SimpleBallModelProvider"}
//! {"op": "outputs"}
//! {"op": "subscribe_output", "process": "perception.upper", "output": "BallPerceptor.balls"}
//! {"op": "unsubscribe_output", "process": "perception.upper", "output": "BallPerceptor.balls"}
//! ```
//!
//! Debug outputs (plots and drawings modules fill only while subscribed,
//! `framework::debug_output`) arrive as `{"type": "output", "process", "output", "kind",
//! "tick", "dropped", "records": [{"space", "shapes": [...]}]}`.
//!
//! Replies carry `type`: the request's op, `error`, or for what a subscription sends, `value`
//! (a representation) and `jpeg` (a camera image). A request that is not
//! one (garbage, malformed JSON, an unknown op or field, an unknown channel) gets an `error`
//! and the connection is closed; a well-formed request the system refuses (a parameter out of
//! range, no camera images) gets an `error` and the connection stays.

use serde::{Deserialize, Serialize};

/// How a client wants a reply or a subscription's values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A JSON text frame.
    #[default]
    Json,
    /// A msgpack binary frame; a subscription's `value` is the channel's bytes as they are.
    Msgpack,
}

/// What a client asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Every representation (channel, type, producing process) and every module.
    List {
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// Values of a channel as they are published.
    Subscribe {
        /// The channel (`SensorData`, `upper.BallPercept`).
        channel: String,
        /// Only every N-th publish (1: each).
        #[serde(default)]
        every: Option<u64>,
        /// At most this many values per second.
        #[serde(default)]
        max_hz: Option<f64>,
        /// The values' format.
        #[serde(default)]
        format: Format,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
    },
    /// No more values of a channel (values or images).
    Unsubscribe {
        /// The channel.
        channel: String,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// A camera image channel's images as JPEG (msgpack binary frames), encoded only while
    /// subscribed.
    Image {
        /// The channel.
        channel: String,
        /// At most this many images per second (default 10).
        #[serde(default)]
        max_hz: Option<f64>,
        /// JPEG quality 1..=100 (default 75).
        #[serde(default)]
        quality: Option<u8>,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
    },
    /// Each process's tick time and each module's update time (the health board).
    Timings {
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// The instance's status, as `cortex status --json` has it.
    Status {
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// A module's parameters, as `cortex params MODULE --json` has them.
    Params {
        /// The module.
        module: String,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// Sets one parameter: `MODULE.KEY=VALUE`, checked as `cortex set` checks it.
    Set {
        /// `MODULE.KEY=VALUE`.
        assignment: String,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// Lets another module provide a representation, one of the alternatives the process
    /// table allows (`[process.alternatives]`), from the process's next tick on.
    SwitchProvider {
        /// The process (needed only where two processes have alternatives for it).
        #[serde(default)]
        process: Option<String>,
        /// The representation.
        representation: String,
        /// The module that should provide it.
        module: String,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// Every debug output of every running process (plots, image and field drawings).
    Outputs {
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
    /// A debug output's records as the process publishes them (the module fills it only while
    /// someone subscribes).
    SubscribeOutput {
        /// The process (`perception.upper`).
        process: String,
        /// The output (`BallPerceptor.balls`).
        output: String,
        /// At most this many records per second.
        #[serde(default)]
        max_hz: Option<f64>,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The records' format.
        #[serde(default)]
        format: Format,
    },
    /// No more records of a debug output.
    UnsubscribeOutput {
        /// The process.
        process: String,
        /// The output.
        output: String,
        /// Echoed in the reply.
        #[serde(default)]
        id: Option<u64>,
        /// The reply's format.
        #[serde(default)]
        format: Format,
    },
}

impl Request {
    /// The op's name, for replies.
    pub fn op(&self) -> &'static str {
        match self {
            Request::List { .. } => "list",
            Request::Subscribe { .. } => "subscribe",
            Request::Unsubscribe { .. } => "unsubscribe",
            Request::Image { .. } => "image",
            Request::Timings { .. } => "timings",
            Request::Status { .. } => "status",
            Request::Params { .. } => "params",
            Request::Set { .. } => "set",
            Request::SwitchProvider { .. } => "switch_provider",
            Request::Outputs { .. } => "outputs",
            Request::SubscribeOutput { .. } => "subscribe_output",
            Request::UnsubscribeOutput { .. } => "unsubscribe_output",
        }
    }

    /// The `id` the client gave.
    pub fn id(&self) -> Option<u64> {
        match self {
            Request::List { id, .. }
            | Request::Subscribe { id, .. }
            | Request::Unsubscribe { id, .. }
            | Request::Image { id, .. }
            | Request::Timings { id, .. }
            | Request::Status { id, .. }
            | Request::Params { id, .. }
            | Request::Set { id, .. }
            | Request::SwitchProvider { id, .. }
            | Request::Outputs { id, .. }
            | Request::SubscribeOutput { id, .. }
            | Request::UnsubscribeOutput { id, .. } => *id,
        }
    }

    /// The format the reply should have.
    pub fn format(&self) -> Format {
        match self {
            Request::List { format, .. }
            | Request::Subscribe { format, .. }
            | Request::Unsubscribe { format, .. }
            | Request::Timings { format, .. }
            | Request::Status { format, .. }
            | Request::Params { format, .. }
            | Request::Set { format, .. }
            | Request::SwitchProvider { format, .. }
            | Request::Outputs { format, .. }
            | Request::SubscribeOutput { format, .. }
            | Request::UnsubscribeOutput { format, .. } => *format,
            Request::Image { .. } => Format::Msgpack,
        }
    }
}

/// Why a message from a client is not a request.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Not JSON, or not a request (unknown op, a field missing, an unknown field).
    #[error("malformed request: {0}")]
    Json(#[from] serde_json::Error),
    /// A binary frame that is not a msgpack request.
    #[error("malformed msgpack request: {0}")]
    Msgpack(#[from] rmp_serde::decode::Error),
}

/// Parses a text frame.
pub fn parse_text(text: &str) -> Result<Request, ParseError> {
    Ok(serde_json::from_str(text)?)
}

/// Parses a binary frame.
pub fn parse_binary(bytes: &[u8]) -> Result<Request, ParseError> {
    Ok(rmp_serde::from_slice(bytes)?)
}

/// A subscription update in msgpack: `{"type": "value", "channel", "publish", "dropped",
/// "value": <the channel's bytes as they are>}`; nothing is decoded or encoded again.
pub fn msgpack_value(channel: &str, publish: u64, dropped: u64, encoded: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded.len() + channel.len() + 48);
    // Writing into a Vec cannot fail.
    let _ = rmp::encode::write_map_len(&mut out, 5);
    let _ = rmp::encode::write_str(&mut out, "type");
    let _ = rmp::encode::write_str(&mut out, "value");
    let _ = rmp::encode::write_str(&mut out, "channel");
    let _ = rmp::encode::write_str(&mut out, channel);
    let _ = rmp::encode::write_str(&mut out, "publish");
    let _ = rmp::encode::write_uint(&mut out, publish);
    let _ = rmp::encode::write_str(&mut out, "dropped");
    let _ = rmp::encode::write_uint(&mut out, dropped);
    let _ = rmp::encode::write_str(&mut out, "value");
    out.extend_from_slice(encoded);
    out
}

/// A JPEG image in msgpack: `{"type": "jpeg", "channel", "publish", "width", "height",
/// "dropped", "jpeg": <bytes>}`.
pub fn msgpack_image(
    channel: &str,
    publish: u64,
    dropped: u64,
    (width, height): (usize, usize),
    jpeg: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(jpeg.len() + channel.len() + 64);
    let _ = rmp::encode::write_map_len(&mut out, 7);
    let _ = rmp::encode::write_str(&mut out, "type");
    let _ = rmp::encode::write_str(&mut out, "jpeg");
    let _ = rmp::encode::write_str(&mut out, "channel");
    let _ = rmp::encode::write_str(&mut out, channel);
    let _ = rmp::encode::write_str(&mut out, "publish");
    let _ = rmp::encode::write_uint(&mut out, publish);
    let _ = rmp::encode::write_str(&mut out, "width");
    let _ = rmp::encode::write_uint(&mut out, width as u64);
    let _ = rmp::encode::write_str(&mut out, "height");
    let _ = rmp::encode::write_uint(&mut out, height as u64);
    let _ = rmp::encode::write_str(&mut out, "dropped");
    let _ = rmp::encode::write_uint(&mut out, dropped);
    let _ = rmp::encode::write_str(&mut out, "jpeg");
    let _ = rmp::encode::write_bin(&mut out, jpeg);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_and_bad_ones_say_why() {
        let request = parse_text(r#"{"op":"subscribe","channel":"SensorData","every":3}"#).unwrap();
        assert_eq!(request.op(), "subscribe");
        assert_eq!(request.format(), Format::Json);
        let error = parse_text(r#"{"op":"explode"}"#).unwrap_err().to_string();
        assert!(error.contains("unknown variant `explode`"), "{error}");
        let error = parse_text(r#"{"op":"subscribe"}"#).unwrap_err().to_string();
        assert!(error.contains("missing field `channel`"), "{error}");
        let error = parse_text(r#"{"op":"list","colour":1}"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown field `colour`"), "{error}");
        assert!(parse_text("{\"op\":").is_err());
        let binary = rmp_serde::to_vec_named(&Request::Timings {
            id: Some(4),
            format: Format::Msgpack,
        })
        .unwrap();
        assert_eq!(parse_binary(&binary).unwrap().id(), Some(4));
        assert!(parse_binary(&[0xc1, 0xff]).is_err());
    }

    #[test]
    fn a_msgpack_value_carries_the_channel_bytes_unchanged() {
        let encoded = rmp_serde::to_vec_named(&serde_json::json!({"angle": 0.5})).unwrap();
        let message = msgpack_value("SensorData", 7, 1, &encoded);
        let value = crate::value::decode(&message).unwrap();
        assert_eq!(value["type"], "value");
        assert_eq!(value["publish"], 7);
        assert_eq!(value["value"]["angle"], 0.5);
    }
}
