//! The debug link of a running `cortex run --sim` under hostile clients (issue 15): garbage
//! bytes, a huge frame, unknown names, malformed JSON and 200 connections at once each get an
//! error and are closed, while a well-behaved subscriber keeps receiving values and a new
//! client is served afterwards.

mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use support::Instance;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::{Message, WebSocket};

fn address(instance: &Instance) -> SocketAddr {
    let url = instance.debug_url();
    let host_port = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    host_port.parse().expect("a host:port")
}

fn websocket(address: SocketAddr) -> WebSocket<TcpStream> {
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    tungstenite::client::client(format!("ws://{address}/ws").as_str(), stream)
        .unwrap()
        .0
}

/// Reads until the server's error and close; returns the error text and the close code.
fn error_then_close(socket: &mut WebSocket<TcpStream>) -> (String, Option<CloseCode>) {
    let mut error = String::new();
    loop {
        match socket.read() {
            Ok(Message::Text(text)) => {
                let value: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
                if value["type"] == "error" {
                    error = value["error"].as_str().unwrap_or_default().to_owned();
                }
            }
            Ok(Message::Close(frame)) => return (error, frame.map(|frame| frame.code)),
            Ok(_) => {}
            Err(_) => return (error, None),
        }
    }
}

fn http_reply(address: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = stream.write_all(request);
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

#[test]
fn hostile_clients_get_errors_and_a_subscriber_keeps_being_served() {
    let instance = Instance::start("debug-hostile", &[]);
    let address = address(&instance);

    // The well-behaved subscriber, there from the start.
    let mut subscriber = websocket(address);
    subscriber
        .send(Message::text(
            r#"{"op":"subscribe","channel":"SensorData","max_hz":20}"#,
        ))
        .unwrap();
    let mut last_publish = 0u64;
    let mut take_values = |subscriber: &mut WebSocket<TcpStream>, count: usize| {
        let mut seen = 0;
        while seen < count {
            if let Message::Text(text) = subscriber.read().expect("the subscriber is served") {
                let value: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
                if value["type"] == "value" {
                    let publish = value["publish"].as_u64().unwrap();
                    assert!(publish > last_publish, "values go forward");
                    last_publish = publish;
                    seen += 1;
                }
            }
        }
    };
    take_values(&mut subscriber, 3);

    // Garbage bytes where an HTTP request belongs.
    let reply = http_reply(address, b"\x00\x01\x02garbage\xff\xfe\r\n\r\n");
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(reply.contains("malformed HTTP request head"), "{reply}");

    // A huge frame (1 MiB, the link takes 64 KiB).
    let mut huge = websocket(address);
    let _ = huge.send(Message::text("x".repeat(1 << 20)));
    let (error, code) = error_then_close(&mut huge);
    assert!(error.contains("message too large"), "{error}");
    assert_eq!(code, Some(CloseCode::Size));

    // Unknown names, malformed JSON, an unknown op.
    for (request, expected) in [
        (
            r#"{"op":"subscribe","channel":"NoSuchThing"}"#,
            "unknown channel `NoSuchThing`",
        ),
        (
            r#"{"op":"params","module":"NoSuchModule"}"#,
            "unknown module `NoSuchModule`",
        ),
        (r#"{"op":"subscribe","channel":"#, "malformed request"),
        (r#"{"op":"explode"}"#, "unknown variant `explode`"),
        ("not json at all", "malformed request"),
    ] {
        let mut client = websocket(address);
        client.send(Message::text(request)).unwrap();
        let (error, code) = error_then_close(&mut client);
        assert!(error.contains(expected), "{request}: {error}");
        assert_eq!(code, Some(CloseCode::Policy), "{request}");
    }

    // 200 connections at once: those beyond the limit get 503 at once; the others, which send
    // nothing, are closed when their request head does not arrive (408).
    let mut flood: Vec<TcpStream> = (0..200)
        .filter_map(|_| TcpStream::connect(address).ok())
        .collect();
    assert_eq!(
        flood.len(),
        200,
        "every connection is accepted by the kernel"
    );
    take_values(&mut subscriber, 3);
    let mut answers = std::collections::BTreeMap::<String, usize>::new();
    for stream in &mut flood {
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        let text = String::from_utf8_lossy(&reply);
        let status = text
            .lines()
            .next()
            .unwrap_or("closed without a reply")
            .to_owned();
        *answers.entry(status).or_default() += 1;
    }
    eprintln!("200 idle connections were answered: {answers:?}");
    let refused = answers
        .iter()
        .filter(|(status, _)| status.contains("503"))
        .map(|(_, count)| count)
        .sum::<usize>();
    let timed_out = answers
        .iter()
        .filter(|(status, _)| status.contains("408"))
        .map(|(_, count)| count)
        .sum::<usize>();
    assert!(refused >= 200 - 32, "{answers:?}");
    assert_eq!(refused + timed_out, 200, "each got an error: {answers:?}");
    drop(flood);

    // The subscriber was served throughout, and a new client is served now.
    take_values(&mut subscriber, 3);
    let mut newcomer = websocket(address);
    newcomer
        .send(Message::text(r#"{"op":"timings","id":9}"#))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "no timings reply");
        if let Message::Text(text) = newcomer.read().unwrap() {
            let value: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            assert_eq!(value["type"], "timings", "{value}");
            let processes = value["processes"].as_array().unwrap();
            assert!(processes
                .iter()
                .any(|process| process["process"] == "motion"));
            break;
        }
    }
    assert_eq!(
        instance.process("debug").restarts,
        0,
        "the debug process survived"
    );
}

/// One image message of a subscription: (publish, width, jpeg bytes).
fn next_image(socket: &mut WebSocket<TcpStream>) -> (u64, u64, Vec<u8>) {
    loop {
        if let Message::Binary(bytes) = socket.read().expect("images keep coming") {
            let value = debug::value::decode(&bytes).unwrap();
            if value["type"] != "jpeg" {
                continue;
            }
            let jpeg: Vec<u8> = value["jpeg"]
                .as_array()
                .unwrap_or_else(|| {
                    panic!(
                        "no jpeg in {}",
                        &value.to_string()[..300.min(value.to_string().len())]
                    )
                })
                .iter()
                .map(|byte| byte.as_u64().unwrap() as u8)
                .collect();
            return (
                value["publish"].as_u64().unwrap(),
                value["width"].as_u64().unwrap(),
                jpeg,
            );
        }
    }
}

#[test]
fn camera_images_arrive_as_jpeg_and_come_back_after_perception_is_killed() {
    let instance = Instance::start("debug-images", &[]);
    let address = address(&instance);
    let channel = "upper.CameraImage.pixels";

    let snapshot = http_reply(
        address,
        format!("GET /image/{channel}.jpg HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
    );
    assert!(
        snapshot.starts_with("HTTP/1.1 200"),
        "{}",
        &snapshot[..snapshot.len().min(300)]
    );
    assert!(snapshot.contains("image/jpeg"));

    let mut socket = websocket(address);
    socket
        .send(Message::text(format!(
            r#"{{"op":"image","channel":"{channel}","max_hz":10}}"#
        )))
        .unwrap();
    for _ in 0..3 {
        let (_, width, jpeg) = next_image(&mut socket);
        assert!(width > 0);
        assert_eq!(&jpeg[..2], &[0xff, 0xd8], "a JPEG");
    }

    // Kill the camera's process: a new one (restarted, or the standby) publishes into a
    // channel of its own, which the link finds.
    let old_pid = instance.pid("perception.upper");
    instance.signal("perception.upper", 9);
    instance.wait_for(
        "perception.upper again",
        Duration::from_secs(60),
        |status| {
            status.processes.iter().any(|process| {
                process.name == "perception.upper"
                    && process.pid.is_some_and(|pid| pid as i32 != old_pid)
                    && process.ticks > 0
            })
        },
    );
    // Images of the new process: wait past anything queued before the kill.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut after = 0;
    let started = Instant::now();
    while after < 3 {
        assert!(
            Instant::now() < deadline,
            "no images after perception.upper was replaced"
        );
        let (_, _, jpeg) = next_image(&mut socket);
        assert_eq!(&jpeg[..2], &[0xff, 0xd8]);
        if started.elapsed() > Duration::from_secs(2) {
            after += 1;
        }
    }

    // Kill the debug process itself: its replacement serves the same address (the supervisor
    // holds the port), and a new client is served there.
    let old_pid = instance.pid("debug");
    instance.signal("debug", 9);
    instance.wait_for("debug again", Duration::from_secs(60), |status| {
        status.processes.iter().any(|process| {
            process.name == "debug"
                && process.pid.is_some_and(|pid| pid as i32 != old_pid)
                && process.ticks > 0
        })
    });
    assert_eq!(address, self::address(&instance), "the address stays");
    let deadline = Instant::now() + Duration::from_secs(60);
    let list = loop {
        assert!(
            Instant::now() < deadline,
            "the new debug process does not serve"
        );
        // Connections wait in the listener's backlog until the new process accepts them.
        let connected = TcpStream::connect(address).ok().and_then(|stream| {
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .ok()?;
            tungstenite::client::client(format!("ws://{address}/ws").as_str(), stream).ok()
        });
        if let Some((mut client, _)) = connected {
            client.send(Message::text(r#"{"op":"list"}"#)).unwrap();
            if let Ok(Message::Text(text)) = client.read() {
                break serde_json::from_str::<serde_json::Value>(text.as_str()).unwrap();
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(list["type"], "list", "{list}");
    assert!(list["representations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|listed| listed["channel"] == channel));
}
