//! The wake word per consumer across processes, with `futex_waitv` switched off in the sleeper
//! (`CORTEX_NO_FUTEX_WAITV=1`, as on a kernel older than 5.16): the writer of the second of two
//! triggers, in another process, wakes the sleeper through the sleeper's wake word in the health
//! board; a counted ping-pong of thousands of rounds loses no wake-up; a consumer killed asleep
//! leaves a harmless registration that its restarted successor uses again; silence ends in the
//! timeout.
//!
//! The sleeper is this test binary again, running only `child_role` (chosen by the environment),
//! with the board and the channels inherited across exec.

use ipc::{HealthBoard, TripleBuffer};
use std::io::Read;
use std::os::fd::{AsFd, AsRawFd};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROLE: &str = "CORTEX_WAKE_TEST_ROLE";
const FDS: &str = "CORTEX_WAKE_TEST_FDS";
const ROUNDS: &str = "CORTEX_WAKE_TEST_ROUNDS";
const TIMEOUT_MS: &str = "CORTEX_WAKE_TEST_TIMEOUT_MS";
const SEEN: &str = "CORTEX_WAKE_TEST_SEEN";

/// The sleeper's slot on the board.
const SLOT: usize = 1;
/// A bound on each wait of the test itself: anything that ends only by it fails.
const DEADLINE: Duration = Duration::from_secs(30);

struct Fixture {
    board: HealthBoard,
    a: TripleBuffer,
    b: TripleBuffer,
    reply: TripleBuffer,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        Fixture {
            board: HealthBoard::create(&format!("{name}-health"), 2).unwrap(),
            a: TripleBuffer::create(&format!("{name}-a"), 64).unwrap(),
            b: TripleBuffer::create(&format!("{name}-b"), 64).unwrap(),
            reply: TripleBuffer::create(&format!("{name}-reply"), 64).unwrap(),
        }
    }

    /// Starts a sleeper: `rounds` waits on (a, b) as the consumer of slot 1, each up to
    /// `timeout`, having seen `seen` of each; it answers each wake-up on `reply`.
    fn spawn(&self, rounds: usize, timeout: Duration, seen: (u64, u64)) -> Sleeper {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "child_role",
                "--exact",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(ROLE, "sleeper")
            .env("CORTEX_NO_FUTEX_WAITV", "1")
            .env(ROUNDS, rounds.to_string())
            .env(TIMEOUT_MS, timeout.as_millis().to_string())
            .env(SEEN, format!("{} {}", seen.0, seen.1))
            .stdout(Stdio::piped());
        let fds = [
            self.board.as_fd(),
            self.a.as_fd(),
            self.b.as_fd(),
            self.reply.as_fd(),
        ];
        let raw: Vec<String> = fds.iter().map(|fd| fd.as_raw_fd().to_string()).collect();
        command.env(FDS, raw.join(" "));
        ipc::fd::inherit_fds(&mut command, &fds);
        let mut child = command.spawn().expect("spawning the sleeper");
        // Read its output as it comes, so that a long ping-pong never fills the pipe.
        let mut stdout = child.stdout.take().unwrap();
        let output = std::thread::spawn(move || {
            let mut output = String::new();
            let _ = stdout.read_to_string(&mut output);
            output
        });
        Sleeper { child, output }
    }

    /// Waits until the sleeper has announced it sleeps on its wake word, then a little longer,
    /// so that it is inside the futex wait (a publish just before it is caught as well).
    fn until_asleep(&self, sleeper: &mut Sleeper) {
        let child = &mut sleeper.child;
        let consumer = self.board.consumer(SLOT).unwrap();
        let deadline = Instant::now() + DEADLINE;
        while !consumer.may_be_asleep() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the sleeper ended before it slept: {status}");
            }
            assert!(Instant::now() < deadline, "the sleeper never slept");
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A sleeper process and the thread reading its output.
struct Sleeper {
    child: Child,
    output: std::thread::JoinHandle<String>,
}

/// The sleeper's output after it ended, and its status.
fn finish(sleeper: Sleeper) -> (String, std::process::ExitStatus) {
    let Sleeper { mut child, output } = sleeper;
    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the sleeper did not end");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (output.join().unwrap(), status)
}

/// The lines the sleeper wrote itself (the harness writes its own around them).
fn said(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter_map(|line| line.split_once("sleeper: ").map(|(_, said)| said.trim()))
        .collect()
}

/// Not a test of its own: the body of the sleeper process.
#[test]
fn child_role() {
    if std::env::var(ROLE).as_deref() != Ok("sleeper") {
        return;
    }
    let fds: Vec<_> = std::env::var(FDS)
        .unwrap()
        .split(' ')
        .map(|raw| ipc::fd::take_inherited(raw.parse().unwrap()).unwrap())
        .collect();
    let mut fds = fds.into_iter();
    let board = HealthBoard::from_fd(fds.next().unwrap()).unwrap();
    let a = TripleBuffer::from_fd(fds.next().unwrap()).unwrap();
    let b = TripleBuffer::from_fd(fds.next().unwrap()).unwrap();
    let reply = TripleBuffer::from_fd(fds.next().unwrap()).unwrap();
    let rounds: usize = std::env::var(ROUNDS).unwrap().parse().unwrap();
    let timeout = Duration::from_millis(std::env::var(TIMEOUT_MS).unwrap().parse().unwrap());
    let seen = std::env::var(SEEN).unwrap();
    let (seen_a, seen_b) = seen.split_once(' ').unwrap();
    let mut seen = [seen_a.parse().unwrap(), seen_b.parse().unwrap()];
    let mut replies = reply.writer().unwrap();
    let consumer = board.consumer(SLOT).unwrap();
    let (ra, rb) = (a.reader(), b.reader());
    for _ in 0..rounds {
        match ipc::wait_any_as([(&ra, seen[0]), (&rb, seen[1])], timeout, None, consumer).unwrap() {
            ipc::Wake::Published { index, count } => {
                seen[index] = count;
                replies.publish(b"awake").unwrap();
                println!("sleeper: woke {index} {count}");
            }
            other => {
                println!("sleeper: {other:?}");
                break;
            }
        }
    }
    println!("sleeper: {:?}", ipc::wait::multi_wait_strategy());
}

