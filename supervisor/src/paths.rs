//! Where a running instance keeps its sockets: the run directory, and how `cortex run` makes it
//! without trusting what it finds there.
//!
//! ```text
//! --run-dir DIR        DIR's parent is the user's word (links followed); DIR itself is made
//!                      with mkdir, opened without following a link, and checked
//! --instance NAME      $XDG_RUNTIME_DIR/cortex/NAME, else /tmp/cortex-<uid>/NAME: both last
//!                      components are made and checked that way
//! ```
//!
//! A folder `cortex run` made is ours: mode 0700, removed at exit. A folder it found is checked
//! (a real folder, not a link; owned by this user, or by root for `--run-dir`; not writable by
//! others unless sticky) and never has its mode changed.

use crate::exit_code::{self, Failure};
use anyhow::{Context, Result};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The default instance name.
pub const DEFAULT_INSTANCE: &str = "cortex";
/// The longest instance name.
pub const MAX_INSTANCE_LENGTH: usize = 64;

/// Checks an instance name (clap's value parser for `--instance`): it becomes one folder name,
/// so it is 1 to 64 letters, digits, `-`, `_` or `.`, and does not start with `.` or `-`.
pub fn parse_instance(name: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty()
        || name.len() > MAX_INSTANCE_LENGTH
        || !name.chars().all(allowed)
        || name.starts_with(['.', '-'])
    {
        return Err(format!(
            "`{}` is not an instance name: it becomes a folder name, so use 1 to \
             {MAX_INSTANCE_LENGTH} letters, digits, `-`, `_` or `.`, not starting with `.` or `-`",
            name.escape_debug()
        ));
    }
    Ok(name.to_owned())
}

/// The folder that holds instances' run directories and the name of our folder in it:
/// (`$XDG_RUNTIME_DIR`, `cortex`) if that variable names a folder, else (`/tmp`, `cortex-<uid>`).
fn runtime_parent() -> (PathBuf, String) {
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        if runtime.is_absolute() && runtime.is_dir() {
            return (runtime, "cortex".to_owned());
        }
    }
    let uid = rustix::process::getuid().as_raw();
    (PathBuf::from("/tmp"), format!("cortex-{uid}"))
}

/// The run directory of `instance`: `$XDG_RUNTIME_DIR/cortex/<instance>` if that variable names
/// a folder, else `/tmp/cortex-<uid>/<instance>`.
pub fn default_run_dir(instance: &str) -> PathBuf {
    let (parent, ours) = runtime_parent();
    parent.join(ours).join(instance)
}

/// The run directory from `--run-dir` or `--instance` (for the tools: nothing is created).
pub fn run_dir(explicit: Option<&Path>, instance: Option<&str>) -> PathBuf {
    match explicit {
        Some(path) => path.to_owned(),
        None => default_run_dir(instance.unwrap_or(DEFAULT_INSTANCE)),
    }
}

/// The supervisor's control socket.
pub fn control_socket(run_dir: &Path) -> PathBuf {
    run_dir.join("control.sock")
}

/// The simulated LoLA's socket.
pub fn lola_socket(run_dir: &Path) -> PathBuf {
    run_dir.join("lola.sock")
}

/// The simulated microphone's inbox: `cortex sim sound` drops WAV files here, the audio
/// process hears them (see `audio::inbox`).
pub fn microphone(run_dir: &Path) -> PathBuf {
    run_dir.join("microphone")
}

/// Where the simulated robot's loudspeaker records what it played (`played.wav`,
/// `played.tsv`; see `audio::output::RecordingSink`). Removed with the run.
pub fn sound_record(run_dir: &Path) -> PathBuf {
    run_dir.join("sound")
}

/// The simulator's own control socket (buttons).
pub fn simulator_control(run_dir: &Path) -> PathBuf {
    run_dir.join("simulator.sock")
}

/// Who may own a folder that we did not create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    /// This user only, and not writable by anyone else (our own runtime folders).
    Private,
    /// This user or root; writable by others only with the sticky bit (a folder the user named).
    Named,
}

/// A run directory, made or checked by [`RunDir::prepare`] and open without a link in its last
/// component.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    directory: OwnedFd,
    created: bool,
}

