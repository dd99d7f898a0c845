//! What the bridge's resynchronising frame reader costs per LoLA frame, beside the reader it
//! replaced, in one run: every variant writes the frame into a real Unix socket pair and reads
//! it back, so each row includes the same two system calls.
//!
//! - `read_exact + decode`: the old reader (exactly 896 bytes, then the strict decoder);
//! - `FrameStream`: receive and parse (the prefix decoder, which tolerates non-finite values);
//! - `FrameStream + SensorCheck`: plus the check of all 146 numbers against the last good frame;
//! - `zeros, then a frame` and `random bytes, then a frame`: a bad frame and the good frame after
//!   it, per pair (what resynchronising costs).
//!
//! `cargo bench -p simulator --bench lola_frames`

use lola::codec::{decode_sensor_frame, encode_sensor_frame, SENSOR_FRAME_SIZE};
use lola::frame_stream::{FrameStream, Received};
use lola::sensor_check::SensorCheck;
use simulator::simulated_body::{SimulatedBody, SITTING_POSE_RAD};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};
use types::{BatteryState, RobotIdentity, SonarReadings, TouchSensors};

const ROUNDS: usize = 20_000;

fn frame() -> Vec<u8> {
    let body = SimulatedBody::new(SITTING_POSE_RAD, 5.0, 1.0);
    let data = body.sensor_data(
        TouchSensors::default(),
        BatteryState::new(1.0, -32708, -1.2, 32.0),
        SonarReadings {
            left_m: 2.55,
            right_m: 2.55,
        },
    );
    let identity = RobotIdentity {
        body_id: "P0000073A07S94700012".into(),
        body_version: "6.0.0".into(),
        head_id: "P0000074A05S93M00061".into(),
        head_version: "6.0.0".into(),
    };
    let bytes = encode_sensor_frame(&data, &identity).unwrap();
    assert_eq!(bytes.len(), SENSOR_FRAME_SIZE);
    bytes
}

fn random_bytes() -> Vec<u8> {
    let mut seed = 0x9e37_79b9_u32;
    (0..SENSOR_FRAME_SIZE)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as u8
        })
        .collect()
}

fn old_reader(frame: &[u8]) -> Duration {
    let (mut ours, mut theirs) = UnixStream::pair().unwrap();
    let mut buffer = [0_u8; SENSOR_FRAME_SIZE];
    let started = Instant::now();
    for _ in 0..ROUNDS {
        theirs.write_all(frame).unwrap();
        ours.read_exact(&mut buffer).unwrap();
        std::hint::black_box(decode_sensor_frame(&buffer).unwrap());
    }
    started.elapsed() / ROUNDS as u32
}

/// Writes `chunks` per round and reads until the good frame of the round arrived.
fn stream_reader(chunks: &[&[u8]], check: bool) -> (Duration, u64) {
    let (ours, mut theirs) = UnixStream::pair().unwrap();
    let mut stream =
        FrameStream::new(ours, Duration::from_millis(100), Duration::from_millis(100)).unwrap();
    let mut sensor_check = SensorCheck::default();
    let mut events = Vec::new();
    let mut rejected = 0;
    let started = Instant::now();
    for _ in 0..ROUNDS {
        for chunk in chunks {
            theirs.write_all(chunk).unwrap();
        }
        let mut good = false;
        while !good {
            stream.receive().unwrap();
            events.clear();
            stream.parse(&mut events);
            for event in events.drain(..) {
                match event {
                    Received::Frame { mut frame, .. } => {
                        if check {
                            sensor_check.check(&mut frame.sensor_data, 8).unwrap();
                        }
                        std::hint::black_box(frame);
                        good = true;
                    }
                    Received::Rejected { frames, .. } => rejected += u64::from(frames),
                }
            }
        }
    }
    (started.elapsed() / ROUNDS as u32, rejected)
}

fn main() {
    let good = frame();
    let zeros = vec![0_u8; SENSOR_FRAME_SIZE];
    let random = random_bytes();
    let baseline = old_reader(&good);
    let rows = [
        ("read_exact + decode (old)", baseline, 0),
        {
            let (time, rejected) = stream_reader(&[&good], false);
            ("FrameStream", time, rejected)
        },
        {
            let (time, rejected) = stream_reader(&[&good], true);
            ("FrameStream + SensorCheck", time, rejected)
        },
        {
            let (time, rejected) = stream_reader(&[&zeros, &good], true);
            ("zeros, then a frame", time, rejected)
        },
        {
            let (time, rejected) = stream_reader(&[&random, &good], true);
            ("random bytes, then a frame", time, rejected)
        },
    ];
    println!("LoLA frame reading, {ROUNDS} rounds each (socket write + read included)");
    println!(
        "{:<28} {:>12} {:>10} {:>16}",
        "variant", "µs / round", "vs old", "rejected frames"
    );
    for (name, time, rejected) in rows {
        println!(
            "{:<28} {:>12.2} {:>9.2}x {:>16}",
            name,
            time.as_secs_f64() * 1e6,
            time.as_secs_f64() / baseline.as_secs_f64(),
            rejected
        );
    }
}
