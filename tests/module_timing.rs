//! Per-module timing with the real binary (issue 10, item 8): `cortex status --modules --json`
//! lists every module of the shipped process table (as `cortex check` prints it) under its
//! process with a positive mean update time, the table form names each of them, and after a
//! process is killed its replacement reports its modules again (not the dead run's record).

mod support;

use std::collections::BTreeSet;
use std::process::Command;
use std::time::{Duration, Instant};
use supervisor::status::ModuleTable;
use support::{send_signal, Instance};

/// `(process, module)` of every provider in the shipped table, from `cortex check`'s graph:
/// a process line is `name (kind)`, a provider line `   1. Module -> Representation, ...`.
fn shipped_modules() -> BTreeSet<(String, String)> {
    let output = Command::new(support::cortex())
        .arg("check")
        .output()
        .expect("running cortex check");
    assert!(
        output.status.success(),
        "cortex check: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let mut process = None;
    let mut modules = BTreeSet::new();
    for line in text.lines() {
        if line == "channels:" {
            break;
        }
        if !line.starts_with(' ') && line.ends_with(')') {
            process = line.split_whitespace().next().map(str::to_owned);
        } else if let Some((number, rest)) = line.trim_start().split_once(". ") {
            if number.chars().all(|c| c.is_ascii_digit()) {
                let module = rest.split(" -> ").next().unwrap_or(rest).trim().to_owned();
                modules.insert((process.clone().expect("a process line first"), module));
            }
        }
    }
    modules
}

fn modules_json(instance: &Instance) -> Option<ModuleTable> {
    let output = instance.command(&["status", "--modules", "--json"]);
    output
        .status
        .success()
        .then(|| serde_json::from_slice(&output.stdout).expect("status --modules JSON"))
}

/// The rows of `cortex status --modules --json` with a positive mean, as `(process, module)`.
fn timed(rows: &ModuleTable) -> BTreeSet<(String, String)> {
    rows.modules
        .iter()
        .filter(|row| row.mean_ms.is_some_and(|mean| mean > 0.0))
        .map(|row| (row.process.clone(), row.module.clone()))
        .collect()
}

/// Waits (only waits: a loaded machine may be slow) until every expected module has a mean.
fn wait_for_every_module(
    instance: &Instance,
    expected: &BTreeSet<(String, String)>,
) -> ModuleTable {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let rows = modules_json(instance);
        if let Some(rows) = &rows {
            if timed(rows) == *expected {
                return rows.clone();
            }
        }
        assert!(
            Instant::now() < deadline,
            "not every module of the shipped table timed; expected {expected:?}, last answer \
             {rows:?}\nlog:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn every_shipped_module_is_listed_with_a_positive_time_and_again_after_a_restart() {
    let expected = shipped_modules();
    assert!(
        expected.iter().any(|(process, _)| process == "motion")
            && expected.iter().any(|(process, _)| process == "cognition"),
        "cortex check names the shipped providers: {expected:?}"
    );
    let instance = Instance::start("module-timing", &[]);
    let rows = wait_for_every_module(&instance, &expected);
    for row in &rows.modules {
        let last = row.last_ms.expect("a last update time");
        let mean = row.mean_ms.unwrap();
        let max = row.max_ms.expect("a maximum");
        assert!(last > 0.0 && max >= mean, "{row:?}");
    }

    let table = instance.command(&["status", "--modules"]);
    assert!(table.status.success());
    let table = String::from_utf8_lossy(&table.stdout);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["PROCESS", "MODULE", "LAST", "ms", "MEAN", "ms", "MAX", "ms"]
    );
    for (process, module) in &expected {
        assert!(
            table.lines().any(|line| {
                let cells: Vec<&str> = line.split_whitespace().collect();
                cells.len() == 5 && cells[0] == process && cells[1] == module
            }),
            "no row for {process} {module} in\n{table}"
        );
    }

    // Kill motion: until its replacement writes, the dead run's record must not stand in for it.
    let old = instance.pid("motion");
    send_signal(old, 9);
    instance.wait_for("a new motion process", Duration::from_secs(60), |status| {
        status
            .process("motion")
            .and_then(|motion| motion.pid)
            .is_some_and(|pid| pid as i32 != old)
    });
    wait_for_every_module(&instance, &expected);
}
