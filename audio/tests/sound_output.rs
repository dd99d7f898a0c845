//! The sound player with real sinks and real files: what reaches the recording, interrupts,
//! queueing, a full queue, missing and broken files, stopping mid-sound, a blocked sink.

mod output_support;

use audio::output::{
    read_played_log, Delivery, LookupError, Pacing, PlayError, PlayRequest, PlayedFrom,
    PlayerParameters, RecordedStatus, RecordingSink, Sound, SoundLibrary, SoundPlayer,
};
use output_support::{pattern, read_wav, wait_until, write_wav, GateSink, MONO_16K};
use std::path::Path;
use std::time::Duration;

fn library(folder: &Path) -> SoundLibrary {
    SoundLibrary::new(vec![folder.to_owned()], Duration::from_secs(30))
}

fn recording_player(folder: &Path, pacing: Pacing) -> SoundPlayer {
    let sink = RecordingSink::open(&folder.join("run"), MONO_16K, pacing).unwrap();
    SoundPlayer::spawn(
        library(folder),
        None,
        Box::new(sink),
        PlayerParameters::default(),
    )
    .unwrap()
}

fn play(name: &str, delivery: Delivery) -> PlayRequest {
    PlayRequest::play(name, delivery)
}

#[test]
fn a_played_file_reaches_the_recording_sample_for_sample() {
    let folder = tempfile::tempdir().unwrap();
    let tone = folder.path().join("tone.wav");
    write_wav(&tone, 16_000, 1, 4_321, pattern(1));
    let player = recording_player(folder.path(), Pacing::Immediate);
    assert_eq!(player.submit(play("tone", Delivery::Queue)), None);
    wait_until("the tone to be played", || {
        player.status().played_total == 1
    });
    let history = player.history();
    player.stop().unwrap();

    assert_eq!(
        read_wav(&folder.path().join("run/played.wav")),
        read_wav(&tone)
    );
    assert_eq!(history.len(), 1);
    let played = &history[0];
    assert_eq!(
        played.sound,
        Sound::Play {
            name: "tone".into()
        }
    );
    assert_eq!(played.from, PlayedFrom::File { path: tone });
    assert_eq!((played.frames_played, played.frames_total), (4_321, 4_321));
    assert!(!played.interrupted);
    assert!(played.finished_monotonic_ns >= played.started_monotonic_ns);
    let log = read_played_log(&folder.path().join("run")).unwrap();
    let lines: Vec<_> = log
        .iter()
        .map(|line| (line.first_frame, line.frames, line.status))
        .collect();
    assert_eq!(
        lines,
        [
            (0, 0, RecordedStatus::Started),
            (0, 4_321, RecordedStatus::Complete)
        ]
    );
    assert!(log.iter().all(|line| line.sound
        == Sound::Play {
            name: "tone".into()
        }));
}

#[test]
fn a_file_in_another_format_is_converted_to_the_sinks() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(&folder.path().join("stereo8k.wav"), 8_000, 2, 1_000, |_| {
        8_192
    });
    let player = recording_player(folder.path(), Pacing::Immediate);
    player.submit(play("stereo8k", Delivery::Queue));
    wait_until("the sound to be played", || {
        player.status().played_total == 1
    });
    assert_eq!(player.history()[0].frames_total, 2_000);
    player.stop().unwrap();
    let recorded = read_wav(&folder.path().join("run/played.wav"));
    assert_eq!(recorded.len(), 2_000);
    assert!(
        recorded.iter().all(|&sample| sample == 8_192),
        "{:?}",
        &recorded[..8]
    );
}

#[test]
fn interrupt_cuts_the_current_sound_and_plays_the_new_one() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(
        &folder.path().join("long.wav"),
        16_000,
        1,
        16_000 * 20,
        pattern(2),
    );
    write_wav(
        &folder.path().join("short.wav"),
        16_000,
        1,
        1_600,
        pattern(3),
    );
    let player = recording_player(folder.path(), Pacing::RealTime);
    let wav = folder.path().join("run/played.wav");
    player.submit(play("long", Delivery::Queue));
    wait_until("the long sound to be heard", || {
        hound::WavReader::open(&wav).is_ok_and(|reader| reader.duration() > 1_600)
    });
    player.submit(play("short", Delivery::Interrupt));
    wait_until("both sounds to end", || player.status().played_total == 2);
    let history = player.history();
    player.stop().unwrap();

    let names: Vec<&str> = history.iter().map(|played| played.sound.label()).collect();
    assert_eq!(names, ["long", "short"]);
    let long = &history[0];
    assert!(long.interrupted);
    assert!(
        long.frames_played >= 1_600 && long.frames_played < long.frames_total,
        "{long:?}"
    );
    assert!(!history[1].interrupted);
    assert!(history[1].started_monotonic_ns >= long.finished_monotonic_ns);
    let mut expected: Vec<i16> = read_wav(&folder.path().join("long.wav"));
    expected.truncate(long.frames_played as usize);
    expected.extend(read_wav(&folder.path().join("short.wav")));
    assert_eq!(read_wav(&wav), expected);
    let log = read_played_log(&folder.path().join("run")).unwrap();
    let statuses: Vec<_> = log.iter().map(|line| line.status).collect();
    use RecordedStatus::*;
    assert_eq!(statuses, [Started, Interrupted, Started, Complete]);
    assert_eq!(log[3].first_frame, long.frames_played);
}

