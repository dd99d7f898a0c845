//! Puts the git commit the binary is built from into `CORTEX_GIT_COMMIT` (the recorder writes it
//! into every MCAP file's `cortex` metadata): `git rev-parse --short HEAD`, or `unknown` where
//! there is no git or no repository (a source tarball, a crate unpacked elsewhere).
//!
//! Rebuilt when HEAD moves: cargo watches `HEAD`, the branch's ref file and `packed-refs`, found
//! with `git rev-parse --git-path` so that a worktree (whose `.git` is a file) and a fresh clone
//! (whose refs may be packed) work alike. Only files that exist are watched: cargo would rerun a
//! build script for a watched file that is missing on every build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(workspace: &Path, arguments: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(workspace)
        .args(arguments)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CORTEX_GIT_COMMIT");
    let workspace =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("..");
    // A build that is told the commit (a packager without the repository) keeps it.
    let commit = std::env::var("CORTEX_GIT_COMMIT")
        .ok()
        .filter(|commit| !commit.is_empty())
        .or_else(|| git(&workspace, &["rev-parse", "--short", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=CORTEX_GIT_COMMIT={commit}");
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&workspace, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        let Some(path) = git(&workspace, &["rev-parse", "--git-path", &name]) else {
            continue;
        };
        let path = if Path::new(&path).is_absolute() {
            PathBuf::from(path)
        } else {
            workspace.join(path)
        };
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
