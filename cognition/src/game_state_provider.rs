//! [`GameStateProvider`]: the GameController decides while it is heard
//! ([`crate::game_controller_join`]); while it is not, the robot's own buttons drive the state,
//! as on B-Human's robots; either way a whistle in Set starts the game ([`KickOffWhistle`]).
//! `GameState::source` says which of the two decided.
//!
//! **The button scheme** (B-Human's manual game control, `GameStateProvider`):
//!
//! ```text
//!              chest press          chest press            chest press
//!   Initial ──────────────► Playing ───────────► Penalized ───────────► Playing …
//!      ▲                       │ long chest press (≥ long_press_ms) or a head touch,
//!      │ chest press           ▼ from any state
//!      └──────────────────  Finished
//! ```
//!
//! - A press counts when the button is let go (the falling edge), so that the length of the
//!   press is known: a press held for `long_press_ms` or longer is a long press.
//! - Debouncing: the button's state only changes after the raw reading has been stable for
//!   `debounce_ms`; a one-frame blip (a noisy contact, a knock) is no press.
//! - Penalized is `state = Playing` with `penalty = Some(Manual)`: the behaviour sees the same
//!   thing it would see from a GameController penalty.
//! - A head touch is a press and release of any of the three head sensors (debounced as a group).
//!
//! While the GameController is heard, button presses are debounced but change nothing; when it
//! falls silent, the machine resumes from its last word ([`ManualGameState::resume_from`]).

use crate::game_controller_join::game_state_from_packet;
use crate::kick_off_whistle::KickOffWhistle;
use crate::manual_game_state::{ButtonFilter, ManualGameState};
use framework::{LoadParameters, Update};
use std::time::Duration;
use types::{
    GameControllerState, GameState, GameStateSource, Penalty, PlayState, SensorData, WhistleState,
};

const MS: u64 = 1_000_000;

/// The parameters of [`GameStateProvider`] (`GameStateProvider.toml`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameStateProviderParameters {
    /// How long a raw button reading must be stable before it counts, ms.
    pub debounce_ms: u64,
    /// A chest press held at least this long is a long press (→ Finished), ms.
    pub long_press_ms: u64,
    /// The GameController decides while its newest packet is at most this old, ms.
    pub game_controller_timeout_ms: u64,
    /// A whistle in Set that the GameController has not confirmed with Playing after this long
    /// is taken back, ms (the GameController repeats Set for up to 15 s after the whistle).
    pub whistle_confirmation_ms: u64,
    /// Who the robot is in the game, from `settings.toml` (and `--set settings.…`), not from
    /// this module's file.
    #[serde(skip)]
    pub players: PlayerNumbers,
}

/// The team and player number of `settings.toml`, copied into every [`GameState`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayerNumbers {
    pub team_number: u8,
    pub player_number: u8,
}

impl LoadParameters for GameStateProviderParameters {
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError> {
        let mut parameters: Self = config.validated_parameters(module)?;
        let settings = config.settings();
        parameters.players = PlayerNumbers {
            team_number: settings.team_number,
            player_number: settings.player_number,
        };
        Ok(parameters)
    }
}

impl config::Validate for GameStateProviderParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range("debounce_ms", self.debounce_ms, 0..=1000)?;
        config::in_range("long_press_ms", self.long_press_ms, 1..=60_000)?;
        config::in_range(
            "game_controller_timeout_ms",
            self.game_controller_timeout_ms,
            500..=60_000,
        )?;
        config::in_range(
            "whistle_confirmation_ms",
            self.whistle_confirmation_ms,
            15_000..=120_000,
        )?;
        config::ordered(
            ("debounce_ms", self.debounce_ms),
            ("long_press_ms", self.long_press_ms),
        )
    }
}

/// Provides [`GameState`] from the GameController, the chest button and head touch sensors,
/// and the whistle.
#[derive(Debug)]
pub struct GameStateProvider {
    debounce: Duration,
    chest: ButtonFilter,
    head: ButtonFilter,
    long_press: Duration,
    state: ManualGameState,
    players: PlayerNumbers,
    kick_off_whistle: KickOffWhistle,
    game_controller_timeout_ns: u64,
    /// The GameController decided in the previous tick.
    following_game_controller: bool,
    /// The state, penalty and source last logged.
    announced: Option<(PlayState, Option<Penalty>, GameStateSource)>,
}

framework::module! {
    GameStateProvider {
        inputs: GameStateProviderInputs,
        loaded_parameters: GameStateProviderParameters,
        // `cortex set` keeps the game state (a robot in Playing stays in Playing).
        set_parameters: retune,
        requires: { sensor_data: SensorData },
        // From the audio process: a whistle in Set starts the game (see `kick_off_whistle`);
        // from the network process: the GameController's newest packet.
        uses: { whistle_state: WhistleState, game_controller_state: GameControllerState },
        provides: { GameState },
    }
}