#[test]
fn queued_sounds_play_in_order() {
    let folder = tempfile::tempdir().unwrap();
    for (seed, name) in ["a", "b", "c"].iter().enumerate() {
        write_wav(
            &folder.path().join(format!("{name}.wav")),
            16_000,
            1,
            700 + seed * 100,
            pattern(seed as i16),
        );
    }
    let player = recording_player(folder.path(), Pacing::Immediate);
    for name in ["c", "a", "b"] {
        player.submit(play(name, Delivery::Queue));
    }
    wait_until("three sounds", || player.status().played_total == 3);
    let names: Vec<String> = player
        .history()
        .iter()
        .map(|played| played.sound.label().to_owned())
        .collect();
    player.stop().unwrap();
    assert_eq!(names, ["c", "a", "b"]);
    let expected: Vec<i16> = ["c", "a", "b"]
        .iter()
        .flat_map(|name| read_wav(&folder.path().join(format!("{name}.wav"))))
        .collect();
    assert_eq!(read_wav(&folder.path().join("run/played.wav")), expected);
}

#[test]
fn a_full_queue_drops_the_oldest_and_counts() {
    let folder = tempfile::tempdir().unwrap();
    for name in ["first", "q0", "q1", "q2", "q3", "q4", "q5"] {
        write_wav(
            &folder.path().join(format!("{name}.wav")),
            16_000,
            1,
            320,
            pattern(4),
        );
    }
    let sink = GateSink::closed(MONO_16K);
    let parameters = PlayerParameters {
        queue_capacity: 3,
        ..PlayerParameters::default()
    };
    let player = SoundPlayer::spawn(
        library(folder.path()),
        None,
        Box::new(sink.clone()),
        parameters,
    )
    .unwrap();
    player.submit(play("first", Delivery::Queue));
    wait_until("the first sound to block in the sink", || {
        player.status().playing.is_some()
    });
    let dropped: Vec<Option<String>> = ["q0", "q1", "q2", "q3", "q4", "q5"]
        .iter()
        .map(|name| {
            player
                .submit(play(name, Delivery::Queue))
                .map(|request| request.sound.label().to_owned())
        })
        .collect();
    assert_eq!(
        dropped,
        [
            None,
            None,
            None,
            Some("q0".into()),
            Some("q1".into()),
            Some("q2".into())
        ]
    );
    let status = player.status();
    assert_eq!((status.dropped_requests, status.queued), (3, 3));
    sink.open_gate();
    wait_until("four sounds", || player.status().played_total == 4);
    let names: Vec<String> = player
        .history()
        .iter()
        .map(|played| played.sound.label().to_owned())
        .collect();
    player.stop().unwrap();
    assert_eq!(names, ["first", "q3", "q4", "q5"]);
}

#[test]
fn missing_broken_and_impossible_sounds_are_reported_and_the_next_request_still_plays() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(&folder.path().join("tone.wav"), 16_000, 1, 500, pattern(5));
    std::fs::write(
        folder.path().join("broken.wav"),
        b"RIFF\x10\0\0\0WAVEjunkjunk",
    )
    .unwrap();
    let player = recording_player(folder.path(), Pacing::Immediate);
    for name in ["nothing", "broken", "../../etc/passwd", "tone"] {
        player.submit(play(name, Delivery::Queue));
    }
    wait_until("the tone", || player.status().played_total == 1);
    let errors = player.take_errors();
    assert_eq!(player.history()[0].sound.label(), "tone");
    assert_eq!(player.status().errors_total, 3);
    player.stop().unwrap();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        matches!(&errors[0], PlayError::Lookup(LookupError::NotFound { name, .. }) if name == "nothing"),
        "{}",
        errors[0]
    );
    assert!(
        errors[0].to_string().contains("nothing.wav"),
        "{}",
        errors[0]
    );
    let broken = errors[1].to_string();
    assert!(
        matches!(
            &errors[1],
            PlayError::Lookup(LookupError::Unreadable { .. })
        ),
        "{broken}"
    );
    assert!(
        broken.contains(&folder.path().join("broken.wav").display().to_string()),
        "{broken}"
    );
    assert!(
        matches!(
            &errors[2],
            PlayError::Lookup(LookupError::InvalidName { .. })
        ),
        "{}",
        errors[2]
    );
    assert_eq!(
        read_wav(&folder.path().join("run/played.wav")),
        read_wav(&folder.path().join("tone.wav"))
    );
}

