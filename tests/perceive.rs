//! `cortex perceive`, the real binary: the shared NAO frames with `--json` (the shape the
//! acceptance check reads), the same frame as a raw YUYV file, and broken, missing and
//! wrongly sized files among good ones (a message naming each, the others still processed,
//! exit 66 when a file could not be read, 65 when one was malformed).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn perceive(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cortex"))
        .arg("perceive")
        .args(args)
        .output()
        .expect("cortex runs")
}

fn vision_data() -> Option<PathBuf> {
    support::shared_data("vision").filter(|vision| vision.join("rome_bottom_ball.png").is_file())
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{line}: {error}")))
        .collect()
}

fn path_text(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

#[test]
fn shared_frames_give_one_json_object_per_file() {
    let Some(vision) = vision_data() else {
        eprintln!("SKIPPED: shared_frames_give_one_json_object_per_file: no vision data");
        return;
    };
    let rome = vision.join("rome_bottom_ball.png");
    let wall = vision.join("white_wall_with_a_little_desk_in_front.png");
    let output = perceive(&[
        "--camera",
        "lower",
        "--json",
        path_text(&rome),
        path_text(&wall),
    ]);
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["file"], path_text(&rome));
    let balls = lines[0]["balls"].as_array().unwrap();
    assert_eq!(balls.len(), 1, "{lines:?}");
    let (x, y) = (
        balls[0]["x"].as_f64().unwrap(),
        balls[0]["y"].as_f64().unwrap(),
    );
    let error = ((x - 308.93).powi(2) + (y - 176.42).powi(2)).sqrt();
    assert!(
        error <= 5.0,
        "ball at ({x}, {y}), {error:.1} px from the label"
    );
    assert!(balls[0]["radius"].as_f64().unwrap() > 30.0);
    let confidence = balls[0]["confidence"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&confidence));
    assert!(lines[0]["time_ms"].as_f64().unwrap() > 0.0);
    let keys: Vec<&String> = lines[0].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "exactly file, balls, time_ms: {keys:?}");
    assert_eq!(
        balls[0].as_object().unwrap().len(),
        4,
        "x, y, radius, confidence"
    );
    assert_eq!(lines[1]["balls"].as_array().unwrap().len(), 0, "{lines:?}");
}

#[test]
fn a_raw_yuyv_frame_is_read_like_its_png() {
    let Some(vision) = vision_data() else {
        eprintln!("SKIPPED: a_raw_yuyv_frame_is_read_like_its_png: no vision data");
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let rgb = cortex_image::read_png(&vision.join("rome_bottom_ball.png")).unwrap();
    let yuyv = cortex_image::YuyvImage::from_rgb(&rgb, cortex_image::ColorRange::Full).unwrap();
    let raw = folder.path().join("rome.yuyv");
    cortex_image::write_yuyv_file(&raw, &yuyv).unwrap();
    let output = perceive(&["--json", path_text(&raw)]);
    assert!(output.status.success(), "{output:?}");
    let lines = json_lines(&output);
    let balls = lines[0]["balls"].as_array().unwrap();
    assert_eq!(balls.len(), 1, "{lines:?}");
    let x = balls[0]["x"].as_f64().unwrap();
    assert!((x - 308.93).abs() <= 5.0, "{lines:?}");
}

#[test]
fn broken_and_missing_files_are_named_and_the_others_still_processed() {
    let folder = tempfile::tempdir().unwrap();
    let good = folder.path().join("field.png");
    cortex_image::write_png(
        &good,
        &cortex_image::RgbImage::filled(640, 480, [40, 140, 60]),
    )
    .unwrap();
    let mut bytes = std::fs::read(&good).unwrap();
    bytes.truncate(bytes.len() / 2);
    let truncated = folder.path().join("truncated.png");
    std::fs::write(&truncated, &bytes).unwrap();
    let wrong_size = folder.path().join("wrong_size.png");
    cortex_image::write_png(
        &wrong_size,
        &cortex_image::RgbImage::filled(100, 80, [0, 0, 0]),
    )
    .unwrap();
    let short_raw = folder.path().join("short.yuyv");
    std::fs::write(&short_raw, vec![0u8; 1000]).unwrap();
    let missing = folder.path().join("missing.png");

    // Malformed files only: 65, each named, the good one still processed.
    let output = perceive(&[
        "--json",
        path_text(&truncated),
        path_text(&good),
        path_text(&wrong_size),
        path_text(&short_raw),
    ]);
    assert_eq!(output.status.code(), Some(65), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for name in [
        "truncated.png",
        "wrong_size.png",
        "100x80",
        "short.yuyv",
        "1000 bytes",
    ] {
        assert!(stderr.contains(name), "stderr names {name}: {stderr}");
    }
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 1, "only the good file on stdout: {lines:?}");
    assert_eq!(lines[0]["file"], path_text(&good));
    assert_eq!(
        lines[0]["balls"].as_array().unwrap().len(),
        0,
        "a plain field"
    );

    // A missing file makes it 66.
    let output = perceive(&[path_text(&missing), path_text(&good), path_text(&truncated)]);
    assert_eq!(output.status.code(), Some(66), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("missing.png"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("field.png: 0 balls"), "{stdout}");
}
