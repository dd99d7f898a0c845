//! The `audio` process's modules on ALSA (feature `robot`), as the robot build runs them: the
//! `WhistleDetector` capturing from ALSA's `null` device (a real alsa-lib device that needs no
//! hardware: it delivers silence, as fast as it is read), one on a device that does not exist
//! (logged by name, tried again, the module ticks on), a capture device changed while running,
//! and `SoundOutput` playing to the `null` device. Every test says SKIPPED when alsa-lib's
//! `null` device does not open here.

#![cfg(feature = "robot")]

mod output_support;

use audio::alsa_source::{AlsaParameters, AlsaSource};
use audio::modules::{PlaybackParameters, SoundOutput, SoundOutputParameters, WhistleDetector};
use audio::{CaptureParameters, WhistleDetectorParameters};
use output_support::write_wav;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use types::{Sound, SoundRequest};

/// Every log line of this test binary (tests tell theirs apart by device name).
static LOG: Mutex<Vec<u8>> = Mutex::new(Vec::new());

struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        LOG.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The log lines that mention `text`.
fn logged(text: &str) -> Vec<String> {
    String::from_utf8_lossy(&LOG.lock().unwrap())
        .lines()
        .filter(|line| line.contains(text))
        .map(str::to_owned)
        .collect()
}

/// Whether ALSA's `null` device opens here; sends the log to [`LOG`] once.
fn null_device_opens() -> bool {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(|| LogWriter)
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
    });
    let parameters = AlsaParameters {
        device: "null".to_owned(),
        ..AlsaParameters::default()
    };
    match AlsaSource::open(&parameters) {
        Ok(_) => true,
        Err(error) => {
            eprintln!("SKIPPED: ALSA's null device does not open here: {error}");
            false
        }
    }
}

fn capture_on(device: &str) -> CaptureParameters {
    CaptureParameters {
        device: device.to_owned(),
        retry_interval_ms: 100,
        ..CaptureParameters::default()
    }
}

/// The module as the audio process builds it from its parameters: no simulation variable is
/// set in this test, so the robot build listens to ALSA.
fn detector_on(device: &str) -> WhistleDetector {
    assert!(std::env::var_os(audio::modules::MICROPHONE_DIR_VARIABLE).is_none());
    <WhistleDetector as framework::Module>::construct(WhistleDetectorParameters {
        capture: capture_on(device),
        ..WhistleDetectorParameters::default()
    })
}