impl RunDir {
    /// Makes or checks the run directory for `cortex run`.
    pub fn prepare(explicit: Option<&Path>, instance: Option<&str>) -> Result<RunDir> {
        match explicit {
            Some(path) => {
                let name = path.file_name().with_context(|| {
                    format!(
                        "--run-dir {}: the last component must be a folder name, not `..` or `/`",
                        path.display()
                    )
                })?;
                let parent = match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent,
                    _ => Path::new("."),
                };
                let parent_fd = open_parent(parent).with_context(|| {
                    format!(
                        "--run-dir {}: its parent folder {} must exist",
                        path.display(),
                        parent.display()
                    )
                })?;
                RunDir::open_component(&parent_fd, parent, Path::new(name), Trust::Named)
            }
            None => {
                let instance = instance.unwrap_or(DEFAULT_INSTANCE);
                parse_instance(instance)
                    .map_err(|problem| Failure::error(exit_code::EX_USAGE, problem))?;
                let (parent, ours) = runtime_parent();
                let parent_fd = open_parent(&parent)
                    .with_context(|| format!("opening the runtime folder {}", parent.display()))?;
                let middle =
                    RunDir::open_component(&parent_fd, &parent, Path::new(&ours), Trust::Private)?;
                RunDir::open_component(
                    &middle.directory,
                    &middle.path,
                    Path::new(instance),
                    Trust::Private,
                )
            }
        }
    }

    /// Makes `parent/name` (mode 0700) unless it exists, opens it without following a link,
    /// and checks a folder that was there already.
    fn open_component(
        parent_fd: &OwnedFd,
        parent: &Path,
        name: &Path,
        trust: Trust,
    ) -> Result<RunDir> {
        let path = parent.join(name);
        let created = match rustix::fs::mkdirat(parent_fd, name, Mode::from_raw_mode(0o700)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(error) => {
                return Err(Failure::error(
                    exit_code::EX_CANTCREAT,
                    format!("creating the run directory {}: {error}", path.display()),
                ))
            }
        };
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let directory = match rustix::fs::openat(parent_fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Err(Failure::error(
                    exit_code::EX_CANTCREAT,
                    format!(
                        "{} is {}; refusing to follow or use it (remove it, or choose another run \
                         directory)",
                        path.display(),
                        describe_non_folder(parent_fd, name)
                    ),
                ))
            }
            Err(error) => {
                return Err(Failure::error(
                    exit_code::EX_CANTCREAT,
                    format!("opening the run directory {}: {error}", path.display()),
                ))
            }
        };
        let stat = rustix::fs::fstat(&directory)
            .with_context(|| format!("reading the owner of {}", path.display()))?;
        if created {
            // Ours: exactly 0700 whatever the umask.
            rustix::fs::fchmod(&directory, Mode::from_raw_mode(0o700))
                .with_context(|| format!("setting the mode of {}", path.display()))?;
        } else {
            check_found(&path, stat.st_uid, stat.st_mode, trust)?;
        }
        Ok(RunDir {
            path,
            directory,
            created,
        })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open folder (for `openat`-style access that cannot be redirected by a link).
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.directory.as_fd()
    }

    /// Whether this run made the folder (it removes it at exit).
    pub fn created(&self) -> bool {
        self.created
    }

    /// Takes over a dead predecessor's claim that it made the folder.
    pub fn adopt(&mut self) {
        self.created = true;
    }

    /// Removes the folder if this run (or a dead predecessor) made it and it is empty.
    pub fn remove_if_created(&self) {
        if self.created {
            if let Err(error) = std::fs::remove_dir(&self.path) {
                tracing::warn!(
                    "could not remove the run directory {}: {error}",
                    self.path.display()
                );
            }
        }
    }
}

/// Opens a folder the user named (links followed: the user's word).
fn open_parent(path: &Path) -> Result<OwnedFd> {
    rustix::fs::openat(
        rustix::fs::CWD,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|error| anyhow::anyhow!("cannot open {}: {error}", path.display()))
}

