//! The referee's whistle in SET: the robot may start playing the moment it hears it, before
//! the GameController's PLAYING arrives (SPL rules: the GameController sends PLAYING some
//! seconds after the whistle, and a robot that heard the whistle may start at once).
//!
//! ```text
//!   state Set ──── a whistle recognised at or after entering Set ───► Playing
//!                  (WhistleState::last_whistle_ns, monotonic)          (until the state
//!                                                                      leaves Set)
//! ```
//!
//! A whistle counts by its time, not by the detector's counter, so that a restarted `audio`
//! process (whose counter starts again at 0) or a restarted cognition does not invent one, and
//! a whistle heard before Set (the previous kick-off) does not count.
//!
//! With a GameController, its SET goes on for up to 15 s after the referee's whistle (protocols
//! §4): that stale SET does not undo the whistle. If the GameController still says SET
//! `confirmation_timeout` after the whistle, though, the referee did not start the game (the
//! detector heard something else): the robot returns to SET, and that whistle no longer counts.

use types::{GameState, GameStateSource, PlayState, WhistleState};

/// Turns Set into Playing once a whistle has been heard in Set.
#[derive(Debug, Clone, Default)]
pub struct KickOffWhistle {
    /// When the current Set began (monotonic ns); `None` outside Set.
    set_since_ns: Option<u64>,
    /// A whistle was heard during the current Set.
    heard: bool,
    /// When that whistle was heard (monotonic ns).
    heard_ns: u64,
    /// How long a GameController's Set may outlast the whistle (`None`: for ever).
    confirmation_timeout_ns: Option<u64>,
}

impl KickOffWhistle {
    /// A rule whose whistle the GameController must confirm with PLAYING within
    /// `confirmation_timeout_ns` (see the module documentation).
    pub fn with_confirmation_timeout(confirmation_timeout_ns: u64) -> Self {
        Self {
            confirmation_timeout_ns: Some(confirmation_timeout_ns),
            ..Self::default()
        }
    }

    /// A new confirmation timeout (`cortex set`), for the whistle being confirmed too.
    pub fn set_confirmation_timeout(&mut self, confirmation_timeout_ns: u64) {
        self.confirmation_timeout_ns = Some(confirmation_timeout_ns);
    }

