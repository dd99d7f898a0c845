//! Plain-data channels: camera images and audio buffers move between processes as a fixed
//! `Pod` header and raw payload bytes, never encoded. The writer copies them into the channel's
//! slot once; a reader borrows them where they lie in shared memory and the seqlock validates
//! what it computed afterwards (a value overwritten meanwhile is computed again on the newer
//! one), so a 600 KB image costs a reader no decode and no copy.
//!
//! ```text
//!  perception.upper                    shared memory (triple buffer)         cognition
//!  PlainWriter::publish(header, px) ─► [ header | pixels ... ] ─► PlainReader::read_in_place(
//!                                                                    |header, pixels| …) → R
//!                                                                  (R returned only if the slot
//!                                                                   did not change meanwhile)
//! ```
//!
//! A plain-data representation names itself and its payload capacity with [`PlainData`]; its
//! channel is created with [`PlainData::channel_capacity`] and [`PlainData::schema_hash`] (a
//! reader of another header type is refused when it opens the channel).

use ipc::protocol::SlotView;
use ipc::{PodChannel, Reader, TripleBuffer, Writer};
use std::sync::atomic::AtomicU64;

/// A representation carried as plain data: the header (`Pod`: any bytes are a valid value, so
/// a torn read cannot make an invalid one) followed by up to `PAYLOAD_CAPACITY` payload bytes.
pub trait PlainData: bytemuck::Pod + Send + Sync + 'static {
    /// The name, as for every representation.
    const NAME: &'static str;
    /// The most payload bytes a value carries (e.g. 640 × 480 × 2 for a YUYV image).
    const PAYLOAD_CAPACITY: usize;

    /// Slot capacity of its channel: header and payload.
    fn channel_capacity() -> usize {
        std::mem::size_of::<Self>() + Self::PAYLOAD_CAPACITY
    }

    /// Schema hash of its channel (the header type's).
    fn schema_hash() -> u64 {
        ipc::channel::schema_hash_of::<Self>()
    }
}

/// Why a plain-data value could not be moved.
#[derive(Debug, thiserror::Error)]
pub enum PlainError {
    /// The payload is larger than the representation allows.
    #[error("{representation}: a payload of {length} bytes is larger than its {capacity} bytes")]
    TooLarge {
        /// The representation.
        representation: &'static str,
        /// The payload's length.
        length: usize,
        /// `PAYLOAD_CAPACITY`.
        capacity: usize,
    },
    /// The channel refused (a corrupt slot, a writer role held elsewhere).
    #[error("{representation}: {source}")]
    Channel {
        /// The representation.
        representation: &'static str,
        /// The ipc error.
        source: ipc::Error,
    },
}

/// Opens the channel of `H` from an inherited descriptor, checking its header type.
pub fn open<H: PlainData>(fd: std::os::fd::OwnedFd) -> Result<PodChannel<H>, PlainError> {
    PodChannel::from_fd(fd).map_err(|source| PlainError::Channel {
        representation: H::NAME,
        source,
    })
}

/// Creates the channel of `H` (the supervisor's job; tests).
pub fn create<H: PlainData>(name: &str) -> Result<PodChannel<H>, PlainError> {
    PodChannel::create(name, H::PAYLOAD_CAPACITY).map_err(|source| PlainError::Channel {
        representation: H::NAME,
        source,
    })
}

/// The writer of a plain-data channel.
#[derive(Debug)]
pub struct PlainWriter<'a, H> {
    channel: &'a PodChannel<H>,
    writer: Writer<'a>,
}

impl<'a, H: PlainData> PlainWriter<'a, H> {
    /// Takes the channel's writer role.
    pub fn new(channel: &'a PodChannel<H>) -> Result<PlainWriter<'a, H>, PlainError> {
        let writer = channel
            .buffer()
            .writer()
            .map_err(|source| PlainError::Channel {
                representation: H::NAME,
                source,
            })?;
        Ok(PlainWriter { channel, writer })
    }

    /// Publishes a header and its payload (one copy into the slot, no encoding); returns the
    /// publish count.
    pub fn publish(&mut self, header: &H, payload: &[u8]) -> Result<u64, PlainError> {
        if payload.len() > H::PAYLOAD_CAPACITY {
            return Err(PlainError::TooLarge {
                representation: H::NAME,
                length: payload.len(),
                capacity: H::PAYLOAD_CAPACITY,
            });
        }
        self.channel
            .publish(&mut self.writer, header, payload)
            .map_err(|source| PlainError::Channel {
                representation: H::NAME,
                source,
            })
    }

    /// Whether someone watches the channel (see `ipc::Writer::watched`).
    pub fn watched(&self, now_ns: u64) -> bool {
        self.writer.watched(now_ns)
    }
}

/// A payload borrowed in place: read it through [`Payload::copy_to`] or [`Payload::byte`];
/// what is computed from it is kept only if the value did not change meanwhile.
#[derive(Debug)]
pub struct Payload<'v, 'a> {
    view: &'v SlotView<'a, AtomicU64>,
    offset: usize,
}

impl Payload<'_, '_> {
    /// The payload's length in bytes.
    pub fn len(&self) -> usize {
        self.view.len().saturating_sub(self.offset)
    }

    /// Whether the payload is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte `index` of the payload, or `None` past its end.
    pub fn byte(&self, index: usize) -> Option<u8> {
        if index >= self.len() {
            return None;
        }
        let position = self.offset + index;
        Some(self.view.word(position / 8).to_ne_bytes()[position % 8])
    }

