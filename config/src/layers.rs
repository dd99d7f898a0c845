//! TOML documents that remember where each key came from: one file read with spans, several
//! files (and command-line overrides) merged key by key, and the translation of serde errors
//! into [`ConfigError`]s that name the file, the line and the key.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::error::{ConfigError, Origin};

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

pub(crate) type KeyPath = Vec<Segment>;

/// Writes a key path the way TOML writes a dotted key (`walk.step_mm`, `process[2].name`),
/// quoting keys that are not bare.
pub(crate) fn display_key(path: &[Segment]) -> String {
    let mut text = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                if is_bare_key(key) {
                    text.push_str(key);
                } else {
                    let _ = write!(text, "{key:?}");
                }
            }
            Segment::Index(index) => {
                let _ = write!(text, "[{index}]");
            }
        }
    }
    if text.is_empty() {
        text.push_str("(top level)");
    }
    text
}

/// Reads a key path as [`display_key`] writes it (`a.b[2]."c.d"`). Text that is not such a path
/// becomes one key, so that its origin falls back to the file.
pub(crate) fn parse_key(text: &str) -> KeyPath {
    let mut path = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            rest = after;
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some((index, after)) = after.split_once(']') else {
                return vec![Segment::Key(text.to_owned())];
            };
            match index.parse() {
                Ok(index) => path.push(Segment::Index(index)),
                Err(_) => return vec![Segment::Key(text.to_owned())],
            }
            rest = after;
        } else if let Some(after) = rest.strip_prefix('"') {
            let Some((key, after)) = after.split_once('"') else {
                return vec![Segment::Key(text.to_owned())];
            };
            path.push(Segment::Key(key.to_owned()));
            rest = after;
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            path.push(Segment::Key(rest[..end].to_owned()));
            rest = &rest[end..];
        }
    }
    path
}

pub(crate) fn is_bare_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The most bytes a configuration file may have: the largest shipped one has a few KiB; a
/// hostile 4 MiB array of numbers took 650 MB and 30 s (debug build) to read with its lines.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a configuration file as text: a regular file (a link to one is fine) of at most
/// [`MAX_FILE_BYTES`], in UTF-8. A pipe, a device or a folder in its place is an error naming
/// it, not a read that blocks forever or never ends (`/dev/zero`).
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    use std::io::Read;
    let read_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(read_error)?;
    let file_type = metadata.file_type();
    if !file_type.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let what = if file_type.is_dir() {
            "a folder"
        } else if file_type.is_fifo() {
            "a pipe"
        } else if file_type.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return Err(ConfigError::NotAFile {
            path: path.to_owned(),
            what,
        });
    }
    let too_large = |size| ConfigError::TooLarge {
        path: path.to_owned(),
        size,
        limit: MAX_FILE_BYTES,
    };
    if metadata.len() > MAX_FILE_BYTES {
        return Err(too_large(metadata.len()));
    }
    // The file may grow between the two calls: read one byte more than allowed at most.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|error| {
        read_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (byte offset {})",
                error.utf8_error().valid_up_to()
            ),
        ))
    })
}

