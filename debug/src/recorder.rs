//! The recorder: chosen representations written to MCAP files (Foxglove's format, read by
//! Python's `mcap` package and the `mcap` crate) from the same seqlock readers the debug link
//! uses ([`ChannelSource`]). One MCAP channel per representation, schema = the representation's
//! type name (encoding `msgpack`, the channel's own bytes), log time = the moment the recorder
//! saw the value (`CLOCK_REALTIME` ns; the channels carry no publish stamp), publish time = the
//! same moment on the robot's `CLOCK_MONOTONIC` (the clock the representations' own stamps use,
//! which `cortex replay` gives the replayed modules as "now"), sequence = the channel's publish
//! count, so a gap in `sequence` is a value the recorder missed.
//!
//! Written in zstd chunks closed every [`RecorderParameters::chunk_ms`] or
//! [`RecorderParameters::chunk_kib`], each flushed to the file: a robot that loses power leaves
//! a file readable up to its last whole chunk. Files rotate at [`RecorderParameters::rotate_kib`]
//! and the oldest `*.mcap` of the folder are deleted beyond [`RecorderParameters::budget_kib`].
//! A channel's watch lease is renewed only while it is recorded.
//!
//! The recording thread sleeps until a recorded channel publishes (one [`ipc::wait_any`] on every
//! channel's futex word) and reads each value as it comes; it counts the values it still missed
//! (published twice while it was not scheduled). An error writing (a full disk) ends the
//! recording with the file finished as far as it can be; [`Recorder::stop`] returns what was
//! written together with that error.

use crate::sources::{ChannelKind, ChannelSource};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The recorder's configuration (`Recorder.toml`): what to record and how much disk to use.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RecorderParameters {
    /// The channels recorded (`SensorData`, `upper.BallPercept`); empty: every typed channel.
    pub channels: Vec<String>,
    /// A chunk is closed (and flushed to the file) after this many ms...
    pub chunk_ms: u32,
    /// ...or once it holds this many KiB uncompressed.
    pub chunk_kib: u32,
    /// A file is finished and a new one begun at this size.
    pub rotate_kib: u32,
    /// The oldest recordings of the folder are deleted beyond this total.
    pub budget_kib: u32,
    /// 0 (the default): the recorder sleeps until a recorded channel publishes and reads every
    /// value as it comes. Otherwise it looks at the channels every `poll_ms` (a value published
    /// and replaced within one poll is missed, and counted): the old way, kept for the
    /// `recording_cost` bench's comparison.
    pub poll_ms: u32,
    /// Camera images per second and camera, as JPEG (channel `upper.CameraImage.jpeg`, a msgpack
    /// map `{format: "jpeg", width, height, data}`); 0: no images (the default).
    pub images_hz: f32,
    /// The JPEG quality of recorded images.
    pub image_quality: u8,
    /// Recording during games without `cortex record start`: the supervisor starts a recorder
    /// that begins a file when the GameController's state enters the chosen states and finishes
    /// it when the game leaves them (`Finished`, `Initial`): one file per half or period.
    pub auto: AutoRecord,
    /// The folder of the recordings: empty for `<run dir>/recordings`; a relative path is
    /// relative to the folder that holds the configuration root (on a robot the deployed folder,
    /// `/home/nao/cortex`, so `"recordings"` is `/home/nao/cortex/recordings`).
    pub folder: String,
}

impl Default for RecorderParameters {
    fn default() -> Self {
        RecorderParameters {
            channels: Vec::new(),
            chunk_ms: 1000,
            chunk_kib: 1024,
            rotate_kib: 256 * 1024,
            budget_kib: 4096 * 1024,
            poll_ms: 0,
            images_hz: 0.0,
            image_quality: 60,
            folder: String::new(),
            auto: AutoRecord::Off,
        }
    }
}

