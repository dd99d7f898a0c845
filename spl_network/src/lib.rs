//! The SPL's wire formats and the rules around them, as pure functions over bytes:
//!
//! - [`GameControllerMessage`]: `RoboCupGameControlData` v18 (118 bytes, UDP 3838), decode and
//!   encode; every error names the byte offset and the field.
//! - [`GameControllerReturnMessage`]: `RoboCupGameControlReturnData` v4 (32 bytes, UDP 3939).
//! - [`TeamMessage`]: Cortex's own team message, fixed 36 bytes (≤ 128 by a compile-time
//!   check), with a magic that tells our messages from other teams' on the same port.
//! - [`MessagePacer`]: whether a robot may send a team message now without breaking the
//!   team's message budget (B-Human's pacing).
//! - [`inbox`]: decode-and-count for receivers; [`fake_game_controller`] and [`team_mate_peer`]:
//!   the testing tools behind `cortex gc` (plain `std::net` UDP).
//!
//! It is not the network process: sockets of the robot, threads and representations belong
//! to the cognition side. Nothing here panics on input: decoders are total and fuzzed
//! (`fuzz/`, and millions of random inputs in `tests/random_inputs.rs`).
//!
//! ```
//! use spl_network::{GameControllerMessage, State};
//!
//! let mut message = spl_network::fake_game_controller::GameSetup::new(5, 12).message(0);
//! message.state = State::Playing;
//! let bytes = message.encode();
//! assert_eq!(bytes.len(), 118);
//! assert_eq!(GameControllerMessage::decode(&bytes).unwrap().state, State::Playing);
//! let error = GameControllerMessage::decode(b"RGTD").unwrap_err();
//! assert_eq!(error.to_string(), "header at byte 0: expected \"RGme\", found \"RGTD\"");
//! ```

mod wire_enum;

pub mod fake_game_controller;
pub mod game_controller_enums;
pub mod game_controller_message;
pub mod inbox;
pub mod pacing;
pub mod return_message;
pub mod team_mate_peer;
pub mod team_message;

pub use game_controller_enums::{
    CompetitionPhase, CompetitionType, GamePhase, Penalty, SetPlay, State, TeamColour,
};
pub use game_controller_message::{
    GameControllerDecodeError, GameControllerMessage, RobotInfo, TeamInfo,
    GAME_CONTROLLER_MESSAGE_SIZE,
};
pub use inbox::{GameControllerInbox, TeamMessageInbox};
pub use pacing::{MessagePacer, PacingInput, PacingParameters, SendDecision, Urgency};
pub use return_message::{
    GameControllerReturnMessage, ReturnMessageDecodeError, ReturnMessageEncodeError,
    RETURN_MESSAGE_SIZE,
};
pub use team_message::{
    Ball, GameControllerReference, Intention, Pose, Role, TeamMessage, TeamMessageDecodeError,
    TeamMessageEncodeError, MAX_TEAM_MESSAGE_SIZE, TEAM_MESSAGE_PORT_BASE, TEAM_MESSAGE_SIZE,
};

/// The GameController broadcasts to this UDP port.
pub const GAME_CONTROLLER_PORT: u16 = 3838;
/// Robots send return messages to this UDP port of the GameController.
pub const GAME_CONTROLLER_RETURN_PORT: u16 = 3939;
