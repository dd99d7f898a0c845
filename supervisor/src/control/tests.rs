//! The control server with real sockets and hostile clients.

use super::*;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::Instant;

fn server(limits: Limits) -> (tempfile::TempDir, PathBuf, ControlServer) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("control.sock");
    let server = ControlServer::bind_with(&path, limits).unwrap();
    (folder, path, server)
}

/// Sends `bytes` raw and returns the reply line (empty if the server closed without one).
fn raw(path: &Path, bytes: &[u8]) -> String {
    let mut stream = UnixStream::connect(path).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = stream.write_all(bytes);
    let mut reply = String::new();
    let _ = BufReader::new(&stream).read_line(&mut reply);
    reply
}

/// Answers requests on the supervision side until `count` were answered.
fn answer(server: &ControlServer, count: usize) -> Vec<Request> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.len() < count && Instant::now() < deadline {
        if let Some(incoming) = server.wait_next(Duration::from_millis(5)) {
            seen.push(incoming.request.clone());
            incoming.answer(Reply::json(serde_json::json!({"ok": seen.len()})));
        }
    }
    seen
}

#[test]
fn requests_round_trip_and_a_second_server_is_refused() {
    let (folder, path, server) = server(Limits::default());
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(ControlServer::bind(&path).is_err());
    let client = std::thread::spawn({
        let folder = folder.path().to_owned();
        move || {
            request(
                &folder,
                &Request::Restart {
                    process: "motion".into(),
                },
            )
        }
    });
    let received = answer(&server, 1);
    assert_eq!(
        received,
        vec![Request::Restart {
            process: "motion".into()
        }]
    );
    assert_eq!(client.join().unwrap().unwrap()["ok"], 1);
    drop(server);
    assert!(!path.exists(), "the socket is removed with the server");
}

#[test]
fn a_silent_probe_is_skipped_and_bad_lines_are_answered_with_what_was_wrong() {
    let (_folder, path, server) = server(Limits::default());
    drop(UnixStream::connect(&path).unwrap());
    let reply = raw(&path, b"hello\n");
    assert!(
        reply.contains("not a request") && reply.contains("hello"),
        "{reply}"
    );
    let reply = raw(&path, b"{\"command\":\"status\"\xff}\n");
    assert!(reply.contains("not UTF-8 at byte 19"), "{reply}");
    let reply = raw(&path, b"{\"command\":\"explode\"}\n");
    assert!(reply.contains("explode"), "{reply}");
    assert!(
        server.try_next().is_none(),
        "nothing reached the supervisor"
    );
    assert_eq!(server.counters().malformed.load(Ordering::Relaxed), 3);
    // A well-formed request still gets through afterwards.
    let client = std::thread::spawn(move || raw(&path, b"{\"command\":\"status\"}\n"));
    assert_eq!(answer(&server, 1), vec![Request::Status]);
    assert!(client.join().unwrap().contains("\"ok\":1"));
}

#[test]
fn an_endless_line_is_cut_at_the_cap_and_memory_stays_bounded() {
    let limits = Limits {
        request_bytes: 1024,
        ..Limits::default()
    };
    let (_folder, path, server) = server(limits);
    let mut stream = UnixStream::connect(&path).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent = 0usize;
    // 1 GiB offered; the server stops reading after 1 KiB and closes.
    while sent < 1 << 30 {
        match stream.write(&chunk) {
            Ok(count) => sent += count,
            Err(_) => break,
        }
    }
    assert!(sent < 1 << 30, "the server kept reading");
    let mut reply = String::new();
    let _ = BufReader::new(&stream).read_line(&mut reply);
    assert!(reply.contains("longer than 1024 bytes"), "{reply}");
    assert_eq!(server.counters().oversized.load(Ordering::Relaxed), 1);
    assert!(server.try_next().is_none());
}

