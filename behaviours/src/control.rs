//! `BehaviourControl`: the module that runs the Python behaviour in `cognition`.

use crate::engine::{BehaviourEngine, EngineSettings};
use crate::error_policy::ErrorPolicy;
use crate::view::BlackboardSnapshot;
use framework::Update;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::{Duration, Instant};
use types::{
    BallModel, BehaviourRequest, FallState, FrameInfo, GameState, MotionInfo, SensorData, TeamMates,
};

/// Environment variable naming the behaviour folder (the supervisor sets it for `cognition`
/// from `cortex run --behaviours DIR`).
pub const BEHAVIOURS_DIR_VARIABLE: &str = "CORTEX_BEHAVIOURS_DIR";

static BEHAVIOUR_DIR: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Makes every `BehaviourControl` built from now on in this process run the behaviour in
/// `folder` (the supervisor's `--behaviours DIR`), whatever the environment and the parameters
/// say.
pub fn set_behaviour_dir(folder: impl Into<PathBuf>) {
    *BEHAVIOUR_DIR
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(folder.into());
}

/// The workspace this binary was built from (the parameters' relative paths start here).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("/"))
        .to_path_buf()
}

/// The behaviour folder: [`set_behaviour_dir`], else `$CORTEX_BEHAVIOURS_DIR`, else the
/// parameter `behaviour_dir` (relative to the workspace root this binary was built from).
///
/// A folder that has no `<entry_module>.py` but a `behaviours/<entry_module>.py` (what
/// `cortex sync --local DIR` makes) resolves to that `behaviours/` folder.
pub fn resolve_behaviour_dir(parameter: &Path, entry_module: &str) -> PathBuf {
    let explicit = BEHAVIOUR_DIR
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    let folder = explicit
        .or_else(|| {
            std::env::var_os(BEHAVIOURS_DIR_VARIABLE)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| workspace_root().join(parameter));
    let entry_file = format!("{entry_module}.py");
    let nested = folder.join("behaviours");
    if !folder.join(&entry_file).is_file() && nested.join(&entry_file).is_file() {
        nested
    } else {
        folder
    }
}

/// The parameters of [`BehaviourControl`] (`BehaviourControl.toml`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BehaviourControlParameters {
    /// The behaviour folder, relative to the workspace root (see [`resolve_behaviour_dir`]).
    pub behaviour_dir: PathBuf,
    /// The module whose `tick(blackboard)` is called.
    pub entry_module: String,
    /// A tick running longer is interrupted with `robot.TickTimeout`, ms (0: never).
    pub tick_budget_ms: u64,
    /// The first load (the modules' top-level code, at start) running longer is interrupted,
    /// ms (0: never).
    pub load_budget_ms: u64,
    /// A reload (inside a tick, after a change) running longer is interrupted, ms (0: never);
    /// shorter than cognition's freeze watchdog, or the supervisor kills the process first.
    pub reload_budget_ms: u64,
    /// "Python error" is said at most once per this interval, s.
    pub error_sound_interval_s: f64,
    /// A reload waits until the folder has been quiet for this long, ms.
    pub reload_settle_ms: u64,
}

impl config::Validate for BehaviourControlParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        use config::in_range;
        let is_module_name = !self.entry_module.is_empty()
            && !self.entry_module.starts_with(|c: char| c.is_ascii_digit())
            && self
                .entry_module
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_module_name {
            return Err(config::Invalid::new(
                "entry_module",
                format!(
                    "`{}` is not a Python module name: expected e.g. `behaviour`",
                    self.entry_module
                ),
            ));
        }
        in_range("tick_budget_ms", self.tick_budget_ms, 0..=10_000)?;
        in_range("load_budget_ms", self.load_budget_ms, 0..=600_000)?;
        in_range("reload_budget_ms", self.reload_budget_ms, 0..=60_000)?;
        in_range(
            "error_sound_interval_s",
            self.error_sound_interval_s,
            0.0..=3600.0,
        )?;
        in_range("reload_settle_ms", self.reload_settle_ms, 0..=10_000)
    }
}

/// Runs the Python behaviour: calls `tick(blackboard)` once per cognition tick and provides
/// its [`BehaviourRequest`].
#[derive(Debug)]
pub struct BehaviourControl {
    engine: Result<BehaviourEngine, (String, ErrorPolicy)>,
    cycle: u64,
    sounds: u64,
}

framework::module! {
    BehaviourControl {
        inputs: BehaviourControlInputs,
        parameters: BehaviourControlParameters,
        requires: { sensor_data: SensorData, game_state: GameState, ball: BallModel },
        // Team mates come from the network process: whatever it published last.
        uses: { motion_info: MotionInfo, fall_state: FallState, team_mates: TeamMates },
        provides: { BehaviourRequest },
    }
}

impl BehaviourControl {
    fn new(parameters: BehaviourControlParameters) -> Self {
        let error_sound_interval =
            Duration::try_from_secs_f64(parameters.error_sound_interval_s.max(0.0))
                .unwrap_or(Duration::from_secs(10));
        let settings = EngineSettings {
            folder: resolve_behaviour_dir(&parameters.behaviour_dir, &parameters.entry_module),
            entry_module: parameters.entry_module,
            tick_budget: Duration::from_millis(parameters.tick_budget_ms),
            load_budget: Duration::from_millis(parameters.load_budget_ms),
            reload_budget: Duration::from_millis(parameters.reload_budget_ms),
            error_sound_interval,
            reload_settle: Duration::from_millis(parameters.reload_settle_ms),
            watch: true,
        };
        let engine = BehaviourEngine::new(settings).map_err(|error| {
            let error = error.to_string();
            tracing::error!("{error}; the robot stands and flashes its LEDs");
            (error, ErrorPolicy::new(error_sound_interval))
        });
        BehaviourControl {
            engine,
            cycle: 0,
            sounds: 0,
        }
    }

    /// The engine, unless the interpreter could not be set up.
    pub fn engine(&self) -> Option<&BehaviourEngine> {
        self.engine.as_ref().ok()
    }

    /// A warm standby's idle work ([`framework::runtime::Standby::idle`]): a changed behaviour
    /// is loaded now rather than at the takeover.
    pub fn refresh_while_standby(&mut self) {
        if let Ok(engine) = &mut self.engine {
            engine.refresh_while_standby();
        }
    }
}

impl Update<BehaviourRequest> for BehaviourControl {
    fn update(&mut self, inputs: &BehaviourControlInputs, output: &mut BehaviourRequest) {
        let snapshot = BlackboardSnapshot {
            frame_info: FrameInfo {
                time_monotonic_ns: framework::clock::now_ns(),
                cycle: self.cycle,
            },
            sensor_data: inputs.sensor_data.clone(),
            game_state: inputs.game_state.clone(),
            motion_info: inputs.motion_info.clone(),
            fall_state: inputs.fall_state.clone(),
            team_mates: inputs.team_mates.clone(),
            ball: inputs.ball.clone(),
        };
        self.cycle += 1;
        let now = Instant::now();
        *output = match &mut self.engine {
            Ok(engine) => engine.tick(snapshot, now),
            Err((error, policy)) => policy.failed(error, now, &mut self.sounds),
        };
    }
}
