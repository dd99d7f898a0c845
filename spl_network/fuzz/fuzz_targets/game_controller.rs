//! Any bytes given to the GameController decoder (as they arrive on UDP 3838) give a message
//! or an error, never a panic; a packet that decodes encodes again to the same bytes, and the
//! inbox counts every datagram exactly once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spl_network::{GameControllerInbox, GameControllerMessage};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(message) = GameControllerMessage::decode(bytes) {
        assert_eq!(message.encode().as_slice(), bytes);
    }
    let mut inbox = GameControllerInbox::new(bytes.first().copied().unwrap_or(0));
    let _ = inbox.receive(bytes);
    let counters = &inbox.counters;
    let total = counters.accepted
        + counters.wrong_header
        + counters.wrong_version
        + counters.wrong_length
        + counters.invalid_field
        + counters.other_game;
    assert_eq!(total, 1);
});