/// A file's text, with what is needed to turn byte offsets into lines.
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub path: PathBuf,
    pub text: String,
    /// Byte offset of the start of each line: lines are found by binary search, so that a
    /// file with a million values is not read a million times over.
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: &Path, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(index, _)| index + 1))
            .collect();
        SourceFile {
            path: path.to_owned(),
            text,
            line_starts,
        }
    }

    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        Ok(SourceFile::new(path, read_text(path)?))
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line(offset);
        let line_start = self.line_starts[line - 1];
        // A span never starts inside a character, but be safe on odd input.
        let column = self
            .text
            .get(line_start..offset)
            .map_or(1, |before| before.chars().count() + 1);
        (line, column)
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        // line_starts[0] = 0 <= offset, so the point is at least 1.
        self.line_starts
            .partition_point(|start| *start <= offset)
            .max(1)
    }

    pub fn origin_at(&self, offset: usize) -> Origin {
        Origin::file(self.path.clone(), self.line(offset))
    }

    fn syntax_error(&self, error: &toml::de::Error) -> ConfigError {
        let (line, column) = self.line_column(error.span().map_or(0, |span| span.start));
        let mut message = error.message().trim_end().to_owned();
        // The parser's message may not say which key ("duplicate key"): the text it points at.
        let at = error
            .span()
            .and_then(|span| self.text.get(span))
            .map(str::trim)
            .filter(|at| {
                at.len() <= 80 && !at.contains('\n') && at.chars().any(char::is_alphanumeric)
            });
        if let Some(at) = at {
            message.push_str(&format!(" (at `{at}`)"));
        }
        ConfigError::Syntax {
            file: self.path.clone(),
            line,
            column,
            message,
        }
    }

    /// Deserializes the whole file into `T`, which may hold [`Spanned`] values to remember lines.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        let deserializer =
            toml::de::Deserializer::parse(&self.text).map_err(|e| self.syntax_error(&e))?;
        serde_path_to_error::deserialize(deserializer).map_err(|error| {
            let path = key_path(error.path());
            let origin = error.inner().span().map_or_else(
                || Origin::file(self.path.clone(), 1),
                |s| self.origin_at(s.start),
            );
            classify(error.inner().message(), path, |_| origin.clone())
        })
    }
}

/// Converts serde_path_to_error's path into ours, dropping the wrapper that `toml::Spanned`
/// adds.
fn key_path(path: &serde_path_to_error::Path) -> KeyPath {
    use serde_path_to_error::Segment as S;
    path.iter()
        .filter_map(|segment| match segment {
            S::Map { key } if key.starts_with("$__serde_spanned_private") => None,
            S::Map { key } => Some(Segment::Key(key.clone())),
            S::Seq { index } => Some(Segment::Index(*index)),
            S::Enum { .. } | S::Unknown => None,
        })
        .collect()
}

/// Turns a serde error message at `path` into an error naming the key. `origin_of` gives the
/// place a key path was written (the nearest enclosing key that has one).
fn classify(
    message: &str,
    mut path: KeyPath,
    origin_of: impl Fn(&[Segment]) -> Origin,
) -> ConfigError {
    // These two message shapes are serde's own (`de::Error::unknown_field`/`missing_field`).
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let expected = match rest.split_once("`, expected ") {
            Some((_, expected)) => expected.to_owned(),
            None => "no keys here".to_owned(),
        };
        // serde_path_to_error already ends the path with the unknown key.
        return ConfigError::UnknownKey {
            origin: origin_of(&path),
            key: display_key(&path),
            expected,
        };
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.trim_end_matches('`').to_owned();
        let origin = origin_of(&path);
        path.push(Segment::Key(field));
        return ConfigError::MissingKey {
            origin,
            key: display_key(&path),
        };
    }
    ConfigError::InvalidValue {
        origin: origin_of(&path),
        key: display_key(&path),
        message: message.to_owned(),
    }
}

/// A TOML table merged from layers, with the origin of every key (and array element).
#[derive(Debug, Clone)]
pub(crate) struct Layered {
    table: toml::Table,
    origins: BTreeMap<KeyPath, Origin>,
    /// Where errors about the whole table point: the most specific layer, line 1.
    root_origin: Option<Origin>,
}