impl GameStateProvider {
    fn new(parameters: GameStateProviderParameters) -> Self {
        let debounce = Duration::from_millis(parameters.debounce_ms);
        GameStateProvider {
            debounce,
            chest: ButtonFilter::new(debounce),
            head: ButtonFilter::new(debounce),
            long_press: Duration::from_millis(parameters.long_press_ms),
            state: ManualGameState::Initial,
            players: parameters.players,
            kick_off_whistle: KickOffWhistle::with_confirmation_timeout(
                parameters.whistle_confirmation_ms * MS,
            ),
            game_controller_timeout_ns: parameters.game_controller_timeout_ms * MS,
            following_game_controller: false,
            announced: None,
        }
    }

    /// New parameters while the robot runs (`cortex set`): the game state, the GameController
    /// join and a whistle being confirmed stay; the timings change from the next tick. A new
    /// `debounce_ms` starts the button filters afresh (a press being held is not counted).
    fn retune(&mut self, parameters: GameStateProviderParameters) {
        let debounce = Duration::from_millis(parameters.debounce_ms);
        if debounce != self.debounce {
            self.debounce = debounce;
            self.chest = ButtonFilter::new(debounce);
            self.head = ButtonFilter::new(debounce);
        }
        self.long_press = Duration::from_millis(parameters.long_press_ms);
        self.players = parameters.players;
        self.kick_off_whistle
            .set_confirmation_timeout(parameters.whistle_confirmation_ms * MS);
        self.game_controller_timeout_ns = parameters.game_controller_timeout_ms * MS;
    }

    /// One step at `now_ns` (monotonic): the state after this reading of the sensors.
    pub fn step(&mut self, sensor_data: &SensorData, now_ns: u64) -> ManualGameState {
        let touch = &sensor_data.touch;
        let chest = self.chest.update(touch.chest_button, now_ns);
        let head = touch.head_front || touch.head_middle || touch.head_rear;
        let head = self.head.update(head, now_ns);
        if self.following_game_controller {
            if chest.is_some() || head.is_some() {
                tracing::debug!("button press ignored: the GameController decides");
            }
            return self.state;
        }
        if let Some(press) = chest {
            let next = self.state.after_chest_press(press.held, self.long_press);
            tracing::info!(
                "chest button ({} ms): {:?} → {next:?}",
                press.held.as_millis(),
                self.state
            );
            self.state = next;
        }
        if head.is_some() {
            tracing::info!("head touch: {:?} → Finished", self.state);
            self.state = self.state.after_head_touch();
        }
        self.state
    }
}

impl Update<GameState> for GameStateProvider {
    fn update(&mut self, inputs: &GameStateProviderInputs, game_state: &mut GameState) {
        self.join(
            inputs.sensor_data,
            inputs.whistle_state,
            inputs.game_controller_state,
            framework::clock::now_ns(),
            game_state,
        );
    }
}

