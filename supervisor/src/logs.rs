//! `cortex logs ROBOT`: fetches a robot's recordings and logs over ssh, after a game.
//!
//! The robot is reached as `cortex deploy` reaches it: its address from robots.toml's
//! `[addresses]` (or a `user@host` given directly), the ssh options of `cortex sync`
//! ([`behaviours::sync::ssh_command_line`]: no password prompt, `--port`, `--ssh-config`).
//!
//! ```text
//! on the robot                                         here (--out, default logs/ROBOT/)
//!   Recorder.toml `folder` (see below)  *.mcap    ──▶    recordings/
//!   RUN_DIR/*.log (the recorder's log)            ──▶    journal/
//!   journalctl --user -u cortex.service           ──▶    journal/cortex.service.log
//! ```
//!
//! The recordings folder is the one the recorder on the robot writes to: Recorder.toml's
//! `folder` of this configuration (the one deployed) relative to `--remote-dir`, or, when it is
//! empty, `recordings/` of the instance's run directory (`$XDG_RUNTIME_DIR/cortex/robot`, the
//! unit's `--instance robot`). One ssh call lists both folders with sizes and times; the files
//! to fetch (newer than `--since`, and not here already at the same size: a second run fetches
//! only what is new, and a file cut by a broken connection is fetched again) go through one
//! rsync (`--partial`: an interrupted transfer resumes from what arrived).

use crate::exit_code::{Failure, EX_CONFIG, EX_NOINPUT, EX_NOPERM, EX_UNAVAILABLE, EX_USAGE};
use anyhow::{Context, Result};
use behaviours::sync::{ssh_command_line, SyncOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

mod since;

/// `cortex logs` options.
#[derive(clap::Args, Debug, Clone)]
pub struct LogsOptions {
    /// The robot: its name in robots.toml's `[addresses]`, or `user@host`.
    #[arg(value_name = "ROBOT")]
    pub robot: String,
    /// The folder to fetch into (default: logs/ROBOT in the current folder).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only what changed since then: `2h`, `30m`, `1d` ago, `2026-07-14 15:30` (UTC), or
    /// `@SECONDS` since the Unix epoch.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only the logs (journal and the run directory's log files).
    #[arg(long, conflicts_with = "recordings_only")]
    pub journal_only: bool,
    /// Only the recordings.
    #[arg(long)]
    pub recordings_only: bool,
    /// The configuration root whose robots.toml names the robot and whose Recorder.toml says
    /// where it records (the one deployed).
    #[arg(long, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// The folder on the robot (as `cortex deploy --remote-dir`).
    #[arg(long, value_name = "DIR", default_value = "/home/nao/cortex")]
    pub remote_dir: String,
    /// The instance name on the robot (its run directory; the unit runs `--instance robot`).
    #[arg(long, value_name = "NAME", default_value = "robot", value_parser = crate::paths::parse_instance)]
    pub instance: String,
    /// The ssh port.
    #[arg(long)]
    pub port: Option<u16>,
    /// An ssh configuration file (`ssh -F`).
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
}

/// One file on the robot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RemoteFile {
    name: String,
    size: u64,
    modified_s: u64,
}

/// A folder on the robot and what it holds, or that it is not there.
#[derive(Debug, Default)]
struct RemoteFolder {
    path: String,
    exists: bool,
    files: Vec<RemoteFile>,
}

/// What the listing on the robot found.
#[derive(Debug, Default)]
struct Listing {
    recordings: RemoteFolder,
    run_dir: RemoteFolder,
    /// Lines of the listing that were not understood (a file name with a newline …).
    skipped: Vec<String>,
}

/// How to reach the robot.
struct Robot {
    name: String,
    address: String,
    ssh: SyncOptions,
}

