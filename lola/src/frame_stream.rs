//! LoLA's sensor frames read from the stream socket, with resynchronisation after garbage.
//!
//! A stream has no framing but the frames' own MessagePack structure, so the reader does not
//! trust byte counts: it decodes a map at the start of what it has buffered. A complete
//! 896-byte map is a frame. Anything else is rejected, and the reader looks for the next byte
//! that can start a 13-key map (`0x8d` fixmap, `0xde` map16) and tries again there:
//!
//! ```text
//!   stream: [frame 896][00 00 … 896 zeros][frame 896 + 4 junk][frame 500 … cut][frame 896]
//!   events:  Frame      Rejected(896)      Frame, Rejected(4)  Rejected(500)   Frame
//! ```
//!
//! A map that decodes but is not 896 bytes long (a 900-byte frame) is rejected whole: every
//! LoLA client reads exactly 896 bytes, so such a frame is not from LoLA. A run of rejected
//! bytes counts as one rejected frame per 896 bytes (at least one), however many false starts
//! it contained, so that two zero-filled frames read at once count as two; it is reported when
//! the next frame (or the end of what has arrived) shows where it ends. Reads wait at most one
//! slice, so that the caller keeps its heartbeat while LoLA is silent.

use super::codec::{decode_sensor_frame_prefix, NonFiniteValue, SensorFrame, SENSOR_FRAME_SIZE};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// Bytes after which an incomplete map is given up as garbage (a frame is 896).
pub const MAX_FRAME_BYTES: usize = 2 * SENSOR_FRAME_SIZE;

/// What the bytes received so far make.
#[derive(Debug, Clone, PartialEq)]
pub enum Received {
    /// A complete 896-byte frame; the numbers in `non_finite` are NaN or infinite in it.
    Frame {
        frame: Box<SensorFrame>,
        non_finite: Vec<NonFiniteValue>,
        stream_offset: u64,
    },
    /// Bytes that are no frame, from `stream_offset` on; `reason` is the first thing wrong.
    /// `frames`: how many frames they stand for (a frame's worth of bytes each, at least one).
    Rejected {
        stream_offset: u64,
        length: usize,
        frames: u32,
        reason: String,
    },
}

/// The connection to LoLA.
#[derive(Debug)]
pub struct FrameStream {
    stream: UnixStream,
    buffer: Vec<u8>,
    /// Stream offset of `buffer[0]`.
    offset: u64,
    /// A run of rejected bytes not reported yet: (stream offset, length, first reason).
    rejecting: Option<(u64, usize, String)>,
}

fn can_start_a_frame(byte: u8) -> bool {
    byte == 0x8d || byte == 0xde
}

impl FrameStream {
    /// Wraps a connected stream: reads wait at most `slice`, a command write at most
    /// `write_timeout`.
    pub fn new(
        stream: UnixStream,
        slice: Duration,
        write_timeout: Duration,
    ) -> std::io::Result<FrameStream> {
        stream.set_read_timeout(Some(slice.max(Duration::from_millis(1))))?;
        stream.set_write_timeout(Some(write_timeout.max(Duration::from_millis(1))))?;
        Ok(FrameStream {
            stream,
            buffer: Vec::with_capacity(2 * MAX_FRAME_BYTES),
            offset: 0,
            rejecting: None,
        })
    }

    /// The socket (for the panic hook's clone).
    pub fn socket(&self) -> &UnixStream {
        &self.stream
    }

