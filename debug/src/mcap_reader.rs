//! Reading an MCAP recording front to back, one record and one chunk at a time, and saying
//! exactly where a damaged file stops being readable (`cortex replay`, the replay tests).
//!
//! The file is walked by its top-level records (opcode, 64-bit length, body), so every record's
//! byte offset is known. A chunk is read whole (never more than one at a time, at most
//! [`CHUNK_LIMIT`]) and its records are taken out by the `mcap` crate's sans-io
//! [`LinearReader`] with the chunk's CRC checked first: a chunk is either read completely or not
//! at all. Anything wrong (a cut inside a record, a chunk whose length field is `u64::MAX`
//! because the writer was killed before it closed the chunk, a flipped byte that breaks the CRC
//! or the compression, a record that does not parse, the end of the file before its footer) ends
//! the reading with a [`Damage`] naming the byte offset and the log time of the last message
//! handed out; everything before it has been handed out. Nothing here panics on a file's
//! contents.

use mcap::records::{op, Record};
use mcap::sans_io::linear_reader::{LinearReadEvent, LinearReader, LinearReaderOptions};
use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// The largest record (a chunk, compressed) read into memory, and the largest a chunk may
/// claim to be uncompressed: a longer length is damage. The recorder's chunks are at most
/// 64 MiB (`chunk_kib`) plus one message; a hostile file cannot make the reader take more.
pub const CHUNK_LIMIT: u64 = 128 * 1024 * 1024;

/// A channel of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelInfo {
    /// The channel id messages name.
    pub id: u16,
    /// Its topic (Cortex: the channel name, `SensorData`, `upper.BallPercept`).
    pub topic: String,
    /// The message encoding (`msgpack`).
    pub message_encoding: String,
    /// The schema's name (Cortex: the representation), empty without a schema.
    pub schema: String,
    /// The channel's metadata pairs.
    pub metadata: BTreeMap<String, String>,
}

/// A message of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The channel it belongs to.
    pub channel: u16,
    /// Its sequence number.
    pub sequence: u32,
    /// Log time (ns).
    pub log_time: u64,
    /// Publish time (ns).
    pub publish_time: u64,
    /// The message's bytes.
    pub data: Vec<u8>,
}

/// One thing read from the file, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A channel (always before its first message).
    Channel(ChannelInfo),
    /// A message.
    Message(Message),
    /// A metadata record: its name and pairs.
    Metadata(String, BTreeMap<String, String>),
}

/// Why a file cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file cannot be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not an MCAP file.
    #[error("{path}: not an MCAP file: {what}")]
    NotMcap {
        /// The file.
        path: PathBuf,
        /// What its first bytes are instead.
        what: String,
    },
}

/// Where and why a file stops being readable. Everything before `offset` was handed out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: damaged at byte {offset} of {length}: {what}; read up to there ({messages} messages, the last logged at {})", last_log_time.map_or("(none)".to_owned(), |t| format!("{t} ns")))]
pub struct Damage {
    /// The file.
    pub path: PathBuf,
    /// The byte offset of the record (or chunk) that could not be read.
    pub offset: u64,
    /// The file's length.
    pub length: u64,
    /// What is wrong there.
    pub what: String,
    /// The log time of the last message handed out (ns), if any.
    pub last_log_time: Option<u64>,
    /// Messages handed out before the damage.
    pub messages: u64,
}

/// A streaming reader of one MCAP file.
#[derive(Debug)]
pub struct McapReader {
    path: PathBuf,
    file: BufReader<File>,
    length: u64,
    offset: u64,
    pending: VecDeque<Entry>,
    schemas: BTreeMap<u16, String>,
    channels: BTreeMap<u16, ChannelInfo>,
    seen_data_end: bool,
    seen_footer: bool,
    finished: bool,
    last_log_time: Option<u64>,
    messages: u64,
    body: Vec<u8>,
}