/// Runs `cortex logs`.
pub fn run(options: LogsOptions) -> Result<ExitCode> {
    let config_root = options
        .config_dir
        .clone()
        .unwrap_or_else(config::default_root);
    crate::deploy::check_remote_dir(&options.remote_dir)?;
    let since_s = match &options.since {
        Some(text) => Some(
            since::parse(text, since::now_s())
                .map_err(|error| Failure::error(EX_USAGE, format!("--since `{text}`: {error}")))?,
        ),
        None => None,
    };
    let robot = resolve(&options, &config_root)?;
    let parameters = crate::record::load_parameters(&config_root)?;
    let recordings_expression = recordings_folder(&parameters.folder, &options);
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("logs").join(&robot.name));
    let listing = list(&robot, &recordings_expression, &options.instance)?;
    for line in &listing.skipped {
        eprintln!("cortex logs: left out a name that is not a plain file name: {line:?}");
    }
    let mut missing = Vec::new();
    if !options.journal_only {
        if listing.recordings.exists {
            fetch_part(
                &robot,
                &listing.recordings,
                |name| name.ends_with(".mcap"),
                &out.join("recordings"),
                since_s,
                "recordings",
            )?;
        } else {
            missing.push(format!(
                "no recordings folder at {} on {} (Recorder.toml `folder`; nothing recorded yet?)",
                listing.recordings.path, robot.address
            ));
        }
    }
    if !options.recordings_only {
        let mut found = false;
        if listing.run_dir.exists {
            found = true;
            fetch_part(
                &robot,
                &listing.run_dir,
                |name| name.ends_with(".log"),
                &out.join("journal"),
                since_s,
                "run directory logs",
            )?;
        }
        match journal(&robot, since_s)? {
            Ok(text) => {
                found = true;
                let folder = out.join("journal");
                std::fs::create_dir_all(&folder)
                    .with_context(|| format!("making {}", folder.display()))?;
                let path = folder.join("cortex.service.log");
                write_whole(&path, text.as_bytes())?;
                println!(
                    "journal: {} ({} lines of journalctl --user -u cortex.service)",
                    path.display(),
                    text.lines().count()
                );
            }
            Err(reason) => eprintln!("cortex logs: no journal from {}: {reason}", robot.address),
        }
        if !found {
            missing.push(format!(
                "no logs on {}: no run directory at {} and no journal (see above)",
                robot.address, listing.run_dir.path
            ));
        }
    }
    if missing.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Failure::error(EX_NOINPUT, missing.join("; ")))
    }
}

/// The robot's address and the ssh options to reach it.
fn resolve(options: &LogsOptions, config_root: &Path) -> Result<Robot> {
    let robots_file = config_root.join(config::ROBOTS_FILE);
    let robots = config::Robots::load(&robots_file)?;
    let address = crate::deploy::robot_address(&robots_file, &robots, &options.robot, true)?;
    if address.starts_with('-') || address.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Failure::error(
            EX_CONFIG,
            format!(
                "robot `{}`: `{address}` is not an ssh address",
                options.robot
            ),
        ));
    }
    let ssh = SyncOptions {
        ssh_port: options.port,
        ssh_config: options.ssh_config.clone(),
        ..SyncOptions::default()
    };
    Ok(Robot {
        name: options.robot.replace(['/', '@'], "_"),
        address,
        ssh,
    })
}

/// The recordings folder on the robot as a shell expression (`$RUN` is the run directory).
fn recordings_folder(folder: &str, options: &LogsOptions) -> String {
    if folder.is_empty() {
        "$RUN/recordings".to_owned()
    } else if folder.starts_with('/') {
        shell_quote(folder)
    } else {
        shell_quote(&format!("{}/{folder}", options.remote_dir))
    }
}

