//! The plan the supervisor hands its children: an immutable copy ("generation") of the
//! configuration folder in the run directory, `<run dir>/plan/<N>/config/`, made when `cortex
//! run` starts and at every `cortex reload`. Children read their configuration from the
//! generation they were started with, never from the live folder, so a file edited while the
//! robot runs changes nothing until `cortex reload` has checked it; a restarted child gets the
//! current generation, which is what its siblings run.
//!
//! ```text
//! <run dir>/plan/
//!   .3.partial/        being written (a crash leaves it; the next run's clean-up removes it)
//!   3/config/…         the copy (files read-only, 0444)
//!   3/graph.txt        the graph built from it, as `cortex check` prints it (for people)
//! ```
//!
//! A generation is written under a temporary name and renamed, so it is complete or absent.
//! Hidden entries (`.git`, an editor's swap file) are left out; a link is copied as what it
//! points to; anything but files and folders (a pipe, a device) is refused with its path, as
//! `cortex check` refuses it. The copy is bounded ([`MAX_FILES`], [`MAX_BYTES`]).

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The most files a configuration folder may have (the shipped one has about 40).
pub const MAX_FILES: usize = 10_000;
/// The most bytes all its files may have together (the shipped one has under 1 MB).
pub const MAX_BYTES: u64 = 256 << 20;
/// The deepest folder nesting copied.
const MAX_DEPTH: usize = 16;

/// The generations of this run.
#[derive(Debug)]
pub struct PlanStore {
    folder: PathBuf,
    current: u64,
    /// Generation → its folder.
    generations: BTreeMap<u64, PathBuf>,
}

impl PlanStore {
    /// The store in `run_dir` (`plan/`), emptied of whatever a killed run left there.
    pub fn create(run_dir: &Path) -> Result<PlanStore> {
        let folder = run_dir.join("plan");
        if std::fs::symlink_metadata(&folder).is_ok() {
            remove_tree(&folder)?;
        }
        std::fs::create_dir(&folder).with_context(|| format!("creating {}", folder.display()))?;
        Ok(PlanStore {
            folder,
            current: 0,
            generations: BTreeMap::new(),
        })
    }

    /// Copies the configuration folder `live` into a new generation and returns its number.
    /// It becomes current only with [`PlanStore::make_current`].
    pub fn snapshot(&mut self, live: &Path, graph: Option<&str>) -> Result<u64> {
        let generation = self.generations.keys().last().copied().unwrap_or(0) + 1;
        let partial = self.folder.join(format!(".{generation}.partial"));
        let _ = remove_tree(&partial);
        std::fs::create_dir(&partial).with_context(|| format!("creating {}", partial.display()))?;
        let written = (|| {
            let mut budget = Budget::default();
            copy_tree(live, &partial.join("config"), 0, &mut budget)?;
            if let Some(graph) = graph {
                std::fs::write(partial.join("graph.txt"), graph)?;
            }
            seal(&partial)
        })();
        if let Err(error) = written {
            let _ = remove_tree(&partial);
            return Err(error.context(format!(
                "copying the configuration {} into the plan",
                live.display()
            )));
        }
        let target = self.folder.join(generation.to_string());
        std::fs::rename(&partial, &target)
            .with_context(|| format!("renaming {} to {}", partial.display(), target.display()))?;
        self.generations.insert(generation, target);
        Ok(generation)
    }

    /// Writes `graph.txt` into a generation that has none yet (the first one is copied before
    /// the robot, and so the graph, is known).
    pub fn write_graph(&self, generation: u64, graph: &str) -> Result<()> {
        let folder = self.folder(generation);
        let path = folder.join("graph.txt");
        if path.exists() {
            return Ok(());
        }
        std::fs::write(&path, graph).with_context(|| format!("writing {}", path.display()))?;
        set_mode(&path, 0o444)
    }

    /// The generation children now start with.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// Makes `generation` current.
    pub fn make_current(&mut self, generation: u64) {
        self.current = generation;
    }

    /// The configuration root of `generation` (what a child gets as its configuration folder).
    pub fn config_root(&self, generation: u64) -> PathBuf {
        self.folder(generation).join("config")
    }