/// A record's name for messages.
fn record_name(opcode: u8) -> String {
    let name = match opcode {
        op::HEADER => "header",
        op::FOOTER => "footer",
        op::SCHEMA => "schema",
        op::CHANNEL => "channel",
        op::MESSAGE => "message",
        op::CHUNK => "chunk",
        op::MESSAGE_INDEX => "message index",
        op::CHUNK_INDEX => "chunk index",
        op::ATTACHMENT => "attachment",
        op::ATTACHMENT_INDEX => "attachment index",
        op::STATISTICS => "statistics",
        op::METADATA => "metadata",
        op::METADATA_INDEX => "metadata index",
        op::SUMMARY_OFFSET => "summary offset",
        op::DATA_END => "data end",
        _ => return format!("record 0x{opcode:02x}"),
    };
    format!("{name} record (0x{opcode:02x})")
}

impl McapReader {
    /// Opens `path` and checks its magic and header record.
    pub fn open(path: &Path) -> Result<McapReader, OpenError> {
        let io = |source| OpenError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        if !metadata.is_file() {
            return Err(OpenError::NotMcap {
                path: path.to_owned(),
                what: "it is not a regular file".to_owned(),
            });
        }
        let mut reader = McapReader {
            path: path.to_owned(),
            file: BufReader::with_capacity(256 * 1024, file),
            length: metadata.len(),
            offset: 0,
            pending: VecDeque::new(),
            schemas: BTreeMap::new(),
            channels: BTreeMap::new(),
            seen_data_end: false,
            seen_footer: false,
            finished: false,
            last_log_time: None,
            messages: 0,
            body: Vec::new(),
        };
        let mut magic = [0u8; 8];
        let got = reader.read_up_to(&mut magic).map_err(io)?;
        if got < magic.len() || magic != mcap::MAGIC {
            let shown: String = magic[..got]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ");
            return Err(OpenError::NotMcap {
                path: path.to_owned(),
                what: if got < magic.len() {
                    format!("{got} bytes long, shorter than the 8-byte MCAP magic ({shown})")
                } else {
                    format!("it starts with {shown}, not the MCAP magic 89 4d 43 41 50 30 0d 0a")
                },
            });
        }
        reader.offset = magic.len() as u64;
        // The first record must be the header; a file that has the magic and nothing readable
        // after it is an MCAP file damaged at byte 8, reported by `next`.
        Ok(reader)
    }

    /// The file's length in bytes.
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The byte offset reached: everything before it has been read.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Messages handed out so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// The next entry; `Ok(None)` at the end of a complete file; `Err` once at the damage of a
    /// damaged one (everything before it was handed out), `Ok(None)` after that.
    pub fn next_entry(&mut self) -> Result<Option<Entry>, Damage> {
        loop {
            if let Some(entry) = self.pending.pop_front() {
                if let Entry::Message(message) = &entry {
                    self.messages += 1;
                    self.last_log_time = Some(message.log_time);
                }
                return Ok(Some(entry));
            }
            if self.finished {
                return Ok(None);
            }
            if let Err(damage) = self.read_record() {
                self.finished = true;
                self.pending.clear();
                return Err(damage);
            }
        }
    }

    fn damage(&self, offset: u64, what: impl Into<String>) -> Damage {
        Damage {
            path: self.path.clone(),
            offset,
            length: self.length,
            what: what.into(),
            last_log_time: self.last_log_time,
            messages: self.messages,
        }
    }