/// Ticks `module` every 50 ms (the audio process's rate) until `done` holds; fails after a
/// minute (a hang, not slowness). Returns whether a whistle was ever detected.
fn tick_until(module: &mut WhistleDetector, done: impl Fn(&WhistleDetector) -> bool) -> bool {
    let start = Instant::now();
    let mut detected = false;
    loop {
        let state = module.step(ipc::health::monotonic_ns()).clone();
        detected |= state.detected || state.whistle_count > 0;
        if done(module) {
            return detected;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "still {:?}",
            module.capture_status()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_detector_hears_the_null_device_in_real_time_and_no_whistle() {
    if !null_device_opens() {
        return;
    }
    let start = Instant::now();
    let mut module = detector_on("null");
    let detected = tick_until(&mut module, |module| module.buffers_heard() >= 12);
    let elapsed = start.elapsed();
    let status = module.capture_status().unwrap();
    assert!(!detected, "silence is no whistle");
    assert_eq!(module.step(ipc::health::monotonic_ns()).whistle_count, 0);
    assert!(status.open, "{status:?}");
    assert_eq!(status.open_failures, 0, "{status:?}");
    assert_eq!(status.overruns, 0, "{status:?}");
    // Every buffer captured reached the pipeline (or waits in the queue for the next tick).
    assert!(
        status.buffers_captured >= module.buffers_heard(),
        "{status:?}"
    );
    // The null device delivers as fast as it is read: the thread keeps to the clock (one
    // buffer ahead at most) instead of spinning. An upper bound that a loaded machine only
    // loosens: the buffers 2048 frames at 48 kHz could have filled in the time that passed.
    let period = Duration::from_nanos(2048 * 1_000_000_000 / 48_000);
    let possible = (elapsed.as_nanos() / period.as_nanos()) as u64 + 2;
    assert!(
        status.buffers_captured <= possible,
        "{} buffers in {elapsed:?}: faster than real time",
        status.buffers_captured
    );
    assert!(!logged("capturing from ALSA device null").is_empty());
}

#[test]
fn a_missing_device_is_logged_by_name_and_tried_again_while_the_module_ticks() {
    if !null_device_opens() {
        return;
    }
    let mut module = detector_on("hw:99");
    tick_until(&mut module, |module| {
        module.capture_status().unwrap().open_failures >= 3
    });
    let status = module.capture_status().unwrap();
    assert!(!status.open);
    assert_eq!(status.buffers_captured, 0);
    assert_eq!(module.buffers_heard(), 0);
    let error = status.last_error.unwrap();
    assert!(error.contains("ALSA device hw:99: open"), "{error}");
    assert_eq!(
        module.step(ipc::health::monotonic_ns()),
        &types::WhistleState::default(),
        "silence meanwhile"
    );
    // Logged as an error naming the device, once (the same error again only after a minute).
    let lines = logged("ALSA device hw:99");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("ERROR"), "{lines:?}");
    assert!(lines[0].contains("the robot hears silence"), "{lines:?}");
}

#[test]
fn new_parameters_keep_the_capture_unless_the_device_changed() {
    if !null_device_opens() {
        return;
    }
    let mut module = detector_on("null");
    tick_until(&mut module, |module| module.buffers_heard() >= 3);
    let before = module.capture_status().unwrap().buffers_captured;

    // Another threshold: the same capture goes on counting.
    let mut parameters = WhistleDetectorParameters {
        capture: capture_on("null"),
        ..WhistleDetectorParameters::default()
    };
    parameters.min_level_db -= 1.0;
    framework::Module::set_parameters(&mut module, parameters.clone());
    tick_until(&mut module, |module| module.buffers_heard() >= 6);
    assert!(module.capture_status().unwrap().buffers_captured > before);

    // Another device: a new capture, which cannot open it and says so.
    parameters.capture = capture_on("hw:98");
    framework::Module::set_parameters(&mut module, parameters);
    tick_until(&mut module, |module| {
        module.capture_status().unwrap().open_failures >= 1
    });
    let status = module.capture_status().unwrap();
    assert!(!status.open, "{status:?}");
    assert_eq!(status.buffers_captured, 0, "a new capture: {status:?}");
    assert!(status.last_error.unwrap().contains("hw:98"));
}

/// A 0.2 s beep named `beep.wav` in `folder`.
fn beep_folder() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    write_wav(&folder.path().join("beep.wav"), 16_000, 1, 3200, |index| {
        ((index as f32 * 0.39).sin() * 8000.0) as i16
    });
    folder
}

/// The module as the audio process builds it (no recording variable: the loudspeakers).
fn sound_output_on(device: &str, sounds: &std::path::Path) -> SoundOutput {
    assert!(std::env::var_os(audio::modules::RECORD_DIR_VARIABLE).is_none());
    <SoundOutput as framework::Module>::construct(SoundOutputParameters {
        sound_folders: vec![sounds.to_owned()],
        playback: PlaybackParameters {
            device: device.to_owned(),
            retry_interval_ms: 100,
            ..PlaybackParameters::default()
        },
    })
}

fn beep(counter: u64) -> SoundRequest {
    SoundRequest {
        request_counter: counter,
        sound: Some(Sound::Play {
            name: "beep".into(),
        }),
    }
}

#[test]
fn sound_output_plays_to_the_null_device() {
    if !null_device_opens() {
        return;
    }
    let sounds = beep_folder();
    let mut module = sound_output_on("null", sounds.path());
    let nothing = SoundRequest::default();
    let start = Instant::now();
    while !module.has_player() {
        module.step(&nothing);
        assert!(start.elapsed() < Duration::from_secs(60), "never opened");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut played = module.step(&beep(1)).clone();
    while played.played_count < 1 {
        assert!(start.elapsed() < Duration::from_secs(60), "never played");
        std::thread::sleep(Duration::from_millis(10));
        played = module.step(&beep(1)).clone();
    }
    assert_eq!(played.played_count, 1);
    assert_eq!(played.recent[0].label, "beep");
    assert_eq!(played.recent[0].source, "file");
    assert!(!played.recent[0].interrupted);
    assert!(!logged("playing to ALSA device null").is_empty());
}

#[test]
fn sound_output_without_its_device_drops_requests_and_keeps_trying() {
    if !null_device_opens() {
        return;
    }
    let sounds = beep_folder();
    let mut module = sound_output_on("hw:97", sounds.path());
    let start = Instant::now();
    while module.opening_failures().unwrap().0 < 3 {
        assert_eq!(module.step(&beep(1)).played_count, 0);
        assert!(start.elapsed() < Duration::from_secs(60), "no retries");
        std::thread::sleep(Duration::from_millis(10));
    }
    for counter in 2..5 {
        assert_eq!(module.step(&beep(counter)).played_count, 0);
    }
    assert!(!module.has_player());
    let (_, error) = module.opening_failures().unwrap();
    let error = error.unwrap();
    assert!(
        error.contains("ALSA playback device hw:97: open"),
        "{error}"
    );
    let lines = logged("ALSA playback device hw:97");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("sounds are dropped"), "{lines:?}");
    assert!(!logged("hw:97 not open): dropped beep").is_empty());
}
