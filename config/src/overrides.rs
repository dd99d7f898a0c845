//! Command-line overrides: `--set settings.team_number=5`, `--set BallPerceptor.min_radius_px=4`.

use std::str::FromStr;

use crate::error::ConfigError;
use crate::layers::is_bare_key;

/// The most keys an override's path may have (`Module.a.b.c` has 4): deeper paths name no
/// parameter and would cost time and memory in proportion to their square.
pub const MAX_KEY_DEPTH: usize = 32;

/// What an override changes: the settings or the parameters of one module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverrideTarget<'a> {
    /// `settings.<key>=…`: a key of `settings.toml`.
    Settings,
    /// `<Module>.<key>…=…`: a key of `<Module>.toml`.
    Module(&'a str),
}

/// One `--set key.path=value` argument.
///
/// The first part of the key names what is changed: `settings`, or a module name (which starts
/// with an upper-case letter, like `BallPerceptor`). The rest is the key path inside that file.
/// The value is read as a TOML value (`5`, `1.5`, `true`, `"text"`, `[1, 2]`,
/// `{ x = 1 }`); anything that is not valid TOML is taken as a string, so `location=lab`
/// works without quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    text: String,
    path: Vec<String>,
    value: toml::Value,
}

impl Override {
    /// Parses `key.path=value`.
    pub fn parse(text: &str) -> Result<Override, ConfigError> {
        let invalid = |reason: String| ConfigError::InvalidOverride {
            text: text.to_owned(),
            reason,
        };
        // One line: overrides travel to child processes one per line, and a value with a line
        // break in it would arrive there as two overrides nobody checked.
        if let Some(bad) = text.chars().find(|c| c.is_control() && *c != '\t') {
            return Err(invalid(format!(
                "it holds the control character {bad:?}; an override is one line of text"
            )));
        }
        let Some((key, raw_value)) = text.split_once('=') else {
            return Err(invalid(
                "expected `key.path=value`, e.g. `settings.team_number=5`".to_owned(),
            ));
        };
        let path: Vec<String> = key.trim().split('.').map(str::to_owned).collect();
        if path.len() > MAX_KEY_DEPTH {
            return Err(invalid(format!(
                "{} keys deep: an override names at most {MAX_KEY_DEPTH} (the target and its keys)",
                path.len()
            )));
        }
        if let Some(bad) = path.iter().find(|segment| !is_bare_key(segment)) {
            return Err(invalid(format!(
                "`{bad}` is not a key: keys are non-empty and made of letters, digits, `_` and `-`"
            )));
        }
        let first = path[0].as_str();
        let names_target =
            first == "settings" || first.starts_with(|c: char| c.is_ascii_uppercase());
        if !names_target {
            return Err(invalid(format!(
                "`{first}` is neither `settings` nor a module name (modules start with an \
                 upper-case letter, like `BallPerceptor`)"
            )));
        }
        if path.len() < 2 {
            return Err(invalid(format!(
                "expected a key inside `{first}`, e.g. `{first}.some_key=value`"
            )));
        }
        Ok(Override {
            text: text.to_owned(),
            path,
            value: parse_value(raw_value.trim()),
        })
    }

    /// What the override changes.
    pub fn target(&self) -> OverrideTarget<'_> {
        match self.path[0].as_str() {
            "settings" => OverrideTarget::Settings,
            module => OverrideTarget::Module(module),
        }
    }

    /// The key path inside the target file (without the target's name).
    pub fn key_path(&self) -> &[String] {
        &self.path[1..]
    }

    /// The value.
    pub fn value(&self) -> &toml::Value {
        &self.value
    }

    /// The argument as it was given.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl FromStr for Override {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Override::parse(text)
    }
}

/// A TOML value if `raw` is exactly one, otherwise the text as a string.
fn parse_value(raw: &str) -> toml::Value {
    match format!("value = {raw}").parse::<toml::Table>() {
        Ok(mut table) if table.len() == 1 => table
            .remove("value")
            .unwrap_or_else(|| toml::Value::String(raw.to_owned())),
        _ => toml::Value::String(raw.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_is_one_line() {
        for text in [
            // A second line must not smuggle in a second key (here, or in a child process,
            // which gets the overrides one per line).
            "Walk.x=1\ny = 2",
            "TeamCommunication.address=x\nLolaBridge.hold_ms=1",
            "settings.location=a\rb",
            "Walk.step=1\u{0}",
        ] {
            let error = Override::parse(text).unwrap_err().to_string();
            assert!(error.contains("control character"), "{error}");
        }
        assert!(Override::parse("settings.location=a\tb").is_ok());
    }

    #[test]
    fn values_are_toml_or_else_strings() {
        let cases = [
            ("settings.team_number=5", toml::Value::Integer(5)),
            ("settings.location=lab", toml::Value::String("lab".into())),
            (
                "settings.location=\"lab\"",
                toml::Value::String("lab".into()),
            ),
            ("Walk.gain = 1.5", toml::Value::Float(1.5)),
            ("Walk.on=true", toml::Value::Boolean(true)),
            ("Walk.empty=", toml::Value::String(String::new())),
            (
                "Walk.list=[1, 2]",
                toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::Integer(2)]),
            ),
            ("Walk.equation=a=b", toml::Value::String("a=b".into())),
        ];
        for (text, expected) in cases {
            let parsed = Override::parse(text).unwrap();
            assert_eq!(parsed.value(), &expected, "{text}");
        }
    }

    #[test]
    fn the_first_key_names_the_target() {
        let setting = Override::parse("settings.player_number=3").unwrap();
        assert_eq!(setting.target(), OverrideTarget::Settings);
        assert_eq!(setting.key_path(), ["player_number"]);
        let module = Override::parse("BallPerceptor.scan.step_px=4").unwrap();
        assert_eq!(module.target(), OverrideTarget::Module("BallPerceptor"));
        assert_eq!(module.key_path(), ["scan", "step_px"]);
        assert_eq!(module.text(), "BallPerceptor.scan.step_px=4");
    }

    #[test]
    fn malformed_overrides_are_rejected_with_the_reason() {
        let deep = format!("Walk{}=1", ".a".repeat(20_000));
        for (text, reason_part) in [
            ("settings.team_number", "expected `key.path=value`"),
            ("settings..x=1", "`` is not a key"),
            (
                "setings.team_number=5",
                "neither `settings` nor a module name",
            ),
            ("settings=5", "expected a key inside `settings`"),
            ("Walk.a b=1", "`a b` is not a key"),
            (&deep, "keys deep"),
        ] {
            let error = Override::parse(text).unwrap_err();
            let message = error.to_string();
            assert!(message.contains(text), "{message}");
            assert!(message.contains(reason_part), "{message}");
            assert!(error.is_config_error());
        }
    }
}
