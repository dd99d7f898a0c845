//! `ipc::wait_any` across processes: a process asleep on two channels is woken by the writer of
//! the second, which runs in another process; a writer that dies (SIGKILL) leaves no one hanging.
//!
//! The child processes are this test binary again, running only `child_role` (chosen by the
//! environment); the channel's descriptor is inherited across exec.

use ipc::{TripleBuffer, Wake};
use std::io::{BufRead, BufReader};
use std::os::fd::{AsFd, AsRawFd};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ROLE: &str = "CORTEX_WAIT_TEST_ROLE";
const FD: &str = "CORTEX_WAIT_TEST_FD";
const SLEEPER: &str = "CORTEX_WAIT_TEST_SLEEPER";

/// A bound on each test: a wait that ends only by its 60 s timeout fails here.
const JOIN_DEADLINE: Duration = Duration::from_secs(30);

fn spawn(role: &str, buffer: &TripleBuffer, sleeper: Option<(u32, i32)>) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "child_role",
            "--exact",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(ROLE, role)
        .env(FD, buffer.as_fd().as_raw_fd().to_string())
        .stdout(Stdio::piped());
    if let Some((pid, tid)) = sleeper {
        command.env(SLEEPER, format!("{pid}/{tid}"));
    }
    ipc::fd::inherit_fds(&mut command, &[buffer.as_fd()]);
    command.spawn().expect("spawning a test process")
}

/// The state letter of a thread (`S` while asleep in a system call).
fn thread_state(pid_tid: &str) -> Option<char> {
    let (pid, tid) = pid_tid.split_once('/')?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

/// Not a test of its own: the body of the child processes.
#[test]
fn child_role() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let raw = std::env::var(FD).unwrap().parse().unwrap();
    let buffer = TripleBuffer::from_fd(ipc::fd::take_inherited(raw).unwrap()).unwrap();
    let mut writer = buffer.writer().unwrap();
    match role.as_str() {
        "publish-when-asleep" => {
            // Publish only once the other process sleeps in its wait, so that the wake-up, not
            // the first look at the channels, is what is tested.
            let sleeper = std::env::var(SLEEPER).unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            while thread_state(&sleeper) != Some('S') && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(50));
            writer.publish(b"second").unwrap();
        }
        "publish-then-hang" => {
            writer.publish(b"first").unwrap();
            println!("published");
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn a_writer_in_another_process_wakes_a_sleeper_on_the_second_of_two_channels() {
    let first = TripleBuffer::create("wait-first", 64).unwrap();
    let second = TripleBuffer::create("wait-second", 64).unwrap();
    let tid = rustix::thread::gettid().as_raw_nonzero().get();
    let mut child = spawn(
        "publish-when-asleep",
        &second,
        Some((std::process::id(), tid)),
    );
    let (first_reader, mut second_reader) = (first.reader(), second.reader());
    let woken = ipc::wait_any(
        [(&first_reader, 0), (&second_reader, 0)],
        Duration::from_secs(60),
        None,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "the writer process failed: {status}");
    assert_eq!(woken, Wake::Published { index: 1, count: 1 });
    let mut value = Vec::new();
    assert_eq!(second_reader.read_latest(&mut value).unwrap(), Some(1));
    assert_eq!(value, b"second");
}

#[test]
fn a_dead_writer_does_not_hang_the_wait_and_its_successor_wakes_it() {
    let first = TripleBuffer::create("wait-dead", 64).unwrap();
    let second = TripleBuffer::create("wait-quiet", 64).unwrap();
    let mut child = spawn("publish-then-hang", &first, None);
    // The child's output starts with the test harness's own words; read it on a thread so
    // that a child that never says "published" fails the test instead of hanging it.
    let output = BufReader::new(child.stdout.take().unwrap());
    let (lines, said) = mpsc::channel();
    std::thread::spawn(move || {
        for line in output.lines().map_while(Result::ok) {
            if line.trim_end().ends_with("published") {
                let _ = lines.send(());
            }
        }
    });
    if said.recv_timeout(JOIN_DEADLINE).is_err() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the writer process never published");
    }
    assert_eq!(first.writer_pid(), Some(child.id()));
    child.kill().unwrap();
    child.wait().unwrap();

    // The dead writer's channel is quiet: only the timeout ends the wait.
    let (first_reader, second_reader) = (first.reader(), second.reader());
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let result = ipc::wait_any(
                [(&first_reader, 1), (&second_reader, 0)],
                Duration::from_millis(200),
                None,
            );
            sender.send(result.unwrap()).unwrap();
        });
        let woken = receiver
            .recv_timeout(JOIN_DEADLINE)
            .expect("the wait ended");
        assert_eq!(woken, Wake::TimedOut);
    });

    // A new writer takes the role the dead one left and wakes a sleeper.
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let result = ipc::wait_any(
                [(&first_reader, 1), (&second_reader, 0)],
                Duration::from_secs(60),
                None,
            );
            sender.send(result.unwrap()).unwrap();
        });
        std::thread::sleep(Duration::from_millis(50));
        let mut writer = first.writer().expect("the dead writer's role is free");
        assert_eq!(writer.publish(b"successor").unwrap(), 2);
        let woken = receiver.recv_timeout(JOIN_DEADLINE).expect("woke");
        assert_eq!(woken, Wake::Published { index: 0, count: 2 });
    });
}
