//! The `WhistleDetector` module on its simulated microphone: files dropped into the inbox are
//! heard in real time (against a clock the test advances), a whistle gives `WhistleState`, noise
//! does not, and a broken file is dropped without stopping the microphone.

use audio::inbox::MicrophoneInbox;
use audio::modules::WhistleDetector;
use audio::synthesis::{tone_with_vibrato, white_noise};
use audio::WhistleDetectorParameters;
use std::path::Path;

const RATE: u32 = 48_000;
const MS: u64 = 1_000_000;
/// An arbitrary monotonic start, far from zero.
const START_NS: u64 = 5_000 * MS;

fn write_wav(path: &Path, samples: &[f32]) {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    for sample in samples {
        writer
            .write_sample((sample.clamp(-1.0, 1.0) * 32767.0) as i16)
            .unwrap();
    }
    writer.finalize().unwrap();
}

/// 0.5 s of quiet noise, 1 s of whistle, 0.5 s of quiet noise.
fn whistle_recording() -> Vec<f32> {
    let mut samples = white_noise(0.01, RATE, 0.5, 1);
    let tone = tone_with_vibrato(3200.0, 5.0, 40.0, 0.5, RATE, 1.0);
    let noise = white_noise(0.01, RATE, 1.0, 2);
    samples.extend(tone.iter().zip(&noise).map(|(tone, noise)| tone + noise));
    samples.extend(white_noise(0.01, RATE, 0.5, 3));
    samples
}

fn module(folder: &Path) -> WhistleDetector {
    WhistleDetector::with_microphone(
        WhistleDetectorParameters::default(),
        Some(MicrophoneInbox::new(folder)),
    )
}

/// Steps the module every 50 ms (the audio process's rate) from `from_ns` for `duration_ms`;
/// returns the last state and whether `detected` was ever seen.
fn run(
    module: &mut WhistleDetector,
    from_ns: u64,
    duration_ms: u64,
) -> (types::WhistleState, bool) {
    let mut seen = false;
    let mut state = types::WhistleState::default();
    for tick in 0..=duration_ms / 50 {
        state = module.step(from_ns + tick * 50 * MS).clone();
        seen |= state.detected;
    }
    (state, seen)
}

#[test]
fn a_dropped_whistle_is_heard_at_its_time_and_noise_is_not() {
    let folder = tempfile::tempdir().unwrap();
    let mut module = module(folder.path());
    // Silence while the inbox is empty.
    let (state, seen) = run(&mut module, START_NS, 500);
    assert_eq!(state.whistle_count, 0);
    assert!(!seen);

    write_wav(&folder.path().join("000001.wav"), &whistle_recording());
    let dropped_ns = START_NS + 1000 * MS;
    let (state, seen) = run(&mut module, dropped_ns, 3000);
    assert!(seen, "the whistle was never detected");
    assert_eq!(state.whistle_count, 1, "{state:?}");
    let heard_ns = state.last_whistle_ns.unwrap();
    // The whistle starts 0.5 s into the recording; it is recognised after its minimum evidence.
    let delay_ms = (heard_ns - dropped_ns) / MS;
    assert!(
        (500..=1000).contains(&delay_ms),
        "recognised {delay_ms} ms after the drop"
    );
    assert!(!state.detected, "the recording has ended: {state:?}");
    assert!(
        !folder.path().join("000001.wav").exists(),
        "the file leaves the inbox"
    );

    write_wav(
        &folder.path().join("000002.wav"),
        &white_noise(0.3, RATE, 2.0, 4),
    );
    let (state, seen) = run(&mut module, dropped_ns + 4000 * MS, 3000);
    assert!(!seen);
    assert_eq!(state.whistle_count, 1, "noise is no whistle");
}

#[test]
fn the_buffers_come_in_real_time_not_all_at_once() {
    let folder = tempfile::tempdir().unwrap();
    let mut module = module(folder.path());
    write_wav(&folder.path().join("a.wav"), &whistle_recording());
    // 300 ms after the drop the whistle (0.5 s in) has not been heard yet.
    let (state, seen) = run(&mut module, START_NS, 300);
    assert!(!seen);
    assert_eq!(state.whistle_count, 0);
    let (state, _) = run(&mut module, START_NS + 350 * MS, 2000);
    assert_eq!(state.whistle_count, 1);
}

#[test]
fn a_broken_file_is_dropped_and_the_next_one_is_heard() {
    let folder = tempfile::tempdir().unwrap();
    let mut module = module(folder.path());
    std::fs::write(
        folder.path().join("000001.wav"),
        b"RIFF\x10\0\0\0WAVEjunkjunk",
    )
    .unwrap();
    let mut truncated = Vec::new();
    write_wav(&folder.path().join("full.wav"), &whistle_recording());
    truncated.extend_from_slice(&std::fs::read(folder.path().join("full.wav")).unwrap()[..4000]);
    std::fs::remove_file(folder.path().join("full.wav")).unwrap();
    std::fs::write(folder.path().join("000002.wav"), &truncated).unwrap();
    std::fs::write(folder.path().join(".000003.wav"), b"not yet complete").unwrap();
    write_wav(&folder.path().join("000004.wav"), &whistle_recording());
    let (state, seen) = run(&mut module, START_NS, 5000);
    assert!(seen);
    assert_eq!(state.whistle_count, 1, "{state:?}");
    for name in ["000001.wav", "000002.wav", "000004.wav"] {
        assert!(!folder.path().join(name).exists(), "{name} left the inbox");
    }
    assert!(
        folder.path().join(".000003.wav").exists(),
        "a dot-file is still being written: not touched"
    );
}

#[test]
fn without_a_microphone_the_robot_hears_silence() {
    let mut module = WhistleDetector::with_microphone(WhistleDetectorParameters::default(), None);
    let (state, seen) = run(&mut module, START_NS, 1000);
    assert!(!seen);
    assert_eq!(state, types::WhistleState::default());
}

/// Without the `robot` feature and without the simulation's folder, the module the process
/// builds opens nothing and hears silence (the robot build listens to ALSA: `alsa_modules.rs`).
#[cfg(not(feature = "robot"))]
#[test]
fn a_build_without_alsa_hears_silence_outside_the_simulation() {
    assert!(std::env::var_os(audio::modules::MICROPHONE_DIR_VARIABLE).is_none());
    let mut module =
        <WhistleDetector as framework::Module>::construct(WhistleDetectorParameters::default());
    let (state, seen) = run(&mut module, START_NS, 500);
    assert!(!seen);
    assert_eq!(state, types::WhistleState::default());
    assert_eq!(module.buffers_heard(), 0);
}