    /// Copies bytes `start..start + out.len()` of the payload into `out` (e.g. one image row);
    /// `false` (and nothing copied) if the range is outside the payload.
    pub fn copy_to(&self, start: usize, out: &mut [u8]) -> bool {
        if start
            .checked_add(out.len())
            .is_none_or(|end| end > self.len())
        {
            return false;
        }
        self.view.copy_bytes(self.offset + start, out);
        true
    }
}

/// A reader of a plain-data channel.
#[derive(Debug)]
pub struct PlainReader<'a, H> {
    channel: &'a PodChannel<H>,
    reader: Reader<'a>,
}

impl<'a, H: PlainData> PlainReader<'a, H> {
    /// A reader of `channel`.
    pub fn new(channel: &'a PodChannel<H>) -> PlainReader<'a, H> {
        PlainReader {
            channel,
            reader: channel.buffer().reader(),
        }
    }

    /// The underlying buffer (publish count, waiting, watching).
    pub fn buffer(&self) -> &TripleBuffer {
        self.channel.buffer()
    }

    /// Runs `inspect` on the newest header and payload where they lie, and returns the publish
    /// count and its result once the value is known not to have changed during the call (else
    /// `inspect` runs again on the newer value). `inspect` may see torn bytes while it runs:
    /// it must not panic on any header or payload (its result is discarded then). `None` before
    /// the first publish.
    pub fn read_in_place<R>(
        &mut self,
        mut inspect: impl FnMut(&H, &Payload<'_, 'a>) -> R,
    ) -> Result<Option<(u64, R)>, PlainError> {
        let offset = std::mem::size_of::<H>();
        self.channel
            .read_in_place(&mut self.reader, |header, view| {
                inspect(header, &Payload { view, offset })
            })
            .map_err(|source| PlainError::Channel {
                representation: H::NAME,
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A small YUYV image's header: which frame, and its size.
    #[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct TestImage {
        frame: u64,
        width: u32,
        height: u32,
    }

    impl PlainData for TestImage {
        const NAME: &'static str = "TestImage";
        const PAYLOAD_CAPACITY: usize = 64 * 48 * 2;
    }

    fn pixels(frame: u64) -> Vec<u8> {
        vec![frame as u8; TestImage::PAYLOAD_CAPACITY]
    }

    #[test]
    fn an_image_is_read_in_place_without_a_copy_of_the_whole() {
        let channel = create::<TestImage>("plain-image").unwrap();
        assert!(channel.buffer().slot_capacity() >= TestImage::channel_capacity());
        let mut writer = PlainWriter::new(&channel).unwrap();
        let mut reader = PlainReader::new(&channel);
        assert!(reader.read_in_place(|_, _| ()).unwrap().is_none());
        let header = TestImage {
            frame: 7,
            width: 64,
            height: 48,
        };
        let mut image = pixels(0);
        image[64 * 2 * 10 + 5] = 200; // one bright byte in row 10
        assert_eq!(writer.publish(&header, &image).unwrap(), 1);
        // Row 10 only: the reader copies 128 bytes, not 6 KB.
        let (count, (frame, brightest)) = reader
            .read_in_place(|header, payload| {
                let mut row = [0u8; 128];
                let copied = payload.copy_to(10 * 128, &mut row);
                (header.frame, copied.then(|| row.iter().copied().max()))
            })
            .unwrap()
            .unwrap();
        assert_eq!((count, frame, brightest), (1, 7, Some(Some(200))));
        let (_, outside) = reader
            .read_in_place(|_, payload| {
                (
                    payload.byte(payload.len()),
                    payload.copy_to(payload.len() - 1, &mut [0; 2]),
                )
            })
            .unwrap()
            .unwrap();
        assert_eq!(
            outside,
            (None, false),
            "past the end is refused, not a panic"
        );
        let too_large = writer.publish(&header, &vec![0; TestImage::PAYLOAD_CAPACITY + 1]);
        assert!(
            matches!(too_large, Err(PlainError::TooLarge { length, .. }) if length == TestImage::PAYLOAD_CAPACITY + 1)
        );
    }

    #[test]
    fn what_a_reader_computed_from_a_value_overwritten_meanwhile_is_never_returned() {
        // Every byte of frame n is n: a result computed from a torn frame would mix two
        // numbers (or disagree with the header) and is discarded by the sequence check.
        let channel = create::<TestImage>("plain-race").unwrap();
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut writer = PlainWriter::new(&channel).unwrap();
                let mut frame = 1u64;
                while !stop.load(Ordering::Relaxed) {
                    let header = TestImage {
                        frame,
                        width: 64,
                        height: 48,
                    };
                    writer.publish(&header, &pixels(frame)).unwrap();
                    frame += 1;
                }
            });
            let mut reader = PlainReader::new(&channel);
            let mut checked = 0;
            let mut last = 0;
            while checked < 2_000 {
                let result = reader
                    .read_in_place(|header, payload| {
                        let (mut low, mut high) = (u8::MAX, u8::MIN);
                        for index in (0..payload.len()).step_by(97) {
                            let byte = payload.byte(index).unwrap_or(0);
                            low = low.min(byte);
                            high = high.max(byte);
                        }
                        (header.frame, low, high)
                    })
                    .unwrap();
                if let Some((count, (frame, low, high))) = result {
                    assert_eq!(low, high, "a torn frame was returned (frame {frame})");
                    assert_eq!(low, frame as u8, "payload and header disagree");
                    assert!(count >= last, "publish counts go forward");
                    last = count;
                    checked += 1;
                }
            }
            stop.store(true, Ordering::Relaxed);
        });
    }
}
