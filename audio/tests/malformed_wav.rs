//! Broken and unusual WAV files: every one is an error naming the file and what is wrong (a
//! byte offset or frame where there is one), or is read correctly; none panics.

use audio::synthesis::{load_mono, tone_with_vibrato, Noise};
use audio::{hear, HearError, WavSource, WhistleDetectorParameters};
use std::path::{Path, PathBuf};

/// The bytes of a WAV file with a 16-byte PCM `fmt ` chunk.
struct Header {
    format_tag: u16,
    channels: u16,
    sample_rate: u32,
    bits_per_sample: u16,
    /// The data chunk's declared length (None: the real length).
    declared_data_length: Option<u32>,
}

impl Header {
    fn pcm16(channels: u16, sample_rate: u32) -> Header {
        Header {
            format_tag: 1,
            channels,
            sample_rate,
            bits_per_sample: 16,
            declared_data_length: None,
        }
    }

    fn bytes(&self, data: &[u8]) -> Vec<u8> {
        let block_align = self.channels * self.bits_per_sample.div_ceil(8);
        let data_length = self.declared_data_length.unwrap_or(data.len() as u32);
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"RIFF");
        bytes.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
        bytes.extend_from_slice(b"WAVEfmt ");
        bytes.extend_from_slice(&16u32.to_le_bytes());
        bytes.extend_from_slice(&self.format_tag.to_le_bytes());
        bytes.extend_from_slice(&self.channels.to_le_bytes());
        bytes.extend_from_slice(&self.sample_rate.to_le_bytes());
        bytes.extend_from_slice(&(self.sample_rate * u32::from(block_align)).to_le_bytes());
        bytes.extend_from_slice(&block_align.to_le_bytes());
        bytes.extend_from_slice(&self.bits_per_sample.to_le_bytes());
        bytes.extend_from_slice(b"data");
        bytes.extend_from_slice(&data_length.to_le_bytes());
        bytes.extend_from_slice(data);
        bytes
    }
}

fn pcm16_data(samples: &[f32]) -> Vec<u8> {
    samples
        .iter()
        .flat_map(|&sample| ((sample * 32767.0) as i16).to_le_bytes())
        .collect()
}

fn write(folder: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn whistle(rate: u32) -> Vec<f32> {
    let mut samples = vec![0.0; rate as usize / 2];
    samples.extend(tone_with_vibrato(3100.0, 6.0, 60.0, 0.3, rate, 0.6));
    samples.extend(vec![0.0; rate as usize / 2]);
    samples
}

fn hear_error(path: &Path) -> String {
    match hear(path, &WhistleDetectorParameters::default()) {
        Ok(result) => panic!("{}: expected an error, heard {result:?}", path.display()),
        Err(error) => {
            let text = error.to_string();
            assert!(text.contains(&path.display().to_string()), "{text}");
            text
        }
    }
}

#[test]
fn a_missing_file_is_named_and_told_apart_from_a_broken_one() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("absent.wav");
    let error = hear(&path, &WhistleDetectorParameters::default()).unwrap_err();
    assert!(error.is_missing(), "{error}");
    assert!(error.to_string().contains("absent.wav"), "{error}");

    let error = hear(folder.path(), &WhistleDetectorParameters::default()).unwrap_err();
    assert!(error.is_missing(), "{error}");
    assert!(error.to_string().contains("is a directory"), "{error}");

    let broken = write(folder.path(), "broken.wav", b"RIFF\x10\0\0\0WAVE");
    let error = hear(&broken, &WhistleDetectorParameters::default()).unwrap_err();
    assert!(!error.is_missing(), "{error}");
}

#[test]
fn a_truncated_header_names_the_byte_where_it_ends() {
    let folder = tempfile::tempdir().unwrap();
    let full = Header::pcm16(1, 48_000).bytes(&pcm16_data(&whistle(48_000)));
    for cut in [0, 3, 11, 20, 30, 40] {
        let path = write(folder.path(), &format!("cut{cut}.wav"), &full[..cut]);
        let text = hear_error(&path);
        assert!(text.contains("not a readable WAV file"), "{text}");
        assert!(
            text.contains(&format!("byte {cut}")),
            "cut at {cut}: {text}"
        );
    }
}

