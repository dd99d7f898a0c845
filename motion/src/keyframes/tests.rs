//! Tests of the keyframe format: every kind of bad file is an error naming the file, the line
//! and the key.

use super::*;
use crate::joint_limits;
use config::ConfigError;
use types::{JointId, JOINT_COUNT};

/// A keyframe listing every joint at 0 (hands 0.5), with `overrides` lines replacing
/// joints' lines.
fn frame(duration: &str, stiffness: &str, overrides: &[(&str, &str)]) -> String {
    let mut text = format!("[[keyframe]]\nduration_ms = {duration}\nstiffness = {stiffness}\n[keyframe.positions_deg]\n");
    for joint in JointId::ALL {
        let name = format!("{joint:?}");
        if overrides.iter().any(|(key, _)| *key == name) {
            continue;
        }
        let value = if joint_limits::is_hand(joint) {
            "0.5"
        } else {
            "0"
        };
        let value = match joint {
            JointId::LeftElbowRoll => "-10",
            JointId::RightElbowRoll => "10",
            _ => value,
        };
        text.push_str(&format!("{name} = {value}\n"));
    }
    for (key, value) in overrides {
        text.push_str(&format!("{key} = {value}\n"));
    }
    text
}

fn parse(text: &str) -> Result<Motion, ConfigError> {
    parse_motion("test", Path::new("/config/motions/test.toml"), text)
}

/// The error's line, key and text.
fn error(text: &str) -> (usize, String, String) {
    let error = parse(text).expect_err("the file is bad");
    let line = error.origin().and_then(|origin| origin.line()).unwrap_or(0);
    let key = match &error {
        ConfigError::UnknownKey { key, .. }
        | ConfigError::MissingKey { key, .. }
        | ConfigError::InvalidValue { key, .. } => key.clone(),
        ConfigError::Syntax { .. } => "(syntax)".to_owned(),
        other => panic!("unexpected error {other}"),
    };
    let message = error.to_string();
    assert!(message.contains("/config/motions/test.toml:"), "{message}");
    (line, key, message)
}

/// The 1-based line of the first line of `text` that starts with `start`.
fn line_of(text: &str, start: &str) -> usize {
    text.lines()
        .position(|line| line.starts_with(start))
        .expect("line")
        + 1
}

#[test]
fn a_full_file_becomes_radians_keeps_and_stiffnesses() {
    let text = format!(
        "description = \"test\"\n{}\n{}",
        frame("250", "0.6", &[("LeftKneePitch", "90"), ("HeadYaw", "\"*\"")]),
        "[[keyframe]]\nduration_ms = 100.5\nstiffness = { \"*\" = 0.2, HeadPitch = 0.9 }\n[keyframe.positions_deg]\nRightHand = 1\n\"*\" = \"*\"\n"
    );
    let motion = parse(&text).unwrap();
    assert_eq!(motion.description.as_deref(), Some("test"));
    assert_eq!(motion.keyframes.len(), 2);
    let first = &motion.keyframes[0];
    assert_eq!(first.duration_ms, 250.0);
    assert_eq!(first.stiffnesses, Joints::filled(0.6));
    assert_eq!(first.positions[JointId::HeadYaw], JointTarget::Keep);
    assert_eq!(
        first.positions[JointId::LeftKneePitch],
        JointTarget::Position(90_f32.to_radians())
    );
    assert_eq!(
        first.positions[JointId::LeftHand],
        JointTarget::Position(0.5)
    );
    let second = &motion.keyframes[1];
    assert_eq!(second.duration_ms, 100.5);
    assert_eq!(
        second.positions[JointId::RightHand],
        JointTarget::Position(1.0)
    );
    assert_eq!(second.positions[JointId::LeftKneePitch], JointTarget::Keep);
    assert_eq!(second.stiffnesses[JointId::HeadPitch], 0.9);
    assert_eq!(second.stiffnesses[JointId::RightAnkleRoll], 0.2);
    assert_eq!(motion.duration_ms(), 350.5);
    assert_eq!(motion.final_positions()[JointId::RightHand], Some(1.0));
    assert_eq!(motion.final_positions()[JointId::HeadYaw], None);
}

#[test]
fn an_unknown_joint_is_named_with_its_line_and_the_right_spelling() {
    let text = frame(
        "100",
        "1",
        &[("LeftKneePitch", "\"*\""), ("LKneePitch", "10")],
    );
    let (line, key, message) = error(&text);
    assert_eq!(line, line_of(&text, "LKneePitch"));
    assert_eq!(key, "keyframe[0].positions_deg.LKneePitch");
    assert!(message.contains("`LeftKneePitch`"), "{message}");
    let text = frame("100", "1", &[("LeftKnee", "10")]);
    let (line, key, _) = error(&text);
    assert_eq!(
        (line, key.as_str()),
        (
            line_of(&text, "LeftKnee ="),
            "keyframe[0].positions_deg.LeftKnee"
        )
    );
}

