//! Sound output benchmark: how long `SoundPlayer::submit` takes while the playback thread
//! streams to a busy sink (and, side by side, a standard channel's `try_send`), and the CPU
//! the player uses for one second of audio with different sinks and chunk lengths.
//!
//! `cargo bench -p audio --bench sound_output`

use audio::output::{
    Delivery, Pacing, PlayRequest, PlayerParameters, RecordingSink, SinkError, SinkFormat,
    SoundLibrary, SoundPlayer, SoundSink,
};
use rustix::time::{clock_gettime, ClockId};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Plays nothing: sleeps `sleep` per write (a device busy with its buffer), or blocks on a
/// gate that never opens.
struct BusySink {
    format: SinkFormat,
    sleep: Option<Duration>,
    gate: Arc<(Mutex<bool>, Condvar)>,
    checksum: f64,
}

impl SoundSink for BusySink {
    fn format(&self) -> SinkFormat {
        self.format
    }

    fn write(&mut self, samples: &[f32]) -> Result<(), SinkError> {
        match self.sleep {
            Some(sleep) => std::thread::sleep(sleep),
            None => {
                let mut open = self.gate.0.lock().unwrap();
                while !*open {
                    open = self.gate.1.wait(open).unwrap();
                }
            }
        }
        self.checksum += samples.iter().map(|&value| f64::from(value)).sum::<f64>();
        Ok(())
    }
}

/// Throws samples away (summing them, so nothing is optimised out).
struct DiscardSink {
    format: SinkFormat,
    checksum: f64,
}

impl SoundSink for DiscardSink {
    fn format(&self) -> SinkFormat {
        self.format
    }

    fn write(&mut self, samples: &[f32]) -> Result<(), SinkError> {
        self.checksum += samples.iter().map(|&value| f64::from(value)).sum::<f64>();
        Ok(())
    }
}

const MONO_16K: SinkFormat = SinkFormat {
    sample_rate_hz: 16_000,
    channels: 1,
};

fn write_tone(path: &Path, seconds: f64) {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 16_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    for index in 0..(16_000.0 * seconds) as usize {
        let phase = index as f64 * 440.0 / 16_000.0 * std::f64::consts::TAU;
        writer
            .write_sample((phase.sin() * 12_000.0) as i16)
            .unwrap();
    }
    writer.finalize().unwrap();
}

struct Latencies {
    name: String,
    nanoseconds: Vec<u64>,
}

impl Latencies {
    fn row(&mut self) -> String {
        self.nanoseconds.sort_unstable();
        let at = |fraction: f64| {
            let index = ((self.nanoseconds.len() - 1) as f64 * fraction).round() as usize;
            self.nanoseconds[index]
        };
        format!(
            "| {:<66} | {:>7} | {:>7} | {:>7} | {:>9} |",
            self.name,
            at(0.5),
            at(0.99),
            at(0.999),
            self.nanoseconds.last().copied().unwrap_or(0)
        )
    }
}

const SUBMITS: usize = 20_000;
const SPACING: Duration = Duration::from_micros(50);

/// `submit` called every `SPACING` (a busy-wait, like ticks in a hurry) `SUBMITS` times.
fn time_submits(mut submit: impl FnMut(usize)) -> Vec<u64> {
    let mut nanoseconds = Vec::with_capacity(SUBMITS);
    let mut next = Instant::now();
    for index in 0..SUBMITS {
        while Instant::now() < next {
            std::hint::spin_loop();
        }
        next += SPACING;
        let start = Instant::now();
        submit(index);
        nanoseconds.push(start.elapsed().as_nanos() as u64);
    }
    nanoseconds
}

