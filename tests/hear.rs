//! `cortex hear`, the real binary: the shared recordings with `--json`, missing and broken
//! files among good ones (exit 66/65, the others still printed), bad parameters (exit 78).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cortex() -> &'static str {
    env!("CARGO_BIN_EXE_cortex")
}

fn hear(args: &[&str]) -> Output {
    Command::new(cortex())
        .arg("hear")
        .args(args)
        .output()
        .expect("cortex runs")
}

fn whistle_data() -> Option<PathBuf> {
    support::shared_data("whistle")
}

/// The `.wav` files of `folder`, sorted, as arguments.
fn wav_files(folder: &Path) -> Vec<String> {
    support::wav_files(folder)
        .iter()
        .map(|path| path.display().to_string())
        .collect()
}

/// A 1 s mono 16-bit WAV file at 48 kHz: a 3 kHz tone from 0.3 s to 0.8 s.
fn tone_file(path: &Path) {
    let rate = 48_000u32;
    let data: Vec<u8> = (0..rate)
        .flat_map(|index| {
            let time = f64::from(index) / f64::from(rate);
            let value = if (0.3..0.8).contains(&time) {
                0.3 * (2.0 * std::f64::consts::PI * 3000.0 * time).sin()
            } else {
                0.0
            };
            ((value * 32767.0) as i16).to_le_bytes()
        })
        .collect();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&rate.to_le_bytes());
    bytes.extend_from_slice(&(rate * 2).to_le_bytes());
    bytes.extend_from_slice(&2u16.to_le_bytes());
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&data);
    std::fs::write(path, bytes).unwrap();
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect()
}

#[test]
fn the_shared_recordings_as_json() {
    let Some(data) = whistle_data() else {
        eprintln!(
            "SKIPPED: no whistle recordings (set CORTEX_DATA_DIR to the folder holding whistle/)"
        );
        return;
    };
    let yes = wav_files(&data.join("yes"));
    let no = wav_files(&data.join("no"));
    let mut args = vec!["--json"];
    args.extend(yes.iter().map(String::as_str));
    args.extend(no.iter().map(String::as_str));
    let output = hear(&args);
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    assert_eq!(lines.len(), yes.len() + no.len());
    for line in &lines {
        let file = line["file"].as_str().unwrap();
        let expected = yes.iter().any(|name| name == file);
        assert_eq!(line["whistle"], Value::Bool(expected), "{line}");
        let times = line["times_s"].as_array().unwrap();
        assert_eq!(times.len(), usize::from(expected), "{line}");
        for time in times {
            // The recordings are about 2 s long; their whistles are in the last half second.
            let time = time.as_f64().unwrap();
            assert!((1.4..2.1).contains(&time), "{line}");
        }
        assert!(line["time_ms"].as_f64().unwrap() >= 0.0, "{line}");
        assert_eq!(line.as_object().unwrap().len(), 4, "{line}");
    }
}

#[test]
fn missing_and_broken_files_are_named_and_the_others_still_heard() {
    let folder = tempfile::tempdir().unwrap();
    let good = folder.path().join("tone.wav");
    tone_file(&good);
    let broken = folder.path().join("broken.wav");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes[22] = 0; // zero channels
    bytes[23] = 0;
    std::fs::write(&broken, &bytes).unwrap();
    let missing = folder.path().join("missing.wav");
    let (good, broken, missing) = (
        good.display().to_string(),
        broken.display().to_string(),
        missing.display().to_string(),
    );

    // A malformed file alone: 65; a missing one makes it 66.
    let output = hear(&["--json", &broken, &good]);
    assert_eq!(output.status.code(), Some(65), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{broken}: not a readable WAV file")),
        "{stderr}"
    );
    assert!(stderr.contains("zero channels"), "{stderr}");
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["file"], Value::String(good.clone()));
    assert_eq!(lines[0]["whistle"], Value::Bool(true));
    let time = lines[0]["times_s"][0].as_f64().unwrap();
    assert!((0.3..0.55).contains(&time), "heard at {time} s");

    let output = hear(&[&missing, &broken, &good]);
    assert_eq!(output.status.code(), Some(66), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{missing}: cannot open")),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(&format!("{good}: whistle at")), "{stdout}");
}

#[test]
fn bad_parameters_are_configuration_errors() {
    let folder = tempfile::tempdir().unwrap();
    let good = folder.path().join("tone.wav");
    tone_file(&good);
    let good = good.display().to_string();
    let output = hear(&["--set", "WhistleDetector.min_concentration=2.5", &good]);
    assert_eq!(output.status.code(), Some(78), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("min_concentration"), "{stderr}");
    assert!(output.stdout.is_empty());

    let output = hear(&["--set", "WhistleDetector.fft_sise=512", &good]);
    assert_eq!(output.status.code(), Some(78), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("fft_sise"));

    // A parameter that changes the result: the tone lasts 0.5 s, so requiring more hears none.
    let output = hear(&[
        "--json",
        "--set",
        "WhistleDetector.window_ms=1000",
        "--set",
        "WhistleDetector.min_evidence_ms=800",
        &good,
    ]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(json_lines(&output)[0]["whistle"], Value::Bool(false));
}
