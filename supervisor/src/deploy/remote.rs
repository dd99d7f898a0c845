//! Commands on the robot over the ssh of `cortex sync` ([`behaviours::sync::ssh_command_line`]):
//! a shell script, optionally fed a file on stdin. ssh's own failure (status 255) is
//! "unreachable" (exit 69); a failing script's output is the error.

use super::Robot;
use crate::exit_code::{Failure, EX_UNAVAILABLE};
use anyhow::{bail, Context, Result};
use behaviours::sync::{self, SyncOptions};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `script` with `sh` on the robot, feeding it `input`; its output on failure is the error.
pub(super) fn remote_shell(
    robot: &Robot,
    sync_options: &SyncOptions,
    script: &str,
    input: Option<&str>,
) -> Result<String> {
    let words = sync::ssh_command_line(sync_options);
    let mut command = Command::new(&words[0]);
    command
        .args(&words[1..])
        .arg("--")
        .arg(&robot.address)
        .arg(script)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().context("starting ssh")?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(text.as_bytes())
            .context("sending a file to the robot")?;
    }
    let output = child.wait_with_output().context("waiting for ssh")?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if output.status.code() == Some(255) {
        return Err(Failure::error(
            EX_UNAVAILABLE,
            format!("cannot reach {} over ssh: {stderr}", robot.address),
        ));
    }
    if !output.status.success() {
        let said = [stderr.as_str(), stdout.trim()]
            .into_iter()
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        bail!("`{script}` failed on the robot ({}): {said}", output.status);
    }
    Ok(stdout)
}

pub(super) fn remote_output(
    robot: &Robot,
    sync_options: &SyncOptions,
    script: &str,
) -> Result<String> {
    remote_shell(robot, sync_options, script, None)
}
