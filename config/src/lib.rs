//! Layered TOML configuration for Cortex (B-Human's `Config/` folder).
//!
//! **What it is.** The robot's configuration is a folder of TOML files in layers. A file is
//! looked for along a *search path*, most specific first:
//!
//! ```text
//! scenarios/<scenario>/   a game, a test, a demo          (settings.toml: scenario)
//! robots/<head name>/     this head                       (robots.toml: head serial → name)
//! robots/<body name>/     this body                       (robots.toml: body serial → name)
//! locations/<location>/   this venue                      (settings.toml: location)
//! default/                everything a robot needs
//! ```
//!
//! The crate resolves the robot's names from the serial numbers LoLA reports, reads the settings
//! (team, player, location, scenario), checks the process table (`processes.toml`, the
//! counterpart of B-Human's `threads.cfg`) and loads module parameters (`<Module>.toml`, merged
//! key by key along the search path). Command-line overrides (`--set key.path=value`, see
//! [`Override`]) go on top. Every error names the file, the line and the key, and says what was
//! expected; nothing panics on bad files. Parameter types state their ranges with [`Validate`]
//! ([`Config::validated_parameters`]): a NaN or an out-of-range value is reported at the line
//! (or the `--set`) that set it, like a typo. [`ConfigError::exit_code`] says how a program
//! should end on each error (`sysexits.h`).
//!
//! **What it is not.** It does not know modules or representations: whether a module named in
//! the process table exists, or whether the providers form a valid graph, is checked by the graph
//! builder in `framework`, which gets every table entry with its file and line ([`Located`]). It does
//! not watch files or apply parameter changes at run time; it reads them when asked.
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Debug, Deserialize, Default)]
//! #[serde(deny_unknown_fields, default)]
//! struct BallPerceptorParameters {
//!     min_radius_px: f32,
//! }
//!
//! let overrides = [config::Override::parse("settings.player_number=3")?];
//! let config = config::Config::load(&config::default_root(), None, &overrides)?;
//! assert_eq!(config.settings().player_number, 3);
//! assert!(config.search_path().last().unwrap().ends_with("default"));
//!
//! let motion = config.process_table().get("motion").unwrap();
//! println!("motion: {:?}, watchdog {:?} ({}:{})",
//!          motion.schedule, motion.watchdog, motion.file.display(), motion.line);
//!
//! // No BallPerceptor.toml ships yet: the default value.
//! let parameters: BallPerceptorParameters = config.parameters_or_default("BallPerceptor")?;
//! # let _ = parameters.min_radius_px;
//! # Ok::<(), config::ConfigError>(())
//! ```

mod config;
mod error;
mod layers;
mod overrides;
mod processes;
mod robots;
pub mod scaffold;
mod settings;
mod team;
mod validate;

pub use crate::config::{
    default_root, Config, ConfigWarning, ParameterValue, Selection, PROCESSES_FILE, ROBOTS_FILE,
    SETTINGS_FILE,
};
pub use crate::error::{ConfigError, Origin, EX_CONFIG, EX_IOERR, EX_NOINPUT};
pub use crate::layers::{read_text, MAX_FILE_BYTES};
pub use crate::overrides::{Override, OverrideTarget};
pub use crate::processes::{
    Alternatives, Located, ProcessKind, ProcessSpec, ProcessTable, Provider, RestartPolicy,
    Schedule, DEFAULT_RESTART_INTENSITY, DEFAULT_RESTART_WINDOW, MAX_CPUS, WATCHDOG_PERIODS,
};
pub use crate::robots::{RobotIdentitySerials, Robots};
pub use crate::settings::{Settings, MAX_PLAYER_NUMBER};
pub use crate::team::{Team, TEAM_FILE};
pub use crate::validate::{in_range, ordered, Invalid, Validate};
