//! A UDP socket that tolerates a missing network: [`UdpEndpoint`] binds when it can (retrying
//! after a failure, never giving up and never stopping the process), reads without blocking,
//! and turns every socket error into a rate-limited warning and a text for the representation.

use std::io;
use std::net::{SocketAddr, UdpSocket};

/// The most datagrams one tick reads: bounds a tick's time under a flood (the rest wait in
/// the kernel's buffer for the next tick, or are dropped by it).
pub const MAX_DATAGRAMS_PER_TICK: usize = 256;
/// Receive buffer: larger than every datagram we accept (118 and 36 bytes), so that a longer
/// one is seen with a length that is wrong (truncated to this, never to a valid size).
const RECEIVE_BUFFER_SIZE: usize = 2048;

/// A warning that may fire every tick, written at most once per period with the number of
/// repeats it stood for.
#[derive(Debug, Clone)]
pub struct RateLimitedWarning {
    period_ns: u64,
    last_ns: Option<u64>,
    suppressed: u64,
}

impl RateLimitedWarning {
    pub fn new(period_ns: u64) -> Self {
        Self {
            period_ns,
            last_ns: None,
            suppressed: 0,
        }
    }

    /// Logs `message` at `now_ns` unless one was logged within the period.
    pub fn warn(&mut self, now_ns: u64, message: impl FnOnce() -> String) {
        if self
            .last_ns
            .is_some_and(|last| now_ns.saturating_sub(last) < self.period_ns)
        {
            self.suppressed += 1;
            return;
        }
        let suppressed = std::mem::take(&mut self.suppressed);
        if suppressed > 0 {
            tracing::warn!("{} ({suppressed} more like it before)", message());
        } else {
            tracing::warn!("{}", message());
        }
        self.last_ns = Some(now_ns);
    }
}

/// Why a socket operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Bind,
    Receive,
    Send,
}

/// A UDP socket bound to `address`, (re)bound on demand.
#[derive(Debug)]
pub struct UdpEndpoint {
    /// For messages: "GameController port", "team port".
    name: &'static str,
    address: SocketAddr,
    broadcast: bool,
    retry_period_ns: u64,
    socket: Option<UdpSocket>,
    next_bind_ns: u64,
    error: Option<String>,
    warning: RateLimitedWarning,
    buffer: Box<[u8; RECEIVE_BUFFER_SIZE]>,
}

impl UdpEndpoint {
    /// An endpoint that binds `address` at its first use; `broadcast` sets `SO_BROADCAST`.
    pub fn new(
        name: &'static str,
        address: SocketAddr,
        broadcast: bool,
        retry_period_ns: u64,
    ) -> Self {
        Self {
            name,
            address,
            broadcast,
            retry_period_ns,
            socket: None,
            next_bind_ns: 0,
            error: None,
            warning: RateLimitedWarning::new(retry_period_ns.max(5_000_000_000)),
            buffer: Box::new([0; RECEIVE_BUFFER_SIZE]),
        }
    }

    /// What went wrong last, while it is not resolved (cleared by the next success).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The bound local address, once bound.
    pub fn local_address(&self) -> Option<SocketAddr> {
        self.socket.as_ref()?.local_addr().ok()
    }

    /// Binds if unbound and a retry is due.
    fn ensure_bound(&mut self, now_ns: u64) -> bool {
        if self.socket.is_some() {
            return true;
        }
        if now_ns < self.next_bind_ns {
            return false;
        }
        match self.bind() {
            Ok(socket) => {
                if self.error.is_some() {
                    tracing::info!("{}: bound {} after all", self.name, self.address);
                } else {
                    tracing::debug!("{}: bound {}", self.name, self.address);
                }
                self.socket = Some(socket);
                self.error = None;
                true
            }
            Err(error) => {
                self.next_bind_ns = now_ns.saturating_add(self.retry_period_ns);
                self.fail(now_ns, Operation::Bind, &error);
                false
            }
        }
    }

    fn bind(&self) -> io::Result<UdpSocket> {
        let socket = UdpSocket::bind(self.address)?;
        socket.set_nonblocking(true)?;
        socket.set_broadcast(self.broadcast)?;
        Ok(socket)
    }

