//! Typed channels on top of [`TripleBuffer`]: representations encoded with `rmp-serde` as
//! named maps ([`Channel`]), and plain-data values with a raw payload and no encoding
//! ([`PodChannel`], for camera images and audio buffers).
//!
//! The schema hash in the segment header is the FNV-1a hash of the type's name (the last
//! path segment: `SensorData`), so a reader opening a descriptor of the wrong channel is refused,
//! while adding a field to a representation keeps old bytes readable (named maps).

use crate::{Error, Reader, TripleBuffer, Writer};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::marker::PhantomData;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// FNV-1a (64-bit) of `text`: the schema hash of a channel carrying the type named `text`.
pub const fn schema_hash(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The short name of a type (`SensorData` for `types::SensorData`), without
/// generic arguments' paths.
pub fn type_short_name<T: ?Sized>() -> &'static str {
    let full = std::any::type_name::<T>();
    let without_generics = full.split('<').next().unwrap_or(full);
    without_generics
        .rsplit("::")
        .next()
        .unwrap_or(without_generics)
}

/// The schema hash of a channel carrying `T`.
pub fn schema_hash_of<T: ?Sized>() -> u64 {
    schema_hash(type_short_name::<T>())
}

/// Encodes a value as a MessagePack named map (the encoding of every typed channel).
pub fn encode<T: Serialize>(value: &T, out: &mut Vec<u8>) -> Result<(), rmp_serde::encode::Error> {
    out.clear();
    value.serialize(&mut rmp_serde::Serializer::new(out).with_struct_map())
}

/// Decodes a value encoded by [`encode`].
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, rmp_serde::decode::Error> {
    rmp_serde::from_slice(bytes)
}

/// A triple buffer carrying one serde type.
#[derive(Debug)]
pub struct Channel<T> {
    buffer: TripleBuffer,
    _type: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> Channel<T> {
    /// Creates a channel whose encoded values take at most `capacity` bytes.
    pub fn create(name: &str, capacity: usize) -> Result<Channel<T>, Error> {
        let buffer = TripleBuffer::create_with_schema(name, capacity, schema_hash_of::<T>())?;
        Ok(Channel {
            buffer,
            _type: PhantomData,
        })
    }

    /// Opens a channel from a descriptor; refused if it carries another type.
    pub fn from_fd(fd: OwnedFd) -> Result<Channel<T>, Error> {
        let buffer = TripleBuffer::from_fd_with_schema(fd, schema_hash_of::<T>())?;
        Ok(Channel {
            buffer,
            _type: PhantomData,
        })
    }

    /// The underlying buffer.
    pub fn buffer(&self) -> &TripleBuffer {
        &self.buffer
    }

    /// Takes the writer role (see [`TripleBuffer::writer`]).
    pub fn publisher(&self) -> Result<Publisher<'_, T>, Error> {
        Ok(Publisher {
            writer: self.buffer.writer()?,
            scratch: Vec::new(),
            _type: PhantomData,
        })
    }

    /// A new subscriber.
    pub fn subscriber(&self) -> Subscriber<'_, T> {
        Subscriber {
            reader: self.buffer.reader(),
            scratch: Vec::new(),
            _type: PhantomData,
        }
    }
}

impl<T> AsFd for Channel<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.buffer.as_fd()
    }
}

/// The writer of a [`Channel`].
#[derive(Debug)]
pub struct Publisher<'a, T> {
    writer: Writer<'a>,
    scratch: Vec<u8>,
    _type: PhantomData<fn(&T)>,
}

impl<T: Serialize> Publisher<'_, T> {
    /// Encodes and publishes `value`; returns its publish count.
    pub fn publish(&mut self, value: &T) -> Result<u64, Error> {
        encode(value, &mut self.scratch).map_err(|source| Error::Encode {
            schema: type_short_name::<T>(),
            source,
        })?;
        self.writer.publish(&self.scratch)
    }

    /// Whether some reader's lease runs at `now_ns` (see [`Writer::watched`]).
    pub fn watched(&self, now_ns: u64) -> bool {
        self.writer.watched(now_ns)
    }
}