#[test]
fn zero_channels_and_a_zero_rate_are_refused() {
    let folder = tempfile::tempdir().unwrap();
    let data = pcm16_data(&whistle(48_000));
    let zero_channels = Header {
        channels: 0,
        ..Header::pcm16(1, 48_000)
    };
    let path = write(
        folder.path(),
        "zero_channels.wav",
        &zero_channels.bytes(&data),
    );
    let text = hear_error(&path);
    assert!(text.contains("zero channels"), "{text}");

    let path = write(
        folder.path(),
        "zero_rate.wav",
        &Header::pcm16(1, 0).bytes(&data),
    );
    let text = hear_error(&path);
    assert!(text.contains("sample rate 0 Hz"), "{text}");
}

#[test]
fn a_huge_declared_size_is_refused_before_reading() {
    let folder = tempfile::tempdir().unwrap();
    let data = pcm16_data(&whistle(48_000));
    let huge = Header {
        declared_data_length: Some(u32::MAX - 1),
        ..Header::pcm16(1, 48_000)
    };
    let path = write(folder.path(), "huge.wav", &huge.bytes(&data));
    let text = hear_error(&path);
    assert!(
        text.contains("declares 4294967294 bytes of samples from byte 44"),
        "{text}"
    );
    let file_length = 44 + data.len();
    assert!(
        text.contains(&format!("ends at byte {file_length}")),
        "{text}"
    );
}

#[test]
fn unsupported_encodings_are_named() {
    let folder = tempfile::tempdir().unwrap();
    let data = pcm16_data(&whistle(48_000));
    // A-law (format 6) and 12-bit samples.
    let alaw = Header {
        format_tag: 6,
        ..Header::pcm16(1, 48_000)
    };
    let path = write(folder.path(), "alaw.wav", &alaw.bytes(&data));
    let text = hear_error(&path);
    assert!(text.contains("unsupported encoding"), "{text}");
    let twelve_bits = Header {
        bits_per_sample: 12,
        ..Header::pcm16(1, 48_000)
    };
    let path = write(folder.path(), "twelve.wav", &twelve_bits.bytes(&data));
    let text = hear_error(&path);
    assert!(text.contains("multiple of 8"), "{text}");
}

#[test]
fn a_rate_too_low_for_the_band_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let data = pcm16_data(&vec![0.0; 4000]);
    let path = write(
        folder.path(),
        "low.wav",
        &Header::pcm16(1, 4000).bytes(&data),
    );
    let error = hear(&path, &WhistleDetectorParameters::default()).unwrap_err();
    assert!(matches!(error, HearError::RateTooLow { .. }), "{error}");
    assert!(error.to_string().contains("4000 Hz"), "{error}");
}

#[test]
fn non_finite_float_samples_are_named_by_frame() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("nan.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 48_000,
        bits_per_sample: 32,
        sample_format: hound::SampleFormat::Float,
    };
    let mut writer = hound::WavWriter::create(&path, spec).unwrap();
    for frame in 0..10_000 {
        writer.write_sample(0.0f32).unwrap();
        writer
            .write_sample(if frame == 7_000 { f32::NAN } else { 0.0 })
            .unwrap();
    }
    writer.finalize().unwrap();
    let text = hear_error(&path);
    assert!(
        text.contains("frame 7000, channel 1 is not a finite number"),
        "{text}"
    );
}