impl config::Validate for RecorderParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range("chunk_ms", self.chunk_ms, 10..=60_000)?;
        config::in_range("chunk_kib", self.chunk_kib, 4..=65_536)?;
        config::in_range("rotate_kib", self.rotate_kib, 64..=64 * 1024 * 1024)?;
        config::in_range("budget_kib", self.budget_kib, 64..=1024 * 1024 * 1024)?;
        config::in_range("poll_ms", self.poll_ms, 0..=1000)?;
        if !(self.images_hz.is_finite() && (0.0..=30.0).contains(&self.images_hz)) {
            return Err(config::Invalid::new(
                "images_hz",
                format!("{} is outside 0 ..= 30", self.images_hz),
            ));
        }
        config::in_range("image_quality", self.image_quality, 1..=100)?;
        if self.budget_kib < self.rotate_kib {
            return Err(config::Invalid::new(
                "budget_kib",
                format!(
                    "{} is below rotate_kib ({}): one file would not fit",
                    self.budget_kib, self.rotate_kib
                ),
            ));
        }
        if self.folder.chars().any(char::is_control) {
            return Err(config::Invalid::new(
                "folder",
                format!("{:?} is not a folder name", self.folder),
            ));
        }
        for (index, name) in self.channels.iter().enumerate() {
            if name.is_empty() || name.chars().any(|c| c.is_control() || c == '/') {
                return Err(config::Invalid::new(
                    format!("channels[{index}]"),
                    format!("{name:?} is not a channel name"),
                ));
            }
        }
        Ok(())
    }
}

/// When the recorder records by itself ([`RecorderParameters::auto`]).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AutoRecord {
    /// Only `cortex record start` records (the default).
    #[default]
    Off,
    /// From the first `Playing` of a half (the kick-off) until `Finished` or `Initial`; the
    /// `Ready` and `Set` after a goal stay in the same file.
    Playing,
    /// From `Ready` (or `Set`, `Playing`) until `Finished` or `Initial`: the walk-in too.
    Ready,
}

impl AutoRecord {
    /// The name in Recorder.toml.
    pub fn name(self) -> &'static str {
        match self {
            AutoRecord::Off => "off",
            AutoRecord::Playing => "playing",
            AutoRecord::Ready => "ready",
        }
    }
}

/// What can go wrong starting or finishing a recording.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// A configured channel does not exist.
    #[error("no channel `{name}` to record; the channels are: {known}")]
    UnknownChannel {
        /// The name asked for.
        name: String,
        /// Every channel there is.
        known: String,
    },
    /// The recordings folder or a file in it.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The MCAP writer (with the cause under it: "No space left on device").
    #[error("{path}: writing MCAP: {}", causes(source))]
    Mcap {
        /// The file.
        path: PathBuf,
        /// Why.
        source: mcap::McapError,
    },
    /// The recorder's thread panicked.
    #[error("the recorder's thread ended abnormally")]
    Thread,
}

/// An error and the errors under it, `: `-separated.
fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut under = error.source();
    while let Some(cause) = under {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        under = cause.source();
    }
    text
}

/// One `Metadata` record: a name and its string pairs.
pub type MetadataRecord = (String, BTreeMap<String, String>);

/// What a recording wrote.
#[derive(Debug, Clone, Default)]
pub struct RecordSummary {
    /// The files written, oldest first (those deleted for the budget left out).
    pub files: Vec<PathBuf>,
    /// Messages written per channel.
    pub messages: BTreeMap<String, u64>,
    /// Values published that the recorder did not see, per channel.
    pub missed: BTreeMap<String, u64>,
    /// Files deleted to stay within the budget.
    pub deleted: Vec<PathBuf>,
    /// Channels that could not be read, with how often and the last error (the recording went
    /// on without them).
    pub problems: BTreeMap<String, (u64, String)>,
}

/// A recording in progress on a thread of its own.
#[derive(Debug)]
pub struct Recorder {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(RecordSummary, Option<RecordError>)>,
    first: PathBuf,
}

