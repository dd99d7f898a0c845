//! rUNSWift's error policy for a failing behaviour: the robot stands still, its LEDs flash red
//! and blue, it says "Python error" at most every `error_sound_interval_s`, the error is logged
//! (repeats rate-limited), and the next tick tries again.

use std::time::{Duration, Instant};
use types::{
    BehaviourLeds, BehaviourRequest, BehaviourTeam, BodyMotion, Colour, ColouredLight,
    HeadMotionRequest, Sound, SoundRequest,
};

/// How the LEDs flash while the behaviour fails.
pub const ERROR_FLASH_PERIOD: Duration = Duration::from_millis(250);
/// The colours the LEDs alternate between while the behaviour fails.
pub const ERROR_COLOURS: [Colour; 2] = [Colour::Red, Colour::Blue];
/// How `cortex status` starts a behaviour's fault.
pub const PYTHON_ERROR: &str = "Python error";
/// What the robot says while the behaviour fails.
pub const ERROR_SPEECH: &str = "Python error";

/// rUNSWift's policy for a failing behaviour: stand still, flash the LEDs, say "Python error"
/// at most every `sound_interval`, log the error (repeats rate-limited), try again next tick.
#[derive(Debug)]
pub struct ErrorPolicy {
    sound_interval: Duration,
    failing_since: Option<Instant>,
    last_sound: Option<Instant>,
    last_log: Option<(String, Instant)>,
    repeats: u64,
}

impl ErrorPolicy {
    /// A policy that says "Python error" at most every `sound_interval`.
    pub fn new(sound_interval: Duration) -> Self {
        ErrorPolicy {
            sound_interval,
            failing_since: None,
            last_sound: None,
            last_log: None,
            repeats: 0,
        }
    }

    /// The request for a tick that failed with `error` at `now`; `sounds` numbers the sounds.
    pub fn failed(&mut self, error: &str, now: Instant, sounds: &mut u64) -> BehaviourRequest {
        let since = *self.failing_since.get_or_insert(now);
        let due = self.last_log.as_ref().is_none_or(|(text, at)| {
            text != error || now.saturating_duration_since(*at) >= self.sound_interval
        });
        if due {
            let repeats = std::mem::take(&mut self.repeats);
            let again = if repeats > 0 {
                format!(" ({repeats} more failed ticks since the last report)")
            } else {
                String::new()
            };
            tracing::error!(
                "behaviour error; standing still and retrying every tick{again}:\n{error}"
            );
            self.last_log = Some((error.to_owned(), now));
        } else {
            self.repeats += 1;
        }

        let phase =
            now.saturating_duration_since(since).as_millis() / ERROR_FLASH_PERIOD.as_millis();
        let light = ColouredLight::new(ERROR_COLOURS[(phase % 2) as usize], 1.0);
        let mut sound = SoundRequest {
            request_counter: *sounds,
            sound: None,
        };
        if self
            .last_sound
            .is_none_or(|at| now.saturating_duration_since(at) >= self.sound_interval)
        {
            self.last_sound = Some(now);
            *sounds += 1;
            sound = SoundRequest {
                request_counter: *sounds,
                sound: Some(Sound::Say {
                    text: ERROR_SPEECH.to_owned(),
                }),
            };
        }
        BehaviourRequest {
            body: BodyMotion::Stand,
            head: HeadMotionRequest::default(),
            leds: BehaviourLeds {
                left_eye: light,
                right_eye: light,
                left_ear: light,
                right_ear: light,
                chest: light,
                left_foot: light,
                right_foot: light,
                skull: light,
            },
            sound,
            // Role and intention "None": a robot whose behaviour fails tells its team mates
            // nothing they could rely on.
            team: BehaviourTeam::default(),
        }
    }

    /// A tick succeeded.
    pub fn succeeded(&mut self) {
        if self.failing_since.take().is_some() {
            tracing::info!("behaviour recovered");
            self.last_log = None;
            self.repeats = 0;
        }
    }
}