/// "a symbolic link to /x", "a regular file", for a name that is not a folder.
fn describe_non_folder(parent_fd: &OwnedFd, name: &Path) -> String {
    let Ok(stat) = rustix::fs::statat(parent_fd, name, AtFlags::SYMLINK_NOFOLLOW) else {
        return "not a folder".to_owned();
    };
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Symlink => {
            let target = rustix::fs::readlinkat(parent_fd, name, Vec::new())
                .map(|target| target.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "?".to_owned());
            format!("a symbolic link (owner uid {}) to {target}", stat.st_uid)
        }
        FileType::RegularFile => "a regular file, not a folder".to_owned(),
        other => format!("not a folder ({other:?})"),
    }
}

/// Checks a folder that existed before this run: its owner and its mode.
fn check_found(path: &Path, owner: u32, mode: u32, trust: Trust) -> Result<()> {
    let uid = rustix::process::getuid().as_raw();
    let permissions = mode & 0o7777;
    let owner_ok = owner == uid || (trust == Trust::Named && owner == 0);
    if !owner_ok {
        return Err(Failure::error(
            exit_code::EX_NOPERM,
            format!(
                "{} belongs to uid {owner}, not to this user (uid {uid}): its owner could \
                 replace our sockets; refusing to use it",
                path.display()
            ),
        ));
    }
    let writable_by_others = permissions & 0o022 != 0;
    let sticky = permissions & 0o1000 != 0;
    if writable_by_others && (trust == Trust::Private || !sticky) {
        return Err(Failure::error(
            exit_code::EX_NOPERM,
            format!(
                "{} is writable by others (mode {permissions:04o}){}: anyone could replace our \
                 sockets; refusing to use it (its mode is left as it is; choose a folder of your \
                 own)",
                path.display(),
                if trust == Trust::Private {
                    ""
                } else {
                    " without the sticky bit"
                }
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    #[test]
    fn instance_names_are_single_folder_names() {
        for good in ["cortex", "game-3", "player_2", "a.b", "X"] {
            assert_eq!(parse_instance(good).unwrap(), good);
        }
        let long = "a".repeat(MAX_INSTANCE_LENGTH + 1);
        for bad in [
            "", "..", "../..", "a/b", ".hidden", "-x", "a b", "é", "a\0b", &long,
        ] {
            let error = parse_instance(bad).unwrap_err();
            assert!(error.contains("not an instance name"), "{bad:?}: {error}");
        }
    }

    #[test]
    fn a_new_run_directory_is_made_0700_and_an_existing_shared_one_keeps_its_mode() {
        let folder = tempfile::tempdir().unwrap();
        let fresh = folder.path().join("fresh");
        let made = RunDir::prepare(Some(&fresh), None).unwrap();
        assert!(made.created());
        assert_eq!(mode(&fresh), 0o700);

        let shared = folder.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let found = RunDir::prepare(Some(&shared), None).unwrap();
        assert!(!found.created());
        assert_eq!(
            mode(&shared),
            0o1777,
            "the mode of a folder we found is kept"
        );

        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = RunDir::prepare(Some(&shared), None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("writable by others (mode 0777)"), "{error}");
        assert_eq!(mode(&shared), 0o777);
    }

    #[test]
    fn a_link_in_the_last_component_is_refused_and_its_target_untouched() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        let link = folder.path().join("run");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = RunDir::prepare(Some(&link), None).unwrap_err().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        assert!(error.contains(&target.display().to_string()), "{error}");
        assert_eq!(mode(&target), 0o755);
        assert!(RunDir::prepare(Some(Path::new("/")), None).is_err());
        let error = RunDir::prepare(Some(&folder.path().join("missing/run")), None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("must exist"), "{error:#}");
    }

    #[test]
    fn a_found_folder_of_another_user_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let theirs = folder.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        let uid = rustix::process::getuid().as_raw();
        let other = if uid == 0 { 65534 } else { uid };
        if uid != 0 {
            eprintln!("SKIPPED: changing a folder's owner needs root");
            return;
        }
        std::os::unix::fs::chown(&theirs, Some(other), None).unwrap();
        let error = RunDir::prepare(Some(&theirs), None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("belongs to uid 65534"), "{error}");
    }
}
