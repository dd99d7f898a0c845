//! The `SoundOutput` module with a real player and a real-time recording: each new
//! `SoundRequest` counter is played once, recorded in `played.tsv`, and listed in
//! `PlayedSounds`; a restarted module does not repeat the request it finds.

use audio::modules::{SoundOutput, SoundOutputParameters};
use audio::output::{read_played_log, FirstSeen, RecordedStatus};
use std::path::Path;
use std::time::{Duration, Instant};
use types::{PlayedSounds, Sound, SoundRequest};

/// A 0.2 s 16 kHz mono beep named `beep.wav` in `folder`.
fn write_beep(folder: &Path) {
    std::fs::create_dir_all(folder).unwrap();
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 16_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(folder.join("beep.wav"), spec).unwrap();
    for index in 0..3200 {
        let phase = index as f32 * 2.0 * std::f32::consts::PI * 1000.0 / 16_000.0;
        writer.write_sample((phase.sin() * 8000.0) as i16).unwrap();
    }
    writer.finalize().unwrap();
}

fn module(root: &Path, first_seen: FirstSeen) -> SoundOutput {
    SoundOutput::with_recording(
        SoundOutputParameters {
            sound_folders: vec![root.join("sounds")],
            ..SoundOutputParameters::default()
        },
        Some(&root.join("record")),
        first_seen,
    )
}

fn beep(counter: u64) -> SoundRequest {
    SoundRequest {
        request_counter: counter,
        sound: Some(Sound::Play {
            name: "beep".into(),
        }),
    }
}

/// Steps with `request` every 10 ms until `played_count` reaches `count` (only waits; panics
/// after a minute).
fn step_until(module: &mut SoundOutput, request: &SoundRequest, count: u64) -> PlayedSounds {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let played = module.step(request).clone();
        if played.played_count >= count {
            return played;
        }
        assert!(Instant::now() < deadline, "still {played:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn each_new_counter_is_played_once_and_recorded() {
    let root = tempfile::tempdir().unwrap();
    write_beep(&root.path().join("sounds"));
    let mut module = module(root.path(), FirstSeen::Play);
    let played = step_until(&mut module, &beep(1), 1);
    assert_eq!(played.recent[0].label, "beep");
    assert_eq!(played.recent[0].source, "file");
    // The same counter for another 0.5 s: nothing new.
    for _ in 0..50 {
        assert_eq!(module.step(&beep(1)).played_count, 1);
        std::thread::sleep(Duration::from_millis(10));
    }
    let played = step_until(&mut module, &beep(2), 2);
    assert_eq!(played.recent.len(), 2);
    let log = read_played_log(&root.path().join("record")).unwrap();
    let started: Vec<&str> = log
        .iter()
        .filter(|sound| sound.status == RecordedStatus::Started)
        .map(|sound| sound.sound.label())
        .collect();
    assert_eq!(started, ["beep", "beep"], "{log:?}");
}

#[test]
fn a_restarted_module_skips_what_it_finds_and_plays_what_follows() {
    let root = tempfile::tempdir().unwrap();
    write_beep(&root.path().join("sounds"));
    let mut module = module(root.path(), FirstSeen::Skip);
    for _ in 0..30 {
        assert_eq!(module.step(&beep(7)).played_count, 0);
        std::thread::sleep(Duration::from_millis(10));
    }
    step_until(&mut module, &beep(8), 1);
    let log = read_played_log(&root.path().join("record")).unwrap();
    let started = log
        .iter()
        .filter(|sound| sound.status == RecordedStatus::Started)
        .count();
    assert_eq!(started, 1, "{log:?}");
}

#[test]
fn an_unknown_sound_is_no_crash_and_plays_nothing_and_without_a_record_nothing_plays() {
    let root = tempfile::tempdir().unwrap();
    write_beep(&root.path().join("sounds"));
    let mut module = module(root.path(), FirstSeen::Play);
    let missing = SoundRequest {
        request_counter: 1,
        sound: Some(Sound::Play {
            name: "../../etc/passwd".into(),
        }),
    };
    for _ in 0..30 {
        assert_eq!(module.step(&missing).played_count, 0);
        std::thread::sleep(Duration::from_millis(10));
    }
    // The player goes on with the next request.
    step_until(&mut module, &beep(2), 1);

    let mut silent =
        SoundOutput::with_recording(SoundOutputParameters::default(), None, FirstSeen::Play);
    assert_eq!(silent.step(&beep(1)), &PlayedSounds::default());
}