impl Recorder {
    /// Starts recording `parameters.channels` of `channels` (only encoded channels; images are
    /// not recorded) into new files in `directory`, with `metadata` in each file.
    pub fn start(
        channels: Vec<ChannelSource>,
        parameters: RecorderParameters,
        directory: &Path,
        metadata: Vec<MetadataRecord>,
    ) -> Result<Recorder, RecordError> {
        let chosen = choose(channels, &parameters.channels, parameters.images_hz > 0.0)?;
        std::fs::create_dir_all(directory).map_err(|source| RecordError::Io {
            path: directory.to_owned(),
            source,
        })?;
        let mut writer = FileSet {
            directory: directory.to_owned(),
            parameters: parameters.clone(),
            metadata,
            names: chosen.iter().map(topic).collect(),
            types: chosen
                .iter()
                .map(|c| {
                    if c.is_image() {
                        "CameraImage.jpeg".to_owned()
                    } else {
                        c.representation.clone()
                    }
                })
                .collect(),
            index: 0,
            started_ms: now_realtime_ns() / 1_000_000,
            current: None,
            summary: RecordSummary::default(),
        };
        writer.open()?;
        let first = writer.summary.files[0].clone();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || record(chosen, writer, &flag))
            .map_err(|source| RecordError::Io {
                path: directory.to_owned(),
                source,
            })?;
        Ok(Recorder {
            stop,
            thread,
            first,
        })
    }

    /// The first file of this recording.
    pub fn first_file(&self) -> &Path {
        &self.first
    }

    /// Whether the thread ended on its own (an error writing).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops, finishes the file being written and says what was written, and the error that
    /// ended the recording early if one did (a full disk, a folder that went away): the files
    /// written before it are in the summary all the same.
    pub fn stop(self) -> (RecordSummary, Option<RecordError>) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .unwrap_or_else(|_| (RecordSummary::default(), Some(RecordError::Thread)))
    }
}

/// The encoded channels named (all of them for an empty list), or the first unknown name.
fn choose(
    channels: Vec<ChannelSource>,
    names: &[String],
    images: bool,
) -> Result<Vec<ChannelSource>, RecordError> {
    let known = channels
        .iter()
        .filter(|c| !c.is_image())
        .map(|c| c.name.clone())
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(missing) = names
        .iter()
        .find(|name| !known.split(", ").any(|k| k == *name))
    {
        return Err(RecordError::UnknownChannel {
            name: missing.clone(),
            known,
        });
    }
    Ok(channels
        .into_iter()
        .filter(|c| match c.kind {
            ChannelKind::Encoded(_) => names.is_empty() || names.contains(&c.name),
            ChannelKind::Image(_) => images,
        })
        .collect())
}

/// The MCAP topic of a channel: its name, `.jpeg` for a camera's images.
fn topic(channel: &ChannelSource) -> String {
    if channel.is_image() {
        format!("{}.jpeg", channel.name.trim_end_matches(".pixels"))
    } else {
        channel.name.clone()
    }
}

/// A camera's next image as the msgpack map the recorder writes, or `None` without one.
fn image_message(layout: &crate::sources::ImageLayout, quality: u8) -> Option<Vec<u8>> {
    let current = layout.source.current().ok()?;
    let mut reader = current.buffer().reader();
    let mut bytes = Vec::new();
    reader.read_latest(&mut bytes).ok()??;
    let view = (layout.yuyv)(&bytes).ok()?;
    let jpeg = crate::jpeg::encode_yuyv(&view, quality, &mut Vec::new()).ok()?;
    #[derive(serde::Serialize)]
    struct Compressed<'a> {
        format: &'a str,
        width: usize,
        height: usize,
        #[serde(with = "serde_bytes_shim")]
        data: &'a [u8],
    }
    rmp_serde::to_vec_named(&Compressed {
        format: "jpeg",
        width: view.width,
        height: view.height,
        data: &jpeg,
    })
    .ok()
}

