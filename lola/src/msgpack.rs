//! The MessagePack subset LoLA speaks, read with byte offsets for error messages and written
//! with `rmp` in the exact encodings LoLA uses (fixmap, fixstr keys, fixarray/array16, float32,
//! positive fixint, bool).

use rmp::encode::ByteBuf;
use rmp::Marker;
use thiserror::Error;

/// Why bytes from or for LoLA could not be decoded. Every variant says where (byte offset of the
/// offending value, and the key and index when inside a map entry) and what was expected.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DecodeError {
    #[error("frame ended at byte {length} while reading {what} (starting at byte {offset})")]
    Truncated {
        offset: usize,
        length: usize,
        what: String,
    },
    #[error("byte {offset}: expected {expected} for {context}, found {found}")]
    WrongType {
        offset: usize,
        context: String,
        expected: &'static str,
        found: String,
    },
    #[error("byte {offset}: \"{key}\" has {found} values, expected {expected}")]
    WrongArrayLength {
        offset: usize,
        key: &'static str,
        expected: usize,
        found: usize,
    },
    #[error("byte {offset}: {key}[{index}] is {value}, expected a finite number")]
    NonFinite {
        offset: usize,
        key: &'static str,
        index: usize,
        value: f64,
    },
    #[error("byte {offset}: {key}[{index}] is {value}, expected {expected}")]
    OutOfRange {
        offset: usize,
        key: &'static str,
        index: usize,
        value: i64,
        expected: &'static str,
    },
    #[error("byte {offset}: unknown key {key:?}")]
    UnknownKey { offset: usize, key: String },
    #[error("byte {offset}: key \"{key}\" appears a second time")]
    DuplicateKey { offset: usize, key: &'static str },
    #[error("byte {offset}: a key is not valid UTF-8")]
    InvalidUtf8 { offset: usize },
    #[error("missing keys {missing:?}")]
    MissingKeys { missing: Vec<&'static str> },
    #[error("{count} bytes follow the end of the map at byte {offset}")]
    TrailingBytes { offset: usize, count: usize },
}

impl DecodeError {
    /// Whether more bytes could complete the frame (the bytes so far are a valid beginning).
    pub fn is_truncated(&self) -> bool {
        matches!(self, DecodeError::Truncated { .. })
    }
}

/// Why a frame could not be encoded.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EncodeError {
    #[error("{key}[{index}] is {value}, LoLA needs finite numbers")]
    NonFinite {
        key: &'static str,
        index: usize,
        value: f32,
    },
}

/// A number that was not finite where the reader was told to let it through
/// ([`decode_sensor_frame_prefix`](crate::codec::decode_sensor_frame_prefix)).
#[derive(Debug, Clone, PartialEq)]
pub struct NonFiniteValue {
    /// Byte offset of the number.
    pub offset: usize,
    /// The map key it belongs to.
    pub key: &'static str,
    /// Its index in the key's array.
    pub index: usize,
}

/// A cursor over a frame that knows its byte offset.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
    /// `Some`: non-finite numbers are returned and listed here instead of refused.
    non_finite: Option<Vec<NonFiniteValue>>,
}

