//! `cortex deploy ROBOT...`: builds `cortex` for the NAO, and for every robot at once (one
//! progress line each) checks that the robot can run it, uploads binary, configuration and
//! behaviours, writes the robot's own settings, installs the systemd unit, restarts it and waits
//! until it is ready.
//!
//! ```text
//! robots.toml [addresses]  alan = "nao@10.1.24.21"        how to reach the robot (ssh)
//! team.toml   [players]    alan = 1                        its player number, the team's number
//!
//! on the robot (--remote-dir, default /home/nao/cortex):
//!   bin/cortex             the binary (built with cargo-zigbuild for glibc NAO_GLIBC)
//!   config/                the configuration (`cortex sync`), with config/settings.toml its own
//!   behaviours/            the behaviour package (`cortex sync`)
//!   ~/.config/systemd/user/cortex.service   a user unit, as NAO OS runs lola.service
//! ```
//!
//! The copying is `cortex sync`'s ([`behaviours::sync`]); commands on the robot go over the same
//! ssh (`ssh_command_line`). Before anything is uploaded, the robot is asked what it has: the
//! architecture, the dynamic loader and glibc the binary was linked for, and a `python3` of the
//! same minor version with a shared `libpython` (the behaviour engine embeds it). After the
//! upload the uploaded binary checks the uploaded configuration on the robot (`cortex check`),
//! so a library the loader cannot find or a configuration the robot would refuse is reported
//! before the running system is touched.

mod elf;
mod progress;
mod remote;
mod robot_check;

use crate::exit_code::{Failure, EX_CONFIG, EX_UNAVAILABLE, EX_USAGE};
use anyhow::{bail, Context, Result};
use behaviours::sync::{self, SyncOptions, SyncTarget};
use elf::needs as binary_needs;
use progress::Progress;
use remote::{remote_output, remote_shell};
use robot_check::{check_facts, probe};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The glibc of SoftBank's NAO OS 2.8 (see `docs/decisions.md`, "Deploying to the NAO"): the
/// robot build asks for no newer symbol versions than these.
pub const NAO_GLIBC: &str = "2.23";
/// The Rust target of the robot build: x86-64 Linux, linked against glibc [`NAO_GLIBC`].
pub const ROBOT_TARGET: &str = "x86_64-unknown-linux-gnu";
/// The unit file installed on the robot.
const UNIT: &str = include_str!("../systemd/cortex.service");
/// The folder the shipped unit names; replaced by `--remote-dir`.
const DEFAULT_REMOTE_DIR: &str = "/home/nao/cortex";

/// `cortex deploy` options.
#[derive(clap::Args, Debug, Clone)]
pub struct DeployOptions {
    /// The robots, by their names in robots.toml's `[addresses]`.
    #[arg(required = true, value_name = "ROBOT")]
    pub robots: Vec<String>,
    /// Do not build: upload `--binary`, or the last robot build.
    #[arg(long)]
    pub no_build: bool,
    /// Upload and install, but do not restart the service (nor reload systemd).
    #[arg(long)]
    pub no_restart: bool,
    /// Print what would be done; build nothing, contact no robot, change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The binary to upload (implies --no-build).
    #[arg(long, value_name = "FILE")]
    pub binary: Option<PathBuf>,
    /// The configuration root to upload; its robots.toml and team.toml name the robots.
    #[arg(long, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// The team file (default: team.toml of the configuration root).
    #[arg(long, value_name = "FILE")]
    pub team: Option<PathBuf>,
    /// The behaviour package to upload (default: the shipped `behaviours/python`).
    #[arg(long, value_name = "DIR")]
    pub behaviours: Option<PathBuf>,
    /// The folder on the robot.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_REMOTE_DIR)]
    pub remote_dir: String,
    /// The ssh port.
    #[arg(long)]
    pub port: Option<u16>,
    /// An ssh configuration file (`ssh -F`).
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// Seconds to wait for the restarted service to report ready.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub ready_timeout: u64,
}

/// One robot to deploy to.
#[derive(Debug, Clone)]
struct Robot {
    name: String,
    address: String,
    settings: config::Settings,
    /// Where the team file gives its number, for the settings file's header.
    settings_origin: String,
}