impl Layered {
    pub fn new() -> Self {
        Layered {
            table: toml::Table::new(),
            origins: BTreeMap::new(),
            root_origin: None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.root_origin.is_none()
    }

    /// One file as a layer.
    pub fn from_file(file: &SourceFile) -> Result<Self, ConfigError> {
        let table: toml::Table = file.text.parse().map_err(|e| file.syntax_error(&e))?;
        let spans = DeTable::parse(&file.text).map_err(|e| file.syntax_error(&e))?;
        let mut origins = BTreeMap::new();
        record_table(file, spans.get_ref(), &mut Vec::new(), &mut origins);
        Ok(Layered {
            table,
            origins,
            root_origin: Some(Origin::file(file.path.clone(), 1)),
        })
    }

    /// One command-line override as a layer: `path = value`.
    pub fn from_override(path: &[String], value: &toml::Value, text: &str) -> Self {
        let origin = Origin::Override {
            text: text.to_owned(),
        };
        let mut origins = BTreeMap::new();
        let mut key_path = Vec::new();
        for key in path {
            key_path.push(Segment::Key(key.clone()));
            origins.insert(key_path.clone(), origin.clone());
        }
        record_value_origins(value, &mut key_path, &origin, &mut origins);
        // Wrap the value in one table per key, innermost first.
        let mut value = value.clone();
        for key in path.iter().rev() {
            let mut table = toml::Table::new();
            table.insert(key.clone(), value);
            value = toml::Value::Table(table);
        }
        let table = match value {
            toml::Value::Table(table) => table,
            _ => toml::Table::new(),
        };
        Layered {
            table,
            origins,
            root_origin: Some(origin),
        }
    }

    /// Puts `top` over `self`: tables merge key by key, anything else in `top` replaces.
    pub fn overlay(&mut self, top: Layered) {
        if top.root_origin.is_none() {
            return;
        }
        merge_tables(
            &mut self.table,
            top.table,
            &mut Vec::new(),
            &mut self.origins,
        );
        self.origins.extend(top.origins);
        self.root_origin = top.root_origin;
    }

    /// Where the value at `path` was written; for a key that is not there, where its nearest
    /// enclosing table was written.
    pub fn origin_of(&self, path: &[Segment]) -> Origin {
        (0..=path.len())
            .rev()
            .find_map(|length| self.origins.get(&path[..length]))
            .or(self.root_origin.as_ref())
            .cloned()
            .unwrap_or(Origin::Override {
                text: String::new(),
            })
    }

    /// Every value that is not a table, with its key path and origin, in key order.
    pub fn values(&self) -> Vec<crate::config::ParameterValue> {
        let mut values = Vec::new();
        let mut path = Vec::new();
        self.collect_values(&self.table, &mut path, &mut values);
        values
    }

    fn collect_values(
        &self,
        table: &toml::Table,
        path: &mut KeyPath,
        values: &mut Vec<crate::config::ParameterValue>,
    ) {
        for (key, value) in table {
            path.push(Segment::Key(key.clone()));
            match value {
                toml::Value::Table(inner) => self.collect_values(inner, path, values),
                other => values.push(crate::config::ParameterValue {
                    key: display_key(path),
                    value: other.clone(),
                    origin: self.origin_of(path),
                }),
            }
            path.pop();
        }
    }

    pub fn origin_of_key(&self, key: &str) -> Origin {
        self.origin_of(&[Segment::Key(key.to_owned())])
    }

    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        serde_path_to_error::deserialize(toml::Value::Table(self.table.clone())).map_err(|error| {
            classify(error.inner().message(), key_path(error.path()), |path| {
                self.origin_of(path)
            })
        })
    }
}

fn merge_tables(
    bottom: &mut toml::Table,
    top: toml::Table,
    path: &mut KeyPath,
    origins: &mut BTreeMap<KeyPath, Origin>,
) {
    for (key, top_value) in top {
        path.push(Segment::Key(key.clone()));
        match (bottom.get_mut(&key), top_value) {
            (Some(toml::Value::Table(bottom_table)), toml::Value::Table(top_table)) => {
                merge_tables(bottom_table, top_table, path, origins);
            }
            (_, top_value) => {
                // Whatever the lower layer had below this key is gone.
                origins.retain(|key_path, _| !key_path.starts_with(path));
                bottom.insert(key, top_value);
            }
        }
        path.pop();
    }
}

fn record_table(
    file: &SourceFile,
    table: &DeTable<'_>,
    path: &mut KeyPath,
    origins: &mut BTreeMap<KeyPath, Origin>,
) {
    for (key, value) in table {
        path.push(Segment::Key(key.get_ref().to_string()));
        origins.insert(path.clone(), file.origin_at(key.span().start));
        record_value(file, value, path, origins);
        path.pop();
    }
}

