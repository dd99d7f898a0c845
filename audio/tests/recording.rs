//! The recording sink across a restart of the audio process (a real SIGKILL mid-sound): it
//! appends, and a recording it cannot append to is moved aside, not overwritten.

mod output_support;

use audio::output::{
    read_played_log, Delivery, Pacing, PlayRequest, PlayedFrom, PlayedSound, PlayerParameters,
    RecordedStatus, RecordingSink, SinkFormat, Sound, SoundLibrary, SoundPlayer, SoundSink,
};
use output_support::{pattern, read_wav, wait_until, write_wav, MONO_16K};
use std::time::Duration;

fn played(name: &str, frames: u64) -> PlayedSound {
    PlayedSound {
        sound: Sound::Say { text: name.into() },
        from: PlayedFrom::Speech {
            engine: "test".into(),
        },
        started_monotonic_ns: 0,
        finished_monotonic_ns: 0,
        frames_played: frames,
        frames_total: frames,
        interrupted: false,
    }
}

#[test]
fn a_reopened_recording_continues_where_it_ended() {
    let folder = tempfile::tempdir().unwrap();
    let mut first = RecordingSink::open(folder.path(), MONO_16K, Pacing::Immediate).unwrap();
    first.write(&[0.5; 100]).unwrap();
    first.finished(&played("one\ttab", 100)).unwrap();
    // No orderly close: the process is killed.
    std::mem::forget(first);
    let mut second = RecordingSink::open(folder.path(), MONO_16K, Pacing::Immediate).unwrap();
    assert!(second.moved_aside().is_none());
    second.write(&[-0.25; 50]).unwrap();
    second.finished(&played("two", 50)).unwrap();
    drop(second);
    let samples = read_wav(&folder.path().join("played.wav"));
    assert_eq!(samples.len(), 150);
    assert_eq!((samples[99], samples[100]), (16_384, -8_192));
    let log = read_played_log(folder.path()).unwrap();
    assert_eq!((log[1].first_frame, log[1].frames), (100, 50));
    assert_eq!(
        log[0].sound,
        Sound::Say {
            text: "one tab".into()
        }
    );
}

#[test]
fn a_recording_that_cannot_be_continued_is_moved_aside() {
    let folder = tempfile::tempdir().unwrap();
    let wav = folder.path().join("played.wav");
    std::fs::write(&wav, b"not a wav at all").unwrap();
    let sink = RecordingSink::open(folder.path(), MONO_16K, Pacing::Immediate).unwrap();
    let (aside, reason) = sink.moved_aside().unwrap().clone();
    assert_eq!(std::fs::read(&aside).unwrap(), b"not a wav at all");
    assert!(reason.contains("cannot be appended"), "{reason}");
    drop(sink);
    // Another format: also moved aside, to the next free name.
    let stereo = SinkFormat {
        sample_rate_hz: 48_000,
        channels: 2,
    };
    let sink = RecordingSink::open(folder.path(), stereo, Pacing::Immediate).unwrap();
    let (second, reason) = sink.moved_aside().unwrap().clone();
    assert_ne!(second, aside);
    assert!(reason.contains("16000 Hz"), "{reason}");
}

#[test]
fn a_log_line_that_is_not_the_sinks_is_named() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("played.tsv"),
        "0\t10\tcomplete\tsay\thi\n12\tx\n",
    )
    .unwrap();
    let error = read_played_log(folder.path()).unwrap_err().to_string();
    assert!(
        error.contains("played.tsv") && error.contains("line 2"),
        "{error}"
    );
}

#[test]
fn formats_that_cannot_be_recorded_are_refused() {
    let folder = tempfile::tempdir().unwrap();
    for (rate, channels) in [(0, 1), (16_000, 0), (16_000, 9)] {
        let format = SinkFormat {
            sample_rate_hz: rate,
            channels,
        };
        let error = RecordingSink::open(folder.path(), format, Pacing::Immediate).unwrap_err();
        assert!(error.to_string().contains("cannot record"), "{error}");
    }
}

/// The child half of `a_killed_player_leaves_a_valid_recording_that_a_restart_continues`:
/// plays a long sound in real time into `CORTEX_TEST_RECORDING` until it is killed.
#[test]
fn child_plays_until_killed() {
    let Some(folder) = std::env::var_os("CORTEX_TEST_RECORDING") else {
        return;
    };
    let folder = std::path::PathBuf::from(folder);
    let library = SoundLibrary::new(vec![folder.clone()], Duration::from_secs(60));
    let sink = RecordingSink::open(&folder.join("run"), MONO_16K, Pacing::RealTime).unwrap();
    let player =
        SoundPlayer::spawn(library, None, Box::new(sink), PlayerParameters::default()).unwrap();
    player.submit(PlayRequest::say("Python error", Delivery::Queue));
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn a_killed_player_leaves_a_valid_recording_that_a_restart_continues() {
    let folder = tempfile::tempdir().unwrap();
    // "Python error" has no engine here: its fallback is this long file.
    write_wav(
        &folder.path().join("python_error.wav"),
        16_000,
        1,
        16_000 * 60,
        pattern(11),
    );
    write_wav(
        &folder.path().join("short.wav"),
        16_000,
        1,
        800,
        pattern(12),
    );
    let mut child = KillOnDrop(
        std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_plays_until_killed",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CORTEX_TEST_RECORDING", folder.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let wav = folder.path().join("run/played.wav");
    let heard = || hound::WavReader::open(&wav).map_or(0, |reader| reader.duration());
    wait_until("the child to play a quarter second", || heard() > 4_000);
    child.0.kill().unwrap(); // SIGKILL, mid-sound
    child.0.wait().unwrap();
    let kept = heard() as usize;

    // The restarted player appends to the same record.
    let library = SoundLibrary::new(vec![folder.path().to_owned()], Duration::from_secs(60));
    let sink =
        RecordingSink::open(&folder.path().join("run"), MONO_16K, Pacing::Immediate).unwrap();
    assert!(sink.moved_aside().is_none(), "{:?}", sink.moved_aside());
    let player =
        SoundPlayer::spawn(library, None, Box::new(sink), PlayerParameters::default()).unwrap();
    player.submit(PlayRequest::play("short", Delivery::Queue));
    wait_until("the short sound", || player.status().played_total == 1);
    player.stop().unwrap();

    let mut expected = read_wav(&folder.path().join("python_error.wav"));
    expected.truncate(kept);
    expected.extend(read_wav(&folder.path().join("short.wav")));
    assert_eq!(read_wav(&wav), expected);
    let log = read_played_log(&folder.path().join("run")).unwrap();
    let lines: Vec<(u64, RecordedStatus, &str)> = log
        .iter()
        .map(|line| (line.first_frame, line.status, line.sound.label()))
        .collect();
    assert_eq!(
        lines,
        [
            (0, RecordedStatus::Started, "Python error"),
            (kept as u64, RecordedStatus::Started, "short"),
            (kept as u64, RecordedStatus::Complete, "short"),
        ]
    );
}

/// Kills the child should the test fail before it does.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
