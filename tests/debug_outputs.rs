//! Debug outputs through the debug link of a running `cortex run --sim` (issue 15): a module's
//! drawing arrives while a client subscribes and its flag is cleared (the module stops drawing,
//! its process stops publishing frames) when the client unsubscribes or vanishes; bad
//! `subscribe_output` requests get errors and are closed.

mod support;

use framework::debug_output::{OutputChannels, MAX_OUTPUTS};
use serde_json::Value;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use support::Instance;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::{Message, WebSocket};

fn websocket(instance: &Instance) -> WebSocket<TcpStream> {
    let url = instance.debug_url();
    let address: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("a host:port");
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    tungstenite::client::client(format!("ws://{address}/ws").as_str(), stream)
        .unwrap()
        .0
}

/// The next JSON message of `type`, skipping others.
fn next_of(socket: &mut WebSocket<TcpStream>, kind: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Message::Text(text) = socket.read().expect("the link answers") {
            let value: Value = serde_json::from_str(text.as_str()).unwrap();
            if value["type"] == kind {
                return value;
            }
            assert_ne!(value["type"], "error", "{value}");
        }
    }
    panic!("no `{kind}` message within {within:?}");
}

fn request(socket: &mut WebSocket<TcpStream>, text: &str) {
    socket.send(Message::text(text)).unwrap();
}

/// The subscribed bits a process's request channel holds now (valid ones only).
fn subscribed_bits(channels: &OutputChannels) -> Vec<usize> {
    let mut bytes = Vec::new();
    let Ok(Some(_)) = channels.requests.reader().read_latest(&mut bytes) else {
        return Vec::new();
    };
    let until = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    if until <= ipc::health::monotonic_ns() {
        return Vec::new();
    }
    (0..MAX_OUTPUTS)
        .filter(|index| bytes[8 + index / 8] & (1 << (index % 8)) != 0)
        .collect()
}

