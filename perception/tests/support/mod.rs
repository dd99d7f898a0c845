//! What the detection tests share: finding the real NAO frames, their labels, and image
//! variants made from them.

#![allow(dead_code)]

pub mod variants;

use cortex_image::{read_png, ColorRange, RgbImage, YuyvImage};
use std::path::PathBuf;

/// `$CORTEX_DATA_DIR/vision`, or `<workspace>/../shared/data/vision`; None (with a SKIPPED
/// line) when it is not there.
pub fn vision_dir(test: &str) -> Option<PathBuf> {
    let data = std::env::var_os("CORTEX_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("../shared/data")
        });
    let vision = data.join("vision");
    if vision.join("rome_bottom_ball.png").is_file() {
        Some(vision)
    } else {
        eprintln!(
            "SKIPPED: {test}: no NAO frames at {} (set CORTEX_DATA_DIR)",
            vision.display()
        );
        None
    }
}

/// A labelled ball: centre and radius in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Label {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
}

/// A frame with its balls.
#[derive(Debug, Clone)]
pub struct LabelledFrame {
    pub name: String,
    pub image: RgbImage,
    pub balls: Vec<Label>,
}

/// Every labelled frame of the data folder: rome (one ball), the white wall (none), and
/// detectball/ with its labels.json.
pub fn labelled_frames(vision: &std::path::Path) -> Vec<LabelledFrame> {
    let mut frames = vec![
        LabelledFrame {
            name: "rome_bottom_ball.png".into(),
            image: read_png(&vision.join("rome_bottom_ball.png")).unwrap(),
            balls: vec![Label {
                x: 308.93,
                y: 176.42,
                radius: 42.92,
            }],
        },
        LabelledFrame {
            name: "white_wall_with_a_little_desk_in_front.png".into(),
            image: read_png(&vision.join("white_wall_with_a_little_desk_in_front.png")).unwrap(),
            balls: vec![],
        },
    ];
    let detectball = vision.join("detectball");
    let labels_text = std::fs::read_to_string(detectball.join("labels.json")).unwrap();
    let labels: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&labels_text).unwrap();
    let mut names: Vec<&String> = labels.keys().collect();
    names.sort();
    for name in names {
        let balls = labels[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|ball| Label {
                x: ball["x"].as_f64().unwrap() as f32,
                y: ball["y"].as_f64().unwrap() as f32,
                radius: ball["r"].as_f64().unwrap() as f32,
            })
            .collect();
        frames.push(LabelledFrame {
            name: format!("detectball/{name}"),
            image: read_png(&detectball.join(name)).unwrap(),
            balls,
        });
    }
    frames
}

pub fn to_yuyv(image: &RgbImage) -> YuyvImage {
    YuyvImage::from_rgb(image, ColorRange::Full).unwrap()
}

/// A blackboard holding the default of every representation of the registered modules, for
/// running modules outside a process.
pub fn blackboard_with_defaults() -> framework::Blackboard {
    let mut blackboard = framework::Blackboard::new();
    for name in framework::registry().names() {
        framework::registry()
            .get(name)
            .unwrap()
            .insert_default(&mut blackboard);
    }
    blackboard
}
