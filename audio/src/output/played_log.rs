//! `played.tsv`, the recording's list of what was played: one line when a sound starts, one
//! when it ends.
//!
//! Columns, tab-separated: the sound's first frame in `played.wav`; frames played (0 on a
//! `started` line); `started`, `complete` or `interrupted`; `say` or `play`; the text or name
//! (control characters as spaces). A sound whose `started` line has no end line was cut by the
//! process dying.

use super::recording::RecordingError;
use super::request::Sound;
use std::path::Path;

/// What a line of `played.tsv` says about its sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordedStatus {
    Started,
    Complete,
    Interrupted,
}

impl RecordedStatus {
    fn word(self) -> &'static str {
        match self {
            RecordedStatus::Started => "started",
            RecordedStatus::Complete => "complete",
            RecordedStatus::Interrupted => "interrupted",
        }
    }
}

/// One line of `played.tsv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedSound {
    pub first_frame: u64,
    pub frames: u64,
    pub status: RecordedStatus,
    pub sound: Sound,
}

/// The line for a sound, with its newline.
pub(crate) fn log_line(
    first_frame: u64,
    frames: u64,
    status: RecordedStatus,
    sound: &Sound,
) -> String {
    let (kind, label) = match sound {
        Sound::Say { text } => ("say", text),
        Sound::Play { name } => ("play", name),
    };
    let label: String = label
        .chars()
        .map(|character| {
            if character.is_control() {
                ' '
            } else {
                character
            }
        })
        .collect();
    format!(
        "{first_frame}\t{frames}\t{}\t{kind}\t{label}\n",
        status.word()
    )
}

/// Reads `played.tsv` in `folder`; a line that is not one the sink writes is an error naming
/// the line.
pub fn read_played_log(folder: &Path) -> Result<Vec<RecordedSound>, RecordingError> {
    let path = folder.join("played.tsv");
    let text = std::fs::read_to_string(&path).map_err(|error| RecordingError::File {
        path: path.clone(),
        reason: error.to_string(),
    })?;
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            parse_line(line).ok_or_else(|| RecordingError::File {
                path: path.clone(),
                reason: format!(
                    "line {}: not `frame<TAB>frames<TAB>started|complete|interrupted<TAB>say|play<TAB>text`: {line:?}",
                    index + 1
                ),
            })
        })
        .collect()
}

fn parse_line(line: &str) -> Option<RecordedSound> {
    let mut fields = line.splitn(5, '\t');
    let first_frame = fields.next()?.parse().ok()?;
    let frames = fields.next()?.parse().ok()?;
    let status = match fields.next()? {
        "started" => RecordedStatus::Started,
        "complete" => RecordedStatus::Complete,
        "interrupted" => RecordedStatus::Interrupted,
        _ => return None,
    };
    let kind = fields.next()?;
    let label = fields.next()?.to_owned();
    let sound = match kind {
        "say" => Sound::Say { text: label },
        "play" => Sound::Play { name: label },
        _ => return None,
    };
    Some(RecordedSound {
        first_frame,
        frames,
        status,
        sound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_written() {
        let sound = Sound::Say {
            text: "Python\terror\n".into(),
        };
        let line = log_line(12, 34, RecordedStatus::Interrupted, &sound);
        assert_eq!(line, "12\t34\tinterrupted\tsay\tPython error \n");
        let read = parse_line(line.trim_end_matches('\n')).unwrap();
        assert_eq!(read.status, RecordedStatus::Interrupted);
        assert_eq!(
            read.sound,
            Sound::Say {
                text: "Python error ".into()
            }
        );
        assert_eq!(parse_line("1\t2\tdone\tsay\tx"), None);
    }
}
