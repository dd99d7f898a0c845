//! The client side of the control socket (`cortex status`, `stop`, `restart`, `get`): every
//! request carries its deadline; a reply that does not come says so.

use super::{Envelope, Request, SegmentList, DEFAULT_TIMEOUT, REPLY_GRACE};
use crate::exit_code::{self, Failure};
use anyhow::{bail, Context, Result};
use ipc::health::monotonic_ns;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;
use supervisor::status::Status;

/// A connection with a request sent; returns the stream and how long to wait for the reply.
fn send(run_dir: &Path, request: &Request) -> Result<(UnixStream, Duration)> {
    let path = crate::paths::control_socket(run_dir);
    let mut stream = UnixStream::connect(&path).map_err(|error| {
        Failure::error(
            exit_code::EX_UNAVAILABLE,
            format!(
                "no running instance answers on {} ({error}; start one with `cortex run`)",
                path.display()
            ),
        )
    })?;
    let envelope = Envelope {
        request: request.clone(),
        deadline_ns: Some(monotonic_ns() + DEFAULT_TIMEOUT.as_nanos() as u64),
    };
    let wait = DEFAULT_TIMEOUT + REPLY_GRACE;
    stream.set_read_timeout(Some(wait))?;
    stream.set_write_timeout(Some(DEFAULT_TIMEOUT))?;
    stream
        .write_all(format!("{}\n", serde_json::to_string(&envelope)?).as_bytes())
        .context("sending the request")?;
    Ok((stream, wait))
}

fn no_reply(request: &Request, error: std::io::Error) -> anyhow::Error {
    if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
        anyhow::anyhow!(
            "the supervisor did not answer `{}` within {DEFAULT_TIMEOUT:?} (stopped or \
             overloaded?); the request has expired and will not be carried out",
            request.name()
        )
    } else {
        anyhow::Error::new(error).context("reading the reply")
    }
}

/// Sends a request and returns the JSON reply.
pub fn request(run_dir: &Path, request: &Request) -> Result<serde_json::Value> {
    let (stream, _) = send(run_dir, request)?;
    let mut line = Vec::new();
    let mut limited = (&stream).take(16 * 1024 * 1024);
    let mut byte = [0u8; 4096];
    loop {
        match limited.read(&mut byte) {
            Ok(0) => break,
            Ok(count) => {
                line.extend_from_slice(&byte[..count]);
                if line.contains(&b'\n') {
                    break;
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(no_reply(request, error)),
        }
    }
    if line.is_empty() {
        bail!("the supervisor closed the connection without a reply");
    }
    let value: serde_json::Value = serde_json::from_slice(line.trim_ascii())
        .with_context(|| format!("a malformed reply: {:?}", String::from_utf8_lossy(&line)))?;
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        // A refusal that says how the client should end (`cortex set` of a bad value: 78).
        if let Some(code) = value.get("exit_code").and_then(|c| c.as_u64()) {
            let code = u8::try_from(code).unwrap_or(1);
            return Err(Failure::error(code, error));
        }
        bail!("{error}");
    }
    Ok(value)
}

/// Asks for the status.
pub fn status(run_dir: &Path) -> Result<Status> {
    let value = request(run_dir, &Request::Status)?;
    serde_json::from_value(value).context("a malformed status reply")
}

/// Asks for the segments and receives their descriptors.
pub fn segments(run_dir: &Path) -> Result<(SegmentList, Vec<OwnedFd>)> {
    let (stream, wait) = send(run_dir, &Request::Segments)?;
    let mut ready = [rustix::event::PollFd::new(
        &stream,
        rustix::event::PollFlags::IN,
    )];
    let timeout = rustix::time::Timespec {
        tv_sec: wait.as_secs() as i64,
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    if rustix::event::poll(&mut ready, Some(&timeout)).unwrap_or(0) == 0 {
        return Err(no_reply(
            &Request::Segments,
            std::io::Error::from(ErrorKind::TimedOut),
        ));
    }
    let mut buffer = vec![0u8; 64 * 1024];
    let (length, fds) = ipc::fd::recv_fds(&stream, &mut buffer)?;
    let text = buffer[..length].trim_ascii();
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(text) {
        if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
            bail!("{error}");
        }
    }
    let list: SegmentList = serde_json::from_slice(text).with_context(|| {
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