    fn folder(&self, generation: u64) -> PathBuf {
        self.generations
            .get(&generation)
            .cloned()
            .unwrap_or_else(|| self.folder.join(generation.to_string()))
    }

    /// Removes every generation but the current one and those in `in_use`.
    pub fn remove_unused(&mut self, in_use: &[u64]) {
        let unused: Vec<u64> = self
            .generations
            .keys()
            .copied()
            .filter(|generation| *generation != self.current && !in_use.contains(generation))
            .collect();
        for generation in unused {
            if let Some(folder) = self.generations.remove(&generation) {
                match remove_tree(&folder) {
                    Ok(()) => tracing::debug!("plan generation {generation} removed"),
                    Err(error) => {
                        tracing::warn!("removing plan generation {generation}: {error:#}")
                    }
                }
            }
        }
    }

    /// Removes a generation that never became current (a refused reload).
    pub fn discard(&mut self, generation: u64) {
        if let Some(folder) = self.generations.remove(&generation) {
            let _ = remove_tree(&folder);
        }
    }

    /// Removes every generation and the store's folder (the run's clean-up).
    pub fn remove_all(self) {
        if let Err(error) = remove_tree(&self.folder) {
            tracing::warn!("removing {}: {error:#}", self.folder.display());
        }
    }
}

/// Removes `<run dir>/plan` and everything in it, if it is there.
pub fn remove(run_dir: &Path) {
    let folder = run_dir.join("plan");
    if std::fs::symlink_metadata(&folder).is_ok() {
        if let Err(error) = remove_tree(&folder) {
            tracing::warn!("removing {}: {error:#}", folder.display());
        }
    }
}

/// The files that differ between two configuration roots: (added, removed, changed), relative
/// paths, sorted.
pub fn differences(old: &Path, new: &Path) -> Result<(Vec<String>, Vec<String>, Vec<String>)> {
    let old_files = list_files(old)?;
    let new_files = list_files(new)?;
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for (name, path) in &new_files {
        match old_files.get(name) {
            None => added.push(name.clone()),
            Some(old_path) => {
                if std::fs::read(old_path)? != std::fs::read(path)? {
                    changed.push(name.clone());
                }
            }
        }
    }
    let removed = old_files
        .keys()
        .filter(|name| !new_files.contains_key(*name))
        .cloned()
        .collect();
    Ok((added, removed, changed))
}

fn list_files(root: &Path) -> Result<BTreeMap<String, PathBuf>> {
    fn walk(folder: &Path, prefix: &str, files: &mut BTreeMap<String, PathBuf>) -> Result<()> {
        for entry in std::fs::read_dir(folder)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type()?.is_dir() {
                walk(&entry.path(), &relative, files)?;
            } else {
                files.insert(relative, entry.path());
            }
        }
        Ok(())
    }
    let mut files = BTreeMap::new();
    walk(root, "", &mut files)?;
    Ok(files)
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

fn copy_tree(from: &Path, to: &Path, depth: usize, budget: &mut Budget) -> Result<()> {
    if depth > MAX_DEPTH {
        bail!(
            "{}: folders nested deeper than {MAX_DEPTH} (a link to a folder above it?)",
            from.display()
        );
    }
    std::fs::create_dir(to).with_context(|| format!("creating {}", to.display()))?;
    let entries = std::fs::read_dir(from)
        .with_context(|| format!("reading the folder {}", from.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading the folder {}", from.display()))?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let source = entry.path();
        // A link counts as what it points to.
        let metadata = std::fs::metadata(&source)
            .with_context(|| format!("{}: cannot be read", source.display()))?;
        let target = to.join(&name);
        if metadata.is_dir() {
            copy_tree(&source, &target, depth + 1, budget)?;
        } else if metadata.is_file() {
            budget.files += 1;
            budget.bytes += metadata.len();
            if budget.files > MAX_FILES {
                bail!("more than {MAX_FILES} files in the configuration folder");
            }
            if budget.bytes > MAX_BYTES {
                bail!(
                    "the configuration folder holds more than {} MiB (at {})",
                    MAX_BYTES >> 20,
                    source.display()
                );
            }
            std::fs::copy(&source, &target)
                .with_context(|| format!("copying {} to {}", source.display(), target.display()))?;
        } else {
            bail!(
                "{}: neither a file nor a folder (a pipe, a socket or a device)",
                source.display()
            );
        }
    }
    Ok(())
}

/// Files 0444. Folders stay writable for their owner, so that a tree left by a killed run can
/// be removed by anyone who may remove the run directory (`rm -r`, a test's temporary folder).
fn seal(folder: &Path) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            seal(&path)?;
        } else {
            set_mode(&path, 0o444)?;
        }
    }
    Ok(())
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", path.display()))
}