    fn fail(&mut self, now_ns: u64, operation: Operation, error: &io::Error) {
        let text = match operation {
            Operation::Bind => format!(
                "{}: cannot bind {}: {error} (retrying every {} ms)",
                self.name,
                self.address,
                self.retry_period_ns / 1_000_000
            ),
            Operation::Receive => format!("{}: receiving: {error}", self.name),
            Operation::Send => format!("{}: sending: {error}", self.name),
        };
        self.warning.warn(now_ns, || text.clone());
        self.error = Some(text);
    }

    /// Reads every waiting datagram (at most [`MAX_DATAGRAMS_PER_TICK`]) and hands each to
    /// `receive` with its sender. Never blocks.
    pub fn receive_all(&mut self, now_ns: u64, mut receive: impl FnMut(&[u8], SocketAddr)) {
        if !self.ensure_bound(now_ns) {
            return;
        }
        for _ in 0..MAX_DATAGRAMS_PER_TICK {
            let Some(socket) = self.socket.as_ref() else {
                return;
            };
            match socket.recv_from(&mut self.buffer[..]) {
                Ok((length, sender)) => receive(&self.buffer[..length], sender),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    // E.g. an ICMP error of an earlier send: the socket stays usable.
                    self.fail(now_ns, Operation::Receive, &error);
                    return;
                }
            }
        }
    }

    /// Sends `bytes` to `target`; a failure (no route, network down) is logged and reported,
    /// and the next send tries again. Returns whether the datagram left.
    pub fn send_to(&mut self, now_ns: u64, bytes: &[u8], target: SocketAddr) -> bool {
        if !self.ensure_bound(now_ns) {
            return false;
        }
        let Some(socket) = self.socket.as_ref() else {
            return false;
        };
        match socket.send_to(bytes, target) {
            Ok(_) => {
                if self
                    .error
                    .as_deref()
                    .is_some_and(|error| !error.contains("cannot bind"))
                {
                    self.error = None;
                }
                true
            }
            Err(error) => {
                let error = io::Error::new(error.kind(), format!("to {target}: {error}"));
                self.fail(now_ns, Operation::Send, &error);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_port_is_an_error_and_a_retry_later_succeeds() {
        let holder = UdpSocket::bind("127.0.0.1:0").unwrap();
        let address = holder.local_addr().unwrap();
        let mut endpoint = UdpEndpoint::new("test port", address, false, 1_000);
        endpoint.receive_all(0, |_, _| panic!("nothing to receive"));
        assert!(
            endpoint.error().unwrap().contains("cannot bind"),
            "{:?}",
            endpoint.error()
        );
        drop(holder);
        // Not due yet: still the old error.
        endpoint.receive_all(500, |_, _| {});
        assert!(endpoint.local_address().is_none());
        endpoint.receive_all(1_000, |_, _| {});
        assert_eq!(endpoint.local_address(), Some(address));
        assert_eq!(endpoint.error(), None);
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        sender.send_to(b"one", address).unwrap();
        sender.send_to(b"two", address).unwrap();
        let mut received = Vec::new();
        // The datagrams may need a moment on a loaded machine; receive_all never waits.
        for _ in 0..1000 {
            endpoint.receive_all(2_000, |bytes, from| {
                received.push((bytes.to_vec(), from));
            });
            if received.len() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(received.len(), 2);
        assert_eq!(received[0].0, b"one");
        assert_eq!(received[1].1, sender.local_addr().unwrap());
    }

    #[test]
    fn a_send_without_a_route_is_reported_not_fatal() {
        let mut endpoint =
            UdpEndpoint::new("test port", "127.0.0.1:0".parse().unwrap(), false, 1_000);
        // A broadcast without SO_BROADCAST is refused by the kernel (EACCES).
        let sent = endpoint.send_to(0, b"x", "255.255.255.255:9".parse().unwrap());
        assert!(!sent);
        assert!(
            endpoint.error().unwrap().contains("sending"),
            "{:?}",
            endpoint.error()
        );
        let target = UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(endpoint.send_to(1, b"y", target.local_addr().unwrap()));
        assert_eq!(endpoint.error(), None);
    }
}
