//! `RequestFollower`: turns the `SoundRequest` representation (a counter and the newest sound)
//! into player requests, one per new counter value.
//!
//! The representation lives in a higher crate; the audio module will pass its two fields.
//! After a restart of the audio process the first value seen may be one that was already
//! played before the crash: `FirstSeen::Skip` keeps it from being said twice,
//! `FirstSeen::Play` plays it (for a process that starts with the others).

use super::request::{Delivery, PlayRequest, Sound};

/// What to do with the request present when the follower starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstSeen {
    Play,
    Skip,
}

/// Remembers the last counter value seen.
#[derive(Debug, Clone)]
pub struct RequestFollower {
    last_counter: Option<u64>,
    first_seen: FirstSeen,
    delivery: Delivery,
}

impl RequestFollower {
    /// New sounds are handed on with `delivery`.
    pub fn new(first_seen: FirstSeen, delivery: Delivery) -> RequestFollower {
        RequestFollower {
            last_counter: None,
            first_seen,
            delivery,
        }
    }

    /// The request to submit for this tick's representation, if it is a new one.
    pub fn update(&mut self, request_counter: u64, sound: Option<&Sound>) -> Option<PlayRequest> {
        let previous = self.last_counter.replace(request_counter);
        let new = match previous {
            None => self.first_seen == FirstSeen::Play,
            Some(previous) => previous != request_counter,
        };
        let sound = sound.filter(|_| new)?.clone();
        Some(PlayRequest {
            sound,
            delivery: self.delivery,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(text: &str) -> Sound {
        Sound::Say { text: text.into() }
    }

    #[test]
    fn each_counter_value_plays_once_and_silence_plays_nothing() {
        let mut follower = RequestFollower::new(FirstSeen::Play, Delivery::Interrupt);
        let hello = say("hello");
        assert_eq!(
            follower.update(1, Some(&hello)),
            Some(PlayRequest::say("hello", Delivery::Interrupt))
        );
        assert_eq!(follower.update(1, Some(&hello)), None);
        // The same text again, under a new counter: said again.
        assert!(follower.update(2, Some(&hello)).is_some());
        assert_eq!(follower.update(3, None), None);
        // A counter that wrapped or went back (a restarted sender) is new too.
        assert!(follower.update(0, Some(&hello)).is_some());
    }

    #[test]
    fn a_restarted_process_does_not_repeat_what_it_finds() {
        let mut follower = RequestFollower::new(FirstSeen::Skip, Delivery::Queue);
        let error = say("Python error");
        assert_eq!(follower.update(7, Some(&error)), None);
        assert_eq!(follower.update(7, Some(&error)), None);
        assert_eq!(
            follower.update(8, Some(&error)),
            Some(PlayRequest::say("Python error", Delivery::Queue))
        );
    }
}
