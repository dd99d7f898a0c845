//! Whistle detector benchmark: CPU time per second of 4-channel 48 kHz audio for the shipped
//! configuration and its alternatives side by side, and the detection delay from whistle onset.
//!
//! `cargo bench -p audio --bench whistle` (set `CORTEX_DATA_DIR` for the real recordings).

use audio::synthesis::{load_mono, pink_noise, rms, scale_db, tone_with_vibrato, white_noise};
use audio::{
    AudioFrames, AudioSource, ChannelMode, MemorySource, WhistleDetectorParameters, WhistlePipeline,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RATE: u32 = 48_000;
const CHANNELS: usize = 4;

/// CPU time this thread has used (Linux: /proc/thread-self/schedstat), if readable.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanoseconds))
}

/// 4 channels: pink noise per microphone, a whistle every 5 s arriving with small delays.
fn four_channel_sound(seconds: f64) -> Vec<f32> {
    let frames = (seconds * f64::from(RATE)) as usize;
    let mut channels: Vec<Vec<f32>> = (0..CHANNELS)
        .map(|channel| pink_noise(0.02, RATE, seconds, 100 + channel as u64))
        .collect();
    let whistle = tone_with_vibrato(3100.0, 30.0, 60.0, 0.1, RATE, 0.6);
    let mut start = RATE as usize;
    while start + whistle.len() + 8 < frames {
        for (channel, samples) in channels.iter_mut().enumerate() {
            let delay = channel * 2;
            for (index, value) in whistle.iter().enumerate() {
                samples[start + delay + index] += value;
            }
        }
        start += 5 * RATE as usize;
    }
    (0..frames)
        .flat_map(|frame| {
            channels
                .iter()
                .map(move |samples| samples[frame])
                .collect::<Vec<_>>()
        })
        .collect()
}

struct Variant {
    name: &'static str,
    parameters: WhistleDetectorParameters,
}

fn variants() -> Vec<Variant> {
    let shipped = WhistleDetectorParameters::default();
    let with =
        |fft_size: usize, hop_size: usize, channel_mode: ChannelMode| WhistleDetectorParameters {
            fft_size,
            hop_size,
            channel_mode,
            ..shipped.clone()
        };
    vec![
        Variant {
            name: "shipped (1024/512, average)",
            parameters: shipped.clone(),
        },
        Variant {
            name: "1024/512, mix",
            parameters: with(1024, 512, ChannelMode::Mix),
        },
        Variant {
            name: "2048/1024, average",
            parameters: with(2048, 1024, ChannelMode::AverageSpectra),
        },
        Variant {
            name: "2048/1024, mix",
            parameters: with(2048, 1024, ChannelMode::Mix),
        },
        Variant {
            name: "1024/256, average",
            parameters: with(1024, 256, ChannelMode::AverageSpectra),
        },
        Variant {
            name: "512/256, average",
            parameters: with(512, 256, ChannelMode::AverageSpectra),
        },
    ]
}

/// Runs `samples` (interleaved, `channels`) through a pipeline in 2048-frame buffers; returns
/// the whistles as (recognised at, end of the buffer that carried the recognition).
fn run(
    parameters: &WhistleDetectorParameters,
    samples: &[f32],
    channels: u32,
) -> Vec<(Duration, Duration)> {
    let mut pipeline = WhistlePipeline::new(parameters);
    let mut source = MemorySource::new(samples.to_vec(), RATE, channels, 2048);
    let mut frames = AudioFrames::empty(RATE, channels);
    let mut whistles = Vec::new();
    while let Ok(true) = source.read(&mut frames) {
        let buffer_end = frames.timestamp() + frames.duration();
        pipeline.process(&frames, |time| whistles.push((time, buffer_end)));
    }
    whistles
}

fn cpu_table() {
    let seconds = 30.0;
    let sound = four_channel_sound(seconds);
    println!(
        "## CPU per second of 4-channel 48 kHz audio ({seconds} s of sound, 2048-frame buffers)"
    );
    println!();
    println!(
        "| variant | CPU ms per s of audio | % of one core | wall ms per s | whistles (of 6) |"
    );
    println!("|---|---:|---:|---:|---:|");
    for variant in variants() {
        // Warm up (plans, allocations), then the best of three runs.
        run(
            &variant.parameters,
            &sound[..RATE as usize * CHANNELS],
            CHANNELS as u32,
        );
        let mut best_cpu = f64::INFINITY;
        let mut best_wall = f64::INFINITY;
        let mut heard = 0;
        for _ in 0..3 {
            let cpu_start = thread_cpu_time();
            let wall_start = Instant::now();
            heard = run(&variant.parameters, &sound, CHANNELS as u32).len();
            let wall = wall_start.elapsed().as_secs_f64();
            let cpu = match (cpu_start, thread_cpu_time()) {
                (Some(start), Some(end)) => (end - start).as_secs_f64(),
                _ => wall,
            };
            best_cpu = best_cpu.min(cpu);
            best_wall = best_wall.min(wall);
        }
        let cpu_ms = best_cpu * 1000.0 / seconds;
        println!(
            "| {} | {cpu_ms:.2} | {:.2} % | {:.2} | {heard} |",
            variant.name,
            cpu_ms / 10.0,
            best_wall * 1000.0 / seconds
        );
    }
    println!();
}

fn whistle_data() -> Option<PathBuf> {
    let data = match std::env::var_os("CORTEX_DATA_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("../shared/data"),
    };
    let whistle = data.join("whistle");
    whistle.is_dir().then_some(whistle)
}

fn wav_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|path| path.extension().is_some_and(|ext| ext == "wav"));
    files.sort();
    files
}

