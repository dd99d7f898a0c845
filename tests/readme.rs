//! The README's examples run (issue 17): every `cortex …` command of its first screen ("Two
//! commands") and of its command table that names nothing to fill in is run against a
//! `cortex run --sim` started here, and must exit 0 with output that says something (a process
//! row, a representation, JSON that parses). A README example naming something that does not
//! exist (`cortex get upper.BallPercept` once) fails this test.
//!
//! What is taken from README.md:
//! - inline code of the first screen's "While it runs, from another terminal" paragraph that
//!   starts with `cortex ` or `cargo run --release -p supervisor -- ` (the same program);
//! - the command column of "The `cortex` command" table, with its `[optional]` parts left out,
//!   when nothing in it is a placeholder (`NAME`, `FILE`, `…`, `|`);
//! - the representations the `cortex get NAME` row lists as examples (`JointRequest` …), each
//!   with and without `--json`;
//! - inline code in the table's descriptions that is a whole `cortex …` command with its
//!   arguments (a bare `cortex restart` there refers to the command).
//!
//! Left out on purpose: commands that do not end by themselves (`run`, `gc`, `status --watch`).
//! `cortex stop` runs last.

mod support;

use serde_json::Value;
use support::Instance;

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    std::fs::read_to_string(path).expect("reading README.md")
}

/// The text of the section that starts with heading `title`, up to the next `## `.
fn section<'a>(text: &'a str, title: &str) -> &'a str {
    let start = text
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("README.md has no section `## {title}`"));
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |end| end + 3);
    &rest[..end]
}

/// The paragraph of the first screen that says what to try "while it runs" (the commands meant
/// for a running system; the other mentions of commands there are references, not examples).
fn while_it_runs(section: &str) -> &str {
    let start = section
        .find("While it runs")
        .expect("the README's first screen has no \"While it runs\" paragraph");
    let rest = &section[start..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// Inline code spans of `text` (between single backticks, not in fenced blocks).
fn inline_code(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Table cells escape `|` as `\|`; it does not end a span.
        let parts: Vec<&str> = line.split('`').collect();
        for (index, part) in parts.iter().enumerate() {
            if index % 2 == 1 {
                spans.push(part.replace("\\|", "|"));
            }
        }
    }
    spans
}

/// `cargo run --release -p supervisor -- status` → `cortex status`.
fn as_cortex(code: &str) -> Option<String> {
    let code = code.trim();
    if let Some(rest) = code.strip_prefix("cargo run --release -p supervisor -- ") {
        return Some(format!("cortex {rest}"));
    }
    code.starts_with("cortex ").then(|| code.to_owned())
}

/// A command with no optional parts and no placeholders, or `None`.
fn concrete(synopsis: &str) -> Option<String> {
    let mut text = String::new();
    let mut depth = 0usize;
    for c in synopsis.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let placeholder = words.iter().any(|word| {
        word.contains('…') || word.contains("...") || *word == "|" || {
            // `NAME`, `KEY=VALUE`, `FILE.wav`, `X`: capitals before any dot or `=` (one capital
            // is enough unless it is a flag such as `-N`).
            let least = if word.starts_with('-') { 2 } else { 1 };
            let stem = word
                .trim_start_matches('-')
                .split(['.', '='])
                .next()
                .unwrap_or("");
            stem.len() >= least
                && stem.chars().any(|c| c.is_ascii_uppercase())
                && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        }
    });
    (!placeholder && words.len() >= 2).then(|| words.join(" "))
}

/// Whether the command keeps running (not an example to run here).
fn endless(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    matches!(words.get(1), Some(&"run") | Some(&"gc")) || words.contains(&"--watch")
}

/// The commands to run, in README order, each once.
fn examples(text: &str) -> Vec<String> {
    let mut commands: Vec<String> = Vec::new();
    let mut add = |command: String| {
        if !endless(&command) && !commands.contains(&command) {
            commands.push(command);
        }
    };
    for code in inline_code(while_it_runs(section(text, "Two commands"))) {
        if let Some(command) = as_cortex(&code).and_then(|c| concrete(&c)) {
            add(command);
        }
    }
    let table = section(text, "The `cortex` command");
    for row in table.lines().filter(|line| line.starts_with("| `cortex")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let synopsis = inline_code(cells[0]).join(", ");
        for command in synopsis.split(", ") {
            if let Some(command) = as_cortex(command).and_then(|c| concrete(&c)) {
                add(command);
            }
        }
        let description = cells[1..].join(" | ");
        let codes = inline_code(&description);
        for code in &codes {
            // A bare `cortex restart` in a description refers to the command; an example there
            // has its arguments (`cortex get WhistleState`).
            let example = as_cortex(code)
                .and_then(|c| concrete(&c))
                .filter(|c| c.split_whitespace().count() >= 3);
            if let Some(command) = example {
                add(command);
            }
        }
        // The `cortex get NAME` row: its example representations.
        if synopsis.starts_with("cortex get NAME") {
            for code in &codes {
                let name = code.trim();
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
                    add(format!("cortex get {name}"));
                    add(format!("cortex get {name} --json"));
                }
            }
        }
    }
    commands
}

