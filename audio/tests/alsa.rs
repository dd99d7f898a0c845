//! The ALSA source (feature `robot`): against ALSA's `null` device (no hardware needed: it
//! captures silence at any format), and with devices and formats that cannot work.

#![cfg(feature = "robot")]

use audio::alsa_source::{AlsaOpenError, AlsaParameters, AlsaSource};
use audio::{AudioFrames, AudioSource};

#[test]
fn the_null_device_delivers_timestamped_buffers_of_the_asked_shape() {
    let parameters = AlsaParameters {
        device: "null".to_owned(),
        ..AlsaParameters::default()
    };
    let mut source = match AlsaSource::open(&parameters) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("SKIPPED: ALSA's null device does not open here: {error}");
            return;
        }
    };
    assert_eq!(source.channel_count(), 4);
    assert_eq!(source.sample_rate_hz(), 48_000);
    let mut frames = AudioFrames::empty(48_000, 4);
    let mut last_timestamp = None;
    for _ in 0..3 {
        assert!(source.read(&mut frames).unwrap());
        assert!(frames.frame_count > 0 && frames.frame_count as usize <= audio::MAX_FRAMES);
        assert_eq!(frames.channel_count, 4);
        if let Some(last) = last_timestamp {
            assert!(
                frames.timestamp_ns >= last,
                "{} < {last}",
                frames.timestamp_ns
            );
        }
        last_timestamp = Some(frames.timestamp_ns);
    }
}

#[test]
fn a_device_that_does_not_exist_is_named() {
    let parameters = AlsaParameters {
        device: "hw:cortex_no_such_card".to_owned(),
        ..AlsaParameters::default()
    };
    let error = AlsaSource::open(&parameters).unwrap_err();
    assert!(
        matches!(error, AlsaOpenError::Device { step: "open", .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("hw:cortex_no_such_card"),
        "{error}"
    );
}

#[test]
fn shapes_the_buffers_cannot_hold_are_refused_before_opening() {
    for (channels, frames) in [(0, 2048), (5, 2048), (4, 0), (4, 4096)] {
        let parameters = AlsaParameters {
            device: "null".to_owned(),
            channels,
            frames_per_buffer: frames,
            ..AlsaParameters::default()
        };
        let error = AlsaSource::open(&parameters).unwrap_err();
        assert!(
            matches!(error, AlsaOpenError::Unsupported { .. }),
            "{error}"
        );
    }
}
