//! The robot's own game controls, used while no GameController is heard (B-Human's manual
//! game control): a debounced button that reports each press when it is let go
//! ([`ButtonFilter`]), and the state machine the chest button and head touch drive
//! ([`ManualGameState`]); the scheme is drawn in [`crate::game_state_provider`].

use std::time::Duration;
use types::{GameState, GameStateSource, Penalty, PlayState};

/// A debounced button that reports each press when it is let go.
#[derive(Debug, Clone)]
pub struct ButtonFilter {
    debounce_ns: u64,
    raw: bool,
    raw_since_ns: u64,
    stable: bool,
    pressed_since_ns: u64,
}

/// A finished press of a button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ButtonEvent {
    /// How long the button was held (debounced edges), for long presses.
    pub held: Duration,
}

impl ButtonFilter {
    /// A released button whose readings must be stable for `debounce`.
    pub fn new(debounce: Duration) -> Self {
        ButtonFilter {
            debounce_ns: debounce.as_nanos() as u64,
            raw: false,
            raw_since_ns: 0,
            stable: false,
            pressed_since_ns: 0,
        }
    }

    /// Feeds the reading `pressed` taken at `now_ns` (monotonic); returns the press that ended
    /// with this reading, if any.
    pub fn update(&mut self, pressed: bool, now_ns: u64) -> Option<ButtonEvent> {
        if pressed != self.raw {
            self.raw = pressed;
            self.raw_since_ns = now_ns;
        }
        if self.raw == self.stable || now_ns.saturating_sub(self.raw_since_ns) < self.debounce_ns {
            return None;
        }
        self.stable = self.raw;
        if self.stable {
            self.pressed_since_ns = self.raw_since_ns;
            None
        } else {
            Some(ButtonEvent {
                held: Duration::from_nanos(self.raw_since_ns.saturating_sub(self.pressed_since_ns)),
            })
        }
    }
}

/// The state machine of the button scheme (described in the `game_state_provider` module's
/// documentation; [`GameStateProvider`](crate::GameStateProvider) runs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ManualGameState {
    #[default]
    Initial,
    Playing,
    Penalized,
    Finished,
}

impl ManualGameState {
    /// The state after a chest press held for `held`.
    pub fn after_chest_press(self, held: Duration, long_press: Duration) -> Self {
        if held >= long_press {
            return ManualGameState::Finished;
        }
        match self {
            ManualGameState::Initial => ManualGameState::Playing,
            ManualGameState::Playing => ManualGameState::Penalized,
            ManualGameState::Penalized => ManualGameState::Playing,
            ManualGameState::Finished => ManualGameState::Initial,
        }
    }

    /// The state after a head touch: Finished from anywhere.
    pub fn after_head_touch(self) -> Self {
        ManualGameState::Finished
    }

    /// Writes the state into the fields of `game_state` it owns.
    pub fn write_into(self, game_state: &mut GameState) {
        let (state, penalty) = match self {
            ManualGameState::Initial => (PlayState::Initial, None),
            ManualGameState::Playing => (PlayState::Playing, None),
            ManualGameState::Penalized => (PlayState::Playing, Some(Penalty::Manual)),
            ManualGameState::Finished => (PlayState::Finished, None),
        };
        game_state.state = state;
        game_state.penalty = penalty;
        game_state.source = GameStateSource::Manual;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn blips_shorter_than_the_debounce_time_are_no_press() {
        let mut filter = ButtonFilter::new(Duration::from_millis(50));
        // A one-frame blip, then a bouncing contact that never holds for 50 ms.
        let readings = [
            (0, false),
            (16, true),
            (32, false),
            (48, true),
            (80, false),
            (90, true),
            (100, false),
            (300, false),
        ];
        for (t, pressed) in readings {
            assert_eq!(filter.update(pressed, t * MS), None, "at {t} ms");
        }
        // A bounce during the release of a real press does not make two presses.
        let mut events = Vec::new();
        for (t, pressed) in [
            (400, true),
            (500, true),
            (600, false),
            (610, true),
            (620, false),
            (700, false),
            (800, false),
        ] {
            events.extend(filter.update(pressed, t * MS));
        }
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].held, Duration::from_millis(220));
    }
}
