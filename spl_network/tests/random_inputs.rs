//! Every decoder over millions of random and mutated datagrams (a seeded PRNG, so a failure
//! reproduces): each gives a value or an error, never a panic, and what decodes encodes back
//! to the same bytes. The cargo-fuzz targets in `fuzz/` do the same with coverage guidance;
//! this runs them in every `cargo test`. `SPL_NETWORK_RANDOM_INPUTS` sets the count per
//! decoder (default 2 000 000).

use spl_network::fake_game_controller::GameSetup;
use spl_network::team_mate_peer::TeamMatePeer;
use spl_network::{
    GameControllerMessage, GameControllerReturnMessage, Penalty, State, TeamMessage,
    TEAM_MESSAGE_SIZE,
};

/// xorshift64*: small, seeded, good enough to pick bytes.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// Fletcher-16 as the team-message format defines it (modulo 255, second sum high).
fn fletcher16(bytes: &[u8]) -> [u8; 2] {
    let (mut low, mut high) = (0_u32, 0_u32);
    for &byte in bytes {
        low = (low + u32::from(byte)) % 255;
        high = (high + low) % 255;
    }
    [low as u8, high as u8]
}

fn count() -> usize {
    std::env::var("SPL_NETWORK_RANDOM_INPUTS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(2_000_000)
}

/// A datagram derived from one of `seeds`: random bytes, a seed with a few bytes changed
/// (often to the edges of a field's range), or a seed cut or extended.
fn datagram(random: &mut Random, seeds: &[Vec<u8>], buffer: &mut Vec<u8>) {
    buffer.clear();
    match random.below(8) {
        0 => {
            let length = random.below(160);
            buffer.extend((0..length).map(|_| random.byte()));
        }
        1 => {
            let seed = &seeds[random.below(seeds.len())];
            let length = random.below(seed.len() + 8);
            buffer.extend(
                seed.iter()
                    .copied()
                    .chain(std::iter::repeat(0))
                    .take(length),
            );
        }
        _ => {
            buffer.extend_from_slice(&seeds[random.below(seeds.len())]);
            for _ in 0..=random.below(3) {
                let at = random.below(buffer.len());
                buffer[at] = match random.below(4) {
                    0 => random.byte(),
                    1 => buffer[at].wrapping_add(1),
                    2 => buffer[at].wrapping_sub(1),
                    _ => [0, 1, 20, 21, 255][random.below(5)],
                };
            }
        }
    }
}

#[test]
fn game_controller_decoder_over_random_inputs() {
    let mut setup = GameSetup::new(5, 12);
    let mut seeds = vec![setup.message(0).encode().to_vec()];
    setup.state = State::Playing;
    setup.kicking_team = None;
    setup.penalties.push((12, 3, Penalty::PlayerPushing));
    seeds.push(setup.message(200).encode().to_vec());
    let mut random = Random(0x5EED_0001);
    let mut buffer = Vec::new();
    let mut decoded = 0;
    for _ in 0..count() {
        datagram(&mut random, &seeds, &mut buffer);
        if let Ok(message) = GameControllerMessage::decode(&buffer) {
            decoded += 1;
            assert_eq!(message.encode().as_slice(), buffer.as_slice());
        }
    }
    eprintln!("GameController: {decoded} of {} inputs decoded", count());
    assert!(decoded > 0, "mutations that keep a packet valid must exist");
}

#[test]
fn return_message_decoder_over_random_inputs() {
    let seeds: Vec<Vec<u8>> = [(1, false, None), (20, true, Some(3.5))]
        .into_iter()
        .map(|(player_number, fallen, ball_age_seconds)| {
            GameControllerReturnMessage {
                player_number,
                team_number: 5,
                fallen,
                pose: [-4500.0, 3000.0, -3.1],
                ball_age_seconds,
                ball_position: [250.0, -80.0],
            }
            .encode()
            .expect("a valid message")
            .to_vec()
        })
        .collect();
    let mut random = Random(0x5EED_0002);
    let mut buffer = Vec::new();
    let mut decoded = 0;
    for _ in 0..count() {
        datagram(&mut random, &seeds, &mut buffer);
        if let Ok(message) = GameControllerReturnMessage::decode(&buffer) {
            decoded += 1;
            let again = message.encode().expect("a decoded message encodes");
            assert_eq!(GameControllerReturnMessage::decode(&again), Ok(message));
        }
    }
    eprintln!("return message: {decoded} of {} inputs decoded", count());
    assert!(decoded > 0);
}

#[test]
fn team_message_decoder_over_random_inputs() {
    let peer = TeamMatePeer::new("127.0.0.1:9".parse().expect("an address"), 5, vec![])
        .expect("a UDP socket");
    let seeds: Vec<Vec<u8>> = (0..10)
        .map(|round| {
            peer.message(1 + round as u8, round * 7)
                .encode()
                .expect("the peer's messages encode")
                .to_vec()
        })
        .collect();
    let mut random = Random(0x5EED_0003);
    let mut buffer = Vec::new();
    let (mut decoded, mut foreign) = (0, 0);
    for _ in 0..count() {
        datagram(&mut random, &seeds, &mut buffer);
        // Half of the messages of the right size get their checksum repaired, so that the
        // field checks behind it are reached.
        if buffer.len() == TEAM_MESSAGE_SIZE && random.below(2) == 0 {
            let checksum = fletcher16(&buffer[..TEAM_MESSAGE_SIZE - 2]);
            buffer[TEAM_MESSAGE_SIZE - 2..].copy_from_slice(&checksum);
        }
        match TeamMessage::decode(&buffer) {
            Ok(message) => {
                decoded += 1;
                let again = message.encode().expect("a decoded message encodes");
                assert_eq!(again.as_slice(), buffer.as_slice());
            }
            Err(error) if error.is_foreign() => foreign += 1,
            Err(_) => {}
        }
    }
    eprintln!(
        "team message: {decoded} decoded, {foreign} foreign of {} inputs",
        count()
    );
    assert!(decoded > 0 && foreign > 0);
}
