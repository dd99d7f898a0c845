//! The shipped detector on the real NAO recordings: every file in `whistle/yes/` is heard
//! once, none in `whistle/no/` is.

mod common;

use audio::{hear, WhistleDetectorParameters};

#[test]
fn every_yes_file_is_heard_and_no_no_file_is() {
    let Some(data) = common::whistle_data() else {
        eprintln!(
            "SKIPPED: no whistle recordings (set CORTEX_DATA_DIR to the folder holding whistle/)"
        );
        return;
    };
    let parameters = WhistleDetectorParameters::default();
    let yes = common::wav_files(&data.join("yes"));
    let no = common::wav_files(&data.join("no"));
    assert!(
        !yes.is_empty() && !no.is_empty(),
        "{} holds no recordings",
        data.display()
    );
    let mut failures = Vec::new();
    for (files, expected) in [(&yes, true), (&no, false)] {
        for file in files {
            let result = hear(file, &parameters).unwrap_or_else(|error| panic!("{error}"));
            eprintln!(
                "{}: whistle {} at {:?} s",
                file.display(),
                result.whistle,
                result.times_s
            );
            if result.whistle != expected {
                failures.push(format!(
                    "{}: expected {expected}, heard {:?}",
                    file.display(),
                    result.times_s
                ));
            }
            if expected {
                // One whistle per recording, once.
                assert_eq!(
                    result.times_s.len(),
                    1,
                    "{}: {:?}",
                    file.display(),
                    result.times_s
                );
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn mono_recordings_are_heard_the_same_through_both_channel_modes() {
    let Some(data) = common::whistle_data() else {
        eprintln!(
            "SKIPPED: no whistle recordings (set CORTEX_DATA_DIR to the folder holding whistle/)"
        );
        return;
    };
    // Mono files: mixing and averaging power spectra of one channel are the same computation.
    let shipped = WhistleDetectorParameters::default();
    let mut mixed = shipped.clone();
    mixed.channel_mode = audio::ChannelMode::Mix;
    for file in common::wav_files(&data.join("yes")) {
        let a = hear(&file, &shipped).unwrap();
        let b = hear(&file, &mixed).unwrap();
        assert_eq!(a.times_s, b.times_s, "{}", file.display());
    }
}
