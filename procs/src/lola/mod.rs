//! LoLA, the NAO v6 body interface: the codec of its MessagePack frames and a simulator that
//! serves the same bytes on a Unix socket.
//!
//! ```text
//!   LoLA (/tmp/robocup)  or  simulator::LolaSimulator (any socket path)
//!        │ 896-byte sensor frame every 12 ms      ▲ command map (≤ 786 bytes, may be partial)
//!        ▼                                        │
//!   codec::decode_sensor_frame → SensorData, RobotIdentity
//!   codec::encode_command      ← JointRequest, LedRequest, sonar
//! ```
//!
//! Byte facts are in `shared/reference/protocols.md` §1; the LED index orders in `led_layout`.

pub mod bridge;
mod bridge_output;
mod bridge_pass;
pub mod codec;
pub mod frame_stream;
mod led_layout;
mod msgpack;
pub mod parameters;
mod safety;
pub mod sensor_check;
pub mod simulated_body;
pub mod simulator;