fn describe(marker: Marker, byte: u8) -> String {
    format!("{marker:?} (0x{byte:02x})")
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            position: 0,
            non_finite: None,
        }
    }

    /// A reader that returns non-finite numbers as they are and lists them (see
    /// [`Reader::take_non_finite`]) instead of refusing the frame.
    pub(crate) fn tolerating_non_finite(bytes: &'a [u8]) -> Self {
        Self {
            non_finite: Some(Vec::new()),
            ..Self::new(bytes)
        }
    }

    /// The non-finite numbers let through so far.
    pub(crate) fn take_non_finite(&mut self) -> Vec<NonFiniteValue> {
        self.non_finite
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(crate) fn position(&self) -> usize {
        self.position
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    fn take(
        &mut self,
        count: usize,
        offset: usize,
        what: &dyn Fn() -> String,
    ) -> Result<&'a [u8], DecodeError> {
        if self.remaining() < count {
            return Err(DecodeError::Truncated {
                offset,
                length: self.bytes.len(),
                what: what(),
            });
        }
        let taken = &self.bytes[self.position..self.position + count];
        self.position += count;
        Ok(taken)
    }

    fn marker(&mut self, what: &dyn Fn() -> String) -> Result<(Marker, u8, usize), DecodeError> {
        let offset = self.position;
        let byte = self.take(1, offset, what)?[0];
        Ok((Marker::from_u8(byte), byte, offset))
    }

    fn be_uint(
        &mut self,
        width: usize,
        offset: usize,
        what: &dyn Fn() -> String,
    ) -> Result<u64, DecodeError> {
        let bytes = self.take(width, offset, what)?;
        Ok(bytes
            .iter()
            .fold(0_u64, |value, byte| (value << 8) | u64::from(*byte)))
    }

    /// A map header (fixmap or map16, as LoLA and B-Human's parser accept); returns the entry count.
    pub(crate) fn map_len(&mut self) -> Result<usize, DecodeError> {
        let what = || "the map header".to_string();
        let (marker, byte, offset) = self.marker(&what)?;
        match marker {
            Marker::FixMap(length) => Ok(usize::from(length)),
            Marker::Map16 => Ok(self.be_uint(2, offset, &what)? as usize),
            _ => Err(DecodeError::WrongType {
                offset,
                context: "the frame".into(),
                expected: "a map (fixmap or map16)",
                found: describe(marker, byte),
            }),
        }
    }

    /// A map key; returns the key and its offset.
    pub(crate) fn key(&mut self) -> Result<(&'a str, usize), DecodeError> {
        let what = || "a map key".to_string();
        let (marker, byte, offset) = self.marker(&what)?;
        let length = match marker {
            Marker::FixStr(length) => usize::from(length),
            Marker::Str8 => self.be_uint(1, offset, &what)? as usize,
            Marker::Str16 => self.be_uint(2, offset, &what)? as usize,
            Marker::Str32 => self.be_uint(4, offset, &what)? as usize,
            _ => {
                return Err(DecodeError::WrongType {
                    offset,
                    context: "a map key".into(),
                    expected: "a string",
                    found: describe(marker, byte),
                })
            }
        };
        let bytes = self.take(length, offset, &what)?;
        let key = std::str::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 { offset })?;
        Ok((key, offset))
    }

    /// An array header that must announce `expected` elements.
    pub(crate) fn array_header(
        &mut self,
        key: &'static str,
        expected: usize,
    ) -> Result<(), DecodeError> {
        let what = || format!("the array of \"{key}\"");
        let (marker, byte, offset) = self.marker(&what)?;
        let found = match marker {
            Marker::FixArray(length) => usize::from(length),
            Marker::Array16 => self.be_uint(2, offset, &what)? as usize,
            Marker::Array32 => self.be_uint(4, offset, &what)? as usize,
            _ => {
                return Err(DecodeError::WrongType {
                    offset,
                    context: format!("\"{key}\""),
                    expected: "an array",
                    found: describe(marker, byte),
                })
            }
        };
        if found != expected {
            return Err(DecodeError::WrongArrayLength {
                offset,
                key,
                expected,
                found,
            });
        }
        Ok(())
    }

    /// A finite number (float32, float64 or any integer), as f32.
    pub(crate) fn number(&mut self, key: &'static str, index: usize) -> Result<f32, DecodeError> {
        let what = || format!("{key}[{index}]");
        let (marker, byte, offset) = self.marker(&what)?;
        let value: f64 = match marker {
            Marker::F32 => f64::from(f32::from_bits(self.be_uint(4, offset, &what)? as u32)),
            Marker::F64 => f64::from_bits(self.be_uint(8, offset, &what)?),
            _ => match self.integer_payload(marker, offset, &what)? {
                Some(value) => value as f64,
                None => {
                    return Err(DecodeError::WrongType {
                        offset,
                        context: what(),
                        expected: "a number",
                        found: describe(marker, byte),
                    })
                }
            },
        };
        let narrowed = value as f32;
        if !narrowed.is_finite() {
            if let Some(list) = self.non_finite.as_mut() {
                list.push(NonFiniteValue { offset, key, index });
                return Ok(narrowed);
            }
            return Err(DecodeError::NonFinite {
                offset,
                key,
                index,
                value,
            });
        }
        Ok(narrowed)
    }

    /// An integer in `range`.
    pub(crate) fn integer(
        &mut self,
        key: &'static str,
        index: usize,
        range: std::ops::RangeInclusive<i64>,
        expected: &'static str,
    ) -> Result<i64, DecodeError> {
        let what = || format!("{key}[{index}]");
        let (marker, byte, offset) = self.marker(&what)?;
        let Some(value) = self.integer_payload(marker, offset, &what)? else {
            return Err(DecodeError::WrongType {
                offset,
                context: what(),
                expected: "an integer",
                found: describe(marker, byte),
            });
        };
        if !range.contains(&value) {
            return Err(DecodeError::OutOfRange {
                offset,
                key,
                index,
                value,
                expected,
            });
        }
        Ok(value)
    }

    /// The value of an integer marker (saturated to i64), or `None` for other markers.
    fn integer_payload(
        &mut self,
        marker: Marker,
        offset: usize,
        what: &dyn Fn() -> String,
    ) -> Result<Option<i64>, DecodeError> {
        Ok(Some(match marker {
            Marker::FixPos(value) => i64::from(value),
            Marker::FixNeg(value) => i64::from(value),
            Marker::U8 => self.be_uint(1, offset, what)? as i64,
            Marker::U16 => self.be_uint(2, offset, what)? as i64,
            Marker::U32 => self.be_uint(4, offset, what)? as i64,
            Marker::U64 => i64::try_from(self.be_uint(8, offset, what)?).unwrap_or(i64::MAX),
            Marker::I8 => i64::from(self.be_uint(1, offset, what)? as u8 as i8),
            Marker::I16 => i64::from(self.be_uint(2, offset, what)? as u16 as i16),
            Marker::I32 => i64::from(self.be_uint(4, offset, what)? as u32 as i32),
            Marker::I64 => self.be_uint(8, offset, what)? as i64,
            _ => return Ok(None),
        }))
    }

    /// A bool.
    pub(crate) fn bool(&mut self, key: &'static str, index: usize) -> Result<bool, DecodeError> {
        let what = || format!("{key}[{index}]");
        let (marker, byte, offset) = self.marker(&what)?;
        match marker {
            Marker::True => Ok(true),
            Marker::False => Ok(false),
            _ => Err(DecodeError::WrongType {
                offset,
                context: what(),
                expected: "a bool",
                found: describe(marker, byte),
            }),
        }
    }

    /// A string value.
    pub(crate) fn string(
        &mut self,
        key: &'static str,
        index: usize,
    ) -> Result<String, DecodeError> {
        let what = || format!("{key}[{index}]");
        let (marker, byte, offset) = self.marker(&what)?;
        let length = match marker {
            Marker::FixStr(length) => usize::from(length),
            Marker::Str8 => self.be_uint(1, offset, &what)? as usize,
            Marker::Str16 => self.be_uint(2, offset, &what)? as usize,
            Marker::Str32 => self.be_uint(4, offset, &what)? as usize,
            _ => {
                return Err(DecodeError::WrongType {
                    offset,
                    context: what(),
                    expected: "a string",
                    found: describe(marker, byte),
                })
            }
        };
        let bytes = self.take(length, offset, &what)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    /// `N` numbers behind an array header announcing `N`.
    pub(crate) fn numbers<const N: usize>(
        &mut self,
        key: &'static str,
    ) -> Result<[f32; N], DecodeError> {
        self.array_header(key, N)?;
        let mut values = [0.0; N];
        for (index, value) in values.iter_mut().enumerate() {
            *value = self.number(key, index)?;
        }
        Ok(values)
    }
}

