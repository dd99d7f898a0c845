//! The web view in a real headless Chromium (issue 15): the page of a running
//! `cortex run --sim` shows a row for every process, changes a parameter through its editor
//! (checked with `cortex params`), and plots values that keep arriving; a screenshot is saved
//! under cargo's target folder for tests (`CARGO_TARGET_TMPDIR`) and its path printed. The
//! browser is driven over the DevTools protocol (its own WebSocket); the page's `cortexTest`
//! hook reads what it shows and presses its buttons.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::Instance;
use tungstenite::{Message, WebSocket};

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        })
}

/// The browser, in a process group of its own, ended with its helpers when the test ends;
/// then its profile (and temporary folder) is removed.
struct Browser {
    child: Child,
    profile: Option<tempfile::TempDir>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = rustix::process::Pid::from_child(&self.child);
        // SIGTERM: chromium ends its helper processes and closes its profile.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = self.child.wait();
        // Helpers that outlived the main process may still write for a moment.
        if let Some(profile) = self.profile.take() {
            let path = profile.path().to_owned();
            for _ in 0..50 {
                if std::fs::remove_dir_all(&path).is_ok() || !path.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            drop(profile);
        }
    }
}

struct DevTools {
    socket: WebSocket<TcpStream>,
    next_id: u64,
}

