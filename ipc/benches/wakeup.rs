//! Wake-up latency of a process asleep on one or two trigger channels, for the runtime's old
//! wait (sleep on the first trigger, look at the others every 1 ms), for `ipc::wait_any` (one
//! `futex_waitv` on every trigger) and for the wake word per consumer (the sleeper sleeps on its
//! health-board slot's word, which every trigger's writer bumps: what a kernel without
//! `futex_waitv` uses; forced here whatever the kernel), side by side in one run.
//!
//! `cargo bench -p ipc --bench wakeup` prints one table. Method: a sleeper process (this binary
//! again, pinned to CPU 1) waits on its triggers; the parent (CPU 0) pauses 1–2 ms (random, so
//! that the pause does not lock onto the old wait's 1 ms slices), writes `CLOCK_MONOTONIC` into a
//! 64-byte value and publishes it on the first or the second trigger. The sleeper, once awake
//! and after `read_latest` of the channel that woke it, reports now − then on a third channel.
//! Every combination takes four turns of a quarter of the wake-ups each, in turn with the
//! others, so that a change of the machine's state hits all of them alike.

#[allow(dead_code)]
mod support;

use ipc::{Reader, TripleBuffer};
use std::os::fd::AsFd;
use std::time::Duration;
use support::{format_ns, Summary};

const WAKEUPS: usize = 1_000;
const PASSES: usize = 4;
const WARMUP: usize = 10;
const MESSAGE: usize = 64;
/// Longest wait of the sleeper for one publish before it gives up (the parent failed).
const TIMEOUT: Duration = Duration::from_secs(5);

/// One sleeper configuration.
#[derive(Debug, Clone, Copy)]
struct Case {
    triggers: usize,
    /// Index of the trigger the parent publishes on.
    woken_by: usize,
    how: How,
}

/// How the sleeper waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// The runtime's wait before `ipc::wait_any` (reconstructed below).
    Old,
    /// `ipc::wait_any`: `futex_waitv` where the kernel has it.
    WaitAny,
    /// The consumer's wake word (`ipc::wait_any_as` as on a kernel without `futex_waitv`).
    WakeWord,
}

impl Case {
    fn role(self) -> String {
        let how = match self.how {
            How::Old => "old",
            How::WaitAny => "new",
            How::WakeWord => "word",
        };
        format!("wakeup-{how}-{}", self.triggers)
    }
}

fn main() {
    if let Some(role) = support::child_role() {
        support::pin_to_cpu(support::CHILD_CPU);
        sleeper(&role);
        return;
    }
    let load_before = support::load_average();
    let pinned = support::pin_to_cpu(support::PARENT_CPU);
    println!(
        "wait on several channels: {:?} (kernel {}); processes pinned: {}\n",
        probe_strategy(),
        kernel(),
        if pinned {
            "parent CPU 0, sleeper CPU 1"
        } else {
            "no"
        }
    );
    let cases: Vec<Case> = [(1, 0), (2, 0), (2, 1)]
        .into_iter()
        .flat_map(|(triggers, woken_by)| {
            [How::Old, How::WaitAny, How::WakeWord].map(|how| Case {
                triggers,
                woken_by,
                how,
            })
        })
        .collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..PASSES {
        for (case, samples) in cases.iter().zip(&mut samples) {
            samples.extend(measure(*case, WAKEUPS / PASSES, &mut seed));
        }
    }
    let summaries: Vec<Summary> = samples.iter_mut().map(|s| Summary::of(s)).collect();
    let (one_new, one_word) = (summaries[1].p50, summaries[2].p50);
    println!(
        "## wake-up: a 64-byte publish on one trigger → the sleeper has read it \
         ({WAKEUPS} wake-ups per row, 1–2 ms apart)\n"
    );
    println!(
        "| triggers | woken by | old wait p50 | old p99 | futex_waitv p50 | futex_waitv p99 | \
         wake word p50 | wake word p99 | futex_waitv p50 ÷ one trigger's | \
         wake word p50 ÷ one trigger's |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in 0..3 {
        let (old, new, word) = (
            summaries[3 * row],
            summaries[3 * row + 1],
            summaries[3 * row + 2],
        );
        let case = cases[3 * row];
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | **{:.2}×** | **{:.2}×** |",
            case.triggers,
            if case.woken_by == 0 {
                "the first"
            } else {
                "the second"
            },
            format_ns(old.p50),
            format_ns(old.p99),
            format_ns(new.p50),
            format_ns(new.p99),
            format_ns(word.p50),
            format_ns(word.p99),
            new.p50 / one_new,
            word.p50 / one_word,
        );
    }
    println!(
        "\n(one trigger: every column but the old wait is the same single futex wait; the wake \
         word replaces `futex_waitv` only with several)"
    );
    println!(
        "\nload average (1 min) before: {load_before}, after: {}",
        support::load_average()
    );
}

/// Which multi-channel wait this kernel gives (settled by one short wait on two channels).
fn probe_strategy() -> ipc::wait::MultiWait {
    let a = TripleBuffer::create("probe-a", 8).expect("buffer");
    let b = TripleBuffer::create("probe-b", 8).expect("buffer");
    let (ra, rb) = (a.reader(), b.reader());
    ipc::wait_any([(&ra, 0), (&rb, 0)], Duration::from_millis(1), None).expect("wait");
    ipc::wait::multi_wait_strategy()
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or_else(|_| "?".into(), |text| text.trim().to_owned())
}