    fn read_up_to(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buffer.len() {
            match self.file.read(&mut buffer[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(filled)
    }

    /// Reads one top-level record (a whole chunk for a chunk) into `pending`, or says where the
    /// file is damaged.
    fn read_record(&mut self) -> Result<(), Damage> {
        let start = self.offset;
        let remaining = self.length.saturating_sub(start);
        if remaining == 0 {
            self.finished = true;
            if self.seen_footer {
                return Err(self.damage(
                    start,
                    "the file ends after its footer without the closing MCAP magic",
                ));
            }
            return Err(self.damage(
                start,
                "the file ends here without its summary and footer (the writer never finished \
                 it: power lost, killed, or the file was cut)",
            ));
        }
        let mut head = [0u8; 9];
        let want = if self.seen_footer { 8 } else { 9 };
        let got = self
            .read_up_to(&mut head[..want])
            .map_err(|error| self.damage(start, format!("reading: {error}")))?;
        if self.seen_footer {
            if got == 8 && head[..8] == *mcap::MAGIC {
                self.offset += 8;
                self.finished = true;
                if self.offset < self.length {
                    return Err(self.damage(
                        self.offset,
                        format!(
                            "{} bytes follow the closing MCAP magic",
                            self.length - self.offset
                        ),
                    ));
                }
                return Ok(());
            }
            return Err(self.damage(start, "the footer is not followed by the MCAP magic"));
        }
        if got < 9 {
            return Err(self.damage(
                start,
                format!("the file ends inside a record's opcode and length ({got} of 9 bytes)"),
            ));
        }
        let opcode = head[0];
        let length = u64::from_le_bytes(head[1..9].try_into().expect("8 bytes"));
        let name = record_name(opcode);
        if start == 8 && opcode != op::HEADER {
            return Err(self.damage(
                start,
                format!("the first record is a {name}, not the header"),
            ));
        }
        let body_remaining = remaining - 9;
        if length > body_remaining {
            let unfinished = if length == u64::MAX {
                " (u64::MAX: the writer opened this chunk and was stopped before it closed it)"
            } else {
                ""
            };
            return Err(self.damage(
                start,
                format!(
                    "the {name} claims {length} bytes{unfinished}, but the file has {body_remaining} \
                     left: the file was cut"
                ),
            ));
        }
        if length > CHUNK_LIMIT {
            return Err(self.damage(
                start,
                format!(
                    "the {name} claims {length} bytes, more than the {CHUNK_LIMIT} read at once"
                ),
            ));
        }
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        body.resize(length as usize, 0);
        let read = self.read_up_to(&mut body);
        let read = match read {
            Ok(n) => n,
            Err(error) => {
                self.body = body;
                return Err(self.damage(start, format!("reading the {name}: {error}")));
            }
        };
        if read < body.len() {
            self.body = body;
            return Err(self.damage(
                start,
                format!("the file ends inside the {name} ({read} of {length} bytes)"),
            ));
        }
        let outcome = if opcode == op::CHUNK {
            self.take_chunk(opcode, &head, &body)
                .map_err(|what| self.damage(start, format!("the {name} cannot be read: {what}")))
        } else {
            self.take_record(opcode, &body)
                .map_err(|what| self.damage(start, format!("the {name} cannot be read: {what}")))
        };
        self.body = body;
        outcome?;
        self.offset = start + 9 + length;
        Ok(())
    }

    /// A top-level record other than a chunk.
    fn take_record(&mut self, opcode: u8, body: &[u8]) -> Result<(), String> {
        let record = mcap::parse_record(opcode, body).map_err(|error| error.to_string())?;
        match record {
            Record::Footer(_) => {
                self.seen_footer = true;
                return Ok(());
            }
            Record::DataEnd(_) => {
                self.seen_data_end = true;
                return Ok(());
            }
            // The summary section repeats schemas and channels; the data section had them.
            _ if self.seen_data_end => return Ok(()),
            _ => {}
        }
        if let Some(entry) = self.entry(record) {
            self.pending.push_back(entry);
        }
        Ok(())
    }

    /// A whole chunk: every record inside it, or none (its CRC is checked first).
    fn take_chunk(&mut self, opcode: u8, head: &[u8; 9], body: &[u8]) -> Result<(), String> {
        debug_assert_eq!(opcode, op::CHUNK);
        let options = LinearReaderOptions::default()
            .with_skip_start_magic(true)
            .with_skip_end_magic(true)
            .with_prevalidate_chunk_crcs(true)
            .with_record_length_limit(CHUNK_LIMIT as usize);
        let mut reader = LinearReader::new_with_options(options);
        let mut source: &[u8] = &head[..];
        let mut rest: &[u8] = body;
        let mut entries = Vec::new();
        while let Some(event) = reader.next_event() {
            match event.map_err(|error| error.to_string())? {
                LinearReadEvent::ReadRequest(need) => {
                    if source.is_empty() {
                        source = std::mem::take(&mut rest);
                    }
                    let n = need.min(source.len());
                    reader.insert(n).copy_from_slice(&source[..n]);
                    reader.notify_read(n);
                    source = &source[n..];
                }
                LinearReadEvent::Record { opcode, data } => {
                    let record =
                        mcap::parse_record(opcode, data).map_err(|error| error.to_string())?;
                    if let Record::Schema { header, .. } = &record {
                        self.schemas.insert(header.id, header.name.clone());
                    }
                    if let Some(entry) = self.entry(record) {
                        entries.push(entry);
                    }
                }
            }
        }
        self.pending.extend(entries);
        Ok(())
    }

    /// The entry a record gives (schemas are remembered, index records skipped).
    fn entry(&mut self, record: Record<'_>) -> Option<Entry> {
        match record {
            Record::Schema { header, .. } => {
                self.schemas.insert(header.id, header.name);
                None
            }
            Record::Channel(channel) => {
                let info = ChannelInfo {
                    id: channel.id,
                    schema: self
                        .schemas
                        .get(&channel.schema_id)
                        .cloned()
                        .unwrap_or_default(),
                    topic: channel.topic,
                    message_encoding: channel.message_encoding,
                    metadata: channel.metadata,
                };
                // A writer may repeat a channel (in each chunk that uses it): handed out once,
                // and again only if it changed.
                if self.channels.get(&info.id) == Some(&info) {
                    return None;
                }
                self.channels.insert(info.id, info.clone());
                Some(Entry::Channel(info))
            }
            Record::Message { header, data } => Some(Entry::Message(Message {
                channel: header.channel_id,
                sequence: header.sequence,
                log_time: header.log_time,
                publish_time: header.publish_time,
                data: data.into_owned(),
            })),
            Record::Metadata(metadata) => Some(Entry::Metadata(metadata.name, metadata.metadata)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A finished file with `count` messages on two channels, in chunks of about 1 KiB.
    fn sample(count: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        {
            let mut writer = mcap::WriteOptions::new()
                .compression(Some(mcap::Compression::Zstd))
                .chunk_size(Some(1024))
                .create(std::io::Cursor::new(&mut bytes))
                .unwrap();
            let schema = writer.add_schema("SensorData", "", b"text").unwrap();
            let a = writer
                .add_channel(schema, "SensorData", "msgpack", &BTreeMap::new())
                .unwrap();
            let b = writer
                .add_channel(schema, "lower.BallPercept", "msgpack", &BTreeMap::new())
                .unwrap();
            for index in 0..count {
                let header = mcap::records::MessageHeader {
                    channel_id: if index % 3 == 0 { b } else { a },
                    sequence: index as u32,
                    log_time: 1_000 + index,
                    publish_time: 2_000 + index,
                };
                // Pseudo-random payloads that zstd cannot squeeze away.
                let payload: Vec<u8> = (0..64u64)
                    .map(|i| ((index * 2654435761 + i * 40503) >> 7) as u8)
                    .collect();
                writer.write_to_known_channel(&header, &payload).unwrap();
            }
            writer.finish().unwrap();
        }
        bytes
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        File::create(&path).unwrap().write_all(bytes).unwrap();
        path
    }

    fn read_all(path: &Path) -> (Vec<Message>, Vec<ChannelInfo>, Option<Damage>) {
        let mut reader = McapReader::open(path).unwrap();
        let mut messages = Vec::new();
        let mut channels = Vec::new();
        loop {
            match reader.next_entry() {
                Ok(Some(Entry::Message(m))) => messages.push(m),
                Ok(Some(Entry::Channel(c))) => channels.push(c),
                Ok(Some(Entry::Metadata(..))) => {}
                Ok(None) => return (messages, channels, None),
                Err(damage) => {
                    assert_eq!(reader.next_entry(), Ok(None));
                    return (messages, channels, Some(damage));
                }
            }
        }
    }

    #[test]
    fn a_whole_file_reads_completely_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.mcap", &sample(500));
        let (messages, channels, damage) = read_all(&path);
        assert_eq!(damage, None);
        assert_eq!(messages.len(), 500);
        assert!(messages.windows(2).all(|w| w[0].log_time < w[1].log_time));
        assert_eq!(channels.len(), 2);
        assert_eq!(channels[0].schema, "SensorData");
        assert_eq!(channels[1].topic, "lower.BallPercept");
    }

    #[test]
    fn a_file_cut_anywhere_reads_a_prefix_and_names_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let whole = sample(400);
        let (all, _, _) = read_all(&write(dir.path(), "whole.mcap", &whole));
        for cut in (9..whole.len()).step_by(97).chain([whole.len() - 1]) {
            let path = write(dir.path(), "cut.mcap", &whole[..cut]);
            let (messages, _, damage) = read_all(&path);
            let damage = damage.unwrap_or_else(|| panic!("cut at {cut} read as complete"));
            assert!(damage.offset <= cut as u64, "cut {cut}: {damage}");
            assert_eq!(damage.length, cut as u64);
            assert_eq!(
                messages[..],
                all[..messages.len()],
                "cut {cut}: not a prefix"
            );
            assert_eq!(damage.messages, messages.len() as u64);
            assert_eq!(damage.last_log_time, messages.last().map(|m| m.log_time));
            assert!(damage
                .to_string()
                .contains(&format!("byte {}", damage.offset)));
        }
    }

    #[test]
    fn an_unfinished_chunk_of_a_killed_writer_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = sample(50);
        // What a killed writer leaves: the file up to a chunk's start, then the chunk opcode
        // with the placeholder length u64::MAX and some of its bytes.
        let (_, _, _) = read_all(&write(dir.path(), "w.mcap", &bytes));
        let data_end = bytes.len() / 2;
        bytes.truncate(data_end);
        let mut reader = McapReader::open(&write(dir.path(), "x.mcap", &bytes)).unwrap();
        let mut boundary = 8;
        while let Ok(Some(_)) = reader.next_entry() {
            boundary = reader.offset();
        }
        bytes.truncate(boundary as usize);
        bytes.push(op::CHUNK);
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        bytes.extend_from_slice(&[7; 300]);
        let (_, _, damage) = read_all(&write(dir.path(), "killed.mcap", &bytes));
        let damage = damage.unwrap();
        assert_eq!(damage.offset, boundary);
        assert!(damage.what.contains("u64::MAX"), "{damage}");
    }

    #[test]
    fn flipped_bytes_stop_the_reading_at_their_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let whole = sample(400);
        let (all, _, _) = read_all(&write(dir.path(), "whole.mcap", &whole));
        let mut bad = whole.clone();
        let middle = bad.len() / 2;
        for byte in &mut bad[middle..middle + 16] {
            *byte ^= 0x5a;
        }
        let (messages, _, damage) = read_all(&write(dir.path(), "bad.mcap", &bad));
        let damage = damage.expect("flipped bytes were not noticed");
        assert!(damage.offset <= middle as u64 + 16, "{damage}");
        assert!(messages.len() < all.len());
        assert_eq!(messages[..], all[..messages.len()]);
    }

    #[test]
    fn a_byte_flipped_anywhere_never_panics_and_never_changes_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let whole = sample(300);
        let (all, _, _) = read_all(&write(dir.path(), "whole.mcap", &whole));
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..300 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut bad = whole.clone();
            let at = (state % bad.len() as u64) as usize;
            bad[at] ^= 1 << (state >> 61);
            let (messages, _, damage) = read_all(&write(dir.path(), "flip.mcap", &bad));
            assert_eq!(messages[..], all[..messages.len()], "flip at {at}");
            assert!(
                damage.is_some() || messages.len() == all.len(),
                "flip at {at}"
            );
        }
    }

    #[test]
    fn not_mcap_and_missing_files_are_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let text = write(dir.path(), "a.txt", b"hello, this is not a recording");
        let error = McapReader::open(&text).unwrap_err().to_string();
        assert!(
            error.contains("not an MCAP file") && error.contains("68 65 6c"),
            "{error}"
        );
        let empty = write(dir.path(), "empty.mcap", b"");
        let error = McapReader::open(&empty).unwrap_err().to_string();
        assert!(error.contains("0 bytes long"), "{error}");
        let error = McapReader::open(&dir.path().join("missing.mcap"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("missing.mcap") && error.contains("No such file"),
            "{error}"
        );
        let error = McapReader::open(dir.path()).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
        // The magic and then garbage: an MCAP file damaged at byte 8.
        let mut garbage = mcap::MAGIC.to_vec();
        garbage.extend_from_slice(&[0xff; 40]);
        let (_, _, damage) = read_all(&write(dir.path(), "g.mcap", &garbage));
        assert_eq!(damage.unwrap().offset, 8);
    }
}