fn wait_until(what: &str, within: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !condition() {
        assert!(Instant::now() < deadline, "{what} within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The publish count of a frame channel stays put for `quiet`: nothing is drawn or published.
fn stays_quiet(channels: &OutputChannels, quiet: Duration) -> bool {
    let before = channels.frames.published();
    std::thread::sleep(quiet);
    channels.frames.published() == before
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

#[test]
fn a_drawing_arrives_while_subscribed_and_its_flag_clears_when_the_client_leaves() {
    let instance = Instance::start("debug-outputs", &[]);
    let cognition_pid = instance.pid("cognition") as u32;
    let cognition = OutputChannels::open_of_process(cognition_pid, "cognition")
        .expect("cognition's debug-output channels");
    let mut client = websocket(&instance);

    // The catalogue lists the instrumented modules of every process.
    let mut listed = Value::Null;
    wait_until("the outputs listed", Duration::from_secs(30), || {
        request(&mut client, r#"{"op":"outputs","id":1}"#);
        listed = next_of(&mut client, "outputs", Duration::from_secs(20));
        let names: Vec<String> = listed["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| format!("{}/{}", entry["process"], entry["output"]))
            .collect();
        [
            "cognition",
            "motion",
            "perception.upper",
            "perception.lower",
        ]
        .iter()
        .all(|process| names.iter().any(|name| name.contains(process)))
    });
    let entry = |process: &str, output: &str| {
        listed["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["process"] == process && entry["output"] == output)
            .cloned()
            .unwrap_or_else(|| panic!("{process}/{output} in {listed}"))
    };
    assert_eq!(
        entry("cognition", "BallModelProvider.ball")["kind"],
        "field_drawing"
    );
    assert_eq!(entry("motion", "WalkingEngine.balance")["kind"], "plot");
    assert_eq!(
        entry("perception.upper", "BallPerceptor.balls")["kind"],
        "image_drawing"
    );
    assert_eq!(
        entry("perception.lower", "BodyContourProvider.contour")["kind"],
        "image_drawing"
    );

    // Nobody subscribed: cognition draws nothing and publishes no frame.
    assert!(subscribed_bits(&cognition).is_empty());
    assert!(
        stays_quiet(&cognition, Duration::from_secs(1)),
        "no frames while nobody looks"
    );

    // Subscribed: the ball model's drawing arrives, in the robot frame, with a sane circle.
    request(
        &mut client,
        r#"{"op":"subscribe_output","process":"cognition","output":"BallModelProvider.ball","id":2}"#,
    );
    let reply = next_of(&mut client, "subscribe_output", Duration::from_secs(20));
    assert_eq!(reply["kind"], "field_drawing", "{reply}");
    let drawing = next_of(&mut client, "output", Duration::from_secs(30));
    assert_eq!(drawing["output"], "BallModelProvider.ball");
    let record = &drawing["records"][0];
    assert_eq!(record["space"], "robot", "{drawing}");
    let circle = record["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|shape| shape["shape"] == "circle")
        .unwrap_or_else(|| panic!("a circle in {drawing}"));
    let (x, y, radius) = (
        number(&circle["center"][0]),
        number(&circle["center"][1]),
        number(&circle["radius"]),
    );
    assert!(x.abs() < 20.0 && y.abs() < 20.0, "{circle}");
    assert!((0.05..20.0).contains(&radius), "{circle}");
    assert!(!subscribed_bits(&cognition).is_empty(), "the flag is set");
    let first_tick = drawing["tick"].as_u64().unwrap();
    let later = next_of(&mut client, "output", Duration::from_secs(30));
    assert!(later["tick"].as_u64().unwrap() > first_tick, "{later}");

    // A camera's drawing: the ball put in front of the robot is drawn on an image.
    let truth = instance.get("GroundTruth");
    let robot = &truth["robot"];
    let (rx, ry, theta) = (
        number(&robot["x"]),
        number(&robot["y"]),
        number(&robot["theta"]),
    );
    let reply = instance.simulator_command(&format!(
        "ball {:.3} {:.3}",
        rx + theta.cos() * 1.0,
        ry + theta.sin() * 1.0
    ));
    assert!(!reply.starts_with("error"), "{reply}");
    for process in ["perception.upper", "perception.lower"] {
        request(
            &mut client,
            &format!(
                r#"{{"op":"subscribe_output","process":"{process}","output":"BallPerceptor.balls"}}"#
            ),
        );
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let image_drawing = loop {
        assert!(Instant::now() < deadline, "no ball drawn on a camera image");
        let message = next_of(&mut client, "output", Duration::from_secs(30));
        if message["output"] != "BallPerceptor.balls" {
            continue;
        }
        let chosen = message["records"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|record| record["shapes"].as_array().unwrap().clone())
            .any(|shape| shape["shape"] == "circle" && shape["color"][0] == 230);
        if chosen {
            break message;
        }
    };
    let record = &image_drawing["records"][0];
    let camera = if image_drawing["process"] == "perception.upper" {
        "Upper"
    } else {
        "Lower"
    };
    assert_eq!(record["space"]["image"], camera, "{image_drawing}");
    for shape in record["shapes"].as_array().unwrap() {
        if shape["shape"] == "circle" {
            let (x, y) = (number(&shape["center"][0]), number(&shape["center"][1]));
            assert!(
                (0.0..1280.0).contains(&x) && (0.0..960.0).contains(&y),
                "{shape}"
            );
        }
    }

    // Unsubscribed: the flag clears at once and cognition stops publishing frames.
    request(
        &mut client,
        r#"{"op":"unsubscribe_output","process":"cognition","output":"BallModelProvider.ball"}"#,
    );
    let reply = next_of(&mut client, "unsubscribe_output", Duration::from_secs(20));
    assert_eq!(reply["was_subscribed"], true);
    wait_until("cognition's flag cleared", Duration::from_secs(10), || {
        subscribed_bits(&cognition).is_empty()
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        stays_quiet(&cognition, Duration::from_secs(1)),
        "cognition still publishes frames: the ball model still draws"
    );

    // A client that vanishes without a close: its subscriptions are released too.
    let upper_pid = instance.pid("perception.upper") as u32;
    let upper = OutputChannels::open_of_process(upper_pid, "perception.upper").unwrap();
    assert!(!subscribed_bits(&upper).is_empty());
    drop(client);
    wait_until(
        "perception.upper's flag cleared after the client vanished",
        Duration::from_secs(20),
        || subscribed_bits(&upper).is_empty(),
    );
}

/// Reads until the server's error and close; returns the error text and the close code.
fn error_then_close(socket: &mut WebSocket<TcpStream>) -> (String, Option<CloseCode>) {
    let mut error = String::new();
    loop {
        match socket.read() {
            Ok(Message::Text(text)) => {
                let value: Value = serde_json::from_str(text.as_str()).unwrap();
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

#[test]
fn bad_debug_output_requests_get_errors_and_the_link_keeps_serving() {
    let instance = Instance::start("debug-outputs-hostile", &[]);
    let mut listing = websocket(&instance);
    wait_until(
        "cognition's outputs listed",
        Duration::from_secs(30),
        || {
            request(&mut listing, r#"{"op":"outputs"}"#);
            let listed = next_of(&mut listing, "outputs", Duration::from_secs(20));
            listed.to_string().contains("BallModelProvider.ball")
        },
    );
    let long_name = "p".repeat(60_000);
    let long = format!(r#"{{"op":"subscribe_output","process":"{long_name}","output":"x"}}"#);
    for (text, expected) in [
        (
            r#"{"op":"subscribe_output","process":"nowhere","output":"BallModelProvider.ball"}"#,
            "unknown process `nowhere`",
        ),
        (
            r#"{"op":"subscribe_output","process":"cognition","output":"NoSuch.drawing"}"#,
            "unknown debug output `NoSuch.drawing` of `cognition`; its outputs are: BallModelProvider.ball",
        ),
        (
            r#"{"op":"subscribe_output","process":"cognition","output":"BallModelProvider.ball","max_hz":-3}"#,
            "`max_hz` -3 is not a rate",
        ),
        (
            r#"{"op":"subscribe_output","process":"cognition"}"#,
            "missing field `output`",
        ),
        (
            r#"{"op":"unsubscribe_output","output":"x","colour":1}"#,
            "unknown field `colour`",
        ),
        (long.as_str(), "unknown process `ppp"),
    ] {
        let mut client = websocket(&instance);
        request(&mut client, text);
        let (error, code) = error_then_close(&mut client);
        assert!(error.contains(expected), "{}: {error}", &text[..text.len().min(120)]);
        assert_eq!(code, Some(CloseCode::Policy));
    }
    // Unsubscribing what was never subscribed is no error; the link goes on serving.
    request(
        &mut listing,
        r#"{"op":"unsubscribe_output","process":"cognition","output":"BallModelProvider.ball"}"#,
    );
    let reply = next_of(&mut listing, "unsubscribe_output", Duration::from_secs(20));
    assert_eq!(reply["was_subscribed"], false);
    request(
        &mut listing,
        r#"{"op":"subscribe_output","process":"cognition","output":"BallModelProvider.ball"}"#,
    );
    next_of(&mut listing, "output", Duration::from_secs(30));
}

/// The module names cognition's health record lists now (the `timings` op).
fn cognition_modules(socket: &mut WebSocket<TcpStream>) -> Vec<String> {
    request(socket, r#"{"op":"timings"}"#);
    let timings = next_of(socket, "timings", Duration::from_secs(20));
    timings["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|process| process["process"] == "cognition")
        .map(|process| {
            process["modules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|module| module["module"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Sends the `switch_provider` request `text` and waits for its reply.
fn switch_provider(socket: &mut WebSocket<TcpStream>, text: &str) -> Value {
    request(socket, text);
    reply_to(socket, "switch_provider")
}

/// The next reply to `op`, error or not.
fn reply_to(socket: &mut WebSocket<TcpStream>, op: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Message::Text(text) = socket.read().expect("the link answers") {
            let value: Value = serde_json::from_str(text.as_str()).unwrap();
            if value["type"] == op || (value["type"] == "error" && value["request"] == op) {
                return value;
            }
        }
    }
    panic!("no reply to {op}");
}

#[test]
fn the_ball_model_provider_is_switched_at_run_time_and_bad_switches_are_refused() {
    let instance = Instance::start("debug-switch", &[]);
    let mut client = websocket(&instance);
    wait_until(
        "cognition's modules listed",
        Duration::from_secs(30),
        || cognition_modules(&mut client).contains(&"BallModelProvider".to_owned()),
    );

    // Names the table does not allow: refused with the alternatives there are; the session goes on.
    let refused = switch_provider(
        &mut client,
        r#"{"op":"switch_provider","representation":"JointRequest","module":"Anything"}"#,
    );
    let error = refused["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("no running process has alternative providers for `JointRequest`")
            && error
                .contains("BallModel in cognition (BallModelProvider, SimpleBallModelProvider)"),
        "{refused}"
    );
    let refused = switch_provider(
        &mut client,
        r#"{"op":"switch_provider","representation":"BallModel","module":"NoSuchModel"}"#,
    );
    let error = refused["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("`NoSuchModel` cannot provide `BallModel` in cognition")
            && error.contains("BallModelProvider, SimpleBallModelProvider"),
        "{refused}"
    );
    let refused = switch_provider(
        &mut client,
        r#"{"op":"switch_provider","process":"motion","representation":"BallModel","module":"SimpleBallModelProvider"}"#,
    );
    assert!(
        refused["error"]
            .as_str()
            .unwrap_or_default()
            .contains("no running process named `motion`"),
        "{refused}"
    );

    // The switch: cognition runs the unfiltered model from its next tick on.
    let switched = switch_provider(
        &mut client,
        r#"{"op":"switch_provider","representation":"BallModel","module":"SimpleBallModelProvider","id":7}"#,
    );
    assert_eq!(switched["active"], "SimpleBallModelProvider", "{switched}");
    assert_eq!(switched["process"], "cognition");
    let modules = cognition_modules(&mut client);
    assert!(
        modules.contains(&"SimpleBallModelProvider".to_owned())
            && !modules.contains(&"BallModelProvider".to_owned()),
        "{modules:?}"
    );
    let unfiltered = |model: &Value| {
        model["position_deviation_m"] == 0.0 && model["velocity"] == serde_json::json!([0.0, 0.0])
    };
    wait_until("the unfiltered BallModel", Duration::from_secs(10), || {
        unfiltered(&instance.get("BallModel"))
    });

    // Cognition killed: the process that takes over is switched again by the link.
    let killed = instance.pid("cognition");
    instance.signal("cognition", 9);
    wait_until(
        "the new cognition switched again",
        Duration::from_secs(60),
        || {
            let pid = instance.process("cognition").pid;
            pid.is_some_and(|pid| pid as i32 != killed && pid != 0)
                && cognition_modules(&mut client).contains(&"SimpleBallModelProvider".to_owned())
        },
    );
    assert_ne!(instance.pid("cognition"), killed);

    // And back to the table's provider.
    let switched = switch_provider(
        &mut client,
        r#"{"op":"switch_provider","representation":"BallModel","module":"BallModelProvider"}"#,
    );
    assert_eq!(switched["active"], "BallModelProvider", "{switched}");
    assert!(cognition_modules(&mut client).contains(&"BallModelProvider".to_owned()));
}