/// The run directory as `cortex run --instance NAME` makes it on the robot
/// (`crate::paths::default_run_dir`), then `DIR` and `FILE` lines of both folders.
fn listing_script(recordings: &str, instance: &str) -> String {
    format!(
        r#"RUN="${{XDG_RUNTIME_DIR:-/run/user/$(id -u)}}"
[ -d "$RUN" ] || RUN="/tmp/cortex-$(id -u)"
RUN="$RUN/cortex/{instance}"
list() {{
  if [ -d "$2" ]; then
    echo "DIR $1 $2"
    for f in "$2"/*; do
      [ -f "$f" ] && stat -c "FILE $1 %s %Y %n" "$f"
    done
  else
    echo "MISSING $1 $2"
  fi
  return 0
}}
list recordings {recordings}
list run "$RUN"
"#
    )
}

/// Lists the robot's recordings folder and run directory (one ssh call).
fn list(robot: &Robot, recordings: &str, instance: &str) -> Result<Listing> {
    let output = ssh(robot, &listing_script(recordings, instance))?;
    Ok(parse_listing(&output))
}

/// Parses the listing's lines.
fn parse_listing(text: &str) -> Listing {
    let mut listing = Listing::default();
    for line in text.lines() {
        let words: Vec<&str> = line.splitn(3, ' ').collect();
        match words.as_slice() {
            ["DIR", tag, path] | ["MISSING", tag, path] => {
                let target = match *tag {
                    "recordings" => &mut listing.recordings,
                    "run" => &mut listing.run_dir,
                    _ => continue,
                };
                target.path = (*path).to_owned();
                target.exists = words[0] == "DIR";
            }
            ["FILE", tag, rest] => {
                let target = match *tag {
                    "recordings" => &mut listing.recordings,
                    "run" => &mut listing.run_dir,
                    _ => continue,
                };
                let parts: Vec<&str> = rest.splitn(3, ' ').collect();
                let parsed = match parts.as_slice() {
                    [size, modified, path] => {
                        let name = path.rsplit('/').next().unwrap_or("");
                        match (size.parse(), modified.parse()) {
                            (Ok(size), Ok(modified_s)) if plain_name(name) => Some(RemoteFile {
                                name: name.to_owned(),
                                size,
                                modified_s,
                            }),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                match parsed {
                    Some(file) => target.files.push(file),
                    None => listing.skipped.push(line.to_owned()),
                }
            }
            _ => listing.skipped.push(line.to_owned()),
        }
    }
    listing
}

/// A name that is safe as a file name here: no folder, no `..`, no control characters.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.chars().any(char::is_control)
}

/// Fetches the files of `folder` that `wanted` accepts into `destination`: those modified since
/// `since_s` and not here already at the same size.
fn fetch_part(
    robot: &Robot,
    folder: &RemoteFolder,
    wanted: impl Fn(&str) -> bool,
    destination: &Path,
    since_s: Option<u64>,
    label: &str,
) -> Result<()> {
    let mut fetch = Vec::new();
    let (mut same, mut older) = (0, 0);
    for file in folder.files.iter().filter(|file| wanted(&file.name)) {
        if since_s.is_some_and(|since| file.modified_s < since) {
            older += 1;
            continue;
        }
        let here = std::fs::metadata(destination.join(&file.name)).map(|m| m.len());
        if here.is_ok_and(|size| size == file.size) {
            same += 1;
            continue;
        }
        fetch.push(file);
    }
    if !fetch.is_empty() {
        std::fs::create_dir_all(destination)
            .with_context(|| format!("making {}", destination.display()))?;
        rsync(robot, &folder.path, &fetch, destination)?;
    }
    for file in &fetch {
        let here = std::fs::metadata(destination.join(&file.name)).map_or(0, |m| m.len());
        println!(
            "fetched {} ({here} bytes{})",
            destination.join(&file.name).display(),
            if here == file.size {
                String::new()
            } else {
                format!(
                    "; {} on the robot when listed: still being written",
                    file.size
                )
            }
        );
    }
    let mut summary = format!(
        "{label} from {}:{}: {} fetched, {same} already here (same size)",
        robot.address,
        folder.path,
        fetch.len()
    );
    if since_s.is_some() {
        summary.push_str(&format!(", {older} older than --since"));
    }
    println!("{summary}");
    Ok(())
}

/// Copies `files` of the robot's `folder` into `destination` with one rsync over the same ssh.
fn rsync(robot: &Robot, folder: &str, files: &[&RemoteFile], destination: &Path) -> Result<()> {
    let ssh: Vec<String> = ssh_command_line(&robot.ssh)
        .iter()
        .map(|word| shell_quote(word))
        .collect();
    let mut command = Command::new("rsync");
    command
        .args(["-t", "--partial", "--protect-args", "--files-from=-"])
        .arg("-e")
        .arg(ssh.join(" "))
        .arg(format!("{}:{folder}/", robot.address))
        .arg(destination)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => Failure::error(
            EX_UNAVAILABLE,
            "rsync is not installed here (tools/install-test-deps.sh installs it)",
        ),
        _ => anyhow::Error::new(error).context("starting rsync"),
    })?;
    // The names to copy, one a line (`--files-from=-`).
    if let Some(mut stdin) = child.stdin.take() {
        let names: String = files
            .iter()
            .map(|file| format!("{}\n", file.name))
            .collect();
        stdin
            .write_all(names.as_bytes())
            .context("telling rsync the files")?;
    }
    let output = child.wait_with_output().context("waiting for rsync")?;
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    match output.status.code() {
        Some(0) => Ok(()),
        // 24: a file vanished between the listing and the copy (the recorder's disk budget).
        Some(24) => {
            eprintln!("cortex logs: some files vanished on the robot while fetching: {stderr}");
            Ok(())
        }
        Some(255) | Some(12) => Err(ssh_failure(robot, &stderr)),
        _ => Err(Failure::error(
            config::EX_IOERR,
            format!(
                "copying from {}:{folder} to {} failed ({}): {stderr}",
                robot.address,
                destination.display(),
                output.status
            ),
        )),
    }
}

/// The robot's journal of `cortex.service`, or why there is none.
fn journal(robot: &Robot, since_s: Option<u64>) -> Result<Result<String, String>> {
    let since = since_s.map_or_else(String::new, |s| format!(" --since @{s}"));
    let script = format!(
        "command -v journalctl >/dev/null || {{ echo 'journalctl is not installed' >&2; exit 3; }}; \
         XDG_RUNTIME_DIR=${{XDG_RUNTIME_DIR:-/run/user/$(id -u)}} journalctl --user -u \
         cortex.service --no-pager -o short-iso{since}"
    );
    match ssh_status(robot, &script)? {
        (true, stdout, _) if !stdout.trim().is_empty() && !stdout.starts_with("-- No entries") => {
            Ok(Ok(stdout))
        }
        (true, _, _) => Ok(Err(
            "the journal has no entries of cortex.service".to_owned()
        )),
        (false, _, stderr) => Ok(Err(stderr.trim().to_owned())),
    }
}

/// Runs `script` on the robot; its failure is an error with what it said.
fn ssh(robot: &Robot, script: &str) -> Result<String> {
    match ssh_status(robot, script)? {
        (true, stdout, _) => Ok(stdout),
        (false, stdout, stderr) => Err(anyhow::anyhow!(
            "listing the folders on {} failed: {} {}",
            robot.address,
            stderr.trim(),
            stdout.trim()
        )),
    }
}

/// Runs `script` with ssh: (success, stdout, stderr); ssh's own failure (255) is an error.
fn ssh_status(robot: &Robot, script: &str) -> Result<(bool, String, String)> {
    let words = ssh_command_line(&robot.ssh);
    let output = Command::new(&words[0])
        .args(&words[1..])
        .arg("--")
        .arg(&robot.address)
        .arg(script)
        .stdin(Stdio::null())
        .output()
        .context("starting ssh")?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.status.code() == Some(255) {
        return Err(ssh_failure(robot, stderr.trim()));
    }
    Ok((
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
    ))
}

/// ssh could not log in: refused keys (exit 77) or an unreachable robot (exit 69).
fn ssh_failure(robot: &Robot, said: &str) -> anyhow::Error {
    let said = said
        .lines()
        .filter(|line| !line.contains("rsync") || line.contains("ssh"))
        .collect::<Vec<_>>()
        .join("; ");
    if said.contains("Permission denied") || said.contains("Host key verification failed") {
        Failure::error(
            EX_NOPERM,
            format!(
                "{} refused the login (ssh: {said}): its ~/.ssh/authorized_keys must hold this \
                 machine's key, and its host key must be the known one",
                robot.address
            ),
        )
    } else {
        Failure::error(
            EX_UNAVAILABLE,
            format!("cannot reach {} over ssh: {said}", robot.address),
        )
    }
}

/// Quotes `text` for a shell.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "=._/-:@".contains(c))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Writes `bytes` to `path` whole (a temporary file renamed over it).
fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let temporary = path.with_extension("part");
    std::fs::write(&temporary, bytes)
        .with_context(|| format!("writing {}", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_keeps_plain_names_and_reports_the_rest() {
        let text = "DIR recordings /home/nao/cortex/recordings\n\
                    FILE recordings 120 1700000000 /home/nao/cortex/recordings/a b.mcap\n\
                    FILE recordings x 1700000000 /home/nao/cortex/recordings/bad.mcap\n\
                    MISSING run /run/user/1000/cortex/robot\n\
                    FILE recordings 5 1 /home/nao/cortex/recordings/..\n\
                    garbage\n";
        let listing = parse_listing(text);
        assert!(listing.recordings.exists);
        assert_eq!(
            listing.recordings.files,
            vec![RemoteFile {
                name: "a b.mcap".into(),
                size: 120,
                modified_s: 1_700_000_000
            }]
        );
        assert!(!listing.run_dir.exists);
        assert_eq!(listing.run_dir.path, "/run/user/1000/cortex/robot");
        assert_eq!(listing.skipped.len(), 3, "{:?}", listing.skipped);
    }

    #[test]
    fn quoting_keeps_plain_words_and_quotes_the_rest() {
        assert_eq!(shell_quote("/home/nao/x"), "/home/nao/x");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
