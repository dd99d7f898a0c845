//! Moving segment descriptors between processes: over a Unix socket (`SCM_RIGHTS`) to tools
//! outside the process tree, and by inheritance across fork+exec to children.

use crate::Error;
use rustix::io::FdFlags;
use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};
use std::collections::BTreeSet;
use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Mutex;

/// Why a segment another process holds could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SegmentOfProcessError {
    /// `/proc/<pid>/fd` could not be read (no such process, or not ours to look at).
    #[error("cannot list the descriptors of process {pid} ({path}): {source}")]
    List {
        /// The pid.
        pid: u32,
        /// The folder.
        path: std::path::PathBuf,
        /// The system error.
        source: std::io::Error,
    },
    /// The process holds no segment of that name.
    #[error("process {pid} holds no segment `{name}`")]
    Absent {
        /// The pid.
        pid: u32,
        /// The segment's name.
        name: String,
    },
    /// The descriptor was found but could not be opened again.
    #[error("opening {path}: {source}")]
    Open {
        /// The path under `/proc/<pid>/fd`.
        path: std::path::PathBuf,
        /// The system error.
        source: std::io::Error,
    },
}

/// Opens, read-write, the segment named `name` (as given to `TripleBuffer::create`) that process
/// `pid` holds, through `/proc/<pid>/fd`: how tools reach a segment a process made for itself
/// (a camera's image channel, its debug outputs) without asking it.
pub fn open_segment_of_process(pid: u32, name: &str) -> Result<OwnedFd, SegmentOfProcessError> {
    let folder = std::path::PathBuf::from(format!("/proc/{pid}/fd"));
    let wanted = format!("/memfd:cortex:{name} (deleted)");
    let list_error = |source| SegmentOfProcessError::List {
        pid,
        path: folder.clone(),
        source,
    };
    for entry in std::fs::read_dir(&folder).map_err(list_error)? {
        let path = entry.map_err(list_error)?.path();
        let Ok(target) = std::fs::read_link(&path) else {
            continue; // closed meanwhile
        };
        if target.as_os_str() != wanted.as_str() {
            continue;
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|source| SegmentOfProcessError::Open {
                path: path.clone(),
                source,
            })?;
        return Ok(file.into());
    }
    Err(SegmentOfProcessError::Absent {
        pid,
        name: name.to_owned(),
    })
}

/// Most descriptors sent in one message (the kernel's limit is 253).
pub const MAX_FDS_PER_MESSAGE: usize = 200;

/// Sends `payload` with `fds` attached as one message. The payload must not be empty.
pub fn send_fds(socket: &UnixStream, payload: &[u8], fds: &[BorrowedFd<'_>]) -> Result<(), Error> {
    let fail = |what: String| Error::FdPassing { what };
    if payload.is_empty() {
        return Err(fail(
            "a message carrying descriptors needs at least one byte".into(),
        ));
    }
    if fds.len() > MAX_FDS_PER_MESSAGE {
        return Err(fail(format!(
            "{} descriptors, at most {MAX_FDS_PER_MESSAGE} per message",
            fds.len()
        )));
    }
    let mut space =
        vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS_PER_MESSAGE))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(fail("the control buffer is too small".into()));
    }
    let sent = rustix::net::sendmsg(
        socket,
        &[IoSlice::new(payload)],
        &mut control,
        SendFlags::NOSIGNAL,
    )
    .map_err(|errno| fail(format!("sendmsg: {errno}")))?;
    if sent != payload.len() {
        return Err(fail(format!("sent {sent} of {} bytes", payload.len())));
    }
    Ok(())
}

/// Receives one message into `buffer` and the descriptors attached to it. Returns the number
/// of payload bytes (0: the peer closed the socket).
pub fn recv_fds(socket: &UnixStream, buffer: &mut [u8]) -> Result<(usize, Vec<OwnedFd>), Error> {
    let fail = |what: String| Error::FdPassing { what };
    let mut space =
        vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS_PER_MESSAGE))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = rustix::net::recvmsg(
        socket,
        &mut [IoSliceMut::new(buffer)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )
    .map_err(|errno| fail(format!("recvmsg: {errno}")))?;
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received_fds) = message {
            fds.extend(received_fds);
        }
    }
    if received.flags.contains(ReturnFlags::CTRUNC) {
        return Err(fail(
            "descriptors were cut off: the control buffer was too small".into(),
        ));
    }
    if received.flags.contains(ReturnFlags::TRUNC) {
        return Err(fail(format!(
            "the message was longer than the {}-byte buffer",
            buffer.len()
        )));
    }
    Ok((received.bytes, fds))
}