    /// Waits up to one slice for bytes; returns how many arrived (0: none in this slice). An
    /// error means the connection is gone (LoLA closed it: `UnexpectedEof`).
    pub fn receive(&mut self) -> std::io::Result<usize> {
        let mut chunk = [0_u8; 4096];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(std::io::Error::new(
                ErrorKind::UnexpectedEof,
                "LoLA closed the connection",
            )),
            Ok(count) => {
                self.buffer.extend_from_slice(&chunk[..count]);
                Ok(count)
            }
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) =>
            {
                Ok(0)
            }
            Err(error) => Err(error),
        }
    }

    /// Appends what the buffered bytes make to `events`; an incomplete frame stays buffered.
    pub fn parse(&mut self, events: &mut Vec<Received>) {
        loop {
            if self.buffer.is_empty() {
                self.flush_rejected(events);
                return;
            }
            match decode_sensor_frame_prefix(&self.buffer) {
                Ok(prefix) => {
                    self.flush_rejected(events);
                    if prefix.length == SENSOR_FRAME_SIZE {
                        events.push(Received::Frame {
                            frame: Box::new(prefix.frame),
                            non_finite: prefix.non_finite,
                            stream_offset: self.offset,
                        });
                    } else {
                        events.push(Received::Rejected {
                            stream_offset: self.offset,
                            length: prefix.length,
                            frames: 1,
                            reason: format!(
                                "a {}-byte frame; LoLA frames are {SENSOR_FRAME_SIZE} bytes",
                                prefix.length
                            ),
                        });
                    }
                    self.consume(prefix.length);
                }
                Err(error) if error.is_truncated() && self.buffer.len() < MAX_FRAME_BYTES => {
                    // Maybe the start of a frame, maybe a false start inside garbage: wait
                    // for more bytes before reporting the run of garbage before it.
                    return;
                }
                Err(error) => {
                    let reason = if error.is_truncated() {
                        format!("no complete frame within {MAX_FRAME_BYTES} bytes")
                    } else {
                        format!("{error} (byte offsets from this frame's start)")
                    };
                    let skip = self.buffer[1..]
                        .iter()
                        .position(|&byte| can_start_a_frame(byte))
                        .map_or(self.buffer.len(), |position| position + 1);
                    match self.rejecting.as_mut() {
                        Some((_, length, _)) => *length += skip,
                        None => self.rejecting = Some((self.offset, skip, reason)),
                    }
                    self.consume(skip);
                }
            }
        }
    }

    fn consume(&mut self, count: usize) {
        self.buffer.drain(..count);
        self.offset += count as u64;
    }

    fn flush_rejected(&mut self, events: &mut Vec<Received>) {
        if let Some((stream_offset, length, reason)) = self.rejecting.take() {
            events.push(Received::Rejected {
                stream_offset,
                length,
                frames: u32::try_from(length.div_ceil(SENSOR_FRAME_SIZE)).unwrap_or(u32::MAX),
                reason,
            });
        }
    }

    /// Sends one command; a write that cannot finish within the write timeout is an error (the
    /// stream is then out of step and must be reconnected).
    pub fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode_sensor_frame;
    use types::{RobotIdentity, SensorData};

    fn frame(knee: f32) -> Vec<u8> {
        let mut data = SensorData::default();
        data.joint_positions_rad.values[10] = knee;
        let identity = RobotIdentity {
            body_id: "P0000073A07S94700012".into(),
            body_version: "6.0.0".into(),
            head_id: "P0000074A05S93M00061".into(),
            head_version: "6.0.0".into(),
        };
        let bytes = encode_sensor_frame(&data, &identity).unwrap();
        assert_eq!(bytes.len(), SENSOR_FRAME_SIZE);
        bytes
    }

    /// Feeds `chunks` one by one and returns the events after each.
    fn feed(chunks: &[Vec<u8>]) -> Vec<Vec<Received>> {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let mut stream =
            FrameStream::new(ours, Duration::from_millis(200), Duration::from_millis(20)).unwrap();
        chunks
            .iter()
            .map(|chunk| {
                theirs.write_all(chunk).unwrap();
                let mut received = 0;
                while received < chunk.len() {
                    received += stream.receive().unwrap();
                }
                let mut events = Vec::new();
                stream.parse(&mut events);
                events
            })
            .collect()
    }

    fn kinds(events: &[Received]) -> Vec<String> {
        events
            .iter()
            .map(|event| match event {
                Received::Frame { frame, .. } => {
                    format!("frame {}", frame.sensor_data.joint_positions_rad.values[10])
                }
                Received::Rejected { length, frames, .. } => {
                    format!("rejected {length} ({frames})")
                }
            })
            .collect()
    }

    #[test]
    fn garbage_of_every_kind_is_one_rejection_and_the_next_frame_is_found() {
        let mut long = frame(0.3);
        long.extend_from_slice(&[0, 0, 0, 0]);
        let mut cut = frame(0.4);
        cut.truncate(500);
        let mut wrong_type = frame(0.5);
        // The Position array header (array16) replaced by a string marker.
        let at = wrong_type
            .windows(9)
            .position(|window| window == b"\xa8Position")
            .unwrap();
        wrong_type[at + 9] = 0xa3;
        let events = feed(&[
            frame(0.1),
            vec![0; SENSOR_FRAME_SIZE],
            long,
            cut,
            frame(0.6),
            wrong_type,
            frame(0.7),
        ]);
        let kinds: Vec<Vec<String>> = events.iter().map(|events| kinds(events)).collect();
        assert_eq!(kinds[0], ["frame 0.1"]);
        assert_eq!(kinds[1], ["rejected 896 (1)"]);
        assert_eq!(kinds[2], ["frame 0.3", "rejected 4 (1)"]);
        assert!(kinds[3].is_empty(), "a cut frame waits: {:?}", kinds[3]);
        // The cut frame is reported once the next one shows where it ends.
        assert_eq!(kinds[4], ["rejected 500 (1)", "frame 0.6"]);
        assert_eq!(kinds[5], ["rejected 896 (1)"]);
        assert_eq!(kinds[6], ["frame 0.7"]);
        let Received::Rejected {
            stream_offset,
            reason,
            ..
        } = &events[1][0]
        else {
            unreachable!()
        };
        assert_eq!(*stream_offset, SENSOR_FRAME_SIZE as u64);
        assert!(reason.contains("byte 0"), "{reason}");
        let Received::Rejected { reason, .. } = &events[5][0] else {
            unreachable!()
        };
        assert!(reason.contains("Position"), "{reason}");
    }

    #[test]
    fn a_long_map_and_endless_strings_are_rejected() {
        let mut identity = RobotIdentity {
            body_id: "P0000073A07S94700012XXXX".into(),
            ..RobotIdentity::default()
        };
        identity.head_id = "P0000074A05S93M00061".into();
        identity.body_version = "6.0.0".into();
        identity.head_version = "6.0.0".into();
        let long = encode_sensor_frame(&SensorData::default(), &identity).unwrap();
        assert_eq!(long.len(), 900);
        // A map whose first key claims 4 GB: never complete.
        let mut endless = vec![0x8d, 0xdb, 0xff, 0xff, 0xff, 0xff];
        endless.resize(MAX_FRAME_BYTES, b'x');
        let events = feed(&[long, endless, frame(0.2)]);
        let Received::Rejected { length, reason, .. } = &events[0][0] else {
            panic!("{:?}", events[0])
        };
        assert_eq!(*length, 900);
        assert!(reason.contains("900-byte frame"), "{reason}");
        assert_eq!(kinds(&events[1]), ["rejected 1792 (2)"]);
        assert_eq!(kinds(&events[2]), ["frame 0.2"]);
    }

    #[test]
    fn non_finite_values_are_let_through_and_listed() {
        let mut bytes = frame(0.1);
        // The knee (Position[10]) as a float32 NaN.
        let knee = 0.1_f32.to_be_bytes();
        let at = bytes
            .windows(5)
            .position(|window| window[0] == 0xca && window[1..] == knee)
            .unwrap();
        bytes[at + 1..at + 5].copy_from_slice(&f32::NAN.to_be_bytes());
        let events = feed(&[bytes]);
        let Received::Frame {
            frame, non_finite, ..
        } = &events[0][0]
        else {
            panic!("{:?}", events[0])
        };
        assert!(frame.sensor_data.joint_positions_rad.values[10].is_nan());
        assert_eq!(non_finite.len(), 1);
        assert_eq!((non_finite[0].key, non_finite[0].index), ("Position", 10));
    }

    #[test]
    fn silence_is_no_bytes_and_a_closed_peer_is_an_error() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let mut stream =
            FrameStream::new(ours, Duration::from_millis(5), Duration::from_millis(20)).unwrap();
        assert_eq!(stream.receive().unwrap(), 0);
        drop(theirs);
        assert_eq!(
            stream.receive().unwrap_err().kind(),
            ErrorKind::UnexpectedEof
        );
    }
}