/// Serialises a byte slice as msgpack `bin` (not an array of numbers).
mod serde_bytes_shim {
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }
}

/// Wall-clock time in ns since the Unix epoch (MCAP's convention for log time).
fn now_realtime_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}

/// A file and the count of bytes written to it.
struct Counting {
    file: BufWriter<File>,
    written: Arc<std::sync::atomic::AtomicU64>,
}

impl Write for Counting {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.file.write(bytes)?;
        self.written.fetch_add(written as u64, Ordering::Relaxed);
        Ok(written)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Seek for Counting {
    fn seek(&mut self, position: SeekFrom) -> std::io::Result<u64> {
        self.file.seek(position)
    }
}

/// The file being written, with each channel's id in it.
struct Current {
    path: PathBuf,
    writer: mcap::Writer<Counting>,
    ids: Vec<u16>,
    written: Arc<std::sync::atomic::AtomicU64>,
}

/// The files of one recording: rotation and the disk budget.
struct FileSet {
    directory: PathBuf,
    parameters: RecorderParameters,
    metadata: Vec<MetadataRecord>,
    names: Vec<String>,
    types: Vec<String>,
    index: u32,
    started_ms: u64,
    current: Option<Current>,
    summary: RecordSummary,
}

impl FileSet {
    fn mcap_error(&self, path: &Path) -> impl Fn(mcap::McapError) -> RecordError {
        let path = path.to_owned();
        move |source| RecordError::Mcap {
            path: path.clone(),
            source,
        }
    }

    /// Begins the next file: header, schemas, channels, metadata.
    fn open(&mut self) -> Result<(), RecordError> {
        let path = self
            .directory
            .join(format!("cortex-{}-{:03}.mcap", self.started_ms, self.index));
        self.index += 1;
        let file = File::create(&path).map_err(|source| RecordError::Io {
            path: path.clone(),
            source,
        })?;
        let error = self.mcap_error(&path);
        let options = mcap::WriteOptions::new()
            .profile("cortex")
            .compression(Some(mcap::Compression::Zstd))
            .chunk_size(Some(u64::from(self.parameters.chunk_kib) * 1024));
        let written = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut writer = options
            .create(Counting {
                file: BufWriter::new(file),
                written: written.clone(),
            })
            .map_err(&error)?;
        let mut ids = Vec::new();
        for (name, representation) in self.names.iter().zip(&self.types) {
            let description = format!(
                "Cortex representation `{representation}`: a msgpack map of its fields by name \
                 (rmp-serde), as `cortex get {name} --json` shows it"
            );
            let schema = writer
                .add_schema(representation, "", description.as_bytes())
                .map_err(&error)?;
            let metadata = BTreeMap::from([("representation".to_owned(), representation.clone())]);
            ids.push(
                writer
                    .add_channel(schema, name, "msgpack", &metadata)
                    .map_err(&error)?,
            );
        }
        for (name, pairs) in &self.metadata {
            writer
                .write_metadata(&mcap::records::Metadata {
                    name: name.clone(),
                    metadata: pairs.clone(),
                })
                .map_err(&error)?;
        }
        writer.flush().map_err(&error)?;
        self.summary.files.push(path.clone());
        self.current = Some(Current {
            path,
            writer,
            ids,
            written,
        });
        self.enforce_budget()
    }

    /// Finishes the file being written (summary and footer).
    fn close(&mut self) -> Result<(), RecordError> {
        if let Some(mut current) = self.current.take() {
            let error = self.mcap_error(&current.path);
            current.writer.finish().map_err(&error)?;
            let mut inner = current.writer.into_inner();
            inner.flush().map_err(|source| RecordError::Io {
                path: current.path.clone(),
                source,
            })?;
        }
        Ok(())
    }

