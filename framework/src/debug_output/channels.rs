//! A process's two debug-output channels: made by the process, found by the link through
//! `/proc/<pid>/fd`, and the request format the link writes.

use super::{
    outputs, DebugFrame, Ticker, BITS_END, FRAME_BYTES, MAX_OUTPUTS, REQUEST_BYTES, SWITCH_BYTES,
};

/// The name of a process's frame channel (and its memfd's, after `cortex:`).
pub fn frames_name(process: &str) -> String {
    format!("{process}.DebugOutputs")
}

/// The name of a process's request channel.
pub fn requests_name(process: &str) -> String {
    format!("{process}.DebugRequests")
}

/// The two channels of a process.
#[derive(Debug)]
pub struct OutputChannels {
    /// The frames the process publishes.
    pub frames: ipc::TripleBuffer,
    /// The subscriptions the link writes.
    pub requests: ipc::TripleBuffer,
}

/// Why a process's debug-output channels could not be made or found.
#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    /// Shared memory refused.
    #[error("debug outputs of `{process}`: {source}")]
    Ipc {
        /// The process.
        process: String,
        /// The ipc error.
        source: ipc::Error,
    },
    /// The process holds no such channel (not started yet, or not a Cortex process).
    #[error("process {pid} has no channel `{name}` (it has not ticked yet, or runs no modules)")]
    Absent {
        /// The pid.
        pid: u32,
        /// The channel.
        name: String,
    },
    /// `/proc/<pid>/fd` could not be read, or the descriptor opened again.
    #[error(transparent)]
    Find(ipc::fd::SegmentOfProcessError),
}

impl OutputChannels {
    /// Makes the channels of `process` (the runtime does, when it starts ticking).
    pub fn create(process: &str) -> Result<OutputChannels, ChannelError> {
        let ipc = |source| ChannelError::Ipc {
            process: process.to_owned(),
            source,
        };
        Ok(OutputChannels {
            frames: ipc::TripleBuffer::create(&frames_name(process), FRAME_BYTES).map_err(ipc)?,
            requests: ipc::TripleBuffer::create(&requests_name(process), REQUEST_BYTES)
                .map_err(ipc)?,
        })
    }

    /// Opens the channels that process `pid` (named `process` in the table) made.
    pub fn open_of_process(pid: u32, process: &str) -> Result<OutputChannels, ChannelError> {
        let ipc = |source| ChannelError::Ipc {
            process: process.to_owned(),
            source,
        };
        let frames = find_memfd(pid, &frames_name(process))?;
        let requests = find_memfd(pid, &requests_name(process))?;
        Ok(OutputChannels {
            frames: ipc::TripleBuffer::from_fd(frames).map_err(ipc)?,
            requests: ipc::TripleBuffer::from_fd(requests).map_err(ipc)?,
        })
    }

    /// The process's side, for its runtime loop.
    pub fn ticker(&self) -> Result<Ticker<'_>, ipc::Error> {
        Ticker::new(self, outputs())
    }
}

fn find_memfd(pid: u32, name: &str) -> Result<std::os::fd::OwnedFd, ChannelError> {
    ipc::fd::open_segment_of_process(pid, name).map_err(|error| match error {
        ipc::fd::SegmentOfProcessError::Absent { pid, name } => ChannelError::Absent { pid, name },
        other => ChannelError::Find(other),
    })
}

/// What the link writes: the subscriptions (valid until `valid_until_ns`, one bit per output)
/// and the provider switches (`(representation, module)`, kept by the process until the next
/// request; switches beyond [`SWITCH_BYTES`] are left out).
pub fn encode_request(
    valid_until_ns: u64,
    subscribed: &[usize],
    switches: &[(String, String)],
) -> Vec<u8> {
    let mut bytes = vec![0u8; BITS_END];
    bytes[..8].copy_from_slice(&valid_until_ns.to_le_bytes());
    for &index in subscribed.iter().filter(|&&index| index < MAX_OUTPUTS) {
        bytes[8 + index / 8] |= 1 << (index % 8);
    }
    let mut kept = switches.len();
    loop {
        let mut encoded = Vec::new();
        if rmp_serde::encode::write(&mut encoded, &switches[..kept]).is_ok()
            && encoded.len() <= SWITCH_BYTES
        {
            bytes.extend_from_slice(&encoded);
            return bytes;
        }
        if kept == 0 {
            return bytes;
        }
        kept -= 1;
    }
}

/// The provider switches of a request (none if it has none or they do not decode).
pub(super) fn decode_switches(bytes: &[u8]) -> Vec<(String, String)> {
    bytes
        .get(BITS_END..)
        .filter(|rest| !rest.is_empty())
        .and_then(|rest| rmp_serde::from_slice(rest).ok())
        .unwrap_or_default()
}

/// Decodes a frame read from a frame channel.
pub fn decode_frame(bytes: &[u8]) -> Result<DebugFrame, rmp_serde::decode::Error> {
    rmp_serde::from_slice(bytes)
}
