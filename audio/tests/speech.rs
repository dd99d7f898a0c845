//! Speech: the real flite when installed (SKIPPED otherwise), and every way an engine fails —
//! not installed, hanging, writing garbage, cut by an interrupt — with the shipped WAVs as
//! fallback.

mod output_support;

use audio::output::{
    Delivery, Pacing, PlayError, PlayRequest, PlayedFrom, PlayerParameters, ProgramSpeech,
    RecordingSink, Sound, SoundLibrary, SoundPlayer, SpeechEngine, SpeechError,
};
use output_support::{pattern, read_wav, shipped_sounds, wait_until, write_wav, MONO_16K};
use std::path::Path;
use std::time::Duration;

fn player(
    folder: &Path,
    speech: ProgramSpeech,
    sound_folders: Vec<std::path::PathBuf>,
) -> SoundPlayer {
    let sink = RecordingSink::open(&folder.join("run"), MONO_16K, Pacing::Immediate).unwrap();
    let library = SoundLibrary::new(sound_folders, Duration::from_secs(30));
    SoundPlayer::spawn(
        library,
        Some(Box::new(speech)),
        Box::new(sink),
        PlayerParameters::default(),
    )
    .unwrap()
}

fn say(text: &str) -> PlayRequest {
    PlayRequest::say(text, Delivery::Queue)
}

/// Files the engine left in its work folder.
fn leftovers(folder: &Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .unwrap()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("speech-"))
        .collect()
}

fn missing_engine(folder: &Path) -> ProgramSpeech {
    ProgramSpeech::new(
        "none",
        folder.join("no-such-tts-program"),
        vec!["{text}".into()],
        folder,
    )
}

#[test]
fn flite_speaks_and_the_recording_holds_what_it_said() {
    if std::process::Command::new("flite")
        .arg("-lv")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: flite is not installed (Debian package `flite`)");
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let direct = folder.path().join("direct.wav");
    let status = std::process::Command::new("flite")
        .args(["-voice", "kal16", "-t", "Python error", "-o"])
        .arg(&direct)
        .status()
        .unwrap();
    assert!(status.success());
    let player = player(folder.path(), ProgramSpeech::flite(folder.path()), vec![]);
    player.submit(say("Python error"));
    wait_until("the speech", || player.status().played_total == 1);
    let history = player.history();
    let errors = player.take_errors();
    player.stop().unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        history[0].from,
        PlayedFrom::Speech {
            engine: "flite".into()
        }
    );
    assert!(!history[0].interrupted);
    let expected = read_wav(&direct);
    assert_eq!(history[0].frames_total, expected.len() as u64);
    let recorded = read_wav(&folder.path().join("run/played.wav"));
    assert_eq!(
        recorded, expected,
        "flite said something else than when run directly"
    );
    assert!(
        recorded.iter().any(|&sample| sample.unsigned_abs() > 1_000),
        "silence"
    );
    assert_eq!(leftovers(folder.path()), Vec::<String>::new());
}

#[test]
fn a_missing_engine_is_reported_once_and_the_shipped_wav_plays() {
    let folder = tempfile::tempdir().unwrap();
    let player = player(
        folder.path(),
        missing_engine(folder.path()),
        vec![shipped_sounds()],
    );
    player.submit(say("Python error"));
    player.submit(say("Python error"));
    wait_until("both fallbacks", || player.status().played_total == 2);
    let history = player.history();
    let errors = player.take_errors();
    player.stop().unwrap();
    let shipped = shipped_sounds().join("python_error.wav");
    for played in &history {
        assert_eq!(
            played.from,
            PlayedFrom::Fallback {
                path: shipped.clone()
            }
        );
        assert!(!played.interrupted);
    }
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0].to_string();
    assert!(
        matches!(
            &errors[0],
            PlayError::Speech {
                source: SpeechError::EngineMissing { .. },
                ..
            }
        ),
        "{message}"
    );
    assert!(
        message.contains("no-such-tts-program") && message.contains("Python error"),
        "{message}"
    );
    let once = read_wav(&shipped);
    assert_eq!(
        read_wav(&folder.path().join("run/played.wav")),
        [once.clone(), once].concat()
    );
}

