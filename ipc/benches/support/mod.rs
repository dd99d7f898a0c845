//! Two-process measurement machinery shared by `ipc/benches/transport.rs` and the side-by-side
//! comparison in `benches/compare` (which includes this file with `#[path]`).
//!
//! A measurement that needs a second process re-executes the current binary with
//! `CORTEX_BENCH_ROLE` naming what the child does and `CORTEX_BENCH_FDS` listing the descriptor
//! numbers it inherited (passed with `ipc::fd::inherit_fds`, taken with
//! `ipc::fd::take_inherited`). Parent and child are pinned to different processors when there
//! are at least two.
//!
//! Latency method for every busy-polling measurement: a ping-pong of `rounds` messages of the
//! same size in both directions; the parent reads the clock once per round, so the round trip is
//! the difference of consecutive timestamps, and the one-way latency reported is half of it. The
//! first rounds (the child starting up) are discarded.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Names the child's job.
pub const ROLE: &str = "CORTEX_BENCH_ROLE";
/// Comma-separated inherited descriptor numbers.
pub const FDS: &str = "CORTEX_BENCH_FDS";
/// Payload size in bytes for the child.
pub const SIZE: &str = "CORTEX_BENCH_SIZE";
/// Number of messages the child answers before it exits.
pub const ROUNDS: &str = "CORTEX_BENCH_ROUNDS";

/// Most rounds discarded at the start of a ping-pong (child start-up, cold caches); a fifth of
/// the rounds when that is less, at least 5.
pub const WARMUP_ROUNDS: usize = 200;

/// The role this process was started for, if it is a child.
pub fn child_role() -> Option<String> {
    std::env::var(ROLE).ok()
}

/// A numeric environment variable set by the parent.
pub fn env_number(name: &str) -> usize {
    let text = std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"));
    text.parse()
        .unwrap_or_else(|_| panic!("{name}={text:?} is not a number"))
}

/// Starts this binary again as a child with `role`, inheriting `fds`.
pub fn spawn_child(role: &str, fds: &[BorrowedFd<'_>], size: usize, rounds: usize) -> Child {
    let exe = std::env::current_exe().expect("the path of the running bench binary");
    let numbers: Vec<String> = fds.iter().map(|fd| fd.as_raw_fd().to_string()).collect();
    let mut command = Command::new(exe);
    command
        .env(ROLE, role)
        .env(FDS, numbers.join(","))
        .env(SIZE, size.to_string())
        .env(ROUNDS, rounds.to_string());
    ipc::fd::inherit_fds(&mut command, fds);
    command.spawn().expect("spawning the bench child process")
}

/// The descriptors the parent passed, in its order.
pub fn take_fds() -> Vec<OwnedFd> {
    let list = std::env::var(FDS).unwrap_or_default();
    list.split(',')
        .filter(|number| !number.is_empty())
        .map(|number| {
            let raw = number
                .parse()
                .expect("descriptor numbers in CORTEX_BENCH_FDS");
            ipc::fd::take_inherited(raw).expect("an inherited descriptor")
        })
        .collect()
}

/// Waits for a child and fails loudly if it failed.
pub fn join(mut child: Child, what: &str) {
    let status = child.wait().expect("waiting for the bench child");
    assert!(
        status.success(),
        "{what}: the child process failed with {status}"
    );
}

/// Pins the calling thread to `cpu` if this machine has more than one processor. Returns whether
/// it pinned. (A child inherits its parent's affinity, so the check is on the processor count,
/// not on the inherited mask.)
pub fn pin_to_cpu(cpu: usize) -> bool {
    let online = std::fs::read_to_string("/proc/cpuinfo").map_or(0, |text| {
        text.lines()
            .filter(|line| line.starts_with("processor"))
            .count()
    });
    if online < 2 || cpu >= online {
        return false;
    }
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set).is_ok()
}

/// The parent's processor; the child takes the next one.
pub const PARENT_CPU: usize = 0;
/// The child's processor.
pub const CHILD_CPU: usize = 1;

/// Median, 99th percentile and count of a set of nanosecond samples.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    /// 50th percentile, ns.
    pub p50: f64,
    /// 99th percentile, ns.
    pub p99: f64,
    /// Number of samples.
    pub count: usize,
}

