//! LoLA, the NAO v6 body interface: the codec of its MessagePack frames and the `lola` bridge
//! process that moves them between LoLA's socket and the shared memory. It is not the simulated
//! robot (that is the `simulator` crate, which serves the same bytes with this crate's codec).
//!
//! ```text
//!   LoLA (/tmp/robocup)  or  simulator::lola_simulator::LolaSimulator (any socket path)
//!        │ 896-byte sensor frame every 12 ms      ▲ command map (≤ 786 bytes, may be partial)
//!        ▼                                        │
//!   codec::decode_sensor_frame → SensorData, RobotIdentity
//!   codec::encode_command      ← JointRequest, LedRequest, sonar
//!        │                                        ▲
//!        ▼                                        │
//!   bridge::run: SensorData → shared memory, JointRequest/LedRequest ← shared memory (+ safety)
//! ```
//!
//! Byte facts are in `docs/protocols.md` §1; the LED index orders in `led_layout`.

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