/// The parent's side of one case: `wakeups` publishes, each answered with the sleeper's
/// measured latency.
fn measure(case: Case, wakeups: usize, seed: &mut u64) -> Vec<f64> {
    let triggers: Vec<TripleBuffer> = (0..case.triggers)
        .map(|i| TripleBuffer::create(&format!("bench-trigger-{i}"), MESSAGE).expect("trigger"))
        .collect();
    let report = TripleBuffer::create("bench-wake-report", 8).expect("report buffer");
    // The sleeper's health board: its slot 0 holds its wake word. Created here, so that this
    // process's writers can reach the word.
    let board = ipc::HealthBoard::create("bench-wake-health", 1).expect("health board");
    let mut fds: Vec<_> = triggers.iter().map(|t| t.as_fd()).collect();
    fds.push(report.as_fd());
    fds.push(board.as_fd());
    let rounds = wakeups + WARMUP;
    let child = support::spawn_child(&case.role(), &fds, MESSAGE, rounds);
    let mut writer = triggers[case.woken_by].writer().expect("trigger writer");
    // Keep the other trigger's writer role taken, as a live producer would.
    let _others: Vec<_> = triggers
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != case.woken_by)
        .map(|(_, t)| t.writer().expect("writer"))
        .collect();
    let mut reader = report.reader();
    let mut message = support::pattern(MESSAGE);
    let mut answer = Vec::with_capacity(8);
    let mut samples = Vec::with_capacity(wakeups);
    for index in 0..rounds as u64 {
        // xorshift: a pause of 1–2 ms.
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        std::thread::sleep(Duration::from_micros(1_000 + *seed % 1_000));
        message[..8].copy_from_slice(&ipc::health::monotonic_ns().to_ne_bytes());
        writer.publish(&message).expect("publish");
        let count = reader.wait_newer(index, TIMEOUT).expect("futex wait");
        assert_eq!(
            count,
            Some(index + 1),
            "the sleeper did not answer within 5 s"
        );
        reader.read_latest(&mut answer).expect("read");
        if index >= WARMUP as u64 {
            samples.push(u64::from_ne_bytes(answer[..8].try_into().expect("8 bytes")) as f64);
        }
    }
    support::join(child, &case.role());
    samples
}

/// The sleeper: waits on its triggers the old way or with `wait_any`, reads the value that
/// woke it and reports its age.
fn sleeper(role: &str) {
    let old = role.starts_with("wakeup-old");
    let word = role.starts_with("wakeup-word");
    let mut fds = support::take_fds();
    let board = ipc::HealthBoard::from_fd(fds.pop().expect("board descriptor")).expect("board");
    let consumer = board.consumer(0).expect("consumer");
    let report = TripleBuffer::from_fd(fds.pop().expect("report descriptor")).expect("report");
    let triggers: Vec<TripleBuffer> = fds
        .into_iter()
        .map(|fd| TripleBuffer::from_fd(fd).expect("trigger"))
        .collect();
    let mut readers: Vec<(Reader<'_>, u64)> = triggers.iter().map(|t| (t.reader(), 0)).collect();
    let mut writer = report.writer().expect("report writer");
    let mut message = Vec::with_capacity(MESSAGE);
    for _ in 0..support::env_number(support::ROUNDS) {
        let woken = if old {
            old_wait(&mut readers, TIMEOUT)
        } else {
            let channels = readers.iter().map(|(reader, seen)| (reader, *seen));
            let force = if word {
                ipc::wait::Force::WakeWord
            } else {
                ipc::wait::Force::Auto
            };
            match ipc::wait::wait_any_with(channels, TIMEOUT, None, Some(consumer), force)
                .expect("wait_any")
            {
                ipc::Wake::Published { index, count } => {
                    readers[index].1 = count;
                    Some(index)
                }
                _ => None,
            }
        };
        let index = woken.expect("no publish within 5 s");
        readers[index].0.read_latest(&mut message).expect("read");
        let now = ipc::health::monotonic_ns();
        let sent = u64::from_ne_bytes(message[..8].try_into().expect("8 bytes"));
        writer
            .publish(&now.saturating_sub(sent).to_ne_bytes())
            .expect("publish");
    }
}

/// The runtime's wait before `ipc::wait_any` (framework/src/runtime.rs until issue 10, item 5):
/// one trigger sleeps on its futex in 50 ms slices; with several, it sleeps on the first in
/// 1 ms slices and looks at the others between them. Returns the trigger that had news.
fn old_wait(triggers: &mut [(Reader<'_>, u64)], timeout: Duration) -> Option<usize> {
    const SLICE: Duration = Duration::from_millis(50);
    const POLL: Duration = Duration::from_millis(1);
    let deadline = std::time::Instant::now() + timeout;
    loop {
        for (index, (reader, seen)) in triggers.iter_mut().enumerate() {
            let published = reader.published();
            if published > *seen {
                *seen = published;
                return Some(index);
            }
        }
        let now = std::time::Instant::now();
        if now >= deadline {
            return None;
        }
        let slice = if triggers.len() == 1 { SLICE } else { POLL };
        let (reader, seen) = &mut triggers[0];
        if let Some(count) = reader
            .wait_newer(*seen, slice.min(deadline - now))
            .expect("futex wait")
        {
            *seen = count;
            return Some(0);
        }
    }
}
