//! The HTTP side of the port: the request head (read with a deadline and a size cap, parsed with
//! `httparse`), the web view's files, one-shot JPEG snapshots, and the WebSocket upgrade. Every
//! plain HTTP reply closes its connection (no keep-alive: one thread per connection stays
//! simple and bounded).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

/// The web view: plain files compiled into the binary.
pub const INDEX_HTML: &str = include_str!("../web/index.html");
/// The web view's script.
pub const APP_JS: &str = include_str!("../web/app.js");
/// The web view's style.
pub const STYLE_CSS: &str = include_str!("../web/style.css");

/// A parsed request head.
#[derive(Debug)]
pub struct Head {
    /// `GET`, …
    pub method: String,
    /// The path without the query.
    pub path: String,
    /// The query after `?`, if any.
    pub query: Option<String>,
    /// Headers, names lower-case.
    pub headers: Vec<(String, String)>,
    /// Bytes read after the head (the start of the first WebSocket frame, if the client
    /// sent one at once).
    pub rest: Vec<u8>,
}

impl Head {
    /// The value of header `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// Whether this asks for a WebSocket.
    pub fn is_upgrade(&self) -> bool {
        self.header("upgrade")
            .is_some_and(|value| value.eq_ignore_ascii_case("websocket"))
    }
}

/// Why a request head could not be read; each is answered with its status and closed.
#[derive(Debug, thiserror::Error)]
pub enum HeadError {
    /// Not HTTP.
    #[error("malformed HTTP request head: {reason} (in its first {length} bytes)")]
    Malformed {
        /// What `httparse` said.
        reason: String,
        /// Bytes received.
        length: usize,
    },
    /// The head is longer than the cap.
    #[error("the request head is longer than {0} bytes")]
    TooLarge(usize),
    /// The head did not arrive in time.
    #[error("no complete request head within the deadline ({0} bytes received)")]
    Timeout(usize),
    /// The client went away.
    #[error("the connection closed before a complete request head")]
    Closed,
}

impl HeadError {
    /// The HTTP status line for it (`None`: the client is gone, nothing to answer).
    pub fn status(&self) -> Option<&'static str> {
        match self {
            HeadError::Malformed { .. } => Some("400 Bad Request"),
            HeadError::TooLarge(_) => Some("431 Request Header Fields Too Large"),
            HeadError::Timeout(_) => Some("408 Request Timeout"),
            HeadError::Closed => None,
        }
    }
}

/// Reads a request head: at most `max_bytes`, until `deadline` (the stream's read timeout
/// must be short, so that the deadline is looked at).
pub fn read_head(
    stream: &mut TcpStream,
    max_bytes: usize,
    deadline: Instant,
) -> Result<Head, HeadError> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&buffer) {
            Ok(httparse::Status::Complete(length)) => {
                let target = request.path.unwrap_or("/");
                let (path, query) = match target.split_once('?') {
                    Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
                    None => (target.to_owned(), None),
                };
                return Ok(Head {
                    method: request.method.unwrap_or("").to_owned(),
                    path,
                    query,
                    headers: request
                        .headers
                        .iter()
                        .map(|header| {
                            (
                                header.name.to_ascii_lowercase(),
                                String::from_utf8_lossy(header.value).trim().to_owned(),
                            )
                        })
                        .collect(),
                    rest: buffer[length..].to_vec(),
                });
            }
            Ok(httparse::Status::Partial) => {}
            Err(error) => {
                return Err(HeadError::Malformed {
                    reason: error.to_string(),
                    length: buffer.len(),
                })
            }
        }
        if buffer.len() >= max_bytes {
            return Err(HeadError::TooLarge(max_bytes));
        }
        if Instant::now() >= deadline {
            return Err(HeadError::Timeout(buffer.len()));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Closed),
            Ok(count) => buffer.extend_from_slice(&chunk[..count]),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return Err(HeadError::Closed),
        }
    }
}

/// Writes a complete reply and ignores a client that is gone.
pub fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// A plain-text error reply.
pub fn respond_error(stream: &mut TcpStream, status: &str, message: &str) {
    respond(
        stream,
        status,
        "text/plain; charset=utf-8",
        format!("{message}\n").as_bytes(),
    );
}

/// Serves one of the web view's files; `false` if `path` is none of them.
pub fn serve_file(stream: &mut TcpStream, path: &str) -> bool {
    let (content_type, body) = match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", INDEX_HTML),
        "/app.js" => ("text/javascript; charset=utf-8", APP_JS),
        "/style.css" => ("text/css; charset=utf-8", STYLE_CSS),
        _ => return false,
    };
    respond(stream, "200 OK", content_type, body.as_bytes());
    true
}

/// The reply that accepts a WebSocket upgrade, or why the request is not a valid one.
pub fn upgrade_response(head: &Head) -> Result<String, String> {
    if head.method != "GET" {
        return Err(format!(
            "a WebSocket upgrade must be a GET, not {}",
            head.method
        ));
    }
    let key = head
        .header("sec-websocket-key")
        .ok_or("the WebSocket upgrade has no Sec-WebSocket-Key header")?;
    match head.header("sec-websocket-version") {
        Some("13") => {}
        Some(other) => {
            return Err(format!(
                "WebSocket version {other} is not supported (only 13)"
            ))
        }
        None => return Err("the WebSocket upgrade has no Sec-WebSocket-Version header".into()),
    }
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    Ok(format!(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Accept: {accept}\r\n\r\n"
    ))
}