#[test]
fn the_examples_are_found() {
    let commands = examples(&readme());
    for expected in [
        "cortex status",
        "cortex get JointRequest",
        "cortex get GameState --json",
        "cortex sim press chest",
        "cortex check",
        "cortex stop",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "`{expected}` is not among the README's examples: {commands:?}"
        );
    }
    assert!(commands.iter().all(|c| !endless(c)), "{commands:?}");
    // A stale example is picked up (and then fails to run): the old `upper.BallPercept` one.
    let stale = readme().replace(
        "`cortex get JointRequest` prints",
        "`cortex get upper.BallPercept` prints",
    );
    assert!(
        examples(&stale).contains(&"cortex get upper.BallPercept".to_owned()),
        "{:?}",
        examples(&stale)
    );
    // The extraction itself: placeholders and optional parts.
    assert_eq!(
        concrete("cortex status [--json] [--watch]").as_deref(),
        Some("cortex status")
    );
    assert_eq!(concrete("cortex restart PROCESS"), None);
    assert_eq!(concrete("cortex sim sound FILE.wav"), None);
    assert_eq!(concrete("cortex sim ball X Y"), None);
    assert_eq!(
        concrete("cortex get JointRequest").as_deref(),
        Some("cortex get JointRequest")
    );
    assert_eq!(concrete("cortex hear [--json] FILE.wav…"), None);
    assert_eq!(concrete("cortex sync ROBOT | --local DIR"), None);
}

#[test]
fn every_readme_example_runs_against_a_running_system() {
    let mut commands = examples(&readme());
    // `stop` ends the system: last.
    commands.sort_by_key(|command| command == "cortex stop");
    // A generous wait: the machine may be loaded; nothing here measures speed.
    let mut instance = Instance::spawn("readme", &[]);
    instance.wait_until_all_running(std::time::Duration::from_secs(120));
    let run_dir = instance.run_dir.to_str().unwrap().to_owned();
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().skip(1).collect();
        let mut args: Vec<&str> = vec![words[0]];
        // The instance options follow the subcommand (`cortex sim --run-dir DIR press chest`);
        // `check` reads a configuration, not an instance.
        if words[0] != "check" {
            args.extend(["--run-dir", &run_dir]);
        }
        args.extend(&words[1..]);
        let output = std::process::Command::new(support::cortex())
            .args(&args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            output.status.success(),
            "README example `{command}` failed ({:?}):\n{stdout}\n{stderr}",
            output.status.code()
        );
        let said = format!("{stdout}{stderr}");
        if words[0] == "stop" {
            // Silent, as Unix tools are on success: what it says is that the system ended.
            // Taken: the instance must not signal a process that has ended and been reaped.
            let mut child = instance.child.take().expect("cortex run");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
            let status = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "`cortex stop`: cortex run still runs after 120 s"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            };
            assert!(
                status.success(),
                "cortex run after `cortex stop`: {status:?}"
            );
            eprintln!("ran README example `{command}`: the system stopped");
            continue;
        }
        assert!(
            !said.trim().is_empty(),
            "README example `{command}` said nothing"
        );
        if words.contains(&"--json") {
            let value: Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("`{command}`: not JSON ({e}): {stdout}"));
            assert!(
                value.as_object().is_some_and(|object| !object.is_empty()),
                "`{command}`: empty JSON: {stdout}"
            );
        }
        match words[0] {
            "status" => assert!(said.contains("cognition"), "`{command}`: {said}"),
            "check" => assert!(said.contains("motion"), "`{command}`: {said}"),
            "get" if !words.contains(&"--json") => assert!(
                said.lines().count() >= 2 || said.contains(':'),
                "`{command}`: {said}"
            ),
            _ => {}
        }
        eprintln!("ran README example `{command}`");
    }
    assert!(
        commands.iter().any(|c| c == "cortex stop"),
        "the README no longer shows `cortex stop`"
    );
}