#[test]
fn wrong_types_and_ranges_name_the_key() {
    let text = frame("100", "1", &[("LeftKneePitch", "\"bent\"")]);
    let (line, key, message) = error(&text);
    assert_eq!(line, line_of(&text, "LeftKneePitch"));
    assert_eq!(key, "keyframe[0].positions_deg.LeftKneePitch");
    assert!(
        message.contains("expected an angle in degrees or \"*\", found the string \"bent\""),
        "{message}"
    );

    let text = frame("100", "1", &[("LeftKneePitch", "130")]);
    let (_, key, message) = error(&text);
    assert_eq!(key, "keyframe[0].positions_deg.LeftKneePitch");
    assert!(message.contains("outside the range"), "{message}");

    let text = frame("100", "1", &[("RightHand", "2")]);
    assert_eq!(error(&text).1, "keyframe[0].positions_deg.RightHand");

    let text = frame("100", "1.5", &[]);
    let (line, key, _) = error(&text);
    assert_eq!((line, key.as_str()), (3, "keyframe[0].stiffness"));

    let text = frame("100", "{ HeadYaw = 0.5 }", &[]);
    let (_, key, message) = error(&text);
    assert_eq!(key, "keyframe[0].stiffness");
    assert!(
        message.contains("missing stiffness of HeadPitch"),
        "{message}"
    );
}

#[test]
fn a_time_that_is_not_positive_is_an_error() {
    for duration in ["-100", "0", "\"fast\""] {
        let text = format!("{}\n{}", frame("100", "1", &[]), frame(duration, "1", &[]));
        let (line, key, message) = error(&text);
        assert_eq!(key, "keyframe[1].duration_ms", "{duration}");
        assert_eq!(line, text.lines().count() - JOINT_COUNT - 2, "{message}");
        assert!(message.contains("milliseconds > 0"), "{message}");
    }
}

#[test]
fn missing_joints_without_a_star_are_listed() {
    let mut text = frame("100", "1", &[]);
    text = text
        .lines()
        .filter(|line| !line.starts_with("LeftHand") && !line.starts_with("HeadPitch"))
        .collect::<Vec<_>>()
        .join("\n");
    let (line, key, message) = error(&text);
    assert_eq!((line, key.as_str()), (4, "keyframe[0].positions_deg"));
    assert!(
        message.contains("missing joints HeadPitch, LeftHand"),
        "{message}"
    );
    // With `"*" = "*"` they are kept.
    let motion = parse(&format!("{text}\n\"*\" = \"*\"\n")).unwrap();
    assert_eq!(
        motion.keyframes[0].positions[JointId::LeftHand],
        JointTarget::Keep
    );
    // `"*"` can only keep.
    let (_, key, _) = error(&format!("{text}\n\"*\" = 0\n"));
    assert_eq!(key, "keyframe[0].positions_deg.\"*\"");
}

#[test]
fn unknown_and_missing_keys_and_bad_toml_are_errors() {
    let text = frame("100", "1", &[]).replace(
        "[keyframe.positions_deg]\n",
        "speed = 2\n[keyframe.positions_deg]\n",
    );
    let (line, key, _) = error(&text);
    assert_eq!((line, key.as_str()), (4, "keyframe[0].speed"));

    let (line, key, _) = error("name = \"x\"\n");
    assert_eq!((line, key.as_str()), (1, "name"));
    let (_, key, _) = error("description = \"nothing\"\n");
    assert_eq!(key, "keyframe");
    let (_, key, _) = error("keyframe = []\n");
    assert_eq!(key, "keyframe");

    let text = format!(
        "description = \"x\"\n\n{}",
        frame("100", "1", &[]).replace("duration_ms = 100\n", "")
    );
    let (line, key, _) = error(&text);
    assert_eq!((line, key.as_str()), (3, "keyframe[0].duration_ms"));

    let (line, key, message) = error("[[keyframe]]\nduration_ms = = 3\n");
    assert_eq!((line, key.as_str()), (2, "(syntax)"));
    assert!(message.contains("not valid TOML"), "{message}");
}

#[test]
fn joints_are_found_by_their_jointid_names() {
    assert_eq!(joint_named("LeftKneePitch"), Some(JointId::LeftKneePitch));
    assert_eq!(joint_named("RightHand"), Some(JointId::RightHand));
    assert_eq!(joint_named("LKneePitch"), None);
}