impl Robot {
    fn label(&self) -> String {
        format!("{} ({})", self.name, self.address)
    }
}

/// Runs `cortex deploy`.
pub fn run(options: DeployOptions) -> Result<ExitCode> {
    let config_root = options
        .config_dir
        .clone()
        .unwrap_or_else(config::default_root);
    check_remote_dir(&options.remote_dir)?;
    let robots = resolve_robots(&options, &config_root)?;
    let mut sync_options = SyncOptions::default();
    if let Some(folder) = &options.behaviours {
        sync_options.behaviours = folder.clone();
    }
    sync_options.config = config_root;
    sync_options.remote_dir = options.remote_dir.clone();
    sync_options.ssh_port = options.port;
    sync_options.ssh_config = options.ssh_config.clone();
    let build = options.binary.is_none() && !options.no_build;
    let binary = match &options.binary {
        Some(binary) => binary.clone(),
        None => robot_build_output()?,
    };
    if options.dry_run {
        print!("{}", plan(&options, &robots, &binary, build, &sync_options));
        return Ok(ExitCode::SUCCESS);
    }
    if build {
        build_for_robot()?;
    }
    if !binary.is_file() {
        let hint = if options.binary.is_some() {
            "give the path of a built `cortex`"
        } else {
            "build it (`cortex deploy` without --no-build) or give --binary FILE"
        };
        return Err(Failure::error(
            crate::exit_code::EX_NOINPUT,
            format!("there is no binary at {}: {hint}", binary.display()),
        ));
    }
    let needs = binary_needs(&binary)
        .with_context(|| format!("reading what {} needs", binary.display()))?;
    let progress = Progress::new(&robots);
    let notes = std::sync::Mutex::new(Vec::new());
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = robots
            .iter()
            .enumerate()
            .map(|(index, robot)| {
                let progress = &progress;
                let needs = &needs;
                let binary = binary.as_path();
                let sync_options = &sync_options;
                let options = &options;
                let notes = &notes;
                scope.spawn(move || {
                    let step = |text: &str| progress.set(index, text);
                    let note = |text: String| {
                        let mut notes = notes.lock().unwrap_or_else(|e| e.into_inner());
                        notes.push(format!("{}: {text}", robot.label()));
                    };
                    let result =
                        deploy_one(robot, binary, needs, sync_options, options, &step, &note);
                    match &result {
                        Ok(()) if options.no_restart => step("uploaded (not restarted)"),
                        Ok(()) => step("ready"),
                        Err(error) => {
                            step(&format!("FAILED: {}", crate::exit_code::message(error)))
                        }
                    }
                    result.with_context(|| format!("robot {}", robot.label()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a deploy thread panicked")))
            })
            .collect()
    });
    progress.finish();
    for note in notes.into_inner().unwrap_or_else(|e| e.into_inner()) {
        eprintln!("cortex deploy: {note}");
    }
    let mut failures = results.into_iter().filter_map(Result::err);
    match failures.next() {
        None => Ok(ExitCode::SUCCESS),
        Some(first) => {
            let code = crate::exit_code::of(&first);
            // Every failed robot is named; the first decides the exit status.
            for other in failures {
                crate::exit_code::report(&other);
            }
            Err(Failure::error(code, crate::exit_code::message(&first)))
        }
    }
}

/// Names, addresses and settings of the robots on the command line, from robots.toml and the
/// team file. A name that either file lacks is a configuration error naming the file.
fn resolve_robots(options: &DeployOptions, config_root: &Path) -> Result<Vec<Robot>> {
    let robots_file = config_root.join(config::ROBOTS_FILE);
    let robots = config::Robots::load(&robots_file)?;
    let team_file = options
        .team
        .clone()
        .unwrap_or_else(|| config_root.join(config::TEAM_FILE));
    let team = config::Team::load(&team_file)?;
    let mut resolved = Vec::new();
    for name in &options.robots {
        if resolved.iter().any(|robot: &Robot| &robot.name == name) {
            return Err(Failure::error(
                EX_USAGE,
                format!("robot `{name}` is named twice on the command line"),
            ));
        }
        let known = |names: Vec<&str>| {
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        };
        let address = robot_address(&robots_file, &robots, name, false)?;
        let Some(settings) = team.settings_of(name) else {
            return Err(Failure::error(
                crate::exit_code::EX_CONFIG,
                format!(
                    "robot `{name}` has no player number in {} (`[players]` `{name} = N`); \
                     players: {}",
                    team_file.display(),
                    known(team.robot_names().collect())
                ),
            ));
        };
        resolved.push(Robot {
            name: name.clone(),
            address,
            settings,
            settings_origin: team
                .origin_of(name)
                .map_or_else(|| team_file.display().to_string(), ToString::to_string),
        });
    }
    Ok(resolved)
}

/// Checks `--remote-dir` (of `cortex deploy` and `cortex logs`): it goes into remote shell
/// scripts, so only an absolute path of plain characters is taken.
pub(crate) fn check_remote_dir(remote_dir: &str) -> Result<()> {
    let plain_folder = remote_dir
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c));
    if !remote_dir.starts_with('/') || !plain_folder {
        return Err(Failure::error(
            EX_USAGE,
            format!("--remote-dir `{remote_dir}`: expected an absolute path of letters, digits and `/._-`"),
        ));
    }
    Ok(())
}