impl DevTools {
    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = serde_json::json!({"id": id, "method": method, "params": params});
        self.socket
            .send(Message::text(request.to_string()))
            .unwrap();
        loop {
            if let Message::Text(text) = self.socket.read().expect("DevTools reply") {
                let reply: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
                if reply["id"] == id {
                    assert!(reply.get("error").is_none(), "{method}: {reply}");
                    return reply["result"].clone();
                }
            }
        }
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value.
    fn evaluate(&mut self, expression: &str) -> serde_json::Value {
        let result = self.call(
            "Runtime.evaluate",
            serde_json::json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        result["result"]["value"].clone()
    }

    fn wait_until(&mut self, what: &str, expression: &str, timeout: Duration) -> serde_json::Value {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.evaluate(expression);
            if value.as_bool() == Some(true) || (!value.is_null() && !value.is_boolean()) {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn http_get(host_port: &str, path: &str) -> String {
    // Any failure is an empty answer: the caller asks again until its deadline.
    let Ok(mut stream) = TcpStream::connect(host_port) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    // The DevTools server speaks HTTP/1.1 only and keeps the connection: read by length.
    if write!(stream, "GET {path} HTTP/1.1\r\nHost: {host_port}\r\n\r\n").is_err() {
        return String::new();
    }
    let mut reply = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let text = String::from_utf8_lossy(&reply).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length {
                return body.to_owned();
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return String::new(),
            Ok(count) => reply.extend_from_slice(&chunk[..count]),
        }
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |byte: u8| -> u32 {
        match byte {
            b'A'..=b'Z' => u32::from(byte - b'A'),
            b'a'..=b'z' => u32::from(byte - b'a') + 26,
            b'0'..=b'9' => u32::from(byte - b'0') + 52,
            b'+' => 62,
            _ => 63,
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|byte| *byte != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut word = 0u32;
        for (index, byte) in chunk.iter().enumerate() {
            word |= value(*byte) << (18 - 6 * index);
        }
        let produced = chunk.len().saturating_sub(1);
        out.extend_from_slice(&word.to_be_bytes()[1..1 + produced]);
    }
    out
}

#[test]
fn the_web_view_shows_every_process_sets_a_parameter_and_plots() {
    let Some(browser_binary) = chromium() else {
        eprintln!("SKIPPED: no chromium (tools/install-test-deps.sh installs it)");
        return;
    };
    let instance = Instance::start("web-view", &[]);
    let url = instance.debug_url();
    let profile = tempfile::Builder::new()
        .prefix("cortex-chromium-")
        .tempdir()
        .unwrap();
    let mut child = Command::new(browser_binary)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-port=0",
            "--window-size=1400,1100",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(&url)
        // Whatever it leaves in its temporary folder goes with the profile.
        .env("TMPDIR", profile.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("starting chromium");
    let stderr = child.stderr.take().unwrap();
    let _browser = Browser {
        child,
        profile: Some(profile),
    };
    // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("DevTools listening on ws://").nth(1) {
                let _ = sender.send(rest.split('/').next().unwrap_or_default().to_owned());
            }
        }
    });
    let devtools_host = receiver
        .recv_timeout(Duration::from_secs(60))
        .expect("chromium's DevTools address");
    let deadline = Instant::now() + Duration::from_secs(30);
    let page_socket = loop {
        let list: serde_json::Value =
            serde_json::from_str(&http_get(&devtools_host, "/json/list")).unwrap_or_default();
        let page = list.as_array().and_then(|targets| {
            targets
                .iter()
                .find(|target| target["type"] == "page")
                .and_then(|target| target["webSocketDebuggerUrl"].as_str().map(str::to_owned))
        });
        if let Some(page) = page {
            break page;
        }
        assert!(Instant::now() < deadline, "chromium shows no page");
        std::thread::sleep(Duration::from_millis(200));
    };
    let stream = TcpStream::connect(&devtools_host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let socket = tungstenite::client::client(page_socket.as_str(), stream)
        .unwrap()
        .0;
    let mut devtools = DevTools { socket, next_id: 0 };

    devtools.wait_until(
        "the page to connect",
        "window.cortexTest !== undefined && window.cortexTest.connected()",
        Duration::from_secs(60),
    );
    // Every process's row.
    let names: Vec<String> = instance
        .status()
        .processes
        .iter()
        .map(|process| process.name.clone())
        .collect();
    let check = format!(
        "(() => {{ const rows = window.cortexTest.processRows(); return {}.every(n => rows.includes(n)); }})()",
        serde_json::to_string(&names).unwrap()
    );
    devtools.wait_until("a row for every process", &check, Duration::from_secs(30));

    // A parameter changed through the page's editor.
    let started = devtools
        .evaluate("window.cortexTest.setParameter('GameStateProvider', 'long_press_ms', '321')");
    assert_eq!(started, serde_json::Value::Bool(true), "{started}");
    let outcome = devtools.wait_until(
        "the parameter's reply",
        "window.cortexTest.lastSet()",
        Duration::from_secs(30),
    );
    assert_eq!(outcome["ok"], true, "{outcome}");
    let params = instance.command(&["params", "GameStateProvider", "--json"]);
    let params: serde_json::Value = serde_json::from_slice(&params.stdout).unwrap();
    let long_press = params["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["key"] == "long_press_ms")
        .cloned()
        .unwrap();
    assert_eq!(long_press["value"], 321, "{long_press}");

    // A plot that updates.
    // The simulated world's clock: a value that changes with every publish.
    devtools.evaluate("window.cortexTest.plot('GroundTruth', 'time_s')");
    let first = devtools.wait_until(
        "the first plotted points",
        "window.cortexTest.plotPoints() >= 3 ? window.cortexTest.plotPoints() : false",
        Duration::from_secs(30),
    );
    let first = first.as_u64().unwrap();
    let more = format!("window.cortexTest.plotPoints() > {first}");
    devtools.wait_until("the plot to update", &more, Duration::from_secs(30));

    // A debug output shown: the ball model draws on the field view only now.
    devtools.wait_until(
        "the debug outputs listed",
        "window.cortexTest.loadOutputs().then(() => window.cortexTest.outputs().includes('cognition/BallModelProvider.ball'))",
        Duration::from_secs(30),
    );
    let shown =
        devtools.evaluate("window.cortexTest.showOutput('cognition', 'BallModelProvider.ball')");
    assert_eq!(shown, true, "the output is shown");
    devtools.wait_until(
        "the ball model's drawing",
        "window.cortexTest.outputRecords('cognition', 'BallModelProvider.ball') >= 3",
        Duration::from_secs(30),
    );

    // The ball model's provider switched through the page's choice.
    devtools.wait_until(
        "the provider choices",
        "window.cortexTest.providers().includes('cognition/BallModel=BallModelProvider')",
        Duration::from_secs(30),
    );
    let chosen = devtools.evaluate(
        "window.cortexTest.chooseProvider('cognition', 'BallModel', 'SimpleBallModelProvider')",
    );
    assert_eq!(chosen, true);
    devtools.wait_until(
        "the switched provider shown",
        "window.cortexTest.loadOutputs().then(() => window.cortexTest.providers().includes('cognition/BallModel=SimpleBallModelProvider'))",
        Duration::from_secs(30),
    );

    let screenshot = devtools.call(
        "Page.captureScreenshot",
        serde_json::json!({"format": "png"}),
    );
    let png = base64_decode(screenshot["data"].as_str().unwrap());
    assert_eq!(&png[1..4], b"PNG");
    let folder = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = folder.join(format!("web_view-{}.png", std::process::id()));
    std::fs::write(&path, &png).unwrap();
    eprintln!("web view screenshot: {}", path.display());
}