#[test]
fn stopping_mid_sound_returns_and_records_the_cut() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(
        &folder.path().join("long.wav"),
        16_000,
        1,
        16_000 * 30,
        pattern(6),
    );
    let player = recording_player(folder.path(), Pacing::RealTime);
    let wav = folder.path().join("run/played.wav");
    player.submit(play("long", Delivery::Queue));
    wait_until("the long sound to be heard", || {
        hound::WavReader::open(&wav).is_ok_and(|reader| reader.duration() > 0)
    });
    let (done, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(player.stop()).unwrap());
    let result = stopped
        .recv_timeout(Duration::from_secs(60))
        .expect("stop() hung");
    result.unwrap();
    let log = read_played_log(&folder.path().join("run")).unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].status, RecordedStatus::Interrupted);
    assert!(log[1].frames < 16_000 * 30);
    assert_eq!(read_wav(&wav).len() as u64, log[1].frames);
}

#[test]
fn dropping_a_player_whose_sink_blocks_returns_after_the_stop_timeout() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(
        &folder.path().join("tone.wav"),
        16_000,
        1,
        1_000,
        pattern(7),
    );
    let sink = GateSink::closed(MONO_16K);
    let parameters = PlayerParameters {
        stop_timeout: Duration::from_millis(200),
        ..PlayerParameters::default()
    };
    let player = SoundPlayer::spawn(
        library(folder.path()),
        None,
        Box::new(sink.clone()),
        parameters,
    )
    .unwrap();
    player.submit(play("tone", Delivery::Queue));
    wait_until("the sound to block in the sink", || {
        player.status().playing.is_some()
    });
    let (done, dropped) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(player);
        done.send(()).unwrap();
    });
    dropped
        .recv_timeout(Duration::from_secs(60))
        .expect("dropping the player hung");
    // The thread was left blocked in the sink; released, it sees the stop and ends.
    sink.open_gate();
    wait_until("the thread to let go of the sink", || {
        std::sync::Arc::strong_count(&sink.written) == 1
    });
    assert!(sink.written.lock().unwrap().len() <= 160);
}

#[test]
fn submit_never_waits_for_a_blocked_sink() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(
        &folder.path().join("tone.wav"),
        16_000,
        1,
        1_000,
        pattern(8),
    );
    let sink = GateSink::closed(MONO_16K);
    let player = SoundPlayer::spawn(
        library(folder.path()),
        None,
        Box::new(sink.clone()),
        PlayerParameters::default(),
    )
    .unwrap();
    player.submit(play("tone", Delivery::Queue));
    wait_until("the sound to block in the sink", || {
        player.status().playing.is_some()
    });
    let player = std::sync::Arc::new(player);
    let ticker = std::sync::Arc::clone(&player);
    let (done, submitted) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for index in 0..1_000 {
            let delivery = if index % 2 == 0 {
                Delivery::Queue
            } else {
                Delivery::Interrupt
            };
            ticker.submit(play("tone", delivery));
        }
        done.send(()).unwrap();
    });
    submitted
        .recv_timeout(Duration::from_secs(60))
        .expect("submit() waited for the blocked sink");
    let status = player.status();
    assert_eq!(
        (status.queued, status.dropped_requests, status.played_total),
        (8, 992, 0)
    );
    sink.open_gate();
    wait_until("the cut sound and the queue to play", || {
        player.status().played_total == 9
    });
    let history = player.history();
    assert!(history[0].interrupted);
    assert!(history[1..].iter().all(|played| !played.interrupted));
}

#[test]
fn the_last_of_a_burst_of_interrupts_plays_whole_and_nothing_is_cut_by_itself() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(
        &folder.path().join("tone.wav"),
        16_000,
        1,
        1_600,
        pattern(13),
    );
    let player = recording_player(folder.path(), Pacing::Immediate);
    for round in 0..300 {
        player.submit(play("tone", Delivery::Interrupt));
        if round % 7 == 0 {
            std::thread::yield_now();
        }
    }
    wait_until("every request played or dropped", || {
        let status = player.status();
        status.played_total + status.dropped_requests == 300
    });
    let history = player.history();
    player.stop().unwrap();
    let last = history.last().unwrap();
    assert!(!last.interrupted, "{last:?}");
    assert_eq!(last.frames_played, 1_600);
}
