//! The bridge's parameters (`LolaBridge.toml`), each checked for finiteness and range while it
//! is read, so that a bad value is refused at load with its file, line and key
//! (`LolaBridge.toml:7: key `sit_stiffness`: 5 is outside 0 ..= 1`), never found by a panic
//! or sent to LoLA.

use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::time::Duration;
use types::JointId;

/// The bridge's parameters (`LolaBridge.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BridgeParameters {
    /// Longest wait for motion's request after publishing a frame, ms; 0 ..= 10.
    #[serde(deserialize_with = "motion_wait_ms")]
    pub motion_wait_ms: f32,
    /// Motion's request counts as stale after this long without a new one, ms; 1 ..= 10 000.
    #[serde(deserialize_with = "stale_after_ms")]
    pub stale_after_ms: f32,
    /// A stale request is held with stiffness this long; then the robot sits down, ms;
    /// 0 ..= 60 000.
    #[serde(deserialize_with = "sit_after_ms")]
    pub sit_after_ms: f32,
    /// Duration of the sit-down motion, ms; 100 ..= 10 000.
    #[serde(deserialize_with = "sit_duration_ms")]
    pub sit_duration_ms: f32,
    /// Stiffness while sitting down; 0 ..= 1.
    #[serde(deserialize_with = "stiffness")]
    pub sit_stiffness: f32,
    /// Knee pitch above which the robot counts as sitting (no sit-down needed), rad; 0 ..= 2.5.
    #[serde(deserialize_with = "knee_pitch_rad")]
    pub sitting_knee_pitch_rad: f32,
    /// How long to retry connecting to LoLA at start, ms; 0 ..= 600 000.
    #[serde(deserialize_with = "connect_timeout_ms")]
    pub connect_timeout_ms: f32,
    /// The largest change of a joint target from one command to the next, rad; above 0, ≤ 1.
    #[serde(deserialize_with = "target_step_rad")]
    pub max_target_step_rad: f32,
    /// LoLA silent this long: the pose may have changed behind motion's back, motion re-plans
    /// (a new pose epoch), ms; 12 ..= 60 000.
    #[serde(deserialize_with = "replan_after_silence_ms")]
    pub replan_after_silence_ms: f32,
    /// This many bad inputs in a row without one good frame: drop the connection and connect
    /// again; 1 ..= 10 000.
    #[serde(deserialize_with = "reconnect_after_bad_frames")]
    pub reconnect_after_bad_frames: u32,
    /// A frame with more non-finite or implausible values than this is rejected whole; fewer
    /// are replaced by their last good value; 0 ..= 100.
    #[serde(deserialize_with = "max_replaced_values")]
    pub max_replaced_values: u32,
    /// The sitting pose, rad, by joint name (`LeftKneePitch` …); joints not named keep 0.
    /// Each angle within ±π.
    #[serde(deserialize_with = "sit_pose")]
    pub sit_pose_rad: BTreeMap<String, f32>,
}

impl Default for BridgeParameters {
    fn default() -> Self {
        let sit_pose = [
            ("LeftShoulderPitch", 1.4),
            ("LeftShoulderRoll", 0.2),
            ("LeftElbowYaw", -1.4),
            ("LeftElbowRoll", -0.5),
            ("LeftHipPitch", -0.87),
            ("LeftKneePitch", 2.13),
            ("LeftAnklePitch", -1.22),
            ("RightHipPitch", -0.87),
            ("RightKneePitch", 2.13),
            ("RightAnklePitch", -1.22),
            ("RightShoulderPitch", 1.4),
            ("RightShoulderRoll", -0.2),
            ("RightElbowYaw", 1.4),
            ("RightElbowRoll", 0.5),
        ];
        BridgeParameters {
            motion_wait_ms: 6.0,
            stale_after_ms: 36.0,
            sit_after_ms: 1000.0,
            sit_duration_ms: 1500.0,
            sit_stiffness: 0.6,
            sitting_knee_pitch_rad: 1.8,
            connect_timeout_ms: 5000.0,
            max_target_step_rad: 0.1,
            replan_after_silence_ms: 100.0,
            reconnect_after_bad_frames: 25,
            max_replaced_values: 8,
            sit_pose_rad: sit_pose
                .into_iter()
                .map(|(name, angle)| (name.to_owned(), angle))
                .collect(),
        }
    }
}

impl BridgeParameters {
    /// Reads `LolaBridge.toml` (defaults for what it leaves out) and checks every value.
    pub fn load(config: &config::Config) -> Result<BridgeParameters, config::ConfigError> {
        config.parameters_or_default("LolaBridge")
    }
}

/// A duration in ms as a [`Duration`]; values were checked at load, and anything else
/// saturates instead of panicking.
pub(crate) fn ms(value: f32) -> Duration {
    Duration::try_from_secs_f32(value / 1000.0).unwrap_or(if value > 0.0 {
        Duration::MAX
    } else {
        Duration::ZERO
    })
}

fn in_range<'de, D: Deserializer<'de>>(
    deserializer: D,
    low: f32,
    high: f32,
    low_inclusive: bool,
) -> Result<f32, D::Error> {
    let value = f32::deserialize(deserializer)?;
    let above_low = if low_inclusive {
        value >= low
    } else {
        value > low
    };
    if value.is_finite() && above_low && value <= high {
        Ok(value)
    } else {
        let opening = if low_inclusive { "" } else { "above " };
        Err(serde::de::Error::custom(format!(
            "{value} is outside {opening}{low} ..= {high}"
        )))
    }
}

macro_rules! ranges {
    ($($name:ident: $low:expr, $high:expr, $inclusive:expr;)*) => {
        $(fn $name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
            in_range(deserializer, $low, $high, $inclusive)
        })*
    };
}