/// Removes a tree (its folders made writable again first, in case someone sealed them). Links
/// are removed, never followed.
fn remove_tree(folder: &Path) -> Result<()> {
    fn unseal(folder: &Path) {
        let _ = std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700));
        if let Ok(entries) = std::fs::read_dir(folder) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    unseal(&entry.path());
                }
            }
        }
    }
    let metadata = std::fs::symlink_metadata(folder)?;
    if metadata.is_dir() {
        unseal(folder);
        std::fs::remove_dir_all(folder).with_context(|| format!("removing {}", folder.display()))
    } else {
        std::fs::remove_file(folder).with_context(|| format!("removing {}", folder.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generation_is_a_sealed_copy_and_goes_when_unused() {
        let run = tempfile::tempdir().unwrap();
        let live = tempfile::tempdir().unwrap();
        std::fs::create_dir(live.path().join("default")).unwrap();
        std::fs::write(live.path().join("default/a.toml"), "x = 1\n").unwrap();
        std::fs::write(live.path().join(".hidden"), "secret").unwrap();
        let mut store = PlanStore::create(run.path()).unwrap();
        let first = store.snapshot(live.path(), None).unwrap();
        store.make_current(first);
        store.write_graph(first, "graph\n").unwrap();
        let root = store.config_root(first);
        assert_eq!(
            std::fs::read_to_string(root.join("default/a.toml")).unwrap(),
            "x = 1\n"
        );
        assert!(!root.join(".hidden").exists());
        let mode = std::fs::metadata(root.join("default/a.toml"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o444);
        if !is_root() {
            // (root may write anywhere.)
            assert!(std::fs::write(root.join("default/a.toml"), "x = 3\n").is_err());
        }

        std::fs::write(live.path().join("default/a.toml"), "x = 2\n").unwrap();
        std::fs::write(live.path().join("default/b.toml"), "y = 1\n").unwrap();
        let second = store.snapshot(live.path(), Some("graph\n")).unwrap();
        let (added, removed, changed) =
            differences(&store.config_root(first), &store.config_root(second)).unwrap();
        assert_eq!(added, ["default/b.toml"]);
        assert!(removed.is_empty());
        assert_eq!(changed, ["default/a.toml"]);
        // The first is still used by a child: kept.
        store.make_current(second);
        store.remove_unused(&[first]);
        assert!(store.config_root(first).exists());
        store.remove_unused(&[]);
        assert!(!store.config_root(first).exists());
        store.remove_all();
        assert_eq!(std::fs::read_dir(run.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_pipe_in_the_folder_is_refused_with_its_path_and_leaves_nothing() {
        let run = tempfile::tempdir().unwrap();
        let live = tempfile::tempdir().unwrap();
        let pipe = live.path().join("default.toml");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &pipe,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let mut store = PlanStore::create(run.path()).unwrap();
        let error = format!("{:#}", store.snapshot(live.path(), None).unwrap_err());
        assert!(error.contains("default.toml"), "{error}");
        assert!(error.contains("neither a file nor a folder"), "{error}");
        let left: Vec<_> = std::fs::read_dir(run.path().join("plan"))
            .unwrap()
            .collect();
        assert!(left.is_empty());
    }

    fn is_root() -> bool {
        rustix::process::geteuid().is_root()
    }
}