#[test]
fn the_writer_of_the_second_trigger_wakes_the_sleeper_through_its_wake_word() {
    let fixture = Fixture::new("wake-second");
    let mut child = fixture.spawn(1, Duration::from_secs(60), (0, 0));
    fixture.until_asleep(&mut child);
    // Asleep on its own word, not on a channel's: the channels' words have no waiters bit, and
    // both tables name it.
    let consumer = fixture.board.consumer(SLOT).unwrap();
    for channel in [&fixture.a, &fixture.b] {
        assert_eq!(channel.reader().consumer_entries(&consumer), (1, 1));
    }
    fixture.b.writer().unwrap().publish(b"second").unwrap();
    let (output, status) = finish(child);
    assert!(status.success(), "{status}: {output}");
    assert_eq!(said(&output), ["woke 1 1", "WakeWord"], "{output}");
    assert!(!consumer.may_be_asleep(), "the writer cleared the bit");
}

#[test]
fn a_counted_ping_pong_loses_no_wake_up() {
    const ROUNDS_PLAYED: u64 = 3_000;
    let fixture = Fixture::new("wake-pingpong");
    let child = fixture.spawn(ROUNDS_PLAYED as usize, Duration::from_secs(20), (0, 0));
    let (mut a, mut b) = (fixture.a.writer().unwrap(), fixture.b.writer().unwrap());
    let mut replies = fixture.reply.reader();
    for round in 1..=ROUNDS_PLAYED {
        // Publish at once after the answer: the sleeper is anywhere between its answer and
        // its futex wait, which is where a lost wake-up would hide.
        let writer = if round % 2 == 0 { &mut a } else { &mut b };
        writer.publish(&round.to_le_bytes()).unwrap();
        let answered = replies.wait_newer(round - 1, DEADLINE).unwrap();
        if answered != Some(round) {
            let (output, status) = finish(child);
            panic!(
                "round {round}: answer {answered:?} (a lost wake-up); sleeper {status}: {}",
                said(&output).join(" | ")
            );
        }
    }
    let (output, status) = finish(child);
    assert!(status.success(), "{status}: {output}");
    let lines = said(&output);
    assert_eq!(lines.len() as u64, ROUNDS_PLAYED + 1, "{output}");
    assert_eq!(lines.last(), Some(&"WakeWord"));
    // Each round woke on the channel it was published on, with its count.
    assert_eq!(lines[0], "woke 1 1");
    assert_eq!(lines[1], "woke 0 1");
    assert_eq!(lines[ROUNDS_PLAYED as usize - 1], "woke 0 1500");
}

#[test]
fn a_consumer_killed_asleep_is_harmless_and_its_successor_uses_its_entry() {
    let fixture = Fixture::new("wake-killed");
    let mut child = fixture.spawn(1, Duration::from_secs(60), (0, 0));
    fixture.until_asleep(&mut child);
    child.child.kill().unwrap();
    let _ = finish(child);
    let consumer = fixture.board.consumer(SLOT).unwrap();
    assert!(consumer.may_be_asleep(), "it died asleep");
    // The writer bumps the dead word once (one needless wake) and goes on.
    let mut writer = fixture.b.writer().unwrap();
    assert_eq!(writer.publish(b"nobody").unwrap(), 1);
    assert!(!consumer.may_be_asleep());
    assert_eq!(writer.publish(b"still nobody").unwrap(), 2);

    // The restarted consumer has seen b's two values; a's publish wakes it.
    let mut child = fixture.spawn(1, Duration::from_secs(60), (0, 2));
    fixture.until_asleep(&mut child);
    for channel in [&fixture.a, &fixture.b] {
        assert_eq!(
            channel.reader().consumer_entries(&consumer),
            (1, 1),
            "one entry, the same"
        );
    }
    fixture.a.writer().unwrap().publish(b"first").unwrap();
    let (output, status) = finish(child);
    assert!(status.success(), "{status}: {output}");
    assert_eq!(said(&output), ["woke 0 1", "WakeWord"], "{output}");
}

#[test]
fn silence_ends_in_the_timeout() {
    let fixture = Fixture::new("wake-silence");
    let started = Instant::now();
    let child = fixture.spawn(1, Duration::from_millis(300), (0, 0));
    let (output, status) = finish(child);
    assert!(status.success(), "{status}: {output}");
    assert_eq!(said(&output), ["TimedOut", "WakeWord"], "{output}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    let mut value = Vec::new();
    assert_eq!(
        fixture.reply.reader().read_latest(&mut value).unwrap(),
        None
    );
}