fn percentile(values: &mut [f64], fraction: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * fraction).round() as usize]
}

/// Synthesised whistles with a known onset over backgrounds (the non-whistle recordings if
/// present, else noise): delay from onset to recognition, and to the end of the 2048-frame
/// buffer that carried it (what the robot waits for).
fn delay_table() {
    let backgrounds: Vec<(String, Vec<f32>)> = match whistle_data() {
        Some(data) => wav_files(&data.join("no"))
            .iter()
            .filter_map(|path| {
                let (samples, rate) = load_mono(path).ok()?;
                (rate.abs_diff(RATE) < 500).then(|| {
                    let name = path.file_stem()?.to_string_lossy().into_owned();
                    Some((name, samples))
                })?
            })
            .collect(),
        None => {
            println!("SKIPPED (in part): no whistle recordings, noise backgrounds only");
            Vec::new()
        }
    };
    let mut backgrounds = backgrounds;
    backgrounds.push(("white noise".into(), white_noise(0.05, RATE, 2.0, 9)));
    backgrounds.push(("pink noise".into(), pink_noise(0.05, RATE, 2.0, 10)));

    println!(
        "## Detection delay from a known whistle onset (synthesised whistle over backgrounds)"
    );
    println!();
    println!("| variant | tone SNR dB | heard | median delay ms | max delay ms | max incl. 2048-frame buffer ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    let onset_s = 0.7;
    for variant in variants() {
        for snr_db in [20.0f32, 10.0, 3.0] {
            let (mut heard, mut total) = (0, 0);
            let mut delays = Vec::new();
            let mut buffered = Vec::new();
            for (index, (_, background)) in backgrounds.iter().enumerate() {
                for frequency in [2500.0, 3000.0, 3600.0] {
                    total += 1;
                    let amplitude = 0.2;
                    let mut signal = vec![0.0; (onset_s * f64::from(RATE)) as usize];
                    signal.extend(tone_with_vibrato(
                        frequency,
                        20.0 + index as f64,
                        60.0,
                        amplitude,
                        RATE,
                        1.0,
                    ));
                    let mut noise = background.clone();
                    let tone_rms = amplitude / 2f32.sqrt();
                    let noise_rms = rms(&noise).max(1e-9);
                    scale_db(&mut noise, 20.0 * (tone_rms / noise_rms).log10() - snr_db);
                    let mixed: Vec<f32> = signal
                        .iter()
                        .zip(noise.iter().cycle())
                        .map(|(s, n)| s + n)
                        .collect();
                    let whistles = run(&variant.parameters, &mixed, 1);
                    if let Some((time, buffer_end)) = whistles
                        .iter()
                        .find(|(time, _)| time.as_secs_f64() >= onset_s)
                    {
                        heard += 1;
                        delays.push((time.as_secs_f64() - onset_s) * 1000.0);
                        buffered.push((buffer_end.as_secs_f64() - onset_s) * 1000.0);
                    }
                }
            }
            println!(
                "| {} | {snr_db:.0} | {heard}/{total} | {:.0} | {:.0} | {:.0} |",
                variant.name,
                percentile(&mut delays, 0.5),
                percentile(&mut delays, 1.0),
                percentile(&mut buffered, 1.0),
            );
        }
    }
    println!();
}

/// The real whistle recordings: the onset estimated as the first spectrum of the whistle-like
/// run that led to the recognition (gaps of up to 30 ms allowed), the delay measured from it.
fn real_delay_table() {
    let Some(data) = whistle_data() else {
        println!("SKIPPED: no whistle recordings (set CORTEX_DATA_DIR)");
        return;
    };
    println!("## Detection delay on the real recordings (onset estimated from the evidence)");
    println!();
    println!("| file | estimated onset s | recognised s | delay ms |");
    println!("|---|---:|---:|---:|");
    let parameters = WhistleDetectorParameters::default();
    for path in wav_files(&data.join("yes")) {
        let Ok(mut source) = audio::WavSource::open(&path, 2048) else {
            continue;
        };
        let mut pipeline = WhistlePipeline::new(&parameters);
        let mut frames = AudioFrames::empty(source.sample_rate_hz(), source.channel_count());
        let mut evidence = Vec::new();
        let mut recognised = None;
        while let Ok(true) = source.read(&mut frames) {
            pipeline.process_with_evidence(
                &frames,
                |item| evidence.push((item.time, item.whistle_like)),
                |time| {
                    recognised.get_or_insert(time);
                },
            );
        }
        let Some(recognised) = recognised else {
            println!("| {} | - | not heard | - |", path.display());
            continue;
        };
        // Walk back from the recognition while whistle-like spectra keep coming.
        let window = Duration::from_secs_f64(1024.0 / f64::from(source.sample_rate_hz()));
        let mut onset = recognised;
        let mut last_like = recognised;
        for (time, like) in evidence
            .iter()
            .rev()
            .filter(|(time, _)| *time <= recognised)
        {
            if *like {
                onset = *time;
                last_like = *time;
            } else if last_like.saturating_sub(*time) > Duration::from_millis(30) {
                break;
            }
        }
        // A spectrum ending at `onset` began one window earlier.
        let onset = onset.saturating_sub(window);
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned());
        println!(
            "| {} | {:.3} | {:.3} | {:.0} |",
            name.unwrap_or_default(),
            onset.as_secs_f64(),
            recognised.as_secs_f64(),
            (recognised - onset).as_secs_f64() * 1000.0
        );
    }
    println!();
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing to run quickly.
    if !std::env::args().any(|argument| argument == "--bench") {
        println!("whistle bench: run with `cargo bench -p audio --bench whistle`");
        return;
    }
    cpu_table();
    delay_table();
    real_delay_table();
}