#[test]
fn a_slow_client_is_cut_off_at_the_request_deadline() {
    let limits = Limits {
        request_time: Duration::from_millis(300),
        ..Limits::default()
    };
    let (_folder, path, server) = server(limits);
    let mut stream = UnixStream::connect(&path).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // One byte every 100 ms: each read succeeds, the whole line never arrives in time.
    let mut reply = String::new();
    for byte in b"{\"command\":\"stop\"}".iter().take(10) {
        if stream.write_all(&[*byte]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = BufReader::new(&stream).read_line(&mut reply);
    assert!(
        reply.contains("no complete request line within 300ms"),
        "{reply}"
    );
    assert_eq!(server.counters().timed_out.load(Ordering::Relaxed), 1);
    assert!(
        server.try_next().is_none(),
        "the partial stop was not acted on"
    );
}

fn wait_open(server: &ControlServer, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.counters().open.load(Ordering::Relaxed) != count {
        assert!(
            Instant::now() < deadline,
            "{count} connections were not being served"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn over_the_cap_the_longest_idle_connection_makes_room_and_busy_only_when_none_is_idle() {
    let limits = Limits {
        connections: 2,
        request_time: Duration::from_secs(60),
        ..Limits::default()
    };
    let (_folder, path, server) = server(limits);
    let oldest = UnixStream::connect(&path).unwrap();
    wait_open(&server, 1);
    let newer = UnixStream::connect(&path).unwrap();
    wait_open(&server, 2);
    // A tool's request gets through at once: the idle connection that waited longest goes.
    let client = std::thread::spawn({
        let path = path.clone();
        move || raw(&path, b"{\"command\":\"status\"}\n")
    });
    assert_eq!(answer(&server, 1), vec![Request::Status]);
    assert!(client.join().unwrap().contains("\"ok\":1"));
    assert_eq!(server.counters().evicted.load(Ordering::Relaxed), 1);
    let mut closed = String::new();
    oldest
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = BufReader::new(&oldest).read_line(&mut closed);
    assert!(closed.contains("no complete request line"), "{closed:?}");
    drop(newer);
    wait_open(&server, 0);

    // Two requests the supervisor has not answered yet hold both places: nobody idles, so a
    // third connection is told `busy`.
    let waiting: Vec<_> = (0..2)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || raw(&path, b"{\"command\":\"status\"}\n"))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.counters().requests.load(Ordering::Relaxed) < 3 {
        assert!(Instant::now() < deadline, "the two requests did not arrive");
        std::thread::sleep(Duration::from_millis(5));
    }
    let reply = raw(&path, b"{\"command\":\"status\"}\n");
    assert!(reply.contains("busy"), "{reply}");
    assert_eq!(server.counters().busy.load(Ordering::Relaxed), 1);
    assert_eq!(answer(&server, 2).len(), 2);
    for client in waiting {
        assert!(client.join().unwrap().contains("ok"));
    }
}

#[test]
fn a_request_whose_client_hung_up_is_marked_gone_and_a_half_closed_one_is_not() {
    let (_folder, path, server) = server(Limits::default());
    let mut gone = UnixStream::connect(&path).unwrap();
    gone.write_all(b"{\"command\":\"stop\"}\n").unwrap();
    let first = loop {
        if let Some(incoming) = server.wait_next(Duration::from_millis(5)) {
            break incoming;
        }
    };
    assert!(!first.client_gone(), "the client still waits");
    drop(gone);
    assert!(first.client_gone(), "the client closed its connection");
    let mut half = UnixStream::connect(&path).unwrap();
    half.write_all(b"{\"command\":\"stop\"}\n").unwrap();
    half.shutdown(std::net::Shutdown::Write).unwrap();
    let second = loop {
        if let Some(incoming) = server.wait_next(Duration::from_millis(5)) {
            break incoming;
        }
    };
    assert!(!second.client_gone(), "a half-closed client still waits");
}

#[test]
fn a_request_past_its_deadline_is_marked_expired() {
    let (_folder, path, server) = server(Limits::default());
    let past = monotonic_ns() - 1_000_000_000;
    let future = monotonic_ns() + 60_000_000_000;
    let clients = std::thread::spawn(move || {
        let old = raw(
            &path,
            format!("{{\"command\":\"stop\",\"deadline_ns\":{past}}}\n").as_bytes(),
        );
        let fresh = raw(
            &path,
            format!("{{\"command\":\"status\",\"deadline_ns\":{future}}}\n").as_bytes(),
        );
        (old, fresh)
    });
    let mut expired = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while expired.len() < 2 && Instant::now() < deadline {
        if let Some(incoming) = server.wait_next(Duration::from_millis(5)) {
            expired.push((incoming.request.clone(), incoming.expired_by().is_some()));
            incoming.answer(Reply::json(serde_json::json!({"seen": true})));
        }
    }
    assert_eq!(
        expired,
        vec![(Request::Stop, true), (Request::Status, false)]
    );
    let (old, fresh) = clients.join().unwrap();
    assert!(old.contains("seen") && fresh.contains("seen"));
}
