//! The modules of the `cognition` process (the world model, the game state, the behaviour's
//! outputs), run by `framework`, exchanging the types of `types`. The Python behaviour itself,
//! `BehaviourControl`, lives in the `behaviours` crate, which builds on the same framework.
//!
//! | module | provides | from |
//! |---|---|---|
//! | [`GameStateProvider`] | `GameState` | the GameController while heard (`GameControllerState`, [`game_controller_join`]), else the chest button and head touch; a whistle in Set ([`KickOffWhistle`]) |
//! | [`BallModelProvider`] | `BallModel` | `upper.BallPercept`, `lower.BallPercept` (a Kalman filter over both cameras' balls) |
//! | [`SimpleBallModelProvider`] | `BallModel` (an alternative, switched at run time) | the newest confident ball of either camera, unfiltered |
//! | [`BehaviourRequestTranslator`] | `MotionRequest`, `LedRequest`, `SoundRequest`, `TeamMessageRequest` | `BehaviourRequest`, `GameState` (a penalised robot stands; chest and feet show the game state, [`GameLeds`]); `WhistleState` (a new whistle makes the next team message a priority one) |

mod ball_model;
mod behaviour_request_translator;
pub mod game_controller_join;
mod game_leds;
mod game_state_provider;
mod kick_off_whistle;
mod manual_game_state;
mod simple_ball_model;

pub use ball_model::{BallModelProvider, BallModelProviderParameters};
pub use behaviour_request_translator::BehaviourRequestTranslator;
pub use game_leds::{team_colour, GameLeds};
pub use game_state_provider::{GameStateProvider, GameStateProviderParameters, PlayerNumbers};
pub use kick_off_whistle::KickOffWhistle;
pub use manual_game_state::{ButtonEvent, ButtonFilter, ManualGameState};
pub use simple_ball_model::SimpleBallModelProvider;

use framework::ModuleRegistry;

/// Every module of `cognition` defined in this crate.
pub fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<GameStateProvider>()
        .with::<BallModelProvider>()
        .with::<SimpleBallModelProvider>()
        .with::<BehaviourRequestTranslator>()
}
