//! Side-by-side transport comparison, two real processes each, in one run:
//!
//! - the AtomicU64 ping-pong through a shared page (the hardware floor),
//! - Cortex's triple buffer (`ipc::TripleBuffer`, `publish` + busy-polled `read_latest`),
//! - iceoryx2 publish-subscribe (`[u8]` slices, loan + `write_from_slice` + `send`, busy-polled
//!   `receive` and a copy of the payload out of the sample),
//! - a Unix domain socket pair (`SOCK_STREAM`, non-blocking, busy-polled `read`).
//!
//! Every transport moves the message into shared memory or the kernel on one side and out into
//! a private buffer on the other, then the child sends the same number of bytes back; one-way
//! latency = round trip / 2 (see `ipc/benches/support/mod.rs`, which this binary includes).
//!
//! Not part of the workspace, the default build or CI: `cd benches/compare && cargo run --release`.

#[allow(dead_code)]
#[path = "../../../ipc/benches/support/mod.rs"]
mod support;

use iceoryx2::prelude::{NodeBuilder, ServiceName};
use iceoryx2::service::ipc::Service as Iceoryx2Ipc;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};
use support::{format_ns, format_size, Summary};

const SIZES: [usize; 4] = [64, 4096, 614_400, 2_457_600];
/// Time limit for one transport at one size, over all its turns.
const BUDGET: Duration = Duration::from_secs(2);
/// Turns taken by the floor and the transports at each size.
const PASSES: usize = 4;

fn rounds_for(size: usize) -> usize {
    match size {
        0..=4096 => 50_000,
        4097..=1_000_000 => 2_000,
        _ => 500,
    }
}

fn main() {
    iceoryx2::prelude::set_log_level(iceoryx2::prelude::LogLevel::Error);
    match support::child_role().as_deref() {
        Some("iceoryx2") => {
            support::pin_to_cpu(support::CHILD_CPU);
            iceoryx2_child();
            return;
        }
        Some("uds") => {
            support::pin_to_cpu(support::CHILD_CPU);
            uds_child();
            return;
        }
        Some(role) => {
            assert!(support::run_child_role(), "unknown role {role:?}");
            return;
        }
        None => {}
    }
    let load_before = support::load_average();
    let cpus = std::thread::available_parallelism().map_or(0, |count| count.get());
    let pinned = support::pin_to_cpu(support::PARENT_CPU);
    println!(
        "machine: {cpus} CPUs, {}; processes pinned: {}",
        cpu_model(),
        if pinned {
            "parent CPU 0, child CPU 1"
        } else {
            "no"
        }
    );
    println!(
        "one-way latency, two processes, busy-polling readers, round trip / 2; at each size the \
         floor and the transports take {PASSES} turns each\n"
    );
    println!("| size | transport | p50 | p99 | p50 ÷ floor | p50 ÷ triple buffer | rounds |");
    println!("|---|---|---|---|---|---|---|");
    for size in SIZES {
        // The floor and every transport run in turns, PASSES times, so that a change of the
        // machine's state during the run (other work, the hypervisor moving a virtual CPU)
        // affects all of them alike.
        let rounds = rounds_for(size) / PASSES;
        let budget = BUDGET / PASSES as u32;
        let mut samples: [Vec<f64>; 4] = Default::default();
        for _ in 0..PASSES {
            samples[0].extend(support::floor_parent(100_000 / PASSES, budget));
            samples[1].extend(support::triple_buffer_parent(size, rounds, budget));
            samples[2].extend(iceoryx2_parent(size, rounds, budget));
            samples[3].extend(uds_parent(size, rounds, budget));
        }
        let [floor, triple, iceoryx2, socket] =
            samples.map(|mut samples| Summary::of(&mut samples));
        let label = format_size(size);
        row(
            &label,
            "AtomicU64 ping-pong (floor, 8 B)",
            floor,
            floor,
            None,
        );
        row(&label, "Cortex triple buffer", triple, floor, Some(triple));
        row(
            &label,
            "iceoryx2 publish-subscribe",
            iceoryx2,
            floor,
            Some(triple),
        );
        row(
            &label,
            "Unix socket (SOCK_STREAM)",
            socket,
            floor,
            Some(triple),
        );
    }
    println!(
        "\nload average (1 min) before: {load_before}, after: {}",
        support::load_average()
    );
}