impl GameStateProvider {
    /// The whole rule at `now_ns` (monotonic), for the module and its tests.
    pub fn join(
        &mut self,
        sensor_data: &SensorData,
        whistle_state: &WhistleState,
        game_controller_state: &GameControllerState,
        now_ns: u64,
        game_state: &mut GameState,
    ) {
        let from_game_controller = game_controller_state
            .heard_within(now_ns, self.game_controller_timeout_ns)
            .and_then(|packet| game_state_from_packet(packet, self.players));
        match from_game_controller {
            Some(state) => {
                if !self.following_game_controller {
                    tracing::info!("GameController heard: it decides the game state");
                }
                self.following_game_controller = true;
                self.step(sensor_data, now_ns);
                *game_state = state;
            }
            None => {
                if self.following_game_controller {
                    self.following_game_controller = false;
                    self.state = ManualGameState::resume_from(game_state);
                    tracing::info!(
                        "GameController silent for {} ms: the buttons decide, from {:?}",
                        self.game_controller_timeout_ns / MS,
                        self.state
                    );
                }
                let state = self.step(sensor_data, now_ns);
                *game_state = GameState::default();
                state.write_into(game_state);
            }
        }
        self.kick_off_whistle
            .apply(game_state, whistle_state, now_ns);
        game_state.team_number = self.players.team_number;
        game_state.player_number = self.players.player_number;
        let now = (game_state.state, game_state.penalty, game_state.source);
        if self.announced != Some(now) {
            // `now_ns` (monotonic): the GameController latency bench measures with it.
            tracing::info!(
                now_ns,
                "game state {:?}{} ({:?})",
                now.0,
                now.1
                    .map_or(String::new(), |penalty| format!(", penalised: {penalty:?}")),
                now.2
            );
            self.announced = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider() -> GameStateProvider {
        GameStateProvider::new(GameStateProviderParameters {
            debounce_ms: 50,
            long_press_ms: 1000,
            game_controller_timeout_ms: 4000,
            whistle_confirmation_ms: 20_000,
            players: PlayerNumbers::default(),
        })
    }

    fn sensors(chest: bool, head: bool) -> SensorData {
        let mut sensor_data = SensorData::default();
        sensor_data.touch.chest_button = chest;
        sensor_data.touch.head_middle = head;
        sensor_data
    }

    /// Presses the chest button from `start_ms` for `held_ms`, sampled every 16 ms (cognition's
    /// rate), and returns the state after the release has settled, and the time then.
    fn press(
        provider: &mut GameStateProvider,
        start_ms: u64,
        held_ms: u64,
        head: bool,
    ) -> (ManualGameState, u64) {
        let mut t = start_ms;
        while t < start_ms + held_ms {
            provider.step(&sensors(!head, head), t * MS);
            t += 16;
        }
        let release_end = t + 200;
        let mut state = provider.state;
        while t < release_end {
            state = provider.step(&sensors(false, false), t * MS);
            t += 16;
        }
        (state, t)
    }

    #[test]
    fn chest_presses_cycle_initial_playing_penalized_playing() {
        let mut provider = provider();
        let mut t = 0;
        let mut seen = Vec::new();
        for _ in 0..4 {
            let (state, end) = press(&mut provider, t, 200, false);
            seen.push(state);
            t = end;
        }
        assert_eq!(
            seen,
            [
                ManualGameState::Playing,
                ManualGameState::Penalized,
                ManualGameState::Playing,
                ManualGameState::Penalized
            ]
        );
        let mut game_state = GameState::default();
        ManualGameState::Penalized.write_into(&mut game_state);
        assert_eq!(game_state.state, PlayState::Playing);
        assert!(game_state.is_penalized());
        assert_eq!(game_state.source, GameStateSource::Manual);
    }

    #[test]
    fn new_parameters_keep_the_game_state_and_change_the_long_press() {
        let mut provider = provider();
        let (state, t) = press(&mut provider, 0, 300, false);
        assert_eq!(state, ManualGameState::Playing);
        framework::Module::set_parameters(
            &mut provider,
            GameStateProviderParameters {
                long_press_ms: 100,
                ..provider_parameters()
            },
        );
        assert_eq!(
            provider.state,
            ManualGameState::Playing,
            "the state was kept"
        );
        // 300 ms is now a long press: Finished, not Penalized.
        let (state, _) = press(&mut provider, t, 300, false);
        assert_eq!(state, ManualGameState::Finished);
    }

    fn provider_parameters() -> GameStateProviderParameters {
        GameStateProviderParameters {
            debounce_ms: 50,
            long_press_ms: 1000,
            game_controller_timeout_ms: 4000,
            whistle_confirmation_ms: 20_000,
            players: PlayerNumbers::default(),
        }
    }

    #[test]
    fn the_player_and_team_number_come_from_the_settings_and_their_overrides() {
        let overrides = [
            config::Override::parse("settings.player_number=3").unwrap(),
            config::Override::parse("settings.team_number=42").unwrap(),
        ];
        let config = config::Config::load(&config::default_root(), None, &overrides).unwrap();
        let parameters = GameStateProviderParameters::load(&config, "GameStateProvider").unwrap();
        let mut provider = GameStateProvider::new(parameters);
        let sensor_data = SensorData::default();
        let mut game_state = GameState::default();
        provider.update(
            &GameStateProviderInputs {
                sensor_data: &sensor_data,
                whistle_state: &WhistleState::default(),
                game_controller_state: &GameControllerState::default(),
                _lifetime: std::marker::PhantomData,
            },
            &mut game_state,
        );
        assert_eq!((game_state.team_number, game_state.player_number), (42, 3));
    }

    #[test]
    fn the_press_counts_on_release_not_on_press() {
        let mut provider = provider();
        for t in (0..500).step_by(16) {
            assert_eq!(
                provider.step(&sensors(true, false), t * MS),
                ManualGameState::Initial,
                "still held at {t} ms"
            );
        }
        let mut state = ManualGameState::Initial;
        for t in (500..700).step_by(16) {
            state = provider.step(&sensors(false, false), t * MS);
        }
        assert_eq!(state, ManualGameState::Playing);
    }

    #[test]
    fn a_long_press_or_a_head_touch_finishes_and_a_press_restarts() {
        let mut provider = provider();
        let (state, t) = press(&mut provider, 0, 200, false);
        assert_eq!(state, ManualGameState::Playing);
        let (state, t) = press(&mut provider, t, 1200, false);
        assert_eq!(state, ManualGameState::Finished, "long press");
        let (state, t) = press(&mut provider, t, 100, false);
        assert_eq!(state, ManualGameState::Initial, "a press after finished");
        let (state, t) = press(&mut provider, t, 100, false);
        assert_eq!(state, ManualGameState::Playing);
        let (state, _) = press(&mut provider, t, 100, true);
        assert_eq!(state, ManualGameState::Finished, "head touch");
    }
}

#[cfg(test)]
#[path = "game_state_provider_join_tests.rs"]
mod join_tests;