/// Valid files in every sample format, rate and channel count the source reads: the whistle is
/// heard in each.
#[test]
fn every_supported_format_rate_and_channel_count_is_heard() {
    let folder = tempfile::tempdir().unwrap();
    let cases: [(u16, u16, hound::SampleFormat, u32); 7] = [
        (1, 8, hound::SampleFormat::Int, 48_000),
        (1, 16, hound::SampleFormat::Int, 44_100),
        (2, 24, hound::SampleFormat::Int, 48_000),
        (4, 32, hound::SampleFormat::Int, 48_000),
        (4, 32, hound::SampleFormat::Float, 48_000),
        (6, 16, hound::SampleFormat::Int, 96_000),
        (1, 16, hound::SampleFormat::Int, 16_000),
    ];
    for (channels, bits, format, rate) in cases {
        let name = format!("{channels}ch_{bits}bit_{format:?}_{rate}.wav");
        let path = folder.path().join(&name);
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: bits,
            sample_format: format,
        };
        let mut writer = hound::WavWriter::create(&path, spec).unwrap();
        let scale = ((1i64 << (bits - 1)) - 1) as f32;
        for sample in whistle(rate) {
            for _ in 0..channels {
                match (format, bits) {
                    (hound::SampleFormat::Float, _) => writer.write_sample(sample).unwrap(),
                    (_, 8) => writer.write_sample((sample * scale) as i8).unwrap(),
                    (_, 16) => writer.write_sample((sample * scale) as i16).unwrap(),
                    _ => writer.write_sample((sample * scale) as i32).unwrap(),
                }
            }
        }
        writer.finalize().unwrap();
        let source = WavSource::open(&path, 2048).unwrap();
        assert_eq!(source.file_channels(), u32::from(channels), "{name}");
        let result = hear(&path, &WhistleDetectorParameters::default())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(result.times_s.len(), 1, "{name}: {result:?}");
        // The tone starts at 0.5 s.
        let time = result.times_s[0];
        assert!((0.5..0.8).contains(&time), "{name}: heard at {time} s");
        // And the samples are read at their value (peak 0.3, within 8-bit resolution).
        let (samples, file_rate) = load_mono(&path).unwrap();
        assert_eq!(file_rate, rate);
        let peak = samples
            .iter()
            .fold(0.0f32, |max, sample| max.max(sample.abs()));
        assert!((peak - 0.3).abs() < 0.01, "{name}: peak {peak}");
    }
}

#[test]
fn a_file_cut_inside_its_samples_names_both_lengths() {
    let folder = tempfile::tempdir().unwrap();
    let mut bytes = Header::pcm16(1, 48_000).bytes(&pcm16_data(&whistle(48_000)));
    let declared = bytes.len() - 44;
    bytes.truncate(44 + 60_000);
    let path = write(folder.path(), "cut.wav", &bytes);
    let text = hear_error(&path);
    assert!(
        text.contains(&format!(
            "declares {declared} bytes of samples from byte 44"
        )),
        "{text}"
    );
    assert!(text.contains("ends at byte 60044"), "{text}");
}

/// Thousands of files with random bytes changed: errors or results, never a panic.
#[test]
fn randomly_corrupted_files_never_panic() {
    let folder = tempfile::tempdir().unwrap();
    let original = Header::pcm16(2, 48_000).bytes(&pcm16_data(&whistle(48_000)[..40_000]));
    let mut noise = Noise::new(42);
    let mut random = move |below: usize| {
        ((noise.next_uniform() * 0.5 + 0.5) * below as f32) as usize % below.max(1)
    };
    let parameters = WhistleDetectorParameters::default();
    let path = folder.path().join("corrupt.wav");
    let (mut errors, mut results) = (0, 0);
    for round in 0..600 {
        let mut bytes = original.clone();
        // Most corruption goes into the header, where the decisions are.
        for _ in 0..1 + random(4) {
            let position = if round % 4 == 0 {
                random(bytes.len())
            } else {
                random(48)
            };
            bytes[position] = random(256) as u8;
        }
        if round % 7 == 0 {
            bytes.truncate(random(bytes.len()));
        }
        std::fs::write(&path, &bytes).unwrap();
        match hear(&path, &parameters) {
            Ok(_) => results += 1,
            Err(error) => {
                assert!(error.to_string().contains("corrupt.wav"), "{error}");
                errors += 1;
            }
        }
    }
    eprintln!("{errors} errors, {results} results");
    assert!(
        errors > 100 && results > 10,
        "{errors} errors, {results} results"
    );
}