fn record_value(
    file: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    path: &mut KeyPath,
    origins: &mut BTreeMap<KeyPath, Origin>,
) {
    match value.get_ref() {
        DeValue::Table(table) => record_table(file, table, path, origins),
        DeValue::Array(array) => {
            for (index, element) in array.iter().enumerate() {
                path.push(Segment::Index(index));
                origins.insert(path.clone(), file.origin_at(element.span().start));
                record_value(file, element, path, origins);
                path.pop();
            }
        }
        _ => {}
    }
}

fn record_value_origins(
    value: &toml::Value,
    path: &mut KeyPath,
    origin: &Origin,
    origins: &mut BTreeMap<KeyPath, Origin>,
) {
    match value {
        toml::Value::Table(table) => {
            for (key, inner) in table {
                path.push(Segment::Key(key.clone()));
                origins.insert(path.clone(), origin.clone());
                record_value_origins(inner, path, origin, origins);
                path.pop();
            }
        }
        toml::Value::Array(array) => {
            for (index, inner) in array.iter().enumerate() {
                path.push(Segment::Index(index));
                origins.insert(path.clone(), origin.clone());
                record_value_origins(inner, path, origin, origins);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn source(name: &str, text: &str) -> SourceFile {
        SourceFile::new(Path::new(name), text.to_owned())
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Walk {
        step_mm: f64,
        gains: Gains,
        #[serde(default)]
        names: Vec<String>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Gains {
        p: f64,
        d: f64,
    }

    #[test]
    fn lines_and_columns_count_characters() {
        let file = source("a.toml", "a = 1\n# ä comment\nbäd = 2\n");
        assert_eq!(file.line_column(0), (1, 1));
        assert_eq!(file.line_column(6), (2, 1));
        let offset = file.text.find("= 2").unwrap_or(0);
        assert_eq!(file.line_column(offset), (3, 5));
    }

    #[test]
    fn keys_are_displayed_as_toml_writes_them() {
        let path = vec![
            Segment::Key("process".into()),
            Segment::Index(2),
            Segment::Key("providers".into()),
            Segment::Key("upper.BallPercept".into()),
        ];
        assert_eq!(
            display_key(&path),
            "process[2].providers.\"upper.BallPercept\""
        );
        assert_eq!(display_key(&[]), "(top level)");
    }

    #[test]
    fn key_paths_read_back_as_they_are_written() {
        let path = vec![
            Segment::Key("process".into()),
            Segment::Index(2),
            Segment::Key("providers".into()),
            Segment::Key("upper.BallPercept".into()),
        ];
        assert_eq!(parse_key(&display_key(&path)), path);
        assert_eq!(
            parse_key("sit_pose_rad.LeftKneePitch"),
            [
                Segment::Key("sit_pose_rad".into()),
                Segment::Key("LeftKneePitch".into())
            ]
        );
        assert_eq!(parse_key("a[x"), [Segment::Key("a[x".into())]);
    }

    #[test]
    fn more_specific_layers_override_key_by_key() {
        let default = source(
            "default.toml",
            "step_mm = 40.0\n[gains]\np = 1.0\nd = 0.5\n",
        );
        let robot = source("robot.toml", "\n[gains]\nd = 0.7\n");
        let mut layered = Layered::from_file(&default).unwrap();
        layered.overlay(Layered::from_file(&robot).unwrap());
        let walk: Walk = layered.deserialize().unwrap();
        assert_eq!(walk.gains, Gains { p: 1.0, d: 0.7 });
        assert_eq!(walk.step_mm, 40.0);
        let d = [Segment::Key("gains".into()), Segment::Key("d".into())];
        assert_eq!(layered.origin_of(&d), Origin::file("robot.toml", 3));
        let p = [Segment::Key("gains".into()), Segment::Key("p".into())];
        assert_eq!(layered.origin_of(&p), Origin::file("default.toml", 3));
    }

    #[test]
    fn a_replaced_table_forgets_the_origins_below_it() {
        let default = source("default.toml", "step_mm = 1.0\n[gains]\np = 1.0\nd = 0.5\n");
        let robot = source("robot.toml", "gains = 3\n");
        let mut layered = Layered::from_file(&default).unwrap();
        layered.overlay(Layered::from_file(&robot).unwrap());
        let p = [Segment::Key("gains".into()), Segment::Key("p".into())];
        assert_eq!(layered.origin_of(&p), Origin::file("robot.toml", 1));
        let error = layered.deserialize::<Walk>().unwrap_err().to_string();
        assert!(
            error.starts_with("robot.toml:1: key `gains`: invalid type"),
            "{error}"
        );
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let text = "step_mm = 1.0\nnames = [\"a\",\n  3]\n[gains]\np = 1.0\nd = 2.0\n";
        let error = Layered::from_file(&source("w.toml", text))
            .unwrap()
            .deserialize::<Walk>()
            .unwrap_err();
        // The array element's own line.
        assert_eq!(
            error.to_string(),
            "w.toml:3: key `names[1]`: invalid type: integer `3`, expected a string"
        );
        let text = "step_mm = 1.0\n[gains]\np = 1.0\n";
        let error = Layered::from_file(&source("w.toml", text))
            .unwrap()
            .deserialize::<Walk>()
            .unwrap_err();
        assert_eq!(error.to_string(), "w.toml:2: missing key `gains.d`");
        let text = "step_mm = 1.0\n[gains]\np = 1.0\nd = 2.0\ni = 0.1\n";
        let error = Layered::from_file(&source("w.toml", text))
            .unwrap()
            .deserialize::<Walk>()
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "w.toml:5: unknown key `gains.i`, expected `p` or `d`"
        );
    }

    #[test]
    fn overrides_are_the_top_layer() {
        let default = source(
            "default.toml",
            "step_mm = 40.0\n[gains]\np = 1.0\nd = 0.5\n",
        );
        let mut layered = Layered::from_file(&default).unwrap();
        let path = ["gains".to_owned(), "p".to_owned()];
        let text = "Walk.gains.p=x";
        layered.overlay(Layered::from_override(
            &path,
            &toml::Value::String("x".into()),
            text,
        ));
        let error = layered.deserialize::<Walk>().unwrap_err();
        assert!(matches!(
            error,
            ConfigError::InvalidValue { origin: Origin::Override { ref text }, ref key, .. }
                if text == "Walk.gains.p=x" && key == "gains.p"
        ));
    }

    #[test]
    fn every_value_is_listed_with_the_layer_that_set_it() {
        let default = source(
            "default.toml",
            "step_mm = 40.0\nnames = [\"a\"]\n[gains]\np = 1.0\nd = 0.5\n",
        );
        let mut layered = Layered::from_file(&default).unwrap();
        layered.overlay(Layered::from_file(&source("robot.toml", "[gains]\nd = 0.7\n")).unwrap());
        let path = ["gains".to_owned(), "p".to_owned()];
        let text = "Walk.gains.p=2.0";
        layered.overlay(Layered::from_override(
            &path,
            &toml::Value::Float(2.0),
            text,
        ));
        let listed: Vec<(String, String, String)> = layered
            .values()
            .into_iter()
            .map(|value| (value.key, value.value.to_string(), value.origin.to_string()))
            .collect();
        assert_eq!(
            listed,
            [
                ("gains.d".into(), "0.7".into(), "robot.toml:2".into()),
                (
                    "gains.p".into(),
                    "2.0".into(),
                    "command-line override `--set Walk.gains.p=2.0`".into()
                ),
                ("names".into(), "[\"a\"]".into(), "default.toml:2".into()),
                ("step_mm".into(), "40.0".into(), "default.toml:1".into()),
            ]
        );
    }

    #[test]
    fn syntax_errors_point_at_the_line() {
        let error = Layered::from_file(&source("s.toml", "a = 1\na = 2\n")).unwrap_err();
        assert!(
            matches!(error, ConfigError::Syntax { line: 2, .. }),
            "{error}"
        );
    }
}
