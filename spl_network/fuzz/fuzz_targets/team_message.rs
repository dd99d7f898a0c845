//! Any bytes on the team port give a team message or an error, never a panic; a message that
//! decodes encodes again to the same bytes (never more than 128), and the inbox counts every
//! datagram exactly once. Each input is tried twice: as it is, and (if it has the size of a
//! Cortex message) with its checksum repaired, so that the fuzzer reaches the field checks
//! behind the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spl_network::{TeamMessage, TeamMessageInbox, MAX_TEAM_MESSAGE_SIZE, TEAM_MESSAGE_SIZE};

/// Fletcher-16 (modulo 255, the second sum in the high byte), as the format defines it.
fn fletcher16(bytes: &[u8]) -> [u8; 2] {
    let (mut low, mut high) = (0_u32, 0_u32);
    for &byte in bytes {
        low = (low + u32::from(byte)) % 255;
        high = (high + low) % 255;
    }
    [low as u8, high as u8]
}

fn check(bytes: &[u8]) {
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
}

fuzz_target!(|bytes: &[u8]| {
    check(bytes);
    if bytes.len() == TEAM_MESSAGE_SIZE {
        let mut repaired = bytes.to_vec();
        let checksum = fletcher16(&repaired[..TEAM_MESSAGE_SIZE - 2]);
        repaired[TEAM_MESSAGE_SIZE - 2..].copy_from_slice(&checksum);
        check(&repaired);
    }
});
