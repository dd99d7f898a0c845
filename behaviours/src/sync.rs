//! `cortex sync TARGET`: copies the behaviour package and the configuration to a robot with
//! `rsync` over `ssh`, or to a folder (`--local DIR`). The running robot notices the change by
//! itself (the behaviour folder is watched).
//!
//! Layout at the destination (`DEST` is `TARGET:<remote_dir>` or the local folder):
//!
//! ```text
//! DEST/behaviours/   ← the behaviour package (behaviours/python/)
//! DEST/config/       ← the configuration root (config/data/)
//! ```
//!
//! `cortex run --behaviours DEST` finds `DEST/behaviours/behaviour.py` by itself.
//!
//! rsync runs with `-a -z --partial --delete --safe-links --exclude __pycache__ --exclude
//! '*.pyc' --itemize-changes`; each itemized line is one changed file.
//!
//! Nothing happens without a word: files at the destination that the source lacks are deleted
//! (`--delete`, so that a removed behaviour module does not linger on the robot) and each one is
//! listed under "deleted" (`--keep` keeps them; `--dry-run` lists what would change and be
//! deleted and changes nothing, on the robot not even the folders it would make). A symbolic
//! link that leaves the copied tree (absolute, or `../` past its root) would point at nothing,
//! or at something else, on the robot: it is not copied (`--safe-links`) and named in a warning.
//!
//! A robot's `config/settings.toml` is its own (`cortex deploy` writes its numbers there from
//! `team.toml`): a sync to a robot leaves it alone (`--exclude /settings.toml`, which also keeps
//! `--delete` off it) and copies the repository's only to a robot that has none yet
//! (`--ignore-existing`). A sync to a local folder copies it like every other file.

mod links;

pub use links::links_leaving;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where to copy to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncTarget {
    /// A robot: `host` or `user@host`, reached with `ssh`.
    Remote(String),
    /// A local folder (`--local DIR`).
    Local(PathBuf),
}

/// What to copy and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncOptions {
    /// The behaviour package to copy (default: `behaviours/python` of the workspace).
    pub behaviours: PathBuf,
    /// The configuration root to copy (default: `config/data` of the workspace).
    pub config: PathBuf,
    /// The folder on the robot that receives `behaviours/` and `config/`.
    pub remote_dir: String,
    /// The ssh port; `None`: ssh's default (22 or the ssh configuration's).
    pub ssh_port: Option<u16>,
    /// An ssh configuration file to use instead of the user's (`ssh -F`).
    pub ssh_config: Option<PathBuf>,
    /// Seconds ssh waits for the connection.
    pub connect_timeout_s: u32,
    /// The rsync program.
    pub rsync: PathBuf,
    /// Only say what would change and what would be deleted.
    pub dry_run: bool,
    /// Delete files at the destination that the source does not have (listed in the report).
    pub delete: bool,
}

impl Default for SyncOptions {
    fn default() -> Self {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new("/"));
        SyncOptions {
            behaviours: workspace.join("behaviours/python"),
            config: config::default_root(),
            remote_dir: "/home/nao/cortex".to_owned(),
            ssh_port: None,
            ssh_config: None,
            connect_timeout_s: 5,
            rsync: PathBuf::from("rsync"),
            dry_run: false,
            delete: true,
        }
    }
}

/// What was copied: rsync's itemized changes per part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// The destination of the behaviour package.
    pub behaviours_destination: String,
    /// Itemized changes of the behaviour package (`>f.st...... behaviour.py`).
    pub behaviours: Vec<String>,
    /// The destination of the configuration.
    pub config_destination: String,
    /// Itemized changes of the configuration.
    pub config: Vec<String>,
    /// Files deleted at the destination (or that would be, in a dry run), with their part:
    /// `config/robots/mine/x.toml`.
    pub deleted: Vec<String>,
    /// Things a person should know: links that leave the tree and were not copied.
    pub warnings: Vec<String>,
    /// Nothing was changed: this is what would happen.
    pub dry_run: bool,
}

impl SyncReport {
    /// Whether nothing changed (or would change).
    pub fn is_unchanged(&self) -> bool {
        self.behaviours.is_empty() && self.config.is_empty() && self.deleted.is_empty()
    }
}