/// Writes a frame with `rmp` in LoLA's encodings. Writing into memory cannot fail.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    buffer: ByteBuf,
}

impl Writer {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self {
            buffer: ByteBuf::with_capacity(capacity),
        }
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.buffer.into_vec()
    }

    pub(crate) fn map_len(&mut self, length: u32) {
        let Ok(_) = rmp::encode::write_map_len(&mut self.buffer, length);
    }

    pub(crate) fn array_len(&mut self, length: u32) {
        let Ok(_) = rmp::encode::write_array_len(&mut self.buffer, length);
    }

    pub(crate) fn str(&mut self, value: &str) {
        let Ok(()) = rmp::encode::write_str(&mut self.buffer, value);
    }

    pub(crate) fn bool(&mut self, value: bool) {
        let Ok(()) = rmp::encode::write_bool(&mut self.buffer, value);
    }

    /// Smallest unsigned encoding (positive fixint below 128).
    pub(crate) fn uint(&mut self, value: u64) {
        let Ok(_) = rmp::encode::write_uint(&mut self.buffer, value);
    }

    /// A key followed by an array of float32, refusing non-finite values.
    pub(crate) fn floats(&mut self, key: &'static str, values: &[f32]) -> Result<(), EncodeError> {
        if let Some((index, value)) = values
            .iter()
            .enumerate()
            .find(|(_, value)| !value.is_finite())
        {
            return Err(EncodeError::NonFinite {
                key,
                index,
                value: *value,
            });
        }
        self.str(key);
        self.array_len(values.len() as u32);
        for value in values {
            let Ok(()) = rmp::encode::write_f32(&mut self.buffer, *value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_uses_lola_encodings() {
        let mut writer = Writer::default();
        writer.map_len(13);
        writer.floats("A", &[1.0]).unwrap();
        writer.array_len(25);
        writer.uint(3);
        writer.bool(true);
        assert_eq!(
            writer.into_bytes(),
            [0x8d, 0xa1, b'A', 0x91, 0xca, 0x3f, 0x80, 0, 0, 0xdc, 0, 25, 3, 0xc3]
        );
    }

    #[test]
    fn reader_reports_offsets() {
        let mut reader = Reader::new(&[0x92, 0xca, 0x3f, 0x80, 0, 0, 0xc3]);
        assert_eq!(
            reader.numbers::<3>("X"),
            Err(DecodeError::WrongArrayLength {
                offset: 0,
                key: "X",
                expected: 3,
                found: 2
            })
        );
        let mut reader = Reader::new(&[0x92, 0xca, 0x3f, 0x80, 0, 0, 0xc3]);
        let error = reader.numbers::<2>("X").unwrap_err();
        assert!(
            matches!(
                error,
                DecodeError::WrongType {
                    offset: 6,
                    expected: "a number",
                    ..
                }
            ),
            "{error}"
        );
        let mut reader = Reader::new(&[0xcb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(
            reader.number("X", 0),
            Err(DecodeError::NonFinite { offset: 0, .. })
        ));
        let mut reader = Reader::new(&[0xd1, 0xff]);
        assert!(reader
            .integer("S", 0, 0..=3, "0..=3")
            .unwrap_err()
            .is_truncated());
        let mut reader = Reader::new(&[0xd0, 0xfe]);
        assert_eq!(
            reader.integer("S", 0, 0..=3, "0..=3"),
            Err(DecodeError::OutOfRange {
                offset: 0,
                key: "S",
                index: 0,
                value: -2,
                expected: "0..=3"
            })
        );
    }
}