/// A reader of a [`Channel`].
#[derive(Debug)]
pub struct Subscriber<'a, T> {
    reader: Reader<'a>,
    scratch: Vec<u8>,
    _type: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Subscriber<'_, T> {
    /// The newest value and its publish count; `None` before the first publish.
    pub fn latest(&mut self) -> Result<Option<(u64, T)>, Error> {
        let Some(count) = self.reader.read_latest(&mut self.scratch)? else {
            return Ok(None);
        };
        let value = decode(&self.scratch).map_err(|source| Error::Decode {
            schema: type_short_name::<T>(),
            source,
        })?;
        Ok(Some((count, value)))
    }

    /// Waits for a publish newer than `than` (see [`Reader::wait_newer`]).
    pub fn wait_newer(&mut self, than: u64, timeout: Duration) -> Result<Option<u64>, Error> {
        self.reader.wait_newer(than, timeout)
    }

    /// Asks the writer for values until `until_ns` (see [`Reader::watch`]).
    pub fn watch(&self, until_ns: u64) -> u64 {
        self.reader.watch(until_ns)
    }
}

/// A triple buffer carrying a plain-data header `H` followed by raw payload bytes.
#[derive(Debug)]
pub struct PodChannel<H> {
    buffer: TripleBuffer,
    _type: PhantomData<fn() -> H>,
}

impl<H: bytemuck::Pod> PodChannel<H> {
    /// Creates a channel for a header and up to `payload_capacity` payload bytes.
    pub fn create(name: &str, payload_capacity: usize) -> Result<PodChannel<H>, Error> {
        let capacity = std::mem::size_of::<H>() + payload_capacity;
        let buffer = TripleBuffer::create_with_schema(name, capacity, schema_hash_of::<H>())?;
        Ok(PodChannel {
            buffer,
            _type: PhantomData,
        })
    }

    /// Opens a channel from a descriptor; refused if it carries another header type.
    pub fn from_fd(fd: OwnedFd) -> Result<PodChannel<H>, Error> {
        let buffer = TripleBuffer::from_fd_with_schema(fd, schema_hash_of::<H>())?;
        Ok(PodChannel {
            buffer,
            _type: PhantomData,
        })
    }

    /// The underlying buffer.
    pub fn buffer(&self) -> &TripleBuffer {
        &self.buffer
    }

    /// Publishes a header and a payload with no encoding and no intermediate copy.
    pub fn publish(
        &self,
        writer: &mut Writer<'_>,
        header: &H,
        payload: &[u8],
    ) -> Result<u64, Error> {
        writer.publish_parts(&[bytemuck::bytes_of(header), payload])
    }

    /// Copies the newest header and payload; `None` before the first publish.
    pub fn read(
        &self,
        reader: &mut Reader<'_>,
        payload: &mut Vec<u8>,
    ) -> Result<Option<(u64, H)>, Error> {
        let Some(count) = reader.read_latest(payload)? else {
            return Ok(None);
        };
        let header_len = std::mem::size_of::<H>();
        if payload.len() < header_len {
            return Err(Error::Corrupt {
                name: self.buffer.name(),
                what: format!(
                    "value of {} bytes is shorter than its {header_len}-byte header",
                    payload.len()
                ),
            });
        }
        let header = bytemuck::pod_read_unaligned(&payload[..header_len]);
        payload.drain(..header_len);
        Ok(Some((count, header)))
    }

    /// Runs `inspect` on the header and the payload in place (see [`Reader::read_in_place`]).
    /// The payload view starts at byte `size_of::<H>()` of the slot view.
    pub fn read_in_place<'a, R>(
        &self,
        reader: &mut Reader<'a>,
        mut inspect: impl FnMut(&H, &crate::protocol::SlotView<'a, AtomicU64>) -> R,
    ) -> Result<Option<(u64, R)>, Error> {
        let header_len = std::mem::size_of::<H>();
        let result = reader.read_in_place(|view| {
            if view.len() < header_len {
                return None;
            }
            let mut header = H::zeroed();
            view.copy_bytes(0, bytemuck::bytes_of_mut(&mut header));
            Some(inspect(&header, view))
        })?;
        match result {
            None => Ok(None),
            Some((count, Some(value))) => Ok(Some((count, value))),
            Some((_, None)) => Err(Error::Corrupt {
                name: self.buffer.name(),
                what: format!("value shorter than its {header_len}-byte header"),
            }),
        }
    }
}

