//! How `cortex` ends: the exit status of every failure, decided here and nowhere else, and the
//! one place an error is printed (once, each cause once, with the file it is about).
//!
//! | status | `sysexits.h` | when |
//! |---|---|---|
//! | 0 | | success |
//! | 1 | | any other failure (a refused request …) |
//! | 64 | `EX_USAGE` | the command line is wrong (a bad `--instance` name) |
//! | 65 | `EX_DATAERR` | an input was read but is malformed (`hear`: a WAV file, `perceive`: an image) |
//! | 66 | `EX_NOINPUT` | the configuration root is not there, a file may not be read |
//! | 69 | `EX_UNAVAILABLE` | no running instance answers on the control socket; `deploy`: a robot cannot be reached, cannot run the binary, or the robot build tools are missing |
//! | 70 | `EX_SOFTWARE` | a child gave up after too many module panics |
//! | 73 | `EX_CANTCREAT` | the run directory cannot be made or opened (a link, a file in its place) |
//! | 74 | `EX_IOERR` | reading a file failed for another reason |
//! | 77 | `EX_NOPERM` | the run directory belongs to another user or others may write to it |
//! | 78 | `EX_CONFIG` | the configuration is wrong: not restarted, `run` refuses to start; `deploy`: a robot missing from robots.toml or team.toml, a broken team file |
//!
//! Every status above is a constant here; the rest of the binary names them, never the numbers.
//!
//! The tools (everything but `run`) die of `SIGPIPE` like any Unix tool when the reader of their
//! output goes away (`cortex check | head`), instead of panicking on the next write.

use crate::program::{ConfigFailure, ParameterErrors};
use framework::{GraphError, ParameterError};
use std::process::ExitCode;

/// The command line is wrong (`EX_USAGE`).
pub const EX_USAGE: u8 = 64;
/// An input was read but is malformed (`EX_DATAERR`).
pub const EX_DATAERR: u8 = 65;
/// An input file is not there or may not be read (`EX_NOINPUT`, shared with `config`).
pub const EX_NOINPUT: u8 = config::EX_NOINPUT;
/// A child gave up after too many module panics (`EX_SOFTWARE`).
pub const EX_SOFTWARE: u8 = 70;
/// No running instance answers (`EX_UNAVAILABLE`).
pub const EX_UNAVAILABLE: u8 = 69;
/// The run directory cannot be made or opened (`EX_CANTCREAT`).
pub const EX_CANTCREAT: u8 = 73;
/// The run directory may not be trusted (`EX_NOPERM`).
pub const EX_NOPERM: u8 = 77;

/// A failure that carries its exit status, for the errors of the binary that are not a library
/// crate's error type (a refused run directory, no running instance).
#[derive(Debug)]
pub struct Failure {
    /// The exit status.
    pub code: u8,
    /// What went wrong, for people.
    pub message: String,
}

impl Failure {
    /// A failure with exit status `code`, as an `anyhow::Error`.
    pub fn error(code: u8, message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Failure {
            code,
            message: message.into(),
        })
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}
/// The configuration is wrong (`EX_CONFIG`).
pub const EX_CONFIG: u8 = config::EX_CONFIG;

/// Parses the command line; on `--help` and `--version` prints them and ends with 0, on a bad
/// command line says what is wrong and ends with [`EX_USAGE`].
pub fn parse_command_line<C: clap::Parser>() -> Result<C, ExitCode> {
    C::try_parse().map_err(|error| {
        // clap writes help and version to stdout and errors to stderr, coloured only for a
        // terminal and not with NO_COLOR.
        let _ = error.print();
        match error.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                ExitCode::SUCCESS
            }
            _ => ExitCode::from(EX_USAGE),
        }
    })
}

/// The exit status for `error`.
pub fn of(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(failure) = cause.downcast_ref::<ConfigFailure>() {
            return configuration(&failure.0);
        }
        if let Some(code) = code_of(cause) {
            return code;
        }
    }
    1
}

/// The status of a configuration failure: that of the first configuration error inside,
/// [`EX_CONFIG`] if there is none.
fn configuration(error: &anyhow::Error) -> u8 {
    error.chain().find_map(code_of).unwrap_or(EX_CONFIG)
}

