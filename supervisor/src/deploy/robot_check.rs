//! What the robot has, asked in one ssh round trip before anything is uploaded, and compared
//! with what the binary needs ([`super::elf::Needs`]): an x86-64 userland, the binary's dynamic
//! loader, a glibc at least as new as the binary asks for, and a `python3` of the binary's minor
//! version built with a shared `libpython` whose file is in the library folders. The error names
//! everything that is missing at once.

use super::elf::{self, parse_version, version_text};
use super::remote::remote_output;
use super::{Robot, NAO_GLIBC};
use crate::exit_code::{Failure, EX_UNAVAILABLE};
use anyhow::{Context, Result};
use behaviours::sync::SyncOptions;

/// What the robot has, as `key=value` lines from [`PROBE`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Facts {
    arch: String,
    glibc: String,
    python: Option<String>,
    shared: bool,
    soname: String,
    soname_found: bool,
    loader_found: bool,
}

/// Asks the robot, in one ssh round trip, for the facts the binary depends on. `{LOADER}` is
/// replaced by the binary's interpreter path.
const PROBE: &str = r#"echo "arch=$(uname -m)"
echo "glibc=$( (getconf GNU_LIBC_VERSION 2>/dev/null || echo '? ?') | cut -d' ' -f2)"
if [ -e '{LOADER}' ]; then echo loader=yes; else echo loader=no; fi
if command -v python3 >/dev/null 2>&1; then
python3 - <<'PYTHON' 2>/dev/null || echo python=broken
import os, sys, sysconfig
print("python=%d.%d" % sys.version_info[:2])
print("shared=%s" % (sysconfig.get_config_var("Py_ENABLE_SHARED") or 0))
soname = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY") or ""
print("soname=%s" % soname)
folders = [sysconfig.get_config_var("LIBDIR") or "", "/usr/lib", "/usr/local/lib", "/lib", "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64"]
print("soname_found=%s" % ("yes" if any(os.path.exists(os.path.join(f, soname)) for f in folders if f) else "no"))
PYTHON
else
echo python=none
fi
"#;

pub(super) fn probe(
    robot: &Robot,
    sync_options: &SyncOptions,
    needs: &elf::Needs,
) -> Result<Facts> {
    // The path goes into the shell script in single quotes: only plain path characters.
    let loader = needs
        .interpreter
        .as_deref()
        .filter(|path| {
            path.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        })
        .unwrap_or("/lib64/ld-linux-x86-64.so.2");
    let text = remote_output(robot, sync_options, &PROBE.replace("{LOADER}", loader))
        .context("asking the robot what it has")?;
    Ok(parse_facts(&text))
}

pub(super) fn parse_facts(text: &str) -> Facts {
    let mut facts = Facts::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim().to_owned();
        match key.trim() {
            "arch" => facts.arch = value,
            "glibc" => facts.glibc = value,
            "loader" => facts.loader_found = value == "yes",
            "python" => facts.python = Some(value),
            "shared" => facts.shared = value == "1",
            "soname" => facts.soname = value,
            "soname_found" => facts.soname_found = value == "yes",
            _ => {}
        }
    }
    facts
}

/// Compares what the binary needs with what the robot has; the error names everything missing.
pub(super) fn check_facts(needs: &elf::Needs, facts: &Facts) -> Result<()> {
    let mut missing = Vec::new();
    if needs.machine == 62 && facts.arch != "x86_64" {
        missing.push(format!(
            "an x86-64 system: the robot is `{}` (stock NAO OS 2.8 has a 32-bit userland; \
             see docs/howto.md, \"Deploy to a robot\")",
            facts.arch
        ));
    }
    if let Some(loader) = &needs.interpreter {
        if !facts.loader_found {
            missing.push(format!("the dynamic loader {loader}"));
        }
    }
    if let (Some(needed), Some(have)) = (needs.glibc.as_ref(), parse_version(&facts.glibc)) {
        if have < *needed {
            missing.push(format!(
                "glibc {} or newer (the robot has {}): build with `cortex deploy` (zig, glibc {NAO_GLIBC})",
                version_text(needed),
                facts.glibc
            ));
        }
    }
    if let (Some(library), Some(version)) = (needs.libpython(), needs.python_version()) {
        let wanted = format!("Python {version} with a shared libpython ({library})");
        match facts.python.as_deref() {
            None | Some("none") => missing.push(format!("{wanted}: there is no python3 on the robot's PATH")),
            Some("broken") => missing.push(format!("{wanted}: python3 on the robot does not run")),
            Some(have) if have != version => missing.push(format!(
                "{wanted}: the robot's python3 is {have} (build on a machine whose python3 is {have}, or install Python {version} on the robot)"
            )),
            Some(_) if !facts.shared => missing.push(format!(
                "{wanted}: the robot's python3 was built without a shared libpython (Py_ENABLE_SHARED is 0)"
            )),
            Some(_) if !facts.soname_found => missing.push(format!(
                "{wanted}: {} is not in the robot's library folders",
                if facts.soname.is_empty() { library } else { &facts.soname }
            )),
            Some(_) => {}
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(Failure::error(
        EX_UNAVAILABLE,
        format!(
            "the robot cannot run this binary; it lacks {}",
            missing.join("; and ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs() -> elf::Needs {
        elf::Needs {
            machine: 62,
            interpreter: Some("/lib64/ld-linux-x86-64.so.2".into()),
            libraries: vec!["libpython3.11.so.1.0".into(), "libc.so.6".into()],
            glibc: Some(vec![2, 17]),
        }
    }

    fn good_facts() -> Facts {
        parse_facts(
            "arch=x86_64\nglibc=2.36\nloader=yes\npython=3.11\nshared=1\nsoname=libpython3.11.so.1.0\nsoname_found=yes\n",
        )
    }

    #[test]
    fn a_robot_with_everything_passes() {
        check_facts(&needs(), &good_facts()).unwrap();
    }

    #[test]
    fn each_missing_piece_is_named() {
        let cases: [(&str, &str, &str); 7] = [
            ("arch=x86_64", "arch=i686", "32-bit"),
            ("loader=yes", "loader=no", "/lib64/ld-linux-x86-64.so.2"),
            (
                "glibc=2.36",
                "glibc=2.12",
                "glibc 2.17 or newer (the robot has 2.12)",
            ),
            (
                "python=3.11",
                "python=none",
                "no python3 on the robot's PATH",
            ),
            ("python=3.11", "python=3.9", "the robot's python3 is 3.9"),
            ("shared=1", "shared=0", "without a shared libpython"),
            (
                "soname_found=yes",
                "soname_found=no",
                "is not in the robot's library folders",
            ),
        ];
        let text = "arch=x86_64\nglibc=2.36\nloader=yes\npython=3.11\nshared=1\nsoname=libpython3.11.so.1.0\nsoname_found=yes\n";
        for (good, bad, words) in cases {
            let facts = parse_facts(&text.replace(good, bad));
            let error = check_facts(&needs(), &facts).unwrap_err();
            let message = crate::exit_code::message(&error);
            assert!(message.contains(words), "{bad}: {message}");
            assert!(
                message.contains("Python 3.11") || !bad.starts_with("python"),
                "{message}"
            );
            assert_eq!(crate::exit_code::of(&error), EX_UNAVAILABLE);
        }
    }
}
