//! Cross-process tests of the triple buffer with real processes (this binary re-executes itself
//! in a role chosen by the environment):
//!
//! - **stress:** a writer process publishes self-checking payloads from 8 bytes to 2.4 MB as fast
//!   as it can; several reader processes validate every read (the payload's own counter equals
//!   the publish count returned, its length is the one that count implies, and its checksum
//!   matches); counts never go backwards.
//! - **crash:** the writer is killed with SIGKILL at random moments, many times; the readers go on
//!   reading complete values, a new writer process continues the count and repairs the slot the
//!   dead one left half-written.
//!
//! It has its own `main` (`harness = false`): the scenarios need whole processes, not threads.

use ipc::TripleBuffer;
use std::io::{BufRead, BufReader};
use std::os::fd::{AsFd, AsRawFd};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROLE: &str = "CORTEX_IPC_TEST_ROLE";
const FD: &str = "CORTEX_IPC_TEST_FD";
const SECONDS: &str = "CORTEX_IPC_TEST_SECONDS";
const SIZES: &str = "CORTEX_IPC_TEST_SIZES";
const CAPACITY: usize = 2_457_600;
const ALL_SIZES: [usize; 7] = [8, 64, 4096, 65_536, 614_400, 1_000_003, CAPACITY];
const LARGE_SIZES: [usize; 2] = [614_400, CAPACITY];

/// The payload length implied by a publish count.
fn size_for(count: u64, sizes: &[usize]) -> usize {
    sizes[(count as usize) % sizes.len()]
}

fn checksum(bytes: &[u8]) -> u32 {
    // FNV-1a over 8-byte words (then the tail bytes), folded to 32 bits: cheap enough that the
    // writer spends its time publishing, and sensitive to any changed word.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder();
    for chunk in chunks {
        hash = (hash ^ u64::from_le_bytes(chunk.try_into().unwrap()))
            .wrapping_mul(0x0000_0100_0000_01b3);
    }
    for &byte in tail {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash ^ (hash >> 32)) as u32
}

/// Fills `out` with a payload for `count`: checksum (4 bytes), counter (4 bytes), pattern.
fn fill(count: u64, out: &mut [u8]) {
    out[4..8].copy_from_slice(&(count as u32).to_le_bytes());
    let seed = count.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = out[8..].chunks_exact_mut(8);
    for (i, chunk) in (&mut chunks).enumerate() {
        chunk.copy_from_slice(&(seed ^ i as u64).to_le_bytes());
    }
    for (i, byte) in chunks.into_remainder().iter_mut().enumerate() {
        *byte = (seed >> (8 * i)) as u8;
    }
    let sum = checksum(&out[4..]);
    out[..4].copy_from_slice(&sum.to_le_bytes());
}

/// Checks a payload read with publish count `count`; describes what is wrong.
fn validate(count: u64, bytes: &[u8], sizes: &[usize]) -> Result<(), String> {
    let expected_len = size_for(count, sizes);
    if bytes.len() != expected_len {
        return Err(format!(
            "count {count}: length {} instead of {expected_len}",
            bytes.len()
        ));
    }
    let stored = u32::from_le_bytes(bytes[..4].try_into().unwrap());
    if stored != checksum(&bytes[4..]) {
        return Err(format!("count {count}: checksum mismatch (torn value)"));
    }
    let counter = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    if counter != count as u32 {
        return Err(format!(
            "count {count}: the value carries counter {counter}"
        ));
    }
    Ok(())
}

fn sizes_from_env() -> Vec<usize> {
    match std::env::var(SIZES).as_deref() {
        Ok("large") => LARGE_SIZES.to_vec(),
        _ => ALL_SIZES.to_vec(),
    }
}

fn open_inherited() -> TripleBuffer {
    let raw: i32 = std::env::var(FD)
        .expect("descriptor number")
        .parse()
        .expect("a number");
    TripleBuffer::from_fd(ipc::fd::take_inherited(raw).expect("inherited")).expect("segment")
}

/// Child role: publish as fast as possible for the given seconds (or until killed).
fn writer_role() {
    let buffer = open_inherited();
    let sizes = sizes_from_env();
    let seconds: f64 = std::env::var(SECONDS).unwrap().parse().unwrap();
    let mut writer = buffer.writer().expect("writer role");
    println!("repaired {}", writer.repaired_slots());
    println!("first {}", writer.next_count());
    let mut payload = vec![0u8; CAPACITY];
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let mut published = 0u64;
    while Instant::now() < end {
        let count = writer.next_count();
        let len = size_for(count, &sizes);
        fill(count, &mut payload[..len]);
        assert_eq!(writer.publish(&payload[..len]).unwrap(), count);
        published += 1;
        if published == 1 {
            // The crash test starts its kill timer only now: on a loaded machine a writer killed
            // before its first publish would leave nothing to check.
            println!("first-published");
        }
    }
    println!("published {published}");
}

