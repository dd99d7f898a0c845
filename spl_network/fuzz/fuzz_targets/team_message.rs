//! Any bytes on the team port give a team message or an error, never a panic; a message that
//! decodes encodes again to the same bytes (never more than 128), and the inbox counts every
//! datagram exactly once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spl_network::{TeamMessage, TeamMessageInbox, MAX_TEAM_MESSAGE_SIZE};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(message) = TeamMessage::decode(bytes) {
        let encoded = message.encode().expect("a decoded message encodes");
        assert!(encoded.len() <= MAX_TEAM_MESSAGE_SIZE);
        assert_eq!(encoded.as_slice(), bytes);
    }
    let mut inbox = TeamMessageInbox::new(5, 3);
    let _ = inbox.receive(bytes);
    let counters = &inbox.counters;
    let total = counters.accepted
        + counters.foreign
        + counters.other_version
        + counters.malformed
        + counters.other_team
        + counters.own;
    assert_eq!(total, 1);
});
