//! The robot build's V4L2 camera without a NAO: the errors for a missing device, something that
//! is not a camera and bad settings, and — when this machine has a V4L2 capture device (a
//! webcam, or the `vivid` test driver: `modprobe vivid`) — a real capture.
//!
//! ```sh
//! cargo test -p cortex_image --features robot --test v4l2
//! ```
#![cfg(feature = "robot")]

use cortex_image::{Camera, CameraSettings, V4l2Camera, V4l2OpenError};
use std::time::{Duration, Instant};

#[test]
fn a_missing_device_is_an_open_error_naming_it() {
    let directory = tempfile::tempdir().unwrap();
    let device = directory.path().join("video-top");
    let error = V4l2Camera::open(&CameraSettings::with_device(&device)).unwrap_err();
    assert!(
        matches!(&error, V4l2OpenError::Open { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains(&device.display().to_string()), "{message}");
}

#[test]
fn a_file_that_is_not_a_camera_is_refused_as_not_v4l2() {
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("frame.yuv");
    std::fs::write(&file, vec![0u8; 640 * 480 * 2]).unwrap();
    for device in [file.as_path(), std::path::Path::new("/dev/null")] {
        let error = V4l2Camera::open(&CameraSettings::with_device(device)).unwrap_err();
        assert!(
            matches!(error, V4l2OpenError::NotV4l2 { .. }),
            "{device:?}: {error:?}"
        );
        assert!(error.to_string().contains("not a V4L2 device"), "{error}");
    }
}

#[test]
fn bad_settings_are_refused_before_the_device_is_touched() {
    let mut settings = CameraSettings::with_device("/dev/null");
    settings.gain = Some(5000);
    let error = V4l2Camera::open(&settings).unwrap_err();
    assert!(matches!(error, V4l2OpenError::Settings { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("/dev/null") && message.contains("`gain` = 5000"),
        "{message}"
    );
}

/// The first `/dev/video*` that opens as a YUYV 640×480 capture device at 30 fps.
fn capture_device() -> Option<(CameraSettings, V4l2Camera)> {
    let mut devices: Vec<_> = std::fs::read_dir("/dev")
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("video"))
        })
        .collect();
    devices.sort();
    devices.into_iter().find_map(|device| {
        let settings = CameraSettings::with_device(&device);
        match V4l2Camera::open(&settings) {
            Ok(camera) => Some((settings, camera)),
            Err(error) => {
                eprintln!("{}: {error}", device.display());
                None
            }
        }
    })
}

#[test]
fn a_real_device_delivers_frames_with_driver_timestamps() {
    let Some((settings, mut camera)) = capture_device() else {
        eprintln!(
            "SKIPPED: a_real_device_delivers_frames_with_driver_timestamps: no V4L2 capture \
             device here that takes YUYV 640x480 at 30 fps (modprobe vivid makes one)"
        );
        return;
    };
    let mut previous: Option<Instant> = None;
    for expected_sequence in 0..10u64 {
        let frame = camera
            .next_frame()
            .expect("a streaming camera delivers")
            .expect("a camera never ends");
        assert_eq!(frame.sequence, expected_sequence);
        assert_eq!(
            (frame.image.width(), frame.image.height()),
            (settings.width as usize, settings.height as usize)
        );
        assert_eq!(frame.source, settings.device.display().to_string());
        let now = Instant::now();
        assert!(frame.captured_at <= now);
        assert!(now - frame.captured_at < Duration::from_secs(5));
        if let Some(previous) = previous {
            assert!(frame.captured_at >= previous, "timestamps go forward");
        }
        previous = Some(frame.captured_at);
    }
    // Closing and opening again works (the stream and the mappings were released).
    drop(camera);
    let mut camera = V4l2Camera::open(&settings).expect("reopens");
    assert!(camera.next_frame().unwrap().is_some());
}