    /// Deletes the oldest recordings of the folder until the total fits the budget.
    fn enforce_budget(&mut self) -> Result<(), RecordError> {
        let budget = u64::from(self.parameters.budget_kib) * 1024;
        let listing = std::fs::read_dir(&self.directory).map_err(|source| RecordError::Io {
            path: self.directory.clone(),
            source,
        })?;
        let mut files: Vec<(PathBuf, u64)> = listing
            .filter_map(Result::ok)
            .filter(|entry| entry.path().extension().is_some_and(|e| e == "mcap"))
            .filter_map(|entry| Some((entry.path(), entry.metadata().ok()?.len())))
            .collect();
        files.sort();
        let current = self.current.as_ref().map(|c| c.path.clone());
        // The file being written counts at the size it will reach.
        let mut total: u64 = files
            .iter()
            .map(|(path, size)| {
                if Some(path) == current.as_ref() {
                    u64::from(self.parameters.rotate_kib) * 1024
                } else {
                    *size
                }
            })
            .sum();
        for (path, size) in files {
            if total <= budget {
                break;
            }
            if Some(&path) == current.as_ref() {
                continue;
            }
            std::fs::remove_file(&path).map_err(|source| RecordError::Io {
                path: path.clone(),
                source,
            })?;
            tracing::info!("recorder: deleted {} for the disk budget", path.display());
            total -= size;
            self.summary.files.retain(|file| *file != path);
            self.summary.deleted.push(path);
        }
        Ok(())
    }

    /// Writes one message; rotates first when the file is full.
    fn write(&mut self, channel: usize, sequence: u64, bytes: &[u8]) -> Result<(), RecordError> {
        let rotate = u64::from(self.parameters.rotate_kib) * 1024;
        if self
            .current
            .as_ref()
            .is_some_and(|c| c.writer_bytes() >= rotate)
        {
            self.close()?;
            self.open()?;
        }
        let Some(current) = self.current.as_mut() else {
            return Ok(());
        };
        let header = mcap::records::MessageHeader {
            channel_id: current.ids[channel],
            sequence: sequence as u32,
            log_time: now_realtime_ns(),
            // The robot's monotonic clock: replay's "now" (`framework::clock`).
            publish_time: ipc::health::monotonic_ns(),
        };
        let path = current.path.clone();
        current
            .writer
            .write_to_known_channel(&header, bytes)
            .map_err(|source| RecordError::Mcap { path, source })?;
        *self
            .summary
            .messages
            .entry(self.names[channel].clone())
            .or_default() += 1;
        Ok(())
    }

