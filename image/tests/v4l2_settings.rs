//! A camera's settings as a parameter file gives them: TOML with no unknown keys, each range
//! checked with the key named.
//!
//! ```sh
//! cargo test -p cortex_image --test v4l2_settings
//! ```

use cortex_image::{CameraSettings, CameraSettingsError};
use std::path::Path;

#[test]
fn a_full_parameter_file_is_read_as_written() {
    let text = r#"
        device = "/dev/video-top"
        width = 1280
        height = 960
        frames_per_second = 30
        buffers = 3
        frame_timeout_ms = 1000
        exposure_auto = false
        exposure = 2000
        gain = 160
        white_balance_auto = false
        white_balance_temperature = 4000
        brightness = 0
        contrast = 32
        saturation = 80
        hue = 0
        sharpness = 4
        horizontal_flip = true
        vertical_flip = true
    "#;
    let settings: CameraSettings = toml::from_str(text).unwrap();
    assert_eq!(settings.validate(), Ok(()));
    assert_eq!(settings.device, Path::new("/dev/video-top"));
    assert_eq!((settings.width, settings.height), (1280, 960));
    assert_eq!(settings.exposure, Some(2000));
    assert_eq!(settings.white_balance_temperature, Some(4000));
    assert!(settings.horizontal_flip && settings.vertical_flip);
}

#[test]
fn left_out_values_keep_the_defaults_and_the_drivers_controls() {
    let settings: CameraSettings = toml::from_str("device = \"/dev/video-bottom\"").unwrap();
    assert_eq!(settings, CameraSettings::lower());
    assert_eq!(settings.gain, None);
    assert_eq!(settings.buffers, 3);
}

#[test]
fn an_unknown_key_is_an_error_naming_it_and_its_line() {
    let text = "device = \"/dev/video-top\"\nwidth = 640\ngian = 100\n";
    let error = toml::from_str::<CameraSettings>(text)
        .unwrap_err()
        .to_string();
    assert!(error.contains("gian"), "{error}");
    assert!(error.contains("line 3"), "{error}");
}

#[test]
fn a_value_of_the_wrong_kind_is_an_error_naming_its_key() {
    let error = toml::from_str::<CameraSettings>("device = \"/dev/video-top\"\ngain = \"high\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("gain") || error.contains("line 2"),
        "{error}"
    );
    let error = toml::from_str::<CameraSettings>("device = \"/dev/video-top\"\nwidth = -640\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("line 2"), "{error}");
}

#[test]
fn a_value_out_of_range_names_its_key_and_the_range() {
    let settings: CameraSettings =
        toml::from_str("device = \"/dev/video-top\"\nsaturation = 300\n").unwrap();
    let error = settings.validate().unwrap_err();
    assert_eq!(
        error,
        CameraSettingsError::OutOfRange {
            key: "saturation",
            value: 300,
            min: 0,
            max: 255
        }
    );
    assert_eq!(
        error.to_string(),
        "camera setting `saturation` = 300 is out of range: expected 0 to 255"
    );
    let settings: CameraSettings = toml::from_str("device = \"\"").unwrap();
    assert_eq!(settings.validate(), Err(CameraSettingsError::NoDevice));
}