/// The ssh address `robots` (loaded from `robots_file`) gives the robot `name`; with
/// `user_host_allowed`, a `user@host` the file does not name stands for itself. A robot without
/// an address is a configuration error naming the file and the robots that have one.
pub(crate) fn robot_address(
    robots_file: &Path,
    robots: &config::Robots,
    name: &str,
    user_host_allowed: bool,
) -> Result<String> {
    match robots.address(name) {
        Some((address, _)) => Ok(address.to_owned()),
        None if user_host_allowed && name.contains('@') => Ok(name.to_owned()),
        None => {
            let known: Vec<&str> = robots.addressed_names().collect();
            Err(Failure::error(
                EX_CONFIG,
                format!(
                    "robot `{name}` has no address in {} (`[addresses]` `{name} = \"nao@host\"`{}); \
                     robots with an address: {}",
                    robots_file.display(),
                    if user_host_allowed {
                        ", or give `user@host`"
                    } else {
                        ""
                    },
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            ))
        }
    }
}

/// The workspace this `cortex` was built from: the robot build runs there.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_owned)
}

/// Where the robot build puts the binary: `<target dir>/x86_64-unknown-linux-gnu/release/cortex`
/// (cargo-zigbuild drops the glibc suffix from the folder name).
fn robot_build_output() -> Result<PathBuf> {
    let target_dir = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("target"),
    };
    Ok(target_dir.join(ROBOT_TARGET).join("release").join("cortex"))
}

/// The robot build's command line. `cargo rustc` so that the one linker flag reaches only the
/// final link: the host's `libpython3.X.so` asks for the host's newer glibc symbols, which the
/// glibc-2.23 stubs zig links against do not have; they are the robot's libpython's business
/// (resolved against the robot's own glibc when it loads), so the link allows them.
fn build_command_line() -> Vec<String> {
    let target = format!("{ROBOT_TARGET}.{NAO_GLIBC}");
    [
        "cargo-zigbuild",
        "rustc",
        "--release",
        "-p",
        "supervisor",
        "--bin",
        "cortex",
        // ALSA capture and playback in the audio process (needs libasound2-dev here).
        "--features",
        "robot",
        "--target",
        &target,
        "--",
        "-C",
        "link-arg=-Wl,--allow-shlib-undefined",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect()
}

/// Builds `cortex` for the robot with cargo-zigbuild (zig links against the old glibc).
fn build_for_robot() -> Result<()> {
    let words = build_command_line();
    let runs = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    // cargo-zigbuild finds zig on the PATH or as the Python package `ziglang`.
    let zig = runs("zig", &["version"]) || runs("python3", &["-m", "ziglang", "version"]);
    if !runs("cargo-zigbuild", &["--version"]) || !zig {
        return Err(Failure::error(
            EX_UNAVAILABLE,
            "the robot build needs cargo-zigbuild and zig: run tools/install-robot-toolchain.sh \
             (or give --no-build with --binary FILE)",
        ));
    }
    eprintln!("building for the NAO: {}", words.join(" "));
    let status = Command::new(&words[0])
        .args(&words[1..])
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("starting {}", words.join(" ")))?;
    if !status.success() {
        bail!("the robot build failed ({status}): {}", words.join(" "));
    }
    Ok(())
}