impl std::fmt::Display for SyncReport {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.dry_run {
            writeln!(
                formatter,
                "dry run: nothing was changed; this is what would happen"
            )?;
        }
        for (destination, changes) in [
            (&self.behaviours_destination, &self.behaviours),
            (&self.config_destination, &self.config),
        ] {
            if changes.is_empty() {
                writeln!(formatter, "{destination}: up to date")?;
            } else {
                writeln!(formatter, "{destination}: {} change(s)", changes.len())?;
                for change in changes {
                    writeln!(formatter, "  {change}")?;
                }
            }
        }
        if !self.deleted.is_empty() {
            let verb = if self.dry_run {
                "would be deleted"
            } else {
                "deleted"
            };
            writeln!(
                formatter,
                "{} file(s) at the destination that the source does not have {verb} (--keep \
                 keeps them):",
                self.deleted.len()
            )?;
            for path in &self.deleted {
                writeln!(formatter, "  {path}")?;
            }
        }
        for warning in &self.warnings {
            writeln!(formatter, "warning: {warning}")?;
        }
        Ok(())
    }
}

/// Why a sync failed.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// rsync is not installed here.
    #[error("`{program}` was not found: install rsync (Debian: `apt-get install rsync`)")]
    RsyncMissing {
        /// The program that was looked for.
        program: PathBuf,
    },
    /// A source folder is missing.
    #[error("{what} folder {path} does not exist")]
    MissingSource {
        /// "the behaviour" or "the configuration".
        what: &'static str,
        /// The folder.
        path: PathBuf,
    },
    /// The target is not a usable host or folder name.
    #[error("`{target}` is not a valid target: {reason}")]
    BadTarget {
        /// The target as given.
        target: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// ssh could not reach or log in to the robot (rsync exit status 255).
    #[error("cannot reach `{target}` over ssh: {message}")]
    Unreachable {
        /// The target.
        target: String,
        /// What ssh said.
        message: String,
    },
    /// rsync failed for another reason.
    #[error("rsync to {destination} failed with {status}: {message}")]
    Rsync {
        /// The destination.
        destination: String,
        /// Its exit status.
        status: String,
        /// What rsync said.
        message: String,
    },
    /// A destination part is a symbolic link: rsync would write and delete where it points.
    #[error(
        "{path} is a symbolic link to {points_to}: refusing to copy into it (rsync would write \
         and delete files there); remove the link or give another folder"
    )]
    LinkedDestination {
        /// The link (`DIR/config`).
        path: PathBuf,
        /// Where it points.
        points_to: PathBuf,
    },
    /// Something local failed (creating the local folder, starting rsync).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

fn check_target(target: &SyncTarget, options: &SyncOptions) -> Result<(), SyncError> {
    if let SyncTarget::Remote(host) = target {
        let bad = |reason| SyncError::BadTarget {
            target: host.clone(),
            reason,
        };
        if host.is_empty() || host.starts_with('-') {
            return Err(bad("expected `host` or `user@host`"));
        }
        if host.contains(':') || host.contains('/') || host.chars().any(char::is_whitespace) {
            return Err(bad(
                "expected `host` or `user@host` without a path (the path is --remote-dir)",
            ));
        }
        let safe_dir = options
            .remote_dir
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c));
        if !options.remote_dir.starts_with('/') || !safe_dir {
            return Err(SyncError::BadTarget {
                target: options.remote_dir.clone(),
                reason: "the remote folder must be an absolute path of letters, digits, `/._-`",
            });
        }
    }
    Ok(())
}

