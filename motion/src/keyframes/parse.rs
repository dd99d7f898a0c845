//! The parser of keyframe files: TOML with spans, checked key by key, so that every error names
//! the file, the line and the key (`keyframe[2].positions_deg.LeftKneePitch`).

use super::{JointTarget, Keyframe, Motion};
use crate::joint_limits;
use config::{ConfigError, Origin};
use std::ops::Range;
use std::path::Path;
use toml::de::{DeTable, DeValue};
use toml::Spanned;
use types::{JointId, Joints, JOINT_COUNT};

/// The key that stands for "every joint not listed".
const OTHER_JOINTS: &str = "*";
/// Slack on the joint ranges for values rounded in a file, degrees.
const RANGE_SLACK_DEG: f32 = 1e-3;

/// The joint named `name` as in [`JointId`] (`LeftKneePitch`).
/// The longest interpolation time of one keyframe, ms: a minute.
pub const MAX_DURATION_MS: f64 = 60_000.0;

pub fn joint_named(name: &str) -> Option<JointId> {
    JointId::ALL
        .into_iter()
        .find(|joint| format!("{joint:?}") == name)
}

/// Parses the text of the motion file `path`, named `name`.
pub fn parse_motion(name: &str, path: &Path, text: &str) -> Result<Motion, ConfigError> {
    let file = File { path, text };
    let document = DeTable::parse(text).map_err(|error| file.syntax_error(&error))?;
    let mut description = None;
    let mut keyframes = None;
    for (key, value) in document.get_ref().iter() {
        match key.get_ref().as_ref() {
            "description" => match value.get_ref() {
                DeValue::String(text) => description = Some(text.to_string()),
                other => {
                    return Err(file.invalid(
                        value.span(),
                        "description",
                        format!("expected a string, found {}", other.type_str()),
                    ))
                }
            },
            "keyframe" => keyframes = Some(file.keyframes(value)?),
            other => {
                return Err(ConfigError::UnknownKey {
                    origin: file.origin(key.span()),
                    key: other.to_owned(),
                    expected: "`description` or `keyframe`".to_owned(),
                })
            }
        }
    }
    let keyframes = keyframes.ok_or_else(|| ConfigError::MissingKey {
        origin: Origin::file(path, 1),
        key: "keyframe".to_owned(),
    })?;
    Ok(Motion {
        name: name.to_owned(),
        file: path.to_owned(),
        description,
        keyframes,
    })
}

struct File<'a> {
    path: &'a Path,
    text: &'a str,
}

