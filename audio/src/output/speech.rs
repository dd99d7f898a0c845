//! `SpeechEngine`: text to samples, and `ProgramSpeech`, which runs a text-to-speech program
//! (flite on the robot) as a child process that writes a WAV file into a work folder.
//!
//! The child is polled, never waited on blindly: a timeout kills it, and so does the caller's
//! `cancelled()` (a sound that interrupts, the player stopping). The WAV is removed after
//! reading, also on failure. A program that is not installed is reported once
//! ([`SpeechError::EngineMissing`]); after that the engine answers
//! [`SpeechError::Unavailable`] at once, and the player falls back to the shipped WAVs.

use super::pcm::{LoadError, Pcm};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The longest text spoken, in characters.
pub const MAX_TEXT_LENGTH: usize = 500;

/// Turns text into samples.
pub trait SpeechEngine: Send {
    /// A short name for the history ("flite").
    fn name(&self) -> &str;
    /// Synthesises `text`; gives up with [`SpeechError::Cancelled`] soon after `cancelled()`
    /// turns true.
    fn synthesise(&mut self, text: &str, cancelled: &dyn Fn() -> bool) -> Result<Pcm, SpeechError>;
}

/// Synthesising speech failed.
#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    #[error("text-to-speech program {program} cannot be started: {source} (speech falls back to the shipped sounds from now on)")]
    EngineMissing {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("text-to-speech program {program} is not available (reported before)")]
    Unavailable { program: PathBuf },
    #[error("text to speak is {reason}")]
    InvalidText { reason: String },
    #[error("text-to-speech program {program} did not finish within {timeout:?}; killed")]
    TimedOut { program: PathBuf, timeout: Duration },
    #[error("text-to-speech program {program} failed ({status}): {stderr}")]
    Failed {
        program: PathBuf,
        status: String,
        stderr: String,
    },
    #[error("text-to-speech program {program} wrote no usable sound: {source}")]
    Output {
        program: PathBuf,
        #[source]
        source: LoadError,
    },
    #[error("cannot use the work folder {folder} for speech: {source}")]
    WorkFolder {
        folder: PathBuf,
        source: std::io::Error,
    },
    #[error("speech cancelled")]
    Cancelled,
}

/// A text-to-speech program run once per text.
///
/// `arguments` are passed as they are (no shell), with `{text}` replaced by the text and
/// `{output}` by the WAV file the program is to write.
#[derive(Debug, Clone)]
pub struct ProgramSpeech {
    name: String,
    program: PathBuf,
    arguments: Vec<String>,
    work_folder: PathBuf,
    timeout: Duration,
    max_duration: Duration,
    missing: bool,
}

static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

impl ProgramSpeech {
    /// Any program; see the type's documentation for `arguments`.
    pub fn new(
        name: &str,
        program: impl Into<PathBuf>,
        arguments: Vec<String>,
        work_folder: impl Into<PathBuf>,
    ) -> ProgramSpeech {
        ProgramSpeech {
            name: name.to_owned(),
            program: program.into(),
            arguments,
            work_folder: work_folder.into(),
            timeout: Duration::from_secs(5),
            max_duration: Duration::from_secs(30),
            missing: false,
        }
    }

    /// flite with its 16 kHz voice (`flite -voice kal16 -t TEXT -o FILE`), writing into
    /// `work_folder` (the run directory).
    pub fn flite(work_folder: impl Into<PathBuf>) -> ProgramSpeech {
        let arguments = ["-voice", "kal16", "-t", "{text}", "-o", "{output}"];
        ProgramSpeech::new(
            "flite",
            "flite",
            arguments
                .iter()
                .map(|argument| argument.to_string())
                .collect(),
            work_folder,
        )
    }

    /// How long one text may take (5 s unless set).
    pub fn with_timeout(mut self, timeout: Duration) -> ProgramSpeech {
        self.timeout = timeout;
        self
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    fn run(
        &mut self,
        text: &str,
        output: &Path,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Pcm, SpeechError> {
        let arguments = self.arguments.iter().map(|argument| {
            argument
                .replace("{output}", &output.to_string_lossy())
                .replace("{text}", text)
        });
        let mut child = match Command::new(&self.program)
            .args(arguments)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(source) => {
                self.missing = true;
                return Err(SpeechError::EngineMissing {
                    program: self.program.clone(),
                    source,
                });
            }
        };
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {}
                Err(error) => {
                    kill(&mut child);
                    return Err(SpeechError::Failed {
                        program: self.program.clone(),
                        status: "cannot be waited for".to_owned(),
                        stderr: error.to_string(),
                    });
                }
            }
            if cancelled() {
                kill(&mut child);
                return Err(SpeechError::Cancelled);
            }
            if started.elapsed() > self.timeout {
                kill(&mut child);
                return Err(SpeechError::TimedOut {
                    program: self.program.clone(),
                    timeout: self.timeout,
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        if !status.success() {
            let mut stderr = String::new();
            if let Some(pipe) = child.stderr.as_mut() {
                let _ = pipe.take(2000).read_to_string(&mut stderr);
            }
            return Err(SpeechError::Failed {
                program: self.program.clone(),
                status: status.to_string(),
                stderr: stderr.trim().to_owned(),
            });
        }
        Pcm::load_wav(output, self.max_duration).map_err(|source| SpeechError::Output {
            program: self.program.clone(),
            source,
        })
    }
}

fn kill(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Control characters become spaces; empty or overlong text is refused.
fn cleaned(text: &str) -> Result<String, SpeechError> {
    let text: String = text
        .chars()
        .map(|character| {
            if character.is_control() {
                ' '
            } else {
                character
            }
        })
        .collect();
    let length = text.chars().count();
    if text.trim().is_empty() {
        return Err(SpeechError::InvalidText {
            reason: "empty".to_owned(),
        });
    }
    if length > MAX_TEXT_LENGTH {
        return Err(SpeechError::InvalidText {
            reason: format!("{length} characters long (at most {MAX_TEXT_LENGTH})"),
        });
    }
    Ok(text)
}

impl SpeechEngine for ProgramSpeech {
    fn name(&self) -> &str {
        &self.name
    }

    fn synthesise(&mut self, text: &str, cancelled: &dyn Fn() -> bool) -> Result<Pcm, SpeechError> {
        if self.missing {
            return Err(SpeechError::Unavailable {
                program: self.program.clone(),
            });
        }
        let text = cleaned(text)?;
        std::fs::create_dir_all(&self.work_folder).map_err(|source| SpeechError::WorkFolder {
            folder: self.work_folder.clone(),
            source,
        })?;
        let output = self.work_folder.join(format!(
            "speech-{}-{}.wav",
            std::process::id(),
            NEXT_FILE.fetch_add(1, Ordering::Relaxed)
        ));
        let result = self.run(&text, &output, cancelled);
        let _ = std::fs::remove_file(&output);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cleaned_or_refused() {
        assert_eq!(cleaned("a\nb\u{7}").unwrap(), "a b ");
        assert!(matches!(
            cleaned(" \t"),
            Err(SpeechError::InvalidText { .. })
        ));
        let long = "x".repeat(MAX_TEXT_LENGTH + 1);
        assert!(cleaned(&long)
            .unwrap_err()
            .to_string()
            .contains("501 characters"));
    }
}