    /// Closes the open chunk and pushes it to the file.
    fn flush(&mut self) -> Result<(), RecordError> {
        if let Some(current) = self.current.as_mut() {
            let path = current.path.clone();
            current
                .writer
                .flush()
                .map_err(|source| RecordError::Mcap { path, source })?;
        }
        Ok(())
    }
}

impl Current {
    /// Bytes written to the file so far (the open chunk not included).
    fn writer_bytes(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

/// How long a lease on a channel lasts; renewed at half of it.
const LEASE_NS: u64 = 1_000_000_000;

/// The recorder's loop: sleeps until a recorded channel publishes (one `futex_waitv` on every
/// channel's word, [`ipc::wait_any`]: each publish wakes it, nothing is polled), reads what is
/// new, writes it; renews the leases, closes chunks and takes images between publishes.
fn record(
    channels: Vec<ChannelSource>,
    mut files: FileSet,
    stop: &AtomicBool,
) -> (RecordSummary, Option<RecordError>) {
    let result = record_until_stopped(&channels, &mut files, stop);
    // Whatever happened, the file gets its summary and footer if it can.
    let closed = files.close();
    let error = result.err().or(closed.err());
    (files.summary, error)
}

fn record_until_stopped(
    channels: &[ChannelSource],
    files: &mut FileSet,
    stop: &AtomicBool,
) -> Result<(), RecordError> {
    let mut last_count = vec![0u64; channels.len()];
    let mut lease_until = vec![0u64; channels.len()];
    let chunk_every = Duration::from_millis(u64::from(files.parameters.chunk_ms));
    let mut last_flush = Instant::now();
    let mut bytes = Vec::new();
    let image_every = (files.parameters.images_hz > 0.0)
        .then(|| Duration::from_secs_f32(1.0 / files.parameters.images_hz));
    let mut last_image: Vec<Option<Instant>> = vec![None; channels.len()];
    let mut image_count = vec![0u64; channels.len()];
    // One reader per encoded channel, kept for the whole recording (the wait sleeps on them).
    let mut readers: Vec<Option<ipc::Reader<'_>>> = channels
        .iter()
        .map(|channel| match &channel.kind {
            ChannelKind::Encoded(buffer) => Some(buffer.buffer().reader()),
            ChannelKind::Image(_) => None,
        })
        .collect();
    let waits_on_publishes = files.parameters.poll_ms == 0;
    let poll = Duration::from_millis(u64::from(files.parameters.poll_ms.max(1)));
    while !stop.load(Ordering::Relaxed) {
        let now_ns = ipc::health::monotonic_ns();
        for (index, channel) in channels.iter().enumerate() {
            let Some(reader) = readers[index].as_mut() else {
                let ChannelKind::Image(layout) = &channel.kind else {
                    continue;
                };
                let Some(every) = image_every else {
                    continue;
                };
                // The camera publishes its pixels only while watched: the lease is kept
                // between the images.
                if lease_until[index] < now_ns + LEASE_NS / 2 {
                    if let Ok(current) = layout.source.current() {
                        lease_until[index] = now_ns + LEASE_NS;
                        current.buffer().reader().watch(lease_until[index]);
                    }
                }
                if last_image[index].is_some_and(|at| at.elapsed() < every) {
                    continue;
                }
                last_image[index] = Some(Instant::now());
                let quality = files.parameters.image_quality;
                if let Some(message) = image_message(layout, quality) {
                    image_count[index] += 1;
                    files.write(index, image_count[index], &message)?;
                }
                continue;
            };
            if lease_until[index] < now_ns + LEASE_NS / 2 {
                lease_until[index] = now_ns + LEASE_NS;
                reader.watch(lease_until[index]);
            }
            if reader.published() == last_count[index] {
                continue;
            }
            match reader.read_latest(&mut bytes) {
                Ok(Some(count)) if count != last_count[index] => {
                    if last_count[index] != 0 && count > last_count[index] + 1 {
                        *files
                            .summary
                            .missed
                            .entry(channel.name.clone())
                            .or_default() += count - last_count[index] - 1;
                    }
                    last_count[index] = count;
                    files.write(index, count, &bytes)?;
                }
                Ok(_) => {}
                Err(error) => {
                    // Counted, and told by `cortex record stop`; the recording goes on.
                    let problem = files.summary.problems.entry(channel.name.clone());
                    let (count, last) = problem.or_insert((0, String::new()));
                    *count += 1;
                    *last = error.to_string();
                    tracing::debug!("recorder: reading {}: {error}", channel.name);
                }
            }
        }
        if last_flush.elapsed() >= chunk_every {
            files.flush()?;
            last_flush = Instant::now();
        }
        // Until the next chunk, image or lease renewal at the latest.
        let mut timeout = chunk_every.saturating_sub(last_flush.elapsed());
        timeout = timeout.min(Duration::from_nanos(LEASE_NS / 4));
        if let Some(every) = image_every {
            timeout = timeout.min(every / 2);
        }
        if !waits_on_publishes {
            std::thread::sleep(poll);
            continue;
        }
        let waiting = readers
            .iter()
            .zip(&last_count)
            .filter_map(|(reader, seen)| reader.as_ref().map(|reader| (reader, *seen)));
        if let Err(error) =
            ipc::wait_any(waiting, timeout.max(Duration::from_millis(1)), Some(stop))
        {
            tracing::debug!("recorder: waiting for publishes: {error}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    Ok(())
}
