//! The commands that change a running instance's configuration: `cortex reload`, `cortex set`,
//! `cortex params` (the supervisor's side is `run/live.rs`).

use crate::control::{self, Request};
use anyhow::{bail, Result};
use serde_json::Value;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use supervisor::status::ProcessState;

/// How long `cortex reload` waits for the processes to run the new plan.
const RELOAD_WAIT: Duration = Duration::from_secs(120);

fn strings(value: &Value, key: &str) -> Vec<String> {
    value[key]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// `cortex reload`: the supervisor checks the live configuration folder as `cortex run` does;
/// a broken one is refused (exit 78, the culprit named) and nothing changes. Otherwise every
/// process but the bridge is restarted, one after another, with the new plan; this waits until
/// they all tick again.
pub fn reload(run_dir: &Path, json: bool) -> Result<ExitCode> {
    let reply = control::request(run_dir, &Request::Reload)?;
    let restarting: Vec<(String, u64)> = reply["restarting"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    Some((item["process"].as_str()?.to_owned(), item["pid"].as_u64()?))
                })
                .collect()
        })
        .unwrap_or_default();
    if !json {
        let (added, removed, changed) = (
            strings(&reply, "added"),
            strings(&reply, "removed"),
            strings(&reply, "changed"),
        );
        if added.is_empty() && removed.is_empty() && changed.is_empty() {
            println!("no file changed since the plan in force; nothing restarted");
            return Ok(ExitCode::SUCCESS);
        }
        println!("plan generation {}:", reply["generation"]);
        for (label, files) in [
            ("changed", &changed),
            ("added", &added),
            ("removed", &removed),
        ] {
            for file in files {
                println!("  {label:<8} {file}");
            }
        }
        if reply["bridge_not_restarted"].as_bool() == Some(true) {
            println!(
                "  the bridge keeps running (the robot stays standing): it reads the new \
                 LolaBridge.toml when it next starts"
            );
        }
        let names: Vec<&str> = restarting.iter().map(|(name, _)| name.as_str()).collect();
        println!("restarting one after another: {}", names.join(", "));
    }
    let deadline = Instant::now() + RELOAD_WAIT;
    let mut waiting: Vec<(String, u64)> = restarting;
    while !waiting.is_empty() {
        let status = control::status(run_dir)?;
        if let Some(reason) = &status.safe_state {
            bail!("the robot went to the safe state during the reload: {reason}");
        }
        waiting.retain(|(name, old_pid)| {
            !status.processes.iter().any(|process| {
                &process.name == name
                    && process.pid.is_some_and(|pid| u64::from(pid) != *old_pid)
                    && process.state == ProcessState::Running
                    && process.ticks > 0
            })
        });
        if waiting.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            let names: Vec<&str> = waiting.iter().map(|(name, _)| name.as_str()).collect();
            bail!(
                "the new plan is in force, but {} did not tick again within {RELOAD_WAIT:?} \
                 (see `cortex status`)",
                names.join(", ")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if json {
        println!("{}", serde_json::to_string(&reply)?);
    } else {
        println!(
            "done: every process runs plan generation {}",
            reply["generation"]
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `cortex set MODULE.KEY=VALUE`.
pub fn set(run_dir: &Path, assignment: &str) -> Result<ExitCode> {
    let reply = control::request(
        run_dir,
        &Request::Set {
            assignment: assignment.to_owned(),
        },
    )?;
    println!(
        "{assignment}: accepted; {} takes it at its next tick ({})",
        reply["module"].as_str().unwrap_or("the module"),
        strings(&reply, "processes").join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// `cortex params MODULE`: each value and where it came from.
pub fn params(run_dir: &Path, module: &str, json: bool) -> Result<ExitCode> {
    let reply = control::request(
        run_dir,
        &Request::Params {
            module: module.to_owned(),
        },
    )?;
    if json {
        println!("{}", serde_json::to_string(&reply)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{module} ({}; plan generation {}):",
        strings(&reply, "processes").join(", "),
        reply["generation"]
    );
    let rows: Vec<(String, String, String)> = reply["parameters"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    let key = item["key"].as_str().unwrap_or("?").to_owned();
                    let value = item["value"].to_string();
                    let from = match item["source"].as_str() {
                        Some("file") => {
                            format!("{}:{}", item["file"].as_str().unwrap_or("?"), item["line"])
                        }
                        Some(source) => format!("{source} {}", item["text"].as_str().unwrap_or("")),
                        None => String::new(),
                    };
                    (key, value, from)
                })
                .collect()
        })
        .unwrap_or_default();
    let key_width = rows.iter().map(|row| row.0.len()).max().unwrap_or(0);
    let value_width = rows.iter().map(|row| row.1.len()).max().unwrap_or(0);
    for (key, value, from) in rows {
        println!("  {key:<key_width$} = {value:<value_width$}  {from}");
    }
    Ok(ExitCode::SUCCESS)
}
