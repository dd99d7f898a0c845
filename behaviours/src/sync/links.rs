//! Symbolic links in a tree to be copied that leave it: rsync's `--safe-links` leaves them out,
//! and `cortex sync` names each one.

use std::path::{Path, PathBuf};

/// Symbolic links below `root` (relative path, target) that leave it: absolute targets, and
/// relative ones that climb above `root` (what rsync's `--safe-links` leaves out).
pub fn links_leaving(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(relative) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&relative)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name == "__pycache__" {
                continue;
            }
            let path = relative.join(&name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                folders.push(path);
            } else if kind.is_symlink() {
                let Ok(points_to) = std::fs::read_link(entry.path()) else {
                    continue;
                };
                if leaves(&relative, &points_to) {
                    found.push((path, points_to));
                }
            }
        }
    }
    found.sort();
    found
}

/// Whether a link in `folder` (relative to the root) to `points_to` ends outside the root.
fn leaves(folder: &Path, points_to: &Path) -> bool {
    use std::path::Component;
    if points_to.is_absolute() {
        return true;
    }
    let mut depth = folder.components().count() as i64;
    for component in points_to.components() {
        match component {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return true,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}