fn submit_latency(folder: &Path) -> Vec<Latencies> {
    // One 10 ms chunk per sound: the playback thread takes a request from the queue every
    // millisecond, so submits meet it at the lock.
    write_tone(&folder.join("blip.wav"), 0.01);
    let library = SoundLibrary::new(vec![folder.to_owned()], Duration::from_secs(60));
    let mut rows = Vec::new();
    let cases: [(&str, Delivery, Option<Duration>); 3] = [
        (
            "submit(Queue), sink sleeping 1 ms per write",
            Delivery::Queue,
            Some(Duration::from_millis(1)),
        ),
        (
            "submit(Interrupt), sink sleeping 1 ms per write",
            Delivery::Interrupt,
            Some(Duration::from_millis(1)),
        ),
        (
            "submit(Queue), sink blocked (queue full: drop oldest)",
            Delivery::Queue,
            None,
        ),
    ];
    for (name, delivery, sleep) in cases {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let sink = BusySink {
            format: MONO_16K,
            sleep,
            gate: Arc::clone(&gate),
            checksum: 0.0,
        };
        let parameters = PlayerParameters {
            stop_timeout: Duration::from_secs(5),
            ..PlayerParameters::default()
        };
        let player = SoundPlayer::spawn(library.clone(), None, Box::new(sink), parameters).unwrap();
        let nanoseconds = time_submits(|_| {
            player.submit(PlayRequest::play("blip", delivery));
        });
        let played = player.status().played_total;
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        player.stop().unwrap();
        rows.push(Latencies {
            name: format!("{name} ({played} played)"),
            nanoseconds,
        });
    }
    // The alternative: a bounded standard channel, a consumer taking one message per ms. It
    // cannot drop the oldest (a full channel refuses the newest).
    let (sender, receiver) = std::sync::mpsc::sync_channel::<PlayRequest>(8);
    let consumer = std::thread::spawn(move || {
        let mut taken = 0u64;
        while receiver.recv().is_ok() {
            taken += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        taken
    });
    let nanoseconds = time_submits(|_| {
        let _ = sender.try_send(PlayRequest::play("blip", Delivery::Queue));
    });
    drop(sender);
    let taken = consumer.join().unwrap();
    rows.push(Latencies {
        name: format!("mpsc::sync_channel(8).try_send, 1 ms consumer ({taken} taken)"),
        nanoseconds,
    });
    // The first design: always lock the queue (waits whenever the consumer was preempted
    // while holding the lock).
    let queue = Arc::new(Mutex::new(std::collections::VecDeque::<PlayRequest>::new()));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let consumer = {
        let queue = Arc::clone(&queue);
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut taken = 0u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if queue.lock().unwrap().pop_front().is_some() {
                    taken += 1;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            taken
        })
    };
    let nanoseconds = time_submits(|_| {
        let mut queue = queue.lock().unwrap();
        if queue.len() >= 8 {
            queue.pop_front();
        }
        queue.push_back(PlayRequest::play("blip", Delivery::Queue));
    });
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let taken = consumer.join().unwrap();
    rows.push(Latencies {
        name: format!("Mutex<VecDeque>::lock + push, 1 ms consumer ({taken} taken)"),
        nanoseconds,
    });
    rows
}

fn process_cpu() -> Duration {
    let time = clock_gettime(ClockId::ProcessCPUTime);
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

/// CPU per second of audio: `seconds` of a 16 kHz mono file streamed as fast as the sink takes.
fn cpu_per_audio_second(
    folder: &Path,
    seconds: f64,
    sink: Box<dyn SoundSink>,
    chunk: Duration,
) -> f64 {
    let library = SoundLibrary::new(vec![folder.to_owned()], Duration::from_secs(600));
    let parameters = PlayerParameters {
        chunk_duration: chunk,
        ..PlayerParameters::default()
    };
    let player = SoundPlayer::spawn(library, None, sink, parameters).unwrap();
    let before = process_cpu();
    player.submit(PlayRequest::play("long", Delivery::Queue));
    while player.status().played_total == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let used = process_cpu() - before;
    player.stop().unwrap();
    used.as_secs_f64() * 1000.0 / seconds
}

fn main() {
    let folder = tempfile::tempdir().unwrap();
    println!("## submit() latency, {SUBMITS} calls one every {SPACING:?} while the player streams (ns)\n");
    println!(
        "| {:<66} | {:>7} | {:>7} | {:>7} | {:>9} |",
        "case", "p50", "p99", "p99.9", "max"
    );
    println!("|{:-<68}|{:-<9}|{:-<9}|{:-<9}|{:-<11}|", "", "", "", "", "");
    for mut row in submit_latency(folder.path()) {
        println!("{}", row.row());
    }

    let seconds = 60.0;
    write_tone(&folder.path().join("long.wav"), seconds);
    println!("\n## CPU per second of audio ({seconds} s of a 16 kHz mono WAV, streamed unpaced)\n");
    println!("| {:<58} | {:>13} |", "sink", "CPU ms per s");
    println!("|{:-<60}|{:-<15}|", "", "");
    let stereo_48k = SinkFormat {
        sample_rate_hz: 48_000,
        channels: 2,
    };
    let ten_ms = Duration::from_millis(10);
    let cases: Vec<(&str, Box<dyn SoundSink>, Duration)> = vec![
        (
            "discard, 16 kHz mono (streaming only), 10 ms chunks",
            Box::new(DiscardSink {
                format: MONO_16K,
                checksum: 0.0,
            }),
            ten_ms,
        ),
        (
            "discard, 48 kHz stereo (robot format: resampling), 10 ms",
            Box::new(DiscardSink {
                format: stereo_48k,
                checksum: 0.0,
            }),
            ten_ms,
        ),
        (
            "recording played.wav, 16 kHz mono, 10 ms chunks",
            Box::new(
                RecordingSink::open(&folder.path().join("run10"), MONO_16K, Pacing::Immediate)
                    .unwrap(),
            ),
            ten_ms,
        ),
        (
            "recording played.wav, 16 kHz mono, 50 ms chunks",
            Box::new(
                RecordingSink::open(&folder.path().join("run50"), MONO_16K, Pacing::Immediate)
                    .unwrap(),
            ),
            Duration::from_millis(50),
        ),
    ];
    for (name, sink, chunk) in cases {
        let per_second = cpu_per_audio_second(folder.path(), seconds, sink, chunk);
        println!("| {name:<58} | {per_second:>13.2} |");
    }
}
