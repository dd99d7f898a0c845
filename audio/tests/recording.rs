//! The recording sink across a restart of the audio process: it appends, and a recording it
//! cannot append to is moved aside, not overwritten.

mod output_support;

use audio::output::{
    read_played_log, Pacing, PlayedFrom, PlayedSound, RecordingSink, SinkFormat, Sound, SoundSink,
};
use output_support::{read_wav, MONO_16K};

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
