//! `cortex hear`: runs the whistle detector on WAV recordings and prints, per file, whether a
//! whistle was heard and when (seconds from the start of the file).
//!
//! The detector's parameters come from the configuration (`WhistleDetector.toml` along the
//! search path, `--set WhistleDetector.key=value` overrides). A file that cannot be read or is
//! not a usable WAV file gets a message on stderr naming it and what is wrong; the other files
//! are still processed. Exit status: 0 when every file was processed, 66 (`EX_NOINPUT`) when a
//! file could not be opened, 65 (`EX_DATAERR`) when one was opened but is malformed, 78 when the
//! parameters are wrong.

use crate::exit_code::{EX_DATAERR, EX_NOINPUT};
use crate::program::{self, ConfigFailure};
use crate::ConfigOptions;
use anyhow::{anyhow, Result};
use audio::WhistleDetectorParameters;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `cortex hear`.
#[derive(clap::Args, Debug)]
pub struct HearOptions {
    /// One JSON object per file and line: {"file", "whistle", "times_s", "time_ms"}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    config: ConfigOptions,
    /// WAV files (any rate of at least 5 kHz, any channel count, 8–32-bit integer or 32-bit
    /// float samples).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

#[derive(Serialize)]
struct FileLine {
    file: String,
    whistle: bool,
    times_s: Vec<f64>,
    time_ms: f64,
}

fn rounded(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// The detector's parameters from the configuration, checked.
fn parameters(options: &ConfigOptions) -> Result<WhistleDetectorParameters> {
    let config = program::load_config(&options.root(), None, &options.overrides)?;
    let parameters: WhistleDetectorParameters = config
        .parameters("WhistleDetector")
        .map_err(|error| ConfigFailure(error.into()))?;
    parameters.validate().map_err(|error| {
        // Name where the value came from: an override of that key, else the file.
        let key = match &error {
            audio::ParameterError::OutOfRange { key, .. } => *key,
            _ => "",
        };
        let prefix = format!("WhistleDetector.{key}=");
        let source = match options
            .overrides
            .iter()
            .rev()
            .find(|text| text.starts_with(&prefix))
        {
            Some(text) => format!("command-line override `--set {text}`"),
            None => config.find("WhistleDetector.toml").map_or_else(
                || "WhistleDetector".to_owned(),
                |path| path.display().to_string(),
            ),
        };
        ConfigFailure(anyhow!("{source}: {error}"))
    })?;
    Ok(parameters)
}

/// Runs `cortex hear`.
pub fn run(options: HearOptions) -> Result<ExitCode> {
    let parameters = parameters(&options.config)?;
    let mut worst = 0u8;
    for path in &options.files {
        let result = match audio::hear(path, &parameters) {
            Ok(result) => result,
            Err(error) => {
                let code = if error.is_missing() {
                    EX_NOINPUT
                } else {
                    EX_DATAERR
                };
                eprintln!("cortex hear: {error}");
                worst = worst.max(code);
                continue;
            }
        };
        if options.json {
            let line = FileLine {
                file: path.display().to_string(),
                whistle: result.whistle,
                times_s: result.times_s.iter().map(|time| rounded(*time)).collect(),
                time_ms: rounded(result.time_ms),
            };
            println!("{}", serde_json::to_string(&line)?);
        } else if result.whistle {
            let times: Vec<String> = result
                .times_s
                .iter()
                .map(|time| format!("{time:.2} s"))
                .collect();
            println!(
                "{}: whistle at {} ({:.1} ms)",
                path.display(),
                times.join(", "),
                result.time_ms
            );
        } else {
            println!("{}: no whistle ({:.1} ms)", path.display(), result.time_ms);
        }
    }
    Ok(if worst == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(worst)
    })
}
