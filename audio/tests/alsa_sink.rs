//! The ALSA playback sink (feature `robot`): the player streaming to ALSA's `null` device (no
//! hardware needed), and devices and formats that cannot work.

#![cfg(feature = "robot")]

mod output_support;

use audio::output::alsa_sink::{AlsaSink, AlsaSinkOpenError, AlsaSinkParameters};
use audio::output::{
    Delivery, PlayRequest, PlayerParameters, SoundLibrary, SoundPlayer, SoundSink,
};
use output_support::{pattern, wait_until, write_wav};
use std::time::Duration;

fn null_device() -> Option<AlsaSink> {
    let parameters = AlsaSinkParameters {
        device: "null".to_owned(),
        ..AlsaSinkParameters::default()
    };
    match AlsaSink::open(&parameters) {
        Ok(sink) => Some(sink),
        Err(error) => {
            eprintln!("SKIPPED: ALSA's null device does not open for playback here: {error}");
            None
        }
    }
}

#[test]
fn the_player_streams_a_file_to_the_null_device() {
    let Some(sink) = null_device() else { return };
    assert_eq!(sink.format().channels, 2);
    let rate = sink.format().sample_rate_hz;
    let folder = tempfile::tempdir().unwrap();
    write_wav(
        &folder.path().join("tone.wav"),
        16_000,
        1,
        8_000,
        pattern(10),
    );
    let library = SoundLibrary::new(vec![folder.path().to_owned()], Duration::from_secs(5));
    let player =
        SoundPlayer::spawn(library, None, Box::new(sink), PlayerParameters::default()).unwrap();
    player.submit(PlayRequest::play("tone", Delivery::Queue));
    player.submit(PlayRequest::play("tone", Delivery::Interrupt));
    wait_until("two sounds", || player.status().played_total == 2);
    let history = player.history();
    let errors = player.take_errors();
    player.stop().unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    // 0.5 s at 16 kHz, converted to the device's rate, played whole.
    assert_eq!(history[1].frames_total, 8_000 * u64::from(rate) / 16_000);
    assert_eq!(history[1].frames_played, history[1].frames_total);
    assert!(!history[1].interrupted);
}

#[test]
fn a_device_that_does_not_exist_is_named() {
    let parameters = AlsaSinkParameters {
        device: "hw:cortex_no_such_card".to_owned(),
        ..AlsaSinkParameters::default()
    };
    let error = AlsaSink::open(&parameters).unwrap_err();
    assert!(
        matches!(error, AlsaSinkOpenError::Device { step: "open", .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("hw:cortex_no_such_card"),
        "{error}"
    );
}

#[test]
fn shapes_that_cannot_be_played_are_refused_before_opening() {
    for (channels, period_frames) in [(0, 1024), (9, 1024), (2, 0), (2, 1 << 20)] {
        let parameters = AlsaSinkParameters {
            device: "null".to_owned(),
            channels,
            period_frames,
            ..AlsaSinkParameters::default()
        };
        let error = AlsaSink::open(&parameters).unwrap_err();
        assert!(
            matches!(error, AlsaSinkOpenError::Unsupported { .. }),
            "{error}"
        );
    }
}