impl File<'_> {
    fn origin(&self, span: Range<usize>) -> Origin {
        let before = self.text.get(..span.start).unwrap_or(self.text);
        Origin::file(self.path, before.matches('\n').count() + 1)
    }

    fn invalid(&self, span: Range<usize>, key: &str, message: String) -> ConfigError {
        ConfigError::InvalidValue {
            origin: self.origin(span),
            key: key.to_owned(),
            message,
        }
    }

    fn syntax_error(&self, error: &toml::de::Error) -> ConfigError {
        let start = error
            .span()
            .map_or(0, |span| span.start)
            .min(self.text.len());
        let before = self.text.get(..start).unwrap_or(self.text);
        let line_start = before.rfind('\n').map_or(0, |index| index + 1);
        ConfigError::Syntax {
            file: self.path.to_owned(),
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            message: error.message().to_owned(),
        }
    }

    fn keyframes(&self, value: &Spanned<DeValue<'_>>) -> Result<Vec<Keyframe>, ConfigError> {
        let DeValue::Array(frames) = value.get_ref() else {
            return Err(self.invalid(
                value.span(),
                "keyframe",
                format!(
                    "expected a list of `[[keyframe]]` tables, found {}",
                    value.get_ref().type_str()
                ),
            ));
        };
        if frames.is_empty() {
            return Err(self.invalid(
                value.span(),
                "keyframe",
                "expected at least one keyframe".to_owned(),
            ));
        }
        frames
            .iter()
            .enumerate()
            .map(|(index, frame)| self.keyframe(&format!("keyframe[{index}]"), frame))
            .collect()
    }

    fn keyframe(&self, key: &str, value: &Spanned<DeValue<'_>>) -> Result<Keyframe, ConfigError> {
        let DeValue::Table(table) = value.get_ref() else {
            return Err(self.invalid(
                value.span(),
                key,
                format!("expected a table, found {}", value.get_ref().type_str()),
            ));
        };
        let (mut duration_ms, mut positions, mut stiffnesses) = (None, None, None);
        for (name, value) in table.iter() {
            let full_key = format!("{key}.{}", name.get_ref());
            match name.get_ref().as_ref() {
                "duration_ms" => duration_ms = Some(self.duration(&full_key, value)?),
                "positions_deg" => positions = Some(self.positions(&full_key, name, value)?),
                "stiffness" => stiffnesses = Some(self.stiffnesses(&full_key, name, value)?),
                _ => {
                    return Err(ConfigError::UnknownKey {
                        origin: self.origin(name.span()),
                        key: full_key,
                        expected: "`duration_ms`, `stiffness` or `positions_deg`".to_owned(),
                    })
                }
            }
        }
        let missing = |field: &str| ConfigError::MissingKey {
            origin: self.origin(value.span()),
            key: format!("{key}.{field}"),
        };
        Ok(Keyframe {
            duration_ms: duration_ms.ok_or_else(|| missing("duration_ms"))?,
            positions: positions.ok_or_else(|| missing("positions_deg"))?,
            stiffnesses: stiffnesses.ok_or_else(|| missing("stiffness"))?,
        })
    }

    fn duration(&self, key: &str, value: &Spanned<DeValue<'_>>) -> Result<f32, ConfigError> {
        match number(value.get_ref()) {
            Some(duration) if duration > 0.0 && duration <= MAX_DURATION_MS => Ok(duration as f32),
            Some(duration) => Err(self.invalid(
                value.span(),
                key,
                format!(
                    "{duration} ms: the interpolation time must be a number of milliseconds > 0 \
                     and at most {MAX_DURATION_MS} (a keyframe that long never ends)"
                ),
            )),
            None => Err(self.invalid(
                value.span(),
                key,
                format!(
                    "expected a number of milliseconds > 0, found {}",
                    value.get_ref().type_str()
                ),
            )),
        }
    }

    /// The joint named by `name`, or an error that suggests the right spelling.
    fn joint(
        &self,
        table_key: &str,
        name: &Spanned<std::borrow::Cow<'_, str>>,
    ) -> Result<JointId, ConfigError> {
        let text = name.get_ref().as_ref();
        joint_named(text).ok_or_else(|| {
            let hint = JointId::ALL
                .into_iter()
                .find(|joint| joint.aldebaran_name() == text)
                .map(|joint| format!("`{joint:?}` (joints are named as in JointId, not as Aldebaran names them)"))
                .unwrap_or_else(|| {
                    "one of LoLA's 25 joints as in JointId (`HeadYaw`, `HeadPitch`, `LeftShoulderPitch` … `RightHand`) or \"*\" for the joints not listed".to_owned()
                });
            ConfigError::UnknownKey {
                origin: self.origin(name.span()),
                key: format!("{table_key}.{text}"),
                expected: hint,
            }
        })
    }

    fn positions(
        &self,
        key: &str,
        name: &Spanned<std::borrow::Cow<'_, str>>,
        value: &Spanned<DeValue<'_>>,
    ) -> Result<Joints<JointTarget>, ConfigError> {
        let DeValue::Table(table) = value.get_ref() else {
            return Err(self.invalid(
                value.span(),
                key,
                format!(
                    "expected a table of joint angles in degrees, found {}",
                    value.get_ref().type_str()
                ),
            ));
        };
        let mut targets: [Option<JointTarget>; JOINT_COUNT] = [None; JOINT_COUNT];
        let mut others = None;
        for (joint_name, entry) in table.iter() {
            let entry_key = format!("{key}.{}", joint_name.get_ref());
            let is_keep = matches!(entry.get_ref(), DeValue::String(text) if text == "*");
            if joint_name.get_ref() == OTHER_JOINTS {
                if !is_keep {
                    return Err(self.invalid(
                        entry.span(),
                        &format!("{key}.\"*\""),
                        "the joints not listed can only be kept: write `\"*\" = \"*\"`".to_owned(),
                    ));
                }
                others = Some(JointTarget::Keep);
                continue;
            }
            let joint = self.joint(key, joint_name)?;
            targets[joint.index()] = Some(if is_keep {
                JointTarget::Keep
            } else {
                JointTarget::Position(self.position(&entry_key, joint, entry)?)
            });
        }
        let missing: Vec<String> = JointId::ALL
            .into_iter()
            .filter(|joint| targets[joint.index()].is_none())
            .map(|joint| format!("{joint:?}"))
            .collect();
        if others.is_none() && !missing.is_empty() {
            return Err(self.invalid(
                name.span(),
                key,
                format!(
                    "missing joints {}: give each one an angle or \"*\", or add `\"*\" = \"*\"` to keep every joint not listed",
                    missing.join(", ")
                ),
            ));
        }
        Ok(Joints::from_fn(|joint| {
            targets[joint.index()].unwrap_or(JointTarget::Keep)
        }))
    }

    /// A joint's value in the file's unit (degrees; the opening for hands), converted to the
    /// unit of `JointRequest` and checked against the joint's range.
    fn position(
        &self,
        key: &str,
        joint: JointId,
        value: &Spanned<DeValue<'_>>,
    ) -> Result<f32, ConfigError> {
        let hand = joint_limits::is_hand(joint);
        let unit = if hand {
            "an opening 0 ..= 1"
        } else {
            "an angle in degrees"
        };
        let Some(number) = number(value.get_ref()) else {
            return Err(self.invalid(
                value.span(),
                key,
                format!(
                    "expected {unit} or \"*\", found {}",
                    describe(value.get_ref())
                ),
            ));
        };
        let number = number as f32;
        let (low, high) = joint_limits::range_deg(joint);
        if !(number >= low - RANGE_SLACK_DEG && number <= high + RANGE_SLACK_DEG) {
            let suffix = if hand { "" } else { "°" };
            return Err(self.invalid(
                value.span(),
                key,
                format!("{number}{suffix} is outside the range of {joint:?}: {low}{suffix} ..= {high}{suffix}"),
            ));
        }
        let number = number.clamp(low, high);
        Ok(if hand { number } else { number.to_radians() })
    }

    fn stiffnesses(
        &self,
        key: &str,
        name: &Spanned<std::borrow::Cow<'_, str>>,
        value: &Spanned<DeValue<'_>>,
    ) -> Result<Joints<f32>, ConfigError> {
        let table = match value.get_ref() {
            DeValue::Table(table) => table,
            _ => return Ok(Joints::filled(self.stiffness(key, value)?)),
        };
        let mut stiffnesses: [Option<f32>; JOINT_COUNT] = [None; JOINT_COUNT];
        let mut others = None;
        for (joint_name, entry) in table.iter() {
            let entry_key = format!("{key}.{}", joint_name.get_ref());
            let stiffness = self.stiffness(&entry_key, entry)?;
            if joint_name.get_ref() == OTHER_JOINTS {
                others = Some(stiffness);
            } else {
                stiffnesses[self.joint(key, joint_name)?.index()] = Some(stiffness);
            }
        }
        let missing: Vec<String> = JointId::ALL
            .into_iter()
            .filter(|joint| stiffnesses[joint.index()].is_none())
            .map(|joint| format!("{joint:?}"))
            .collect();
        match others {
            Some(others) => Ok(Joints::from_fn(|joint| stiffnesses[joint.index()].unwrap_or(others))),
            None if missing.is_empty() => Ok(Joints::from_fn(|joint| stiffnesses[joint.index()].unwrap_or(0.0))),
            None => Err(self.invalid(
                name.span(),
                key,
                format!(
                    "missing stiffness of {}: give each joint a stiffness, or add `\"*\" = <stiffness>` for every joint not listed",
                    missing.join(", ")
                ),
            )),
        }
    }

    fn stiffness(&self, key: &str, value: &Spanned<DeValue<'_>>) -> Result<f32, ConfigError> {
        match number(value.get_ref()) {
            Some(stiffness) if (0.0..=1.0).contains(&stiffness) => Ok(stiffness as f32),
            Some(stiffness) => Err(self.invalid(
                value.span(),
                key,
                format!("{stiffness}: a stiffness lies in 0 ..= 1"),
            )),
            None => Err(self.invalid(
                value.span(),
                key,
                format!(
                    "expected a stiffness 0 ..= 1 (or a table of them by joint), found {}",
                    describe(value.get_ref())
                ),
            )),
        }
    }
}

/// A TOML integer or float as a number.
fn number(value: &DeValue<'_>) -> Option<f64> {
    match value {
        DeValue::Integer(integer) => i64::from_str_radix(integer.as_str(), integer.radix())
            .ok()
            .map(|value| value as f64),
        DeValue::Float(float) => float.as_str().parse().ok(),
        _ => None,
    }
}

/// The type of a value, and the value itself if it is a short string.
fn describe(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(text) if text.len() <= 20 => format!("the string {text:?}"),
        other => other.type_str().to_owned(),
    }
}
