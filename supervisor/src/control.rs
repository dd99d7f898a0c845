//! The control socket of a running instance (`control.sock` in the run directory, mode 0600):
//! one JSON request line per connection, one JSON reply; the `segments` reply carries the
//! shared-memory descriptors (`SCM_RIGHTS`) so that tools read representations directly.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a tool asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Request {
    /// The status of every process.
    Status,
    /// Restart one process.
    Restart {
        /// Its name.
        process: String,
    },
    /// Stop the instance.
    Stop,
    /// The channel descriptors and the health board.
    Segments,
}

/// The reply to [`Request::Segments`]; the descriptors follow in this order: the health board,
/// then one per channel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SegmentList {
    /// Channel names with their representation, in descriptor order.
    pub channels: Vec<(String, String)>,
}

/// The listening side, owned by the supervisor.
#[derive(Debug)]
pub struct ControlServer {
    listener: UnixListener,
    path: PathBuf,
}

impl ControlServer {
    /// Binds the socket. Refuses if another instance answers on it; removes a stale one.
    pub fn bind(path: &Path) -> Result<ControlServer> {
        if path.exists() {
            if UnixStream::connect(path).is_ok() {
                bail!(
                    "another instance is running with control socket {}",
                    path.display()
                );
            }
            std::fs::remove_file(path)
                .with_context(|| format!("removing the stale socket {}", path.display()))?;
        }
        let listener =
            UnixListener::bind(path).with_context(|| format!("binding {}", path.display()))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        listener.set_nonblocking(true)?;
        Ok(ControlServer {
            listener,
            path: path.to_owned(),
        })
    }

    /// The listening descriptor (to poll).
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.listener.as_fd()
    }

    /// Accepts the next pending connection that sends a request and reads it. Connections that
    /// close without a word (another `cortex run` probing whether this one is alive) are skipped.
    pub fn next_request(&self) -> Option<(UnixStream, Result<Request>)> {
        loop {
            let (stream, _) = self.listener.accept().ok()?;
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
            let mut line = String::new();
            let request = match BufReader::new(&stream).read_line(&mut line) {
                Ok(0) => continue,
                Ok(_) => serde_json::from_str(line.trim())
                    .with_context(|| format!("not a request: {:?}", line.trim())),
                Err(error) => Err(anyhow::Error::new(error).context("reading the request")),
            };
            return Some((stream, request));
        }
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes a JSON reply line.
pub fn reply(mut stream: &UnixStream, value: &impl Serialize) -> Result<()> {
    let mut text = serde_json::to_string(value)?;
    text.push('\n');
    stream.write_all(text.as_bytes())?;
    Ok(())
}

/// Writes a JSON reply with descriptors attached.
pub fn reply_with_fds(
    stream: &UnixStream,
    value: &impl Serialize,
    fds: &[BorrowedFd<'_>],
) -> Result<()> {
    let mut text = serde_json::to_vec(value)?;
    text.push(b'\n');
    ipc::fd::send_fds(stream, &text, fds)?;
    Ok(())
}

fn connect(run_dir: &Path) -> Result<UnixStream> {
    let path = crate::paths::control_socket(run_dir);
    let stream = UnixStream::connect(&path).with_context(|| {
        format!(
            "no running instance answers on {} (start one with `cortex run`)",
            path.display()
        )
    })?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    Ok(stream)
}

/// Sends a request and returns the JSON reply.
pub fn request(run_dir: &Path, request: &Request) -> Result<serde_json::Value> {
    let mut stream = connect(run_dir)?;
    stream.write_all(format!("{}\n", serde_json::to_string(request)?).as_bytes())?;
    let mut line = String::new();
    BufReader::new(&stream)
        .read_line(&mut line)
        .context("reading the reply")?;
    let value: serde_json::Value =
        serde_json::from_str(&line).with_context(|| format!("a malformed reply: {line:?}"))?;
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        bail!("{error}");
    }
    Ok(value)
}

/// Asks for the segments and receives their descriptors.
pub fn segments(run_dir: &Path) -> Result<(SegmentList, Vec<OwnedFd>)> {
    let mut stream = connect(run_dir)?;
    stream.write_all(format!("{}\n", serde_json::to_string(&Request::Segments)?).as_bytes())?;
    let mut buffer = vec![0u8; 64 * 1024];
    let (length, fds) = ipc::fd::recv_fds(&stream, &mut buffer)?;
    let list: SegmentList =
        serde_json::from_slice(buffer[..length].trim_ascii()).with_context(|| {
            format!(
                "a malformed segment list: {:?}",
                String::from_utf8_lossy(&buffer[..length])
            )
        })?;
    if fds.len() != list.channels.len() + 1 {
        bail!(
            "the supervisor sent {} descriptors for {} channels and the health board",
            fds.len(),
            list.channels.len()
        );
    }
    Ok((list, fds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_a_second_server_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("control.sock");
        let server = ControlServer::bind(&path).unwrap();
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
        let (stream, received) = loop {
            if let Some(pair) = server.next_request() {
                break pair;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(
            received.unwrap(),
            Request::Restart {
                process: "motion".into()
            }
        );
        reply(&stream, &serde_json::json!({"restarted": "motion"})).unwrap();
        assert_eq!(client.join().unwrap().unwrap()["restarted"], "motion");
        drop(server);
        assert!(!path.exists(), "the socket is removed with the server");
    }
}