/// Copies the behaviour package and the configuration to `target`; returns what changed.
pub fn sync(target: &SyncTarget, options: &SyncOptions) -> Result<SyncReport, SyncError> {
    for (what, path) in [
        ("the behaviour", &options.behaviours),
        ("the configuration", &options.config),
    ] {
        if !path.is_dir() {
            return Err(SyncError::MissingSource {
                what,
                path: path.clone(),
            });
        }
    }
    check_target(target, options)?;
    let (behaviours_destination, config_destination) = match target {
        SyncTarget::Local(folder) => {
            for part in ["behaviours", "config"] {
                let path = folder.join(part);
                // rsync writes into (and deletes in) whatever a link there points at.
                if let Ok(points_to) = std::fs::read_link(&path) {
                    return Err(SyncError::LinkedDestination { path, points_to });
                }
                if options.dry_run {
                    // rsync's dry run lists every file as new for a folder it would make.
                    continue;
                }
                std::fs::create_dir_all(&path).map_err(|source| SyncError::Io {
                    context: format!("creating {}", path.display()),
                    source,
                })?;
            }
            (
                format!("{}/", folder.join("behaviours").display()),
                format!("{}/", folder.join("config").display()),
            )
        }
        SyncTarget::Remote(host) => (
            format!("{host}:{}/behaviours/", options.remote_dir),
            format!("{host}:{}/config/", options.remote_dir),
        ),
    };
    let mut warnings = Vec::new();
    for (part, root) in [
        ("behaviours", &options.behaviours),
        ("config", &options.config),
    ] {
        for (link, points_to) in links_leaving(root) {
            warnings.push(format!(
                "{part}/{} is a symbolic link to {} outside the copied folder {}: not copied \
                 (copy the file itself into the folder)",
                link.display(),
                points_to.display(),
                root.display()
            ));
        }
    }
    let mut deleted = Vec::new();
    let mut parts = Vec::new();
    for (part, source, destination) in [
        ("behaviours", &options.behaviours, &behaviours_destination),
        ("config", &options.config, &config_destination),
    ] {
        let (changes, deletions) =
            split_deletions(rsync(target, options, part, source, destination)?);
        deleted.extend(deletions.into_iter().map(|path| format!("{part}/{path}")));
        parts.push(changes);
    }
    let config = parts.pop().unwrap_or_default();
    let behaviours = parts.pop().unwrap_or_default();
    Ok(SyncReport {
        behaviours_destination,
        behaviours,
        config_destination,
        config,
        deleted,
        warnings,
        dry_run: options.dry_run,
    })
}

/// Separates rsync's `*deleting   path` lines from the other itemized changes.
fn split_deletions(lines: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut changes = Vec::new();
    let mut deletions = Vec::new();
    for line in lines {
        match line.strip_prefix("*deleting") {
            Some(path) => deletions.push(path.trim().to_owned()),
            None => changes.push(line),
        }
    }
    (changes, deletions)
}

/// The robot's own settings file at the root of the configuration (see the module's doc).
const ROBOT_OWN: &str = "/settings.toml";

/// One part (`behaviours` or `config`) copied to `destination`. To a robot, the configuration's
/// root `settings.toml` is left out, then copied alone only where the robot has none.
fn rsync(
    target: &SyncTarget,
    options: &SyncOptions,
    part: &str,
    source: &Path,
    destination: &str,
) -> Result<Vec<String>, SyncError> {
    if part != "config" || matches!(target, SyncTarget::Local(_)) {
        return rsync_path(target, options, source, false, destination, &[]);
    }
    let exclude = format!("--exclude={ROBOT_OWN}");
    let mut changes = rsync_path(target, options, source, false, destination, &[&exclude])?;
    let include = format!("--include={ROBOT_OWN}");
    // No `--delete` in this pass: `--exclude=*` would make it delete everything else.
    let only_settings = SyncOptions {
        delete: false,
        ..options.clone()
    };
    let settings = rsync_path(
        target,
        &only_settings,
        source,
        false,
        destination,
        &["--ignore-existing", &include, "--exclude=*"],
    )?;
    // Its folder lines were the first pass's to report.
    changes.extend(
        settings
            .into_iter()
            .filter(|line| line.ends_with(&ROBOT_OWN[1..])),
    );
    Ok(changes)
}

/// The ssh command line (program first) that reaches a robot with `options`: no password
/// prompt, the connection timeout, the port and the ssh configuration file. `cortex deploy`
/// runs its commands on the robot with it.
pub fn ssh_command_line(options: &SyncOptions) -> Vec<String> {
    let mut words: Vec<String> = [
        "ssh".to_owned(),
        "-o".to_owned(),
        "BatchMode=yes".to_owned(),
        "-o".to_owned(),
        format!("ConnectTimeout={}", options.connect_timeout_s),
    ]
    .into();
    if let Some(port) = options.ssh_port {
        words.extend(["-p".to_owned(), port.to_string()]);
    }
    if let Some(file) = &options.ssh_config {
        words.extend(["-F".to_owned(), file.display().to_string()]);
    }
    words
}