/// What `--dry-run` prints.
fn plan(
    options: &DeployOptions,
    robots: &[Robot],
    binary: &Path,
    build: bool,
    sync_options: &SyncOptions,
) -> String {
    let mut text =
        String::from("dry run: nothing is built, no robot is contacted, nothing changes\n");
    if build {
        text.push_str(&format!("build: {}\n", build_command_line().join(" ")));
    }
    let remote = &options.remote_dir;
    for robot in robots {
        text.push_str(&format!("{}:\n", robot.label()));
        text.push_str(&format!(
            "  check: x86-64, the binary's loader and glibc, python3 with a shared libpython\n  \
             upload {} → {remote}/bin/cortex\n  \
             sync {} → {remote}/behaviours/, {} → {remote}/config/ (rsync --delete)\n  \
             write {remote}/config/settings.toml: {}\n  \
             check the configuration on the robot: {remote}/bin/cortex check --config-dir {remote}/config\n  \
             write ~/.config/systemd/user/cortex.service\n",
            binary.display(),
            sync_options.behaviours.display(),
            sync_options.config.display(),
            settings_summary(&robot.settings),
        ));
        if options.no_restart {
            text.push_str("  no restart (--no-restart)\n");
        } else {
            text.push_str(&format!(
                "  systemctl --user daemon-reload, enable and restart cortex.service; wait up to \
                 {} s until it is active\n",
                options.ready_timeout
            ));
        }
    }
    text
}

fn settings_summary(settings: &config::Settings) -> String {
    format!(
        "team {}, player {}, location {}, scenario {}",
        settings.team_number, settings.player_number, settings.location, settings.scenario
    )
}

/// The robot's own `settings.toml`.
fn settings_file(robot: &Robot) -> String {
    let settings = &robot.settings;
    format!(
        "# Written by `cortex deploy {name}` from {origin}: deploy again to change it (`cortex \
         sync` leaves it alone).\n\
         team_number = {team}\nplayer_number = {player}\nlocation = \"{location}\"\nscenario = \"{scenario}\"\n",
        name = robot.name,
        origin = robot.settings_origin,
        team = settings.team_number,
        player = settings.player_number,
        location = settings.location,
        scenario = settings.scenario,
    )
}

/// The unit file for `remote_dir`.
pub fn unit_file(remote_dir: &str) -> String {
    UNIT.replace(DEFAULT_REMOTE_DIR, remote_dir)
}

/// ssh failing under rsync is a robot that cannot be reached (exit 69), as for the other steps.
fn unreachable_is_unavailable(error: sync::SyncError) -> anyhow::Error {
    match error {
        sync::SyncError::Unreachable { .. } => Failure::error(EX_UNAVAILABLE, error.to_string()),
        other => anyhow::Error::new(other),
    }
}