impl<H> AsFd for PodChannel<H> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.buffer.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
    struct FallState {
        fallen: bool,
        direction_rad: f32,
    }

    #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
    struct FallStateV2 {
        fallen: bool,
        direction_rad: f32,
        #[serde(default)]
        seconds_on_ground: f32,
    }

    #[test]
    fn values_are_named_maps_readable_by_a_newer_version() {
        let mut bytes = Vec::new();
        encode(
            &FallState {
                fallen: true,
                direction_rad: 1.5,
            },
            &mut bytes,
        )
        .unwrap();
        // fixmap of two entries whose first key is the string "fallen".
        assert_eq!(bytes[0], 0x82);
        assert_eq!(&bytes[1..8], b"\xa6fallen");
        let newer: FallStateV2 = decode(&bytes).unwrap();
        assert_eq!(
            newer,
            FallStateV2 {
                fallen: true,
                direction_rad: 1.5,
                seconds_on_ground: 0.0
            }
        );
    }

    #[test]
    fn typed_channel_round_trip_and_schema_check() {
        let channel = Channel::<FallState>::create("FallState", 256).unwrap();
        let mut subscriber = channel.subscriber();
        assert!(subscriber.latest().unwrap().is_none());
        channel
            .publisher()
            .unwrap()
            .publish(&FallState {
                fallen: true,
                direction_rad: -0.5,
            })
            .unwrap();
        let (count, value) = subscriber.latest().unwrap().unwrap();
        assert_eq!(
            (count, value),
            (
                1,
                FallState {
                    fallen: true,
                    direction_rad: -0.5
                }
            )
        );

        let fd = crate::fd::duplicate(channel.as_fd()).unwrap();
        let error = Channel::<FallStateV2>::from_fd(fd).unwrap_err();
        assert!(matches!(error, Error::SchemaMismatch { .. }), "{error}");
        assert!(error.to_string().contains("FallState"), "{error}");
    }

    #[test]
    fn an_oversize_value_is_refused() {
        let channel = Channel::<Vec<u64>>::create("Big", 16).unwrap();
        let error = channel
            .publisher()
            .unwrap()
            .publish(&vec![u64::MAX; 10])
            .unwrap_err();
        assert!(
            matches!(error, Error::TooLarge { capacity: 16, .. }),
            "{error}"
        );
        assert!(channel.subscriber().latest().unwrap().is_none());
    }

    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    struct ImageHeader {
        width: u32,
        height: u32,
        timestamp_ns: u64,
    }

    #[test]
    fn plain_data_header_and_payload_without_encoding() {
        let channel = PodChannel::<ImageHeader>::create("CameraImage", 640).unwrap();
        let buffer = channel.buffer();
        let mut writer = buffer.writer().unwrap();
        let mut reader = buffer.reader();
        let header = ImageHeader {
            width: 16,
            height: 20,
            timestamp_ns: 99,
        };
        let pixels: Vec<u8> = (0..640).map(|i| i as u8).collect();
        channel.publish(&mut writer, &header, &pixels).unwrap();
        let mut payload = Vec::new();
        assert_eq!(
            channel.read(&mut reader, &mut payload).unwrap(),
            Some((1, header))
        );
        assert_eq!(payload, pixels);
        let (_, (read_header, sum)) = channel
            .read_in_place(&mut reader, |h, view| {
                let mut pixel = [0u8; 1];
                let mut sum = 0u64;
                for i in 0..640 {
                    view.copy_bytes(16 + i, &mut pixel);
                    sum += u64::from(pixel[0]);
                }
                (*h, sum)
            })
            .unwrap()
            .unwrap();
        assert_eq!(read_header, header);
        assert_eq!(sum, pixels.iter().map(|&p| u64::from(p)).sum::<u64>());
    }
}