/// Makes `fds` survive the `exec` of `command` under the same numbers (they are close-on-exec
/// in this process, as every segment descriptor is). The caller keeps them open until the
/// child has been spawned and tells the child their numbers (an argument or the environment).
pub fn inherit_fds(command: &mut Command, fds: &[BorrowedFd<'_>]) {
    let raw: Vec<RawFd> = fds.iter().map(|fd| fd.as_raw_fd()).collect();
    // SAFETY: the closure runs in the forked child before exec and only calls `fcntl` (an
    // async-signal-safe system call, allocation-free in rustix) on descriptors that the child
    // inherited from the parent, where they are open while `command` is spawned.
    unsafe {
        command.pre_exec(move || {
            for &fd in &raw {
                let fd = BorrowedFd::borrow_raw(fd);
                rustix::io::fcntl_setfd(fd, FdFlags::empty())?;
            }
            Ok(())
        });
    }
}

/// Makes the child of `command` receive `SIGKILL` when the thread that spawned it ends (the
/// supervisor), so that no child outlives it; a child whose parent died before this took
/// effect exits at once.
pub fn kill_with_parent(command: &mut Command) {
    signal_with_parent(command, rustix::process::Signal::KILL);
}

/// Makes the child of `command` receive `signal` when the thread that spawned it ends: `SIGTERM`
/// for a child that must end gently (the LoLA bridge sits the robot down). A child whose parent
/// died before this took effect fails to start.
pub fn signal_with_parent(command: &mut Command, signal: rustix::process::Signal) {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before exec and only makes system calls
    // (`prctl`, `getppid`, `exit`-free error return), which are async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(signal))?;
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other(
                    "the parent exited before the child started",
                ));
            }
            Ok(())
        });
    }
}

static TAKEN: Mutex<BTreeSet<RawFd>> = Mutex::new(BTreeSet::new());

/// Takes ownership of a descriptor this process inherited under the number `raw` (from
/// [`inherit_fds`] in the parent). Each number can be taken once; it is made close-on-exec.
pub fn take_inherited(raw: RawFd) -> Result<OwnedFd, Error> {
    let fail = |what: String| Error::FdPassing { what };
    if raw < 3 {
        return Err(fail(format!(
            "descriptor {raw} is a standard stream, not a segment"
        )));
    }
    let mut taken = TAKEN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if taken.contains(&raw) {
        return Err(fail(format!(
            "inherited descriptor {raw} was already taken"
        )));
    }
    // SAFETY: only checks whether the number is open; the borrow ends with the call.
    let borrowed = unsafe { BorrowedFd::borrow_raw(raw) };
    rustix::io::fcntl_getfd(borrowed)
        .map_err(|errno| fail(format!("inherited descriptor {raw} is not open: {errno}")))?;
    rustix::io::fcntl_setfd(borrowed, FdFlags::CLOEXEC)
        .map_err(|errno| fail(format!("descriptor {raw}: {errno}")))?;
    taken.insert(raw);
    // SAFETY: the descriptor is open (checked above), was handed to this process by its parent
    // for exactly this purpose, and the `TAKEN` set guarantees only one `OwnedFd` is made for it.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// Duplicates a descriptor (close-on-exec), for example to open a second view of a segment.
pub fn duplicate(fd: BorrowedFd<'_>) -> Result<OwnedFd, Error> {
    rustix::io::fcntl_dupfd_cloexec(fd.as_fd(), 3).map_err(|errno| Error::FdPassing {
        what: format!("duplicating descriptor: {errno}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TripleBuffer;

    #[test]
    fn a_segment_travels_over_a_socket_and_shares_its_memory() {
        let buffer = TripleBuffer::create("fd-passing", 64).unwrap();
        let (left, right) = UnixStream::pair().unwrap();
        send_fds(&left, b"JointRequest", &[buffer.as_fd()]).unwrap();
        let mut payload = [0u8; 64];
        let (len, mut fds) = recv_fds(&right, &mut payload).unwrap();
        assert_eq!(&payload[..len], b"JointRequest");
        assert_eq!(fds.len(), 1);
        let received = TripleBuffer::from_fd(fds.remove(0)).unwrap();
        buffer
            .writer()
            .unwrap()
            .publish(b"over the socket")
            .unwrap();
        let mut out = Vec::new();
        assert_eq!(received.reader().read_latest(&mut out).unwrap(), Some(1));
        assert_eq!(out, b"over the socket");
    }

    #[test]
    fn a_closed_peer_reads_as_zero_bytes_and_an_empty_payload_is_refused() {
        let (left, right) = UnixStream::pair().unwrap();
        assert!(send_fds(&left, b"", &[]).is_err());
        drop(left);
        let (len, fds) = recv_fds(&right, &mut [0u8; 8]).unwrap();
        assert_eq!((len, fds.len()), (0, 0));
    }

    #[test]
    fn standard_streams_and_closed_numbers_cannot_be_taken() {
        assert!(take_inherited(1).is_err());
        assert!(take_inherited(4000).is_err());
    }
}