    /// Applies the whistle to `game_state` (as the buttons or the GameController made it) at
    /// `now_ns` (monotonic).
    pub fn apply(&mut self, game_state: &mut GameState, whistle: &WhistleState, now_ns: u64) {
        if game_state.state != PlayState::Set {
            self.set_since_ns = None;
            self.heard = false;
            return;
        }
        let set_since_ns = *self.set_since_ns.get_or_insert(now_ns);
        if !self.heard {
            if let Some(whistle_ns) = whistle
                .last_whistle_ns
                .filter(|&whistle_ns| whistle_ns >= set_since_ns)
            {
                // Monotonic times: the kick-off system test measures its delay with them.
                tracing::info!(whistle_ns, now_ns, "whistle in Set → Playing");
                self.heard = true;
                self.heard_ns = whistle_ns;
            }
        }
        if self.heard
            && game_state.source == GameStateSource::GameController
            && self
                .confirmation_timeout_ns
                .is_some_and(|timeout_ns| now_ns.saturating_sub(self.heard_ns) > timeout_ns)
        {
            tracing::info!(
                "the GameController still says Set {} s after the whistle: back to Set",
                now_ns.saturating_sub(self.heard_ns) / 1_000_000_000
            );
            self.heard = false;
            // That whistle is spent: only a newer one counts.
            self.set_since_ns = Some(now_ns);
        }
        if self.heard {
            game_state.state = PlayState::Playing;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn in_state(state: PlayState) -> GameState {
        GameState {
            state,
            ..GameState::default()
        }
    }

    fn whistle_at(ms: Option<u64>, count: u64) -> WhistleState {
        WhistleState {
            detected: ms.is_some(),
            last_whistle_ns: ms.map(|ms| ms * MS),
            whistle_count: count,
            confidence: 0.8,
        }
    }

    #[test]
    fn a_whistle_in_set_makes_playing_and_it_stays_until_set_ends() {
        let mut kick_off = KickOffWhistle::default();
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &whistle_at(None, 0), 1000 * MS);
        assert_eq!(game_state.state, PlayState::Set, "no whistle yet");
        let whistle = whistle_at(Some(1500), 1);
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &whistle, 1516 * MS);
        assert_eq!(game_state.state, PlayState::Playing);
        // The whistle is over, the source still says Set: still Playing.
        let mut game_state = in_state(PlayState::Set);
        let over = WhistleState {
            detected: false,
            ..whistle.clone()
        };
        kick_off.apply(&mut game_state, &over, 3000 * MS);
        assert_eq!(game_state.state, PlayState::Playing);
        // The source leaves Set (e.g. Ready after a goal), then Set again: the old whistle is
        // no kick-off.
        let mut game_state = in_state(PlayState::Ready);
        kick_off.apply(&mut game_state, &over, 4000 * MS);
        assert_eq!(game_state.state, PlayState::Ready);
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &over, 5000 * MS);
        assert_eq!(game_state.state, PlayState::Set);
    }

    #[test]
    fn a_whistle_before_set_or_outside_set_changes_nothing() {
        let mut kick_off = KickOffWhistle::default();
        for state in [
            PlayState::Initial,
            PlayState::Ready,
            PlayState::Playing,
            PlayState::Finished,
        ] {
            let mut game_state = in_state(state);
            kick_off.apply(&mut game_state, &whistle_at(Some(100), 1), 100 * MS);
            assert_eq!(game_state.state, state);
        }
        // Whistled at 100 ms, Set from 200 ms: not a kick-off.
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &whistle_at(Some(100), 1), 200 * MS);
        assert_eq!(game_state.state, PlayState::Set);
    }

    #[test]
    fn a_stale_game_controller_set_does_not_undo_the_whistle_until_the_confirmation_timeout() {
        let mut kick_off = KickOffWhistle::with_confirmation_timeout(20_000 * MS);
        let from_game_controller = || GameState {
            state: PlayState::Set,
            source: GameStateSource::GameController,
            ..GameState::default()
        };
        let mut game_state = from_game_controller();
        kick_off.apply(&mut game_state, &whistle_at(None, 0), 1000 * MS);
        assert_eq!(game_state.state, PlayState::Set);
        let whistle = whistle_at(Some(2000), 1);
        // The GameController repeats Set for 15 s after the whistle: Playing throughout.
        for t in (2000..=17_000).step_by(500) {
            let mut game_state = from_game_controller();
            kick_off.apply(&mut game_state, &whistle, t * MS);
            assert_eq!(game_state.state, PlayState::Playing, "at {t} ms");
        }
        // Still Set 20 s after the whistle: the whistle was not the referee's.
        let mut game_state = from_game_controller();
        kick_off.apply(&mut game_state, &whistle, 22_001 * MS);
        assert_eq!(game_state.state, PlayState::Set);
        let mut game_state = from_game_controller();
        kick_off.apply(&mut game_state, &whistle, 23_000 * MS);
        assert_eq!(game_state.state, PlayState::Set, "the old whistle is spent");
        // A new whistle counts again.
        let mut game_state = from_game_controller();
        kick_off.apply(&mut game_state, &whistle_at(Some(24_000), 2), 24_010 * MS);
        assert_eq!(game_state.state, PlayState::Playing);
        // Without a GameController (the buttons) nobody confirms: no timeout.
        let mut kick_off = KickOffWhistle::with_confirmation_timeout(20_000 * MS);
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &whistle_at(None, 0), 1000 * MS);
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &whistle, 60_000 * MS);
        assert_eq!(game_state.state, PlayState::Playing);
    }

    #[test]
    fn a_restarted_detector_counting_from_zero_invents_no_whistle() {
        let mut kick_off = KickOffWhistle::default();
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &whistle_at(Some(100), 5), 1000 * MS);
        // audio restarted: the count went back to 0, the state is the default.
        let mut game_state = in_state(PlayState::Set);
        kick_off.apply(&mut game_state, &WhistleState::default(), 1100 * MS);
        assert_eq!(game_state.state, PlayState::Set);
    }
}
