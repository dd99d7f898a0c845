//! The triple buffer's costs, side by side with what the hardware does in the same run.
//!
//! `cargo bench -p ipc --bench transport` prints three tables:
//!
//! 1. copy cost in one process: `publish` and `read_latest` per operation against
//!    `copy_from_slice` of the same size (medians of many batches, measured interleaved);
//! 2. one-way latency between two processes with busy-polling readers (ping-pong, round trip
//!    halved), next to the floor: an `AtomicU64` bounced through a shared page;
//! 3. futex wake-up latency: a reader process asleep in `wait_newer` is woken by a publish
//!    (CLOCK_MONOTONIC timestamp in the payload, taken just before `publish`, read after the
//!    reader has copied the value).
//!
//! The child processes are this binary again (see `support`). Arguments are ignored (cargo
//! passes `--bench`). The default run takes a few seconds.

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};
use support::{format_ns, format_size, Summary};

/// Payload sizes: a small message, a page, a 640×480 and a 1280×960 YUYV image.
const SIZES: [(usize, &str); 4] = [
    (64, "small message"),
    (4096, "page"),
    (614_400, "640×480 YUYV"),
    (2_457_600, "1280×960 YUYV"),
];

fn main() {
    if support::run_child_role() {
        return;
    }
    print_machine();
    let load_before = support::load_average();
    let pinned = support::pin_to_cpu(support::PARENT_CPU);
    println!(
        "processes pinned: {}\n",
        if pinned {
            "parent to CPU 0, children to CPU 1"
        } else {
            "no (fewer than two CPUs)"
        }
    );
    copy_table();
    latency_table();
    futex_table();
    println!(
        "load average (1 min) before: {load_before}, after: {}",
        support::load_average()
    );
}

fn print_machine() {
    let cpus = std::thread::available_parallelism().map_or(0, |count| count.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("machine: {cpus} CPUs, {model}");
}

/// Mean time per call of `operation` over `batch` calls, in ns.
fn time_batch(batch: usize, mut operation: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..batch {
        operation();
    }
    start.elapsed().as_nanos() as f64 / batch as f64
}

fn copy_table() {
    println!("## publish / read_latest against memcpy (one process, median of batch means)\n");
    println!(
        "| size | memcpy | publish | read_latest | publish ÷ memcpy | read ÷ memcpy | publish+read ÷ two memcpys |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (size, what) in SIZES {
        let source = support::pattern(size);
        let mut destination = vec![0u8; size];
        let buffer = ipc::TripleBuffer::create("bench-copy", size).expect("buffer");
        let mut writer = buffer.writer().expect("writer");
        let mut reader = buffer.reader();
        let mut out = Vec::with_capacity(size);
        // Enough calls per batch that the clock's cost is lost in it, enough batches for a
        // stable median, and a run of well under a second per size.
        let batch = ((1 << 20) / size).clamp(1, 4096);
        let repetitions = if size >= 1 << 20 { 201 } else { 301 };
        let (mut copies, mut publishes, mut reads) = (Vec::new(), Vec::new(), Vec::new());
        for repetition in 0..repetitions + 10 {
            let copy = time_batch(batch, || {
                destination.copy_from_slice(black_box(&source));
                black_box(&mut destination);
            });
            let publish = time_batch(batch, || {
                black_box(writer.publish(black_box(&source)).expect("publish"));
            });
            let read = time_batch(batch, || {
                black_box(reader.read_latest(&mut out).expect("read"));
                black_box(&mut out);
            });
            if repetition >= 10 {
                copies.push(copy);
                publishes.push(publish);
                reads.push(read);
            }
        }
        assert_eq!(out, source, "read_latest returned other bytes");
        let copy = Summary::of(&mut copies).p50;
        let publish = Summary::of(&mut publishes).p50;
        let read = Summary::of(&mut reads).p50;
        println!(
            "| {} ({what}) | {} | {} | {} | {:.2}× | {:.2}× | **{:.2}×** |",
            format_size(size),
            format_ns(copy),
            format_ns(publish),
            format_ns(read),
            publish / copy,
            read / copy,
            (publish + read) / (2.0 * copy),
        );
    }
    println!();
}

fn latency_table() {
    const PASSES: usize = 4;
    println!("## one-way latency between two processes, busy-polling readers");
    println!(
        "(ping-pong of equal messages both ways; one-way = round trip / 2; warm-up discarded; at \
         each size the floor and both triple-buffer variants take {PASSES} turns each; \
         'unprepared': writers do not fetch the next slot's lines ahead, as before)\n"
    );
    println!(
        "| size | floor p50 (AtomicU64) | floor p99 | unprepared p50 | ÷ floor | \
         triple buffer p50 | p99 | **÷ floor** | rounds |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (size, _) in SIZES {
        let rounds = match size {
            0..=4096 => 50_000,
            4097..=1_000_000 => 2_000,
            _ => 500,
        } / PASSES;
        let budget = Duration::from_secs(2) / PASSES as u32;
        let (mut floor, mut before, mut triple) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..PASSES {
            floor.extend(support::floor_parent(100_000 / PASSES, budget));
            before.extend(support::triple_buffer_ping_pong(
                size, rounds, budget, false,
            ));
            triple.extend(support::triple_buffer_ping_pong(size, rounds, budget, true));
        }
        let floor = Summary::of(&mut floor);
        let before = Summary::of(&mut before);
        let triple = Summary::of(&mut triple);
        println!(
            "| {} | {} | {} | {} | {:.2}× | {} | {} | **{:.2}×** | {} |",
            format_size(size),
            format_ns(floor.p50),
            format_ns(floor.p99),
            format_ns(before.p50),
            before.p50 / floor.p50,
            format_ns(triple.p50),
            format_ns(triple.p99),
            triple.p50 / floor.p50,
            triple.count
        );
    }
    println!();
}

fn futex_table() {
    let pause = Duration::from_millis(1);
    println!(
        "## futex wake-up: writer publishes 64 B, a reader process asleep in wait_newer wakes"
    );
    println!(
        "(CLOCK_MONOTONIC before publish → after the woken reader copied the value; {} ms pause before each publish)\n",
        pause.as_millis()
    );
    let mut samples = support::futex_parent(1_000, pause);
    let max = samples.iter().copied().fold(0.0, f64::max);
    let result = Summary::of(&mut samples);
    println!("| p50 | p99 | max | wake-ups |");
    println!("|---|---|---|---|");
    println!(
        "| {} | {} | {} | {} |",
        format_ns(result.p50),
        format_ns(result.p99),
        format_ns(max),
        result.count
    );
    println!();
}