impl Summary {
    /// Summarises `samples` (in ns; sorted in place).
    pub fn of(samples: &mut [f64]) -> Summary {
        assert!(!samples.is_empty(), "no samples");
        samples.sort_by(f64::total_cmp);
        Summary {
            p50: percentile(samples, 0.50),
            p99: percentile(samples, 0.99),
            count: samples.len(),
        }
    }
}

/// Nearest-rank percentile of sorted samples.
pub fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    let rank = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Formats nanoseconds with a unit that keeps three significant digits readable.
pub fn format_ns(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.2} µs", ns / 1_000.0)
    } else {
        format!("{:.2} ms", ns / 1_000_000.0)
    }
}

/// Human size: "64 B", "4 KiB", "614,400 B".
pub fn format_size(bytes: usize) -> String {
    if (1024..100_000).contains(&bytes) && bytes % 1024 == 0 {
        return format!("{} KiB", bytes / 1024);
    }
    let digits = bytes.to_string();
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{grouped} B")
}

/// Runs `round` (one complete ping-pong) until `rounds` rounds after the warm-up are done or
/// `budget` has passed, and returns the one-way latencies (half of each round trip) in ns,
/// warm-up discarded. The budget keeps a run short on a machine that other work shares.
pub fn ping_pong(rounds: usize, budget: Duration, mut round: impl FnMut(usize)) -> Vec<f64> {
    let warmup = (rounds / 5).clamp(5, WARMUP_ROUNDS);
    let total = rounds + warmup;
    let mut stamps = Vec::with_capacity(total + 1);
    let start = Instant::now();
    for index in 0..total {
        let now = Instant::now();
        if index > warmup && now - start > budget {
            break;
        }
        stamps.push(now);
        round(index);
    }
    stamps.push(Instant::now());
    stamps
        .windows(2)
        .skip(warmup)
        .map(|pair| (pair[1] - pair[0]).as_nanos() as f64 / 2.0)
        .collect()
}

