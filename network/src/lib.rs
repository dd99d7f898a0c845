//! The `network` process of Cortex: the robot's side of the SPL's UDP traffic, as two modules
//! that own their sockets and drain them every tick (the process ticks at 100 Hz, so a packet
//! waits at most 10 ms before cognition can read it).
//!
//! | module | provides | from |
//! |---|---|---|
//! | [`GameControllerInterface`] | `GameControllerState` | GameController packets (UDP 3838); sends return packets (3939) at 2 Hz |
//! | [`TeamCommunication`] | `TeamMates` | team mates' messages (UDP 10000 + team); sends ours within the message budget |
//!
//! ```text
//!  GameController ─3838─▶ GameControllerInterface ─GameControllerState─▶ cognition: GameStateProvider
//!                 ◀─3939─ (player, team, fallen; no ball, pose unknown)        │ GameState
//!  team mates ─10000+team─▶ TeamCommunication ─TeamMates─▶ cognition (behaviour)   ▼
//!             ◀─broadcast── (MessagePacer: GameState, GameControllerState, TeamMessageRequest)
//! ```
//!
//! The wire formats and the budget rule are the pure `spl_network` crate; this crate adds the
//! sockets ([`udp`]: bind with retries, never blocking, never fatal), the conversion into the
//! representations of `types` ([`convert`]) and the decision when to talk ([`team_sender`]).
//! It is not the place for what the robot does with it: that is cognition's `GameStateProvider`
//! and the behaviour.

pub mod convert;
mod game_controller_interface;
mod team_communication;
pub mod team_sender;
pub mod udp;

pub use game_controller_interface::{
    GameControllerInterface, GameControllerInterfaceParameters, GameControllerLink,
};
pub use team_communication::{TeamCommunication, TeamCommunicationParameters};
pub use team_sender::{SendContext, TeamSender};

use framework::ModuleRegistry;

/// The team and player number of `settings.toml` (and `--set settings.…`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayerNumbers {
    pub team_number: u8,
    pub player_number: u8,
}

impl PlayerNumbers {
    /// The numbers the configuration's settings give.
    pub fn from_settings(config: &config::Config) -> Self {
        let settings = config.settings();
        Self {
            team_number: settings.team_number,
            player_number: settings.player_number,
        }
    }
}

/// Every module of the `network` process.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<GameControllerInterface>()
        .with::<TeamCommunication>()
}