/// Copies one file to `remote_path` on the robot `host` (rsync over ssh, made in place only
/// when complete: rsync writes a temporary file and renames it), making its folder first.
/// Returns rsync's itemized change (empty when the file was up to date).
pub fn upload_file(
    host: &str,
    options: &SyncOptions,
    file: &Path,
    remote_path: &str,
) -> Result<Vec<String>, SyncError> {
    let target = SyncTarget::Remote(host.to_owned());
    check_target(&target, options)?;
    if !file.is_file() {
        return Err(SyncError::Io {
            context: format!("uploading {}", file.display()),
            source: std::io::Error::new(ErrorKind::NotFound, "not a file"),
        });
    }
    let destination = format!("{host}:{remote_path}");
    rsync_path(&target, options, file, true, &destination, &[])
}

fn rsync_path(
    target: &SyncTarget,
    options: &SyncOptions,
    source: &Path,
    source_is_file: bool,
    destination: &str,
    filters: &[&str],
) -> Result<Vec<String>, SyncError> {
    let mut command = Command::new(&options.rsync);
    command.args(["-a", "-z", "--partial", "--safe-links"]);
    // Before the exclusions below: rsync uses the first filter that matches.
    command.args(filters);
    if options.delete {
        command.arg("--delete");
    }
    if options.dry_run {
        command.arg("--dry-run");
    }
    command.args([
        "--exclude",
        "__pycache__",
        "--exclude",
        "*.pyc",
        "--itemize-changes",
    ]);
    if let SyncTarget::Remote(_) = target {
        let ssh: Vec<String> = ssh_command_line(options)
            .iter()
            .map(|word| {
                let plain = word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "=._/-".contains(c));
                if plain {
                    word.clone()
                } else {
                    shell_quote(word)
                }
            })
            .collect();
        command.arg("-e").arg(ssh.join(" "));
        // Creates the folder on the robot first (rsync makes only the last level); a dry run
        // makes nothing (rsync's dry run reports a missing folder as one it would make).
        if !options.dry_run {
            let path = destination
                .split_once(':')
                .map_or(destination, |(_, path)| path);
            let folder = if source_is_file {
                path.rsplit_once('/').map_or(".", |(parent, _)| parent)
            } else {
                path
            };
            command.arg(format!("--rsync-path=mkdir -p {folder} && rsync"));
        }
    }
    if source_is_file {
        command.arg(source);
    } else {
        // The trailing slash copies the folder's contents, not the folder.
        command.arg(format!("{}/", source.display()));
    }
    command.arg(destination);
    let output = command.output().map_err(|source| match source.kind() {
        ErrorKind::NotFound => SyncError::RsyncMissing {
            program: options.rsync.clone(),
        },
        _ => SyncError::Io {
            context: format!("starting {}", options.rsync.display()),
            source,
        },
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if !output.status.success() {
        // ssh's failure is rsync's status 255, or 12 when rsync noticed the closed pipe first.
        let ssh_failed = output.status.code() == Some(255)
            || (output.status.code() == Some(12)
                && stderr.contains("connection unexpectedly closed (0 bytes received so far)"));
        return Err(match (ssh_failed, target) {
            (true, SyncTarget::Remote(host)) => {
                // ssh's own lines say why; rsync's lines after them only say that it stopped.
                let ssh: Vec<&str> = stderr
                    .lines()
                    .map(str::trim)
                    .filter(|line| line.starts_with("ssh:") || line.contains("Permission denied"))
                    .collect();
                SyncError::Unreachable {
                    target: host.clone(),
                    message: if ssh.is_empty() {
                        stderr
                    } else {
                        ssh.join("; ")
                    },
                }
            }
            _ => SyncError::Rsync {
                destination: destination.to_owned(),
                status: output
                    .status
                    .code()
                    .map_or_else(|| "a signal".to_owned(), |code| format!("status {code}")),
                message: stderr,
            },
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        // `.d..t......` lines only say that a folder's time was set: nothing changed in it.
        .filter(|line| !line.is_empty() && !line.starts_with(".d..t"))
        .collect())
}

/// Quotes `text` for the shell command line rsync runs ssh with.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