/// Busy-waits until `ready()` holds. Pure spinning for the first few microseconds; after that
/// it yields the processor now and then, so that a run on a machine shared with other work (or
/// with both processes on one CPU) still makes progress instead of spinning out time slices.
#[inline]
pub fn spin_until(mut ready: impl FnMut() -> bool) {
    let mut spins: u32 = 0;
    while !ready() {
        spins = spins.wrapping_add(1);
        if spins > SPINS_BEFORE_YIELD && spins % 64 == 0 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Spins before `spin_until` starts yielding (tens of microseconds at `pause` speed).
const SPINS_BEFORE_YIELD: u32 = 1 << 14;

/// The system load average (1 minute) from `/proc/loadavg`, to print beside a run.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// A test pattern of `size` bytes (not all zero, so a missed copy is visible).
pub fn pattern(size: usize) -> Vec<u8> {
    (0..size).map(|index| (index % 251) as u8).collect()
}

// ---------------------------------------------------------------------------------------------
// The hardware floor: one AtomicU64 in a shared page, bounced between two processes.
// ---------------------------------------------------------------------------------------------

const PAGE: usize = 4096;

/// One shared page (a memfd of its own, mapped shared) holding the ping-pong word.
#[derive(Debug)]
pub struct SharedPage {
    fd: OwnedFd,
    base: *mut std::ffi::c_void,
}

impl SharedPage {
    /// A new zeroed page.
    pub fn create() -> SharedPage {
        let fd = rustix::fs::memfd_create("cortex-bench-floor", rustix::fs::MemfdFlags::CLOEXEC)
            .expect("memfd_create");
        rustix::fs::ftruncate(&fd, PAGE as u64).expect("ftruncate");
        SharedPage::map(fd)
    }

    /// Maps a page another process created.
    pub fn from_fd(fd: OwnedFd) -> SharedPage {
        let size = rustix::fs::fstat(&fd).expect("fstat").st_size;
        assert!(size >= PAGE as i64, "the floor page is {size} bytes");
        SharedPage::map(fd)
    }

    fn map(fd: OwnedFd) -> SharedPage {
        use rustix::mm::{MapFlags, ProtFlags};
        // SAFETY: a new shared mapping of one page of a memfd that is at least one page long,
        // at an address the kernel chooses, so it aliases no Rust object and no access faults.
        let base = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                PAGE,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .expect("mmap of the floor page");
        SharedPage { fd, base }
    }

    /// The ping-pong word at the start of the page.
    pub fn word(&self) -> &AtomicU64 {
        // SAFETY: `base` is page aligned (so 8-aligned), the mapping is valid for `PAGE` bytes
        // while `self` lives, any bit pattern is a valid u64, and every process accesses the word
        // only through atomics, so a shared `&AtomicU64` is sound.
        unsafe { &*self.base.cast::<AtomicU64>() }
    }
}

impl AsFd for SharedPage {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for SharedPage {
    fn drop(&mut self) {
        // SAFETY: `base` and `PAGE` are exactly the mapping made in `map`; the only references
        // into it borrow `self`, so none outlives this call.
        let _ = unsafe { rustix::mm::munmap(self.base, PAGE) };
    }
}

/// Parent side of the floor: writes odd values, waits for the child's even answer.
/// The value `u64::MAX` (odd, never a ping) tells the child to stop.
pub fn floor_parent(rounds: usize, budget: Duration) -> Vec<f64> {
    let page = SharedPage::create();
    let child = spawn_child("floor", &[page.as_fd()], 8, 0);
    let word = page.word();
    let samples = ping_pong(rounds, budget, |index| {
        let ping = 2 * index as u64 + 1;
        word.store(ping, Ordering::Release);
        spin_until(|| word.load(Ordering::Acquire) == ping + 1);
    });
    word.store(u64::MAX, Ordering::Release);
    join(child, "floor");
    samples
}

/// Child side of the floor.
pub fn floor_child() {
    let page = SharedPage::from_fd(take_fds().remove(0));
    let word = page.word();
    let mut expected = 1;
    loop {
        let mut ping = 0;
        spin_until(|| {
            ping = word.load(Ordering::Acquire);
            ping >= expected && ping % 2 == 1
        });
        if ping == u64::MAX {
            return;
        }
        word.store(ping + 1, Ordering::Release);
        expected = ping + 2;
    }
}

// ---------------------------------------------------------------------------------------------
// The triple buffer: a ping buffer and a pong buffer, busy-polling readers on both sides.
// ---------------------------------------------------------------------------------------------

/// Parent side of the triple-buffer ping-pong: publishes `size` bytes, waits (busy) for the
/// child to echo them, and reads the echo. One-way = publish + detect + read_latest. An empty
/// message tells the child to stop.
#[allow(dead_code)] // used by benches/compare; transport.rs runs both variants
pub fn triple_buffer_parent(size: usize, rounds: usize, budget: Duration) -> Vec<f64> {
    triple_buffer_ping_pong(size, rounds, budget, true)
}

/// The triple-buffer ping-pong with both writers fetching the next slot's lines ahead
/// (`prepare`, the default) or not (as before the change; `Writer::set_prepare_next_slot`).
pub fn triple_buffer_ping_pong(
    size: usize,
    rounds: usize,
    budget: Duration,
    prepare: bool,
) -> Vec<f64> {
    let ping = ipc::TripleBuffer::create("bench-ping", size).expect("ping buffer");
    let pong = ipc::TripleBuffer::create("bench-pong", size).expect("pong buffer");
    let role = if prepare {
        "triple-buffer"
    } else {
        "triple-buffer-unprepared"
    };
    let child = spawn_child(role, &[ping.as_fd(), pong.as_fd()], size, 0);
    let mut writer = ping.writer().expect("ping writer");
    writer.set_prepare_next_slot(prepare);
    let mut reader = pong.reader();
    let message = pattern(size);
    let mut echo = Vec::with_capacity(size);
    let samples = ping_pong(rounds, budget, |index| {
        let count = writer.publish(&message).expect("publish");
        debug_assert_eq!(count, index as u64 + 1);
        spin_until(|| reader.published() >= count);
        reader.read_latest(&mut echo).expect("read");
    });
    assert_eq!(echo, message, "the echo differs from the message");
    writer.publish(&[]).expect("publish the stop message");
    join(child, "triple buffer");
    samples
}

/// Child side of the triple-buffer ping-pong (`prepare`: see [`triple_buffer_ping_pong`]).
pub fn triple_buffer_child(prepare: bool) {
    let mut fds = take_fds();
    let ping = ipc::TripleBuffer::from_fd(fds.remove(0)).expect("ping buffer");
    let pong = ipc::TripleBuffer::from_fd(fds.remove(0)).expect("pong buffer");
    let mut reader = ping.reader();
    let mut writer = pong.writer().expect("pong writer");
    writer.set_prepare_next_slot(prepare);
    let mut message = Vec::with_capacity(env_number(SIZE));
    let mut last = 0;
    loop {
        spin_until(|| reader.published() > last);
        last = reader
            .read_latest(&mut message)
            .expect("read")
            .expect("a value");
        if message.is_empty() {
            return;
        }
        writer.publish(&message).expect("publish");
    }
}

// ---------------------------------------------------------------------------------------------
// Futex wake-up: the child sleeps in `wait_newer`; the parent publishes a CLOCK_MONOTONIC
// timestamp; the child reads it when it has woken and copied the value, and reports the
// difference on a second buffer.
// ---------------------------------------------------------------------------------------------

/// Parent side of the wake-up measurement. `pause` is how long the parent waits before each
/// publish so that the child is surely asleep in the futex.
pub fn futex_parent(rounds: usize, pause: Duration) -> Vec<f64> {
    const SIZE_BYTES: usize = 64;
    let wake = ipc::TripleBuffer::create("bench-wake", SIZE_BYTES).expect("wake buffer");
    let report = ipc::TripleBuffer::create("bench-report", 8).expect("report buffer");
    const WARMUP: usize = 20;
    let child = spawn_child(
        "futex",
        &[wake.as_fd(), report.as_fd()],
        SIZE_BYTES,
        rounds + WARMUP,
    );
    let mut writer = wake.writer().expect("wake writer");
    let mut reader = report.reader();
    let mut message = pattern(SIZE_BYTES);
    let mut answer = Vec::with_capacity(8);
    let mut samples = Vec::with_capacity(rounds);
    for index in 0..(rounds + WARMUP) as u64 {
        std::thread::sleep(pause);
        message[..8].copy_from_slice(&ipc::health::monotonic_ns().to_ne_bytes());
        writer.publish(&message).expect("publish");
        let count = reader
            .wait_newer(index, Duration::from_secs(5))
            .expect("futex wait");
        assert_eq!(
            count,
            Some(index + 1),
            "the child did not answer within 5 s"
        );
        reader.read_latest(&mut answer).expect("read");
        if index >= WARMUP as u64 {
            samples.push(u64::from_ne_bytes(answer[..8].try_into().expect("8 bytes")) as f64);
        }
    }
    join(child, "futex wake-up");
    samples
}

/// Child side of the wake-up measurement.
pub fn futex_child() {
    let mut fds = take_fds();
    let wake = ipc::TripleBuffer::from_fd(fds.remove(0)).expect("wake buffer");
    let report = ipc::TripleBuffer::from_fd(fds.remove(0)).expect("report buffer");
    let mut reader = wake.reader();
    let mut writer = report.writer().expect("report writer");
    let mut message = Vec::with_capacity(64);
    for index in 0..env_number(ROUNDS) as u64 {
        let woken = reader
            .wait_newer(index, Duration::from_secs(5))
            .expect("futex wait");
        assert!(woken.is_some(), "no publish within 5 s");
        reader.read_latest(&mut message).expect("read");
        let now = ipc::health::monotonic_ns();
        let sent = u64::from_ne_bytes(message[..8].try_into().expect("8 bytes"));
        writer
            .publish(&now.saturating_sub(sent).to_ne_bytes())
            .expect("publish");
    }
}

/// Runs the child role named in the environment, if any, and returns whether it did.
pub fn run_child_role() -> bool {
    let Some(role) = child_role() else {
        return false;
    };
    pin_to_cpu(CHILD_CPU);
    match role.as_str() {
        "floor" => floor_child(),
        "triple-buffer" => triple_buffer_child(true),
        "triple-buffer-unprepared" => triple_buffer_child(false),
        "futex" => futex_child(),
        _ => return false,
    }
    true
}