/// All steps for one robot; `step` reports progress.
fn deploy_one(
    robot: &Robot,
    binary: &Path,
    needs: &elf::Needs,
    sync_options: &SyncOptions,
    options: &DeployOptions,
    step: &dyn Fn(&str),
    note: &dyn Fn(String),
) -> Result<()> {
    let remote = &options.remote_dir;
    step("checking what the robot has");
    let facts = probe(robot, sync_options, needs)?;
    check_facts(needs, &facts)?;
    step("uploading the binary");
    sync::upload_file(
        &robot.address,
        sync_options,
        binary,
        &format!("{remote}/bin/cortex"),
    )
    .map_err(unreachable_is_unavailable)?;
    step("syncing configuration and behaviours");
    let report = sync::sync(&SyncTarget::Remote(robot.address.clone()), sync_options)
        .map_err(unreachable_is_unavailable)?;
    // What `cortex sync` would say: nothing is deleted or left out without a word.
    for warning in &report.warnings {
        note(format!("warning: {warning}"));
    }
    if !report.deleted.is_empty() {
        note(format!(
            "deleted {} file(s) the source does not have: {}",
            report.deleted.len(),
            report.deleted.join(", ")
        ));
    }
    step("writing the robot's settings");
    let settings_path = format!("{remote}/config/settings.toml");
    remote_shell(
        robot,
        sync_options,
        &format!("cat > {settings_path}.new && mv -f {settings_path}.new {settings_path}"),
        Some(&settings_file(robot)),
    )
    .context("writing the robot's settings.toml")?;
    step("checking the configuration on the robot");
    let check = remote_shell(
        robot,
        sync_options,
        &format!("{remote}/bin/cortex check --config-dir {remote}/config >/dev/null"),
        None,
    );
    if let Err(error) = check {
        let said = crate::exit_code::message(&error);
        // The loader's refusal (a library missing, a glibc too old) is the robot lacking
        // something, like the check before the upload; anything else is the configuration.
        let code = if said.contains("error while loading shared libraries")
            || said.contains("version `GLIBC_")
            || said.contains("cannot execute")
        {
            EX_UNAVAILABLE
        } else {
            crate::exit_code::EX_CONFIG
        };
        return Err(Failure::error(
            code,
            format!(
                "the uploaded cortex refuses to run on the robot (`{remote}/bin/cortex check`): {said}"
            ),
        ));
    }
    step("installing the systemd unit");
    remote_shell(
        robot,
        sync_options,
        "mkdir -p \"$HOME/.config/systemd/user\" && cat > \"$HOME/.config/systemd/user/cortex.service.new\" \
         && mv -f \"$HOME/.config/systemd/user/cortex.service.new\" \"$HOME/.config/systemd/user/cortex.service\"",
        Some(&unit_file(remote)),
    )
    .context("installing the systemd unit")?;
    if options.no_restart {
        return Ok(());
    }
    step("restarting cortex.service");
    remote_shell(
        robot,
        sync_options,
        &format!(
            "{USER_SYSTEMD} systemctl --user daemon-reload && {USER_SYSTEMD} systemctl --user \
             enable --quiet cortex.service && {USER_SYSTEMD} systemctl --user restart --no-block \
             cortex.service"
        ),
        None,
    )
    .context("restarting cortex.service (systemctl --user)")?;
    wait_until_active(robot, sync_options, options.ready_timeout, step)
}

/// `systemctl --user` over ssh needs the user's runtime folder (a non-login session may lack it).
const USER_SYSTEMD: &str = "XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/run/user/$(id -u)}";

/// Polls `systemctl --user is-active` until the unit is active (the supervisor sends READY=1 once
/// every child ticks: a `Type=notify` unit is "activating" until then).
fn wait_until_active(
    robot: &Robot,
    sync_options: &SyncOptions,
    timeout_s: u64,
    step: &dyn Fn(&str),
) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(timeout_s);
    loop {
        let state = remote_output(
            robot,
            sync_options,
            &format!("{USER_SYSTEMD} systemctl --user is-active cortex.service || true"),
        )?;
        let state = state.trim();
        match state {
            "active" => return Ok(()),
            "failed" | "inactive" => {
                let journal = remote_output(
                    robot,
                    sync_options,
                    "journalctl --user -u cortex.service -n 15 --no-pager 2>&1 || true",
                )
                .unwrap_or_default();
                bail!("cortex.service is {state} after the restart; its log:\n{journal}");
            }
            _ => step(&format!("waiting until ready ({state})")),
        }
        if Instant::now() > deadline {
            bail!("cortex.service is still `{state}` after {timeout_s} s (it is ready once every process ticked)");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_and_settings_name_the_remote_folder_and_the_numbers() {
        let unit = unit_file("/tmp/x/cortex");
        assert!(unit.contains("/tmp/x/cortex/bin/cortex run"), "{unit}");
        assert!(!unit.contains(DEFAULT_REMOTE_DIR), "{unit}");
        let robot = Robot {
            name: "alan".into(),
            address: "nao@alan".into(),
            settings: config::Settings {
                team_number: 24,
                player_number: 3,
                location: "default".into(),
                scenario: "demo".into(),
            },
            settings_origin: "team.toml:12".into(),
        };
        let text = settings_file(&robot);
        assert!(text.contains("\nplayer_number = 3\n"), "{text}");
        assert!(text.contains("\nscenario = \"demo\"\n"), "{text}");
        assert!(text.contains("team.toml:12"));
    }
}