ranges! {
    motion_wait_ms: 0.0, 10.0, true;
    stale_after_ms: 1.0, 10_000.0, true;
    sit_after_ms: 0.0, 60_000.0, true;
    sit_duration_ms: 100.0, 10_000.0, true;
    stiffness: 0.0, 1.0, true;
    knee_pitch_rad: 0.0, 2.5, true;
    connect_timeout_ms: 0.0, 600_000.0, true;
    target_step_rad: 0.0, 1.0, false;
    replan_after_silence_ms: 12.0, 60_000.0, true;
}

fn count_in<'de, D: Deserializer<'de>>(
    deserializer: D,
    low: u32,
    high: u32,
) -> Result<u32, D::Error> {
    let value = i64::deserialize(deserializer)?;
    match u32::try_from(value) {
        Ok(count) if (low..=high).contains(&count) => Ok(count),
        _ => Err(serde::de::Error::custom(format!(
            "{value} is outside {low} ..= {high}"
        ))),
    }
}

fn reconnect_after_bad_frames<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    count_in(deserializer, 1, 10_000)
}

fn max_replaced_values<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    count_in(deserializer, 0, 100)
}

/// A joint angle of the sitting pose: finite, within ±π.
#[derive(Debug, Clone, Copy)]
struct SitAngle(f32);

impl<'de> Deserialize<'de> for SitAngle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        in_range(
            deserializer,
            -std::f32::consts::PI,
            std::f32::consts::PI,
            true,
        )
        .map(SitAngle)
    }
}

/// A joint name of the sitting pose (`LeftKneePitch` …).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct SitJoint(String);

impl<'de> Deserialize<'de> for SitJoint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if JointId::ALL
            .iter()
            .any(|joint| format!("{joint:?}") == name)
        {
            Ok(SitJoint(name))
        } else {
            let known: Vec<String> = JointId::ALL
                .iter()
                .map(|joint| format!("{joint:?}"))
                .collect();
            Err(serde::de::Error::custom(format!(
                "{name} is not a joint; joints: {}",
                known.join(", ")
            )))
        }
    }
}

fn sit_pose<'de, D: Deserializer<'de>>(deserializer: D) -> Result<BTreeMap<String, f32>, D::Error> {
    let pose = BTreeMap::<SitJoint, SitAngle>::deserialize(deserializer)?;
    Ok(pose
        .into_iter()
        .map(|(joint, angle)| (joint.0, angle.0))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<BridgeParameters, String> {
        let folder = tempfile::tempdir().unwrap();
        config::scaffold::write_minimal(
            folder.path(),
            "[[process]]\nname = \"lola\"\nkind = \"lola\"\nrate_hz = 83.33\n",
            &[("LolaBridge.toml", text)],
        )
        .unwrap();
        let config = config::Config::load(folder.path(), None, &[]).map_err(|e| e.to_string())?;
        BridgeParameters::load(&config).map_err(|error| error.to_string())
    }

    #[test]
    fn the_defaults_and_the_shipped_file_load() {
        let parameters = load("").unwrap();
        assert_eq!(parameters.max_target_step_rad, 0.1);
        let shipped = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../config/data/default/LolaBridge.toml"
        ))
        .unwrap();
        let parameters = load(&shipped).unwrap();
        assert_eq!(parameters.sit_pose_rad["LeftKneePitch"], 2.13);
    }

    #[test]
    fn non_finite_huge_and_out_of_range_values_are_refused_with_file_line_and_key() {
        for (text, key, line) in [
            ("motion_wait_ms = inf\n", "motion_wait_ms", 1),
            ("\nsit_after_ms = 1e38\n", "sit_after_ms", 2),
            ("sit_stiffness = 5\n", "sit_stiffness", 1),
            ("sit_stiffness = nan\n", "sit_stiffness", 1),
            ("stale_after_ms = -inf\n", "stale_after_ms", 1),
            ("sit_duration_ms = 0\n", "sit_duration_ms", 1),
            ("connect_timeout_ms = 1e300\n", "connect_timeout_ms", 1),
            ("max_target_step_rad = 0\n", "max_target_step_rad", 1),
            (
                "reconnect_after_bad_frames = 0\n",
                "reconnect_after_bad_frames",
                1,
            ),
            ("max_replaced_values = -1\n", "max_replaced_values", 1),
            (
                "[sit_pose_rad]\nLeftKneePitch = nan\n",
                "sit_pose_rad.LeftKneePitch",
                2,
            ),
            (
                "[sit_pose_rad]\nLeftKneePitch = 40.0\n",
                "sit_pose_rad.LeftKneePitch",
                2,
            ),
        ] {
            let error = load(text).unwrap_err();
            assert!(
                error.contains(&format!("LolaBridge.toml:{line}")) && error.contains(key),
                "{text:?}: {error}"
            );
        }
        let error = load("[sit_pose_rad]\nLeftKnee = 1.0\n").unwrap_err();
        assert!(
            error.contains("LeftKnee is not a joint") && error.contains("LeftKneePitch"),
            "{error}"
        );
        let error = load("motion_wait_ms = \"6\"\n").unwrap_err();
        assert!(error.contains("motion_wait_ms"), "{error}");
    }

    #[test]
    fn milliseconds_saturate_instead_of_panicking() {
        assert_eq!(ms(f32::INFINITY), Duration::MAX);
        assert_eq!(ms(f32::NAN), Duration::ZERO);
        assert_eq!(ms(-5.0), Duration::ZERO);
        assert_eq!(ms(12.0), Duration::from_millis(12));
    }
}