fn code_of(cause: &(dyn std::error::Error + 'static)) -> Option<u8> {
    if let Some(failure) = cause.downcast_ref::<Failure>() {
        return Some(failure.code);
    }
    if let Some(error) = cause.downcast_ref::<config::ConfigError>() {
        return Some(error.exit_code());
    }
    if let Some(error) = cause.downcast_ref::<Box<config::ConfigError>>() {
        return Some(error.exit_code());
    }
    if let Some(errors) = cause.downcast_ref::<ParameterErrors>() {
        return Some(
            errors
                .0
                .iter()
                .map(|error| error.config_error().exit_code())
                .find(|code| *code == EX_CONFIG)
                .or_else(|| errors.0.first().map(|e| e.config_error().exit_code()))
                .unwrap_or(EX_CONFIG),
        );
    }
    if let Some(error) = cause.downcast_ref::<ParameterError>() {
        return Some(error.config_error().exit_code());
    }
    if cause.downcast_ref::<GraphError>().is_some() {
        return Some(EX_CONFIG);
    }
    if cause.downcast_ref::<clap::Error>().is_some() {
        return Some(EX_USAGE);
    }
    None
}

/// The text of `error` and its causes, each said once: a cause whose text an outer error
/// already includes (many errors print their source) is left out.
pub fn message(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = match cause.downcast_ref::<ConfigFailure>() {
            Some(failure) => message(&failure.0),
            None => cause.to_string(),
        };
        if text.is_empty() || parts.iter().any(|part| part.contains(&text)) {
            continue;
        }
        parts.push(text);
    }
    parts.join(": ")
}

/// Prints `error` to stderr, once, each line as `cortex: …`, and returns its exit status.
pub fn report(error: &anyhow::Error) -> ExitCode {
    let code = of(error);
    let kind = if code == EX_CONFIG {
        "configuration error: "
    } else {
        ""
    };
    let mut text = String::new();
    for line in message(error).lines() {
        text.push_str(&format!("cortex: {kind}{line}\n"));
    }
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
    ExitCode::from(code)
}

/// Whether log lines and messages may carry colour: stderr is a terminal and `NO_COLOR` is not
/// set (<https://no-color.org>: any non-empty value).
pub fn colour() -> bool {
    use std::io::IsTerminal;
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    !no_colour && std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    fn read_error(kind: std::io::ErrorKind) -> config::ConfigError {
        config::ConfigError::Read {
            path: "/c/default/Kick.toml".into(),
            source: std::io::Error::from(kind),
        }
    }

    #[test]
    fn a_cause_is_said_once() {
        /// An error that prints its source, as many do.
        #[derive(Debug)]
        struct Building {
            source: config::ConfigError,
        }
        impl std::fmt::Display for Building {
            fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(formatter, "building module `Kick`: {}", self.source)
            }
        }
        impl std::error::Error for Building {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.source)
            }
        }
        let inner = read_error(std::io::ErrorKind::InvalidData);
        let error = anyhow::Error::new(ConfigFailure(anyhow::Error::new(Building {
            source: inner,
        })));
        let text = message(&error);
        assert_eq!(text.matches("/c/default/Kick.toml").count(), 1, "{text}");
        assert_eq!(of(&error), EX_CONFIG);
    }

    #[test]
    fn codes_follow_the_kind_of_failure() {
        let unreadable = anyhow::Error::new(ConfigFailure(
            anyhow::Error::new(read_error(std::io::ErrorKind::PermissionDenied)).context("loading"),
        ));
        assert_eq!(of(&unreadable), config::EX_NOINPUT);
        assert!(message(&unreadable).contains("/c/default/Kick.toml"));
        let broken_disk = anyhow::Error::new(read_error(std::io::ErrorKind::Other));
        assert_eq!(of(&broken_disk), config::EX_IOERR);
        let plain: anyhow::Result<()> =
            Err(std::io::Error::from(std::io::ErrorKind::NotFound)).context("connecting");
        assert_eq!(of(&plain.unwrap_err()), 1);
        let without_cause = anyhow::Error::new(ConfigFailure(anyhow::anyhow!("no process")));
        assert_eq!(of(&without_cause), EX_CONFIG);
    }
}
