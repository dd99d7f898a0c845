//! Subscriptions end to end, in one process: a real server on a loopback port, real channels
//! (triple buffers in memfd segments) written by a thread, and a WebSocket client. Values
//! arrive as JSON and as msgpack, both decodable; the channel is watched while subscribed and
//! its lease runs out after unsubscribe.

use debug::{ChannelKind, ChannelSource, Control, Limits, Server, Sources};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

#[derive(serde::Serialize)]
struct Sample {
    angle: f32,
    count: u64,
}

struct NoSupervisor;

impl Control for NoSupervisor {
    fn status(&self) -> Result<serde_json::Value, String> {
        Err("no supervisor in this test".into())
    }
    fn params(&self, _: &str) -> Result<serde_json::Value, String> {
        Err("no supervisor in this test".into())
    }
    fn set(&self, _: &str) -> Result<serde_json::Value, String> {
        Err("no supervisor in this test".into())
    }
}

fn connect(server: &Server) -> WebSocket<TcpStream> {
    let stream = TcpStream::connect(server.address()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let url = format!("ws://{}/ws", server.address());
    tungstenite::client::client(url.as_str(), stream).unwrap().0
}

fn next_json(socket: &mut WebSocket<TcpStream>) -> serde_json::Value {
    loop {
        match socket.read().unwrap() {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Binary(bytes) => return debug::value::decode(&bytes).unwrap(),
            _ => {}
        }
    }
}

#[test]
fn values_arrive_as_json_and_msgpack_and_unsubscribe_releases_the_lease() {
    let buffer = ipc::TripleBuffer::create("Sample", 4096).unwrap();
    let writer_side =
        ipc::TripleBuffer::from_fd(rustix::io::dup(std::os::fd::AsFd::as_fd(&buffer)).unwrap())
            .unwrap();
    let watched_view =
        ipc::TripleBuffer::from_fd(rustix::io::dup(std::os::fd::AsFd::as_fd(&buffer)).unwrap())
            .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let published = Arc::new(std::sync::atomic::AtomicU64::new(0));
    // The producer publishes only while watched, as the runtime does for a channel nobody reads.
    let producer = {
        let stop = Arc::clone(&stop);
        let published = Arc::clone(&published);
        std::thread::spawn(move || {
            let mut writer = writer_side.writer().unwrap();
            let mut count = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if writer.watched(ipc::health::monotonic_ns()) {
                    count += 1;
                    let bytes = rmp_serde::to_vec_named(&Sample { angle: 0.1, count }).unwrap();
                    writer.publish(&bytes).unwrap();
                    published.store(count, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let sources = Sources {
        channels: vec![ChannelSource {
            name: "Sample".into(),
            representation: "Sample".into(),
            producer: "test".into(),
            kind: ChannelKind::Encoded(Box::new(buffer)),
        }],
        modules: Vec::new(),
        health: None,
        control: Box::new(NoSupervisor),
    };
    let limits = Limits {
        lease: Duration::from_millis(400),
        ..Limits::default()
    };
    let server = Server::start(TcpListener::bind("127.0.0.1:0").unwrap(), sources, limits).unwrap();
    let mut client = connect(&server);

    // Nobody watches yet: nothing is published.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        published.load(Ordering::Relaxed),
        0,
        "published while unwatched"
    );

    client
        .send(Message::text(
            r#"{"op":"subscribe","channel":"Sample","id":1}"#,
        ))
        .unwrap();
    let reply = next_json(&mut client);
    assert_eq!(reply["type"], "subscribe", "{reply}");
    assert_eq!(reply["id"], 1);
    let mut counts = Vec::new();
    while counts.len() < 3 {
        let value = next_json(&mut client);
        assert_eq!(value["type"], "value", "{value}");
        assert_eq!(value["value"]["angle"].to_string(), "0.1");
        counts.push(value["value"]["count"].as_u64().unwrap());
    }
    assert!(
        counts.windows(2).all(|pair| pair[0] < pair[1]),
        "{counts:?}"
    );
    assert!(
        watched_view.reader().watched_until() > ipc::health::monotonic_ns(),
        "the lease runs while subscribed"
    );

    // The same channel as msgpack: a binary frame whose `value` is the channel's bytes.
    client
        .send(Message::text(
            r#"{"op":"subscribe","channel":"Sample","format":"msgpack","every":2,"id":2}"#,
        ))
        .unwrap();
    let mut binary = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while binary.is_none() && Instant::now() < deadline {
        // The reply to the request comes first, as msgpack too.
        if let Message::Binary(bytes) = client.read().unwrap() {
            if debug::value::decode(&bytes).unwrap()["type"] == "value" {
                binary = Some(bytes);
            }
        }
    }
    let bytes = binary.expect("a msgpack value");
    let mut reader = &bytes[..];
    let value = rmpv::decode::read_value(&mut reader).unwrap();
    let map = value.as_map().unwrap();
    let field = |name: &str| {
        map.iter()
            .find(|(key, _)| key.as_str() == Some(name))
            .map(|(_, value)| value.clone())
            .unwrap()
    };
    assert_eq!(field("type").as_str(), Some("value"));
    assert_eq!(field("channel").as_str(), Some("Sample"));
    let sample = field("value");
    let sample = sample.as_map().unwrap();
    assert!(sample
        .iter()
        .any(|(key, value)| key.as_str() == Some("angle") && value.as_f64().is_some()));

    // Unsubscribe: the lease is no longer renewed, runs out, and the producer stops.
    client
        .send(Message::text(
            r#"{"op":"unsubscribe","channel":"Sample","id":3}"#,
        ))
        .unwrap();
    loop {
        let reply = next_json(&mut client);
        if reply["type"] == "unsubscribe" {
            assert_eq!(reply["was_subscribed"], true);
            break;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while watched_view.reader().watched_until() > ipc::health::monotonic_ns() {
        assert!(
            Instant::now() < deadline,
            "the lease was renewed after unsubscribe"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let after = published.load(Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        published.load(Ordering::Relaxed),
        after,
        "still published after the lease ran out"
    );

    // An unknown channel is an error, and the connection is closed.
    client
        .send(Message::text(r#"{"op":"subscribe","channel":"Nope"}"#))
        .unwrap();
    let error = next_json(&mut client);
    assert_eq!(error["type"], "error");
    assert!(error["error"]
        .as_str()
        .unwrap()
        .contains("unknown channel `Nope`"));
    let mut closed = false;
    for _ in 0..10 {
        match client.read() {
            Ok(Message::Close(frame)) => {
                assert_eq!(
                    frame.unwrap().code,
                    tungstenite::protocol::frame::coding::CloseCode::Policy
                );
                closed = true;
                break;
            }
            Ok(_) => {}
            Err(_) => {
                closed = true;
                break;
            }
        }
    }
    assert!(closed, "the connection stays open after an unknown name");

    stop.store(true, Ordering::Relaxed);
    producer.join().unwrap();
    server.stop();
}

#[test]
fn a_client_that_does_not_read_loses_its_oldest_values_and_others_are_still_served() {
    let buffer = ipc::TripleBuffer::create("Large", 128 * 1024).unwrap();
    let writer_side =
        ipc::TripleBuffer::from_fd(rustix::io::dup(std::os::fd::AsFd::as_fd(&buffer)).unwrap())
            .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // 64 KiB values as fast as the link can be asked for them: a client that reads nothing
    // fills its socket, then its queue.
    let producer = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            #[derive(serde::Serialize)]
            struct Large {
                #[serde(with = "serde_bytes_as_bin")]
                payload: Vec<u8>,
            }
            mod serde_bytes_as_bin {
                pub fn serialize<S: serde::Serializer>(
                    bytes: &[u8],
                    serializer: S,
                ) -> Result<S::Ok, S::Error> {
                    serializer.serialize_bytes(bytes)
                }
            }
            let mut writer = writer_side.writer().unwrap();
            let bytes = rmp_serde::to_vec_named(&Large {
                payload: vec![7; 64 * 1024],
            })
            .unwrap();
            while !stop.load(Ordering::Relaxed) {
                writer.publish(&bytes).unwrap();
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let sources = Sources {
        channels: vec![ChannelSource {
            name: "Large".into(),
            representation: "Large".into(),
            producer: "test".into(),
            kind: ChannelKind::Encoded(Box::new(buffer)),
        }],
        modules: Vec::new(),
        health: None,
        control: Box::new(NoSupervisor),
    };
    let server = Server::start(
        TcpListener::bind("127.0.0.1:0").unwrap(),
        sources,
        Limits::default(),
    )
    .unwrap();
    let mut slow = connect(&server);
    slow.send(Message::text(
        r#"{"op":"subscribe","channel":"Large","format":"msgpack"}"#,
    ))
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.shared().counters.dropped.load(Ordering::Relaxed) == 0 {
        assert!(
            Instant::now() < deadline,
            "nothing was dropped for a client that reads nothing"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Another client is served meanwhile.
    let mut other = connect(&server);
    other
        .send(Message::text(r#"{"op":"list","id":5}"#))
        .unwrap();
    let reply = next_json(&mut other);
    assert_eq!(reply["type"], "list", "{reply}");
    assert_eq!(reply["representations"][0]["channel"], "Large");
    // The slow client, reading at last, learns how many values it lost.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no value says it dropped any");
        let value = next_json(&mut slow);
        if value["type"] == "value" && value["dropped"].as_u64().unwrap_or(0) > 0 {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    producer.join().unwrap();
    server.stop();
}