/// Child role: read and validate for the given seconds; report and fail on any invalid read.
fn reader_role() {
    let buffer = open_inherited();
    let sizes = sizes_from_env();
    let seconds: f64 = std::env::var(SECONDS).unwrap().parse().unwrap();
    let mut reader = buffer.reader();
    let mut out = Vec::new();
    let (mut reads, mut distinct, mut invalid, mut backwards, mut last) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < end {
        let Some(count) = reader.read_latest(&mut out).expect("read") else {
            continue;
        };
        reads += 1;
        if let Err(problem) = validate(count, &out, &sizes) {
            invalid += 1;
            println!("invalid read: {problem}");
        }
        if count < last {
            backwards += 1;
            println!("count went backwards: {last} then {count}");
        }
        if invalid + backwards > 0 {
            // Report at once: the crash test ends its readers with SIGTERM.
            println!("reads {reads} distinct {distinct} invalid {invalid} backwards {backwards} last {last}");
            std::process::exit(1);
        }
        distinct += u64::from(count != last);
        last = count;
    }
    println!(
        "reads {reads} distinct {distinct} invalid {invalid} backwards {backwards} last {last}"
    );
    std::process::exit(if invalid == 0 && backwards == 0 { 0 } else { 1 });
}

fn spawn(buffer: &TripleBuffer, role: &str, seconds: f64, sizes: &str) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .env(ROLE, role)
        .env(FD, buffer.as_fd().as_raw_fd().to_string())
        .env(SECONDS, seconds.to_string())
        .env(SIZES, sizes)
        .stdout(Stdio::piped());
    ipc::fd::inherit_fds(&mut command, &[buffer.as_fd()]);
    command.spawn().expect("spawning a test process")
}

fn output_lines(child: Child) -> (std::process::ExitStatus, Vec<String>) {
    let output = child
        .wait_with_output()
        .expect("waiting for a test process");
    let lines = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    (output.status, lines)
}

fn number_after(lines: &[String], key: &str) -> u64 {
    lines
        .iter()
        .flat_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words
                .windows(2)
                .filter(|w| w[0] == key)
                .map(|w| w[1].parse::<u64>().unwrap())
                .collect::<Vec<_>>()
        })
        .next()
        .unwrap_or_else(|| panic!("no {key:?} in {lines:?}"))
}

fn stress() {
    let buffer = TripleBuffer::create("stress", CAPACITY).unwrap();
    let seconds = 3.0;
    let readers: Vec<Child> = (0..3)
        .map(|_| spawn(&buffer, "reader", seconds + 0.5, "all"))
        .collect();
    let writer = spawn(&buffer, "writer", seconds, "all");
    let (status, lines) = output_lines(writer);
    assert!(status.success(), "writer failed: {status} {lines:?}");
    let published = number_after(&lines, "published");
    for reader in readers {
        let (status, lines) = output_lines(reader);
        println!("stress reader: {}", lines.join(" "));
        assert!(status.success(), "a reader saw invalid values: {lines:?}");
        assert!(
            number_after(&lines, "distinct") > 10,
            "the reader saw too few values: {lines:?}"
        );
        assert_eq!(
            number_after(&lines, "last"),
            published,
            "the reader ends on the last value"
        );
    }
    println!("stress: {published} publishes of 8 B to 2.4 MB, 3 readers, no invalid read");
}

fn crash() {
    let buffer = TripleBuffer::create("crash", CAPACITY).unwrap();
    let kills = 30;
    let readers: Vec<Child> = (0..2)
        .map(|_| spawn(&buffer, "reader", 60.0, "large"))
        .collect();
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    let mut repaired_total = 0;
    let mut previous_first = 0;
    for round in 0..kills {
        let mut writer = spawn(&buffer, "writer", 600.0, "large");
        let stdout = writer.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let repaired: u64 = lines
            .next()
            .unwrap()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let first: u64 = lines
            .next()
            .unwrap()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            first > previous_first || round == 0,
            "round {round}: the count continues ({previous_first} then {first})"
        );
        previous_first = first;
        assert_eq!(
            lines.next().unwrap().unwrap(),
            "first-published",
            "round {round}: the writer publishes"
        );
        repaired_total += repaired;
        // xorshift: a kill 5..45 ms after the writer started publishing; every other round
        // the kill waits for the writer to be inside a publish, so that the repair of a
        // half-written slot is exercised for certain, not by luck.
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        std::thread::sleep(Duration::from_micros(5_000 + random % 40_000));
        if round % 2 == 1 {
            while !buffer.write_in_progress() {
                std::hint::spin_loop();
            }
        }
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&writer),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        let status = writer.wait().unwrap();
        assert!(!status.success(), "round {round}: the writer was killed");
        let mut out = Vec::new();
        let count = buffer
            .reader()
            .read_latest(&mut out)
            .unwrap()
            .expect("a value survives");
        validate(count, &out, &LARGE_SIZES).unwrap_or_else(|p| panic!("after kill {round}: {p}"));
    }
    // Let the readers see the last value for a moment, then stop them.
    std::thread::sleep(Duration::from_millis(100));
    for reader in readers {
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&reader),
            rustix::process::Signal::TERM,
        )
        .ok();
        let (status, lines) = output_lines(reader);
        // A reader ended by SIGTERM prints nothing; a reader that saw a torn value exits 1 first.
        assert_ne!(
            status.code(),
            Some(1),
            "a reader saw invalid values: {lines:?}"
        );
    }
    assert!(
        repaired_total > 0,
        "{kills} kills, half of them during a publish, never left a slot half-written"
    );
    println!("crash: {kills} SIGKILLs, {repaired_total} half-written slots repaired, no torn read");
}

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("writer") => return writer_role(),
        Ok("reader") => return reader_role(),
        _ => {}
    }
    let started = Instant::now();
    stress();
    crash();
    println!(
        "cross-process tests passed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