#[test]
fn a_text_without_speech_or_fallback_is_reported_and_the_next_still_plays() {
    let folder = tempfile::tempdir().unwrap();
    let player = player(
        folder.path(),
        missing_engine(folder.path()),
        vec![shipped_sounds()],
    );
    player.submit(say("Something nobody recorded"));
    player.submit(say("?!"));
    player.submit(say("Safe state"));
    wait_until("the fallback", || player.status().played_total == 1);
    let errors = player.take_errors();
    assert_eq!(
        player.history()[0].sound,
        Sound::Say {
            text: "Safe state".into()
        }
    );
    player.stop().unwrap();
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    // One error per text nothing can say (the first names the missing engine too).
    assert_eq!(errors.len(), 2, "{messages:?}");
    assert!(
        matches!(&errors[0], PlayError::NoSpeech { .. }),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains("something_nobody_recorded.wav"),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains("no-such-tts-program"),
        "{}",
        messages[0]
    );
    assert!(
        matches!(&errors[1], PlayError::NoSpeech { .. }),
        "{}",
        messages[1]
    );
    assert!(messages[1].contains("?!"), "{}", messages[1]);
}

#[test]
fn a_hanging_engine_is_killed_at_its_timeout_and_the_fallback_plays() {
    let folder = tempfile::tempdir().unwrap();
    let hanging = ProgramSpeech::new("sleep", "/bin/sleep", vec!["600".into()], folder.path())
        .with_timeout(Duration::from_millis(300));
    let player = player(folder.path(), hanging, vec![shipped_sounds()]);
    player.submit(say("Safe state"));
    wait_until("the fallback", || player.status().played_total == 1);
    let errors = player.take_errors();
    assert!(matches!(
        player.history()[0].from,
        PlayedFrom::Fallback { .. }
    ));
    player.stop().unwrap();
    assert!(
        matches!(
            &errors[..],
            [PlayError::Speech {
                source: SpeechError::TimedOut { .. },
                ..
            }]
        ),
        "{errors:?}"
    );
    assert_eq!(leftovers(folder.path()), Vec::<String>::new());
}

#[test]
fn an_engine_that_writes_garbage_or_fails_is_named() {
    let folder = tempfile::tempdir().unwrap();
    let arguments = |script: &str| vec!["-c".to_owned(), script.to_owned(), "{output}".to_owned()];
    let mut garbage = ProgramSpeech::new(
        "sh",
        "/bin/sh",
        arguments("printf garbage > \"$0\""),
        folder.path(),
    );
    let error = garbage.synthesise("hello", &|| false).unwrap_err();
    assert!(matches!(error, SpeechError::Output { .. }), "{error}");
    assert!(error.to_string().contains("speech-"), "{error}");
    let mut failing = ProgramSpeech::new(
        "sh",
        "/bin/sh",
        arguments("echo no voice >&2; exit 3"),
        folder.path(),
    );
    let error = failing.synthesise("hello", &|| false).unwrap_err();
    assert!(matches!(error, SpeechError::Failed { .. }), "{error}");
    assert!(error.to_string().contains("no voice"), "{error}");
    let error = failing
        .synthesise(&"x".repeat(10_000), &|| false)
        .unwrap_err();
    assert!(matches!(error, SpeechError::InvalidText { .. }), "{error}");
    assert_eq!(leftovers(folder.path()), Vec::<String>::new());
}

#[test]
fn an_interrupt_cuts_a_sound_still_being_synthesised() {
    let folder = tempfile::tempdir().unwrap();
    write_wav(&folder.path().join("tone.wav"), 16_000, 1, 800, pattern(9));
    let slow = ProgramSpeech::new("sleep", "/bin/sleep", vec!["600".into()], folder.path())
        .with_timeout(Duration::from_secs(600));
    let player = player(folder.path(), slow, vec![folder.path().to_owned()]);
    player.submit(say("Hello"));
    wait_until("the speech to start", || player.status().playing.is_some());
    player.submit(PlayRequest::play("tone", Delivery::Interrupt));
    wait_until("the tone", || player.status().played_total == 2);
    let history = player.history();
    player.stop().unwrap();
    assert_eq!(
        history[0].sound,
        Sound::Say {
            text: "Hello".into()
        }
    );
    assert!(history[0].interrupted);
    assert_eq!(history[0].frames_played, 0);
    assert_eq!(history[1].sound.label(), "tone");
    assert_eq!(
        read_wav(&folder.path().join("run/played.wav")),
        read_wav(&folder.path().join("tone.wav"))
    );
    assert_eq!(leftovers(folder.path()), Vec::<String>::new());
}