fn row(size: &str, transport: &str, result: Summary, floor: Summary, triple: Option<Summary>) {
    let versus_triple = triple.map_or("—".to_owned(), |triple| {
        format!("{:.2}×", result.p50 / triple.p50)
    });
    println!(
        "| {size} | {transport} | {} | {} | {:.2}× | {versus_triple} | {} |",
        format_ns(result.p50),
        format_ns(result.p99),
        result.p50 / floor.p50,
        result.count
    );
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

// ---------------------------------------------------------------------------------------------
// iceoryx2: two publish-subscribe services, "ping" (parent → child) and "pong" (child → parent).
// ---------------------------------------------------------------------------------------------

fn service_name(parent: u32, size: usize, direction: &str) -> ServiceName {
    let name = format!("cortex-bench/{parent}/{size}/{direction}");
    name.as_str()
        .try_into()
        .expect("a valid iceoryx2 service name")
}

fn iceoryx2_parent(size: usize, rounds: usize, budget: Duration) -> Vec<f64> {
    let node = NodeBuilder::new()
        .create::<Iceoryx2Ipc>()
        .expect("iceoryx2 node");
    let open = |direction: &str| {
        node.service_builder(&service_name(std::process::id(), size, direction))
            .publish_subscribe::<[u8]>()
            .max_publishers(1)
            .max_subscribers(1)
            .max_nodes(2)
            .open_or_create()
            .expect("iceoryx2 service")
    };
    let (ping, pong) = (open("ping"), open("pong"));
    let publisher = ping
        .publisher_builder()
        .initial_max_slice_len(size)
        .create()
        .expect("publisher");
    let subscriber = pong.subscriber_builder().create().expect("subscriber");
    let child = support::spawn_child("iceoryx2", &[], size, 0);
    // The child announces itself with one message once its ports exist.
    let deadline = Instant::now() + Duration::from_secs(20);
    while subscriber.receive().expect("receive").is_none() {
        assert!(
            Instant::now() < deadline,
            "the iceoryx2 child did not start"
        );
        std::thread::sleep(Duration::from_micros(100));
    }
    let message = support::pattern(size);
    let mut echo = vec![0u8; size];
    let samples = support::ping_pong(rounds, budget, |_| {
        let sample = publisher
            .loan_slice_uninit(size)
            .expect("loan")
            .write_from_slice(&message);
        sample.send().expect("send");
        let mut received = None;
        support::spin_until(|| {
            received = subscriber.receive().expect("receive");
            received.is_some()
        });
        echo.copy_from_slice(received.expect("a sample").payload());
    });
    assert_eq!(echo, message, "the iceoryx2 echo differs");
    // A message of another length stops the child.
    let stop = publisher
        .loan_slice_uninit(1)
        .expect("loan")
        .write_from_slice(&[0]);
    stop.send().expect("send");
    support::join(child, "iceoryx2");
    samples
}

fn iceoryx2_child() {
    let size = support::env_number(support::SIZE);
    let parent = std::os::unix::process::parent_id();
    let node = NodeBuilder::new()
        .create::<Iceoryx2Ipc>()
        .expect("iceoryx2 node");
    let open = |direction: &str| {
        node.service_builder(&service_name(parent, size, direction))
            .publish_subscribe::<[u8]>()
            .max_publishers(1)
            .max_subscribers(1)
            .max_nodes(2)
            .open_or_create()
            .expect("iceoryx2 service")
    };
    let (ping, pong) = (open("ping"), open("pong"));
    let subscriber = ping.subscriber_builder().create().expect("subscriber");
    let publisher = pong
        .publisher_builder()
        .initial_max_slice_len(size)
        .create()
        .expect("publisher");
    let mut message = vec![0u8; size];
    publisher
        .loan_slice_uninit(size)
        .expect("loan")
        .write_from_slice(&message)
        .send()
        .expect("send");
    loop {
        let mut received = None;
        support::spin_until(|| {
            received = subscriber.receive().expect("receive");
            received.is_some()
        });
        let sample = received.expect("a sample");
        if sample.payload().len() != size {
            return;
        }
        message.copy_from_slice(sample.payload());
        drop(sample);
        publisher
            .loan_slice_uninit(size)
            .expect("loan")
            .write_from_slice(&message)
            .send()
            .expect("send");
    }
}

// ---------------------------------------------------------------------------------------------
// Unix domain socket: a SOCK_STREAM pair, both ends non-blocking, readers busy-polling.
// ---------------------------------------------------------------------------------------------

/// Reads exactly `buffer.len()` bytes, spinning on `WouldBlock`. Returns false at end of stream.
fn read_spinning(mut socket: &UnixStream, buffer: &mut [u8]) -> bool {
    let mut filled = 0;
    let mut closed = false;
    support::spin_until(|| {
        match socket.read(&mut buffer[filled..]) {
            Ok(0) => closed = true,
            Ok(read) => filled += read,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => panic!("socket read: {error}"),
        }
        closed || filled == buffer.len()
    });
    !closed
}

/// Writes all of `bytes`, spinning while the socket buffer is full.
fn write_spinning(mut socket: &UnixStream, bytes: &[u8]) {
    let mut written = 0;
    support::spin_until(|| {
        match socket.write(&bytes[written..]) {
            Ok(count) => written += count,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => panic!("socket write: {error}"),
        }
        written == bytes.len()
    });
}

fn uds_parent(size: usize, rounds: usize, budget: Duration) -> Vec<f64> {
    let (parent_end, child_end) = UnixStream::pair().expect("socketpair");
    let child = support::spawn_child("uds", &[child_end.as_fd()], size, 0);
    drop(child_end);
    parent_end.set_nonblocking(true).expect("non-blocking");
    let message = support::pattern(size);
    let mut echo = vec![0u8; size];
    let samples = support::ping_pong(rounds, budget, |_| {
        write_spinning(&parent_end, &message);
        assert!(
            read_spinning(&parent_end, &mut echo),
            "the socket child closed"
        );
    });
    assert_eq!(echo, message, "the socket echo differs");
    drop(parent_end);
    support::join(child, "unix socket");
    samples
}

fn uds_child() {
    let size = support::env_number(support::SIZE);
    let socket = UnixStream::from(support::take_fds().remove(0));
    socket.set_nonblocking(true).expect("non-blocking");
    let mut message = vec![0u8; size];
    while read_spinning(&socket, &mut message) {
        write_spinning(&socket, &message);
    }
}
