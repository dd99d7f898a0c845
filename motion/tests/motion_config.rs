//! The shipped motion configuration, end to end: every motion module builds from
//! `config/data` (its parameter file and the keyframe files load cleanly), the graph builder
//! places the shipped `motion` providers, and the modules run tick by tick through a real
//! blackboard against a robot whose joints follow their commands: from sitting, Stand reaches
//! the stand pose, Sit returns to the crouch, a special action plays to its end — and no joint
//! ever moves more than a plausible step in one 12 ms tick. A broken keyframe file in a copy of
//! the configuration is an error naming the file, the line and the key.

use config::{Located, ProcessKind, ProcessSpec, ProcessTable, Provider, Schedule};
use framework::{
    build_graph, registry, Blackboard, DynModule, ModuleRegistry, NoParameters, Update,
};
use motion::library::{MotionLibrary, SIT, STAND};
use std::path::Path;
use types::{
    BodyMotion, FallPhase, FallState, HeadMotionRequest, JointId, JointRequest, Joints, LedRequest,
    MotionInfo, MotionKind, MotionRequest, SensorData,
};

/// The largest joint step per 12 ms tick that a NAO can follow: 0.05 rad ≈ 4.2 rad/s.
const MAX_STEP_PER_TICK_RAD: f32 = 0.05;

fn shipped() -> config::Config {
    config::Config::load(&config::default_root(), None, &[]).expect("the shipped configuration")
}

/// Stands in for cognition: provides the MotionRequest that the test writes into the
/// blackboard (it keeps whatever value is there), and the LedRequest the bridge reads.
#[derive(Debug)]
pub struct ScriptedBehaviour;
framework::module! {
    ScriptedBehaviour {
        inputs: ScriptedBehaviourInputs,
        requires: {},
        uses: {},
        provides: { MotionRequest, LedRequest },
    }
}
impl ScriptedBehaviour {
    fn new(_: NoParameters) -> Self {
        ScriptedBehaviour
    }
}
impl Update<MotionRequest> for ScriptedBehaviour {
    fn update(&mut self, _: &ScriptedBehaviourInputs, _: &mut MotionRequest) {}
}
impl Update<LedRequest> for ScriptedBehaviour {
    fn update(&mut self, _: &ScriptedBehaviourInputs, _: &mut LedRequest) {}
}

/// The shipped `lola` and `motion` entries, and a stand-in for cognition.
fn table(config: &config::Config) -> ProcessTable {
    let shipped = config.process_table();
    let lola = shipped.get("lola").expect("lola").clone();
    let motion = shipped.get("motion").expect("motion").clone();
    let behaviour = ProcessSpec {
        name: "behaviour".into(),
        kind: ProcessKind::Cognition,
        schedule: Schedule::Rate { hz: 60.0 },
        providers: ["MotionRequest", "LedRequest"]
            .map(|representation| Located {
                value: Provider {
                    representation: representation.into(),
                    module: "ScriptedBehaviour".into(),
                },
                file: motion.file.clone(),
                line: 1,
            })
            .into(),
        defaults: Vec::new(),
        ..motion.clone()
    };
    let file = motion.file.clone();
    ProcessTable::from_specs(&file, vec![lola, motion, behaviour])
}

/// The motion process's modules in the graph's order, on a blackboard with every value.
struct MotionProcess {
    steps: Vec<(Box<dyn DynModule>, Vec<String>)>,
    blackboard: Blackboard,
}

impl MotionProcess {
    fn build(config: &config::Config) -> MotionProcess {
        let modules = motion::modules().with::<ScriptedBehaviour>();
        let representations = registry();
        let graph = build_graph(&table(config), &modules, &representations).expect("graph");
        let plan = graph
            .processes
            .iter()
            .find(|plan| plan.name == "motion")
            .expect("motion plan");
        let order: Vec<&str> = plan.order.iter().map(|step| step.module.as_str()).collect();
        assert_eq!(order, ["FallStateProvider", "MotionCombinator"]);
        let inbound: Vec<&str> = plan
            .inbound
            .iter()
            .map(|inbound| inbound.channel.as_str())
            .collect();
        assert_eq!(inbound, ["MotionRequest", "SensorData"]);
        assert!(plan
            .outbound
            .iter()
            .any(|channel| channel == "JointRequest"));
        let mut blackboard = Blackboard::new();
        for name in plan.representations() {
            representations
                .get(&name)
                .expect("known")
                .insert_default(&mut blackboard);
        }
        let steps = plan
            .order
            .iter()
            .map(|step| {
                let module = modules
                    .get(&step.module)
                    .expect("module")
                    .construct(config)
                    .expect("builds");
                (module, step.representations.clone())
            })
            .collect();
        MotionProcess { steps, blackboard }
    }

    /// One tick: the inbound channels, then the providers in order.
    fn tick(
        &mut self,
        sensor_data: &SensorData,
        request: &MotionRequest,
    ) -> (JointRequest, MotionInfo) {
        self.blackboard.insert(sensor_data.clone());
        self.blackboard.insert(request.clone());
        for (module, representations) in &mut self.steps {
            for representation in representations.iter() {
                assert!(module
                    .update_named(representation, &mut self.blackboard)
                    .unwrap());
            }
        }
        (
            self.blackboard.get::<JointRequest>().unwrap().clone(),
            self.blackboard.get::<MotionInfo>().unwrap().clone(),
        )
    }
}

/// A robot whose stiff joints follow their commands at once and whose limp joints stay put,
/// driven by the motion process; it checks every command for jumps.
struct Robot {
    process: MotionProcess,
    sensor_data: SensorData,
    ticks: usize,
}

impl Robot {
    fn run(&mut self, body: BodyMotion, ticks: usize) -> Vec<(JointRequest, MotionInfo)> {
        let request = MotionRequest {
            body,
            head: HeadMotionRequest {
                yaw_rad: 0.5,
                pitch_rad: 0.1,
                max_speed_rad_per_s: 1.0,
            },
        };
        (0..ticks)
            .map(|_| {
                let (command, info) = self.process.tick(&self.sensor_data, &request);
                self.ticks += 1;
                for joint in JointId::ALL {
                    let step = (command.positions_rad[joint]
                        - self.sensor_data.joint_positions_rad[joint])
                        .abs();
                    assert!(
                        step <= MAX_STEP_PER_TICK_RAD || command.stiffnesses[joint] == 0.0,
                        "tick {}: {joint:?} jumps {step} rad ({:?})",
                        self.ticks,
                        info.current_motion
                    );
                    if command.stiffnesses[joint] > 0.0 {
                        self.sensor_data.joint_positions_rad[joint] = command.positions_rad[joint];
                    }
                }
                self.sensor_data.joint_stiffnesses = command.stiffnesses;
                (command, info)
            })
            .collect()
    }

    fn position(&self, joint: JointId) -> f32 {
        self.sensor_data.joint_positions_rad[joint]
    }
}

/// Whether every joint that `motion` moves is at its final position.
fn at_final_pose(robot: &Robot, library: &MotionLibrary, motion: &str) -> Result<(), String> {
    let pose = library.get(motion).expect("motion").final_positions();
    for joint in JointId::ALL {
        if let Some(target) = pose[joint] {
            let error = (robot.position(joint) - target).abs();
            if error > 1e-4 {
                return Err(format!("{joint:?} is {error} rad from the end of {motion}"));
            }
        }
    }
    Ok(())
}

#[test]
fn every_motion_module_builds_from_the_shipped_configuration() {
    let config = shipped();
    let modules = motion::modules();
    let names: Vec<&str> = modules.names().collect();
    assert_eq!(names, ["FallStateProvider", "MotionCombinator"]);
    for name in names {
        if let Err(error) = modules.get(name).unwrap().construct(&config) {
            panic!("{name}: {error}");
        }
    }
    let library = MotionLibrary::load(&config).expect("the shipped motions");
    let shipped: Vec<&str> = library.names().collect();
    for name in ["sit", "stand", "stand_up_from_sit", "wave"] {
        assert!(
            shipped.contains(&name),
            "{name} is not shipped: {shipped:?}"
        );
    }
    // The shipped sit and stand keep the torso upright over flat feet: hip + knee + ankle = 0.
    for name in [SIT, STAND] {
        let pose = library.get(name).unwrap().final_positions();
        for (hip, knee, ankle) in [
            (
                JointId::LeftHipPitch,
                JointId::LeftKneePitch,
                JointId::LeftAnklePitch,
            ),
            (
                JointId::RightHipPitch,
                JointId::RightKneePitch,
                JointId::RightAnklePitch,
            ),
        ] {
            let sum = pose[hip].unwrap() + pose[knee].unwrap() + pose[ankle].unwrap();
            assert!(sum.abs() < 1e-4, "{name}: {sum}");
        }
    }
}

#[test]
fn stand_sit_and_a_special_action_run_without_jumps() {
    let config = shipped();
    let library = MotionLibrary::load(&config).unwrap();
    let sit_pose = library.get(SIT).unwrap().final_positions();
    let sensor_data = SensorData {
        joint_positions_rad: Joints::from_fn(|joint| sit_pose[joint].unwrap_or(0.0)),
        ..SensorData::default()
    };
    let mut robot = Robot {
        process: MotionProcess::build(&config),
        sensor_data,
        ticks: 0,
    };

    // Stand from sitting: stand_up_from_sit, then stand; 2.7 s = 225 ticks.
    let outputs = robot.run(BodyMotion::Stand, 300);
    let (_, info) = &outputs[0];
    assert_eq!(
        (info.current_motion, info.is_stable),
        (MotionKind::Stand, false)
    );
    let (command, info) = outputs.last().unwrap();
    at_final_pose(&robot, &library, STAND).unwrap();
    assert_eq!(
        (info.current_motion, info.can_be_left, info.is_stable),
        (MotionKind::Stand, true, true)
    );
    assert_eq!(info.note, None);
    assert!(command.stiffnesses[JointId::LeftKneePitch] >= 0.5);
    // The head followed the request (0.5, 0.1) at 1 rad/s.
    assert!((robot.position(JointId::HeadYaw) - 0.5).abs() < 1e-5);
    assert!((robot.position(JointId::HeadPitch) - 0.1).abs() < 1e-5);

    // Sit returns to the crouch and relaxes.
    let outputs = robot.run(BodyMotion::Sit, 300);
    let (command, info) = outputs.last().unwrap();
    at_final_pose(&robot, &library, SIT).unwrap();
    assert_eq!(
        (info.current_motion, info.is_stable),
        (MotionKind::Sit, true)
    );
    assert!(command.stiffnesses[JointId::LeftKneePitch] < 0.2);

    // Stand again, then wave: once started it plays to its end although the behaviour asks for
    // Stand again, and the robot stands when it ends (4.4 s = 367 ticks).
    robot.run(BodyMotion::Stand, 300);
    at_final_pose(&robot, &library, STAND).unwrap();
    let wave = BodyMotion::SpecialAction {
        name: "wave".into(),
    };
    let started = robot.run(wave.clone(), 20);
    assert!(started
        .iter()
        .all(|(_, info)| info.current_motion == MotionKind::SpecialAction && !info.can_be_left));
    let outputs = robot.run(BodyMotion::Stand, 450);
    let waving = outputs
        .iter()
        .take_while(|(_, info)| info.current_motion == MotionKind::SpecialAction)
        .count();
    assert!(
        (320..=360).contains(&waving),
        "the wave took {} ticks",
        20 + waving
    );
    assert!(outputs[..waving]
        .iter()
        .all(|(_, info)| info.executed_request.body == wave));
    let highest_arm = outputs
        .iter()
        .map(|(command, _)| command.positions_rad[JointId::RightShoulderPitch])
        .fold(f32::INFINITY, f32::min);
    assert!(
        (highest_arm - (-60_f32).to_radians()).abs() < 1e-3,
        "{highest_arm}"
    );
    let (_, info) = outputs.last().unwrap();
    assert_eq!(
        (info.current_motion, info.is_stable),
        (MotionKind::Stand, true)
    );
    at_final_pose(&robot, &library, STAND).unwrap();

    // Unstiff lets go at once.
    let (command, info) = robot.run(BodyMotion::Unstiff, 1).pop().unwrap();
    assert_eq!(info.current_motion, MotionKind::Unstiff);
    assert_eq!(command.stiffnesses, Joints::filled(0.0));
}

#[test]
fn a_tilted_robot_is_not_stable() {
    let config = shipped();
    let mut process = MotionProcess::build(&config);
    let mut sensor_data = SensorData::default();
    sensor_data.inertial_measurement.torso_angles_rad.y = 0.9;
    sensor_data.inertial_measurement.accelerometer_m_per_s2.x = -9.0;
    let request = MotionRequest::default();
    for _ in 0..5 {
        process.tick(&sensor_data, &request);
    }
    let fall_state = process.blackboard.get::<FallState>().unwrap();
    assert_eq!(fall_state.phase, FallPhase::Falling);
    let info = process.blackboard.get::<MotionInfo>().unwrap();
    assert!(!info.is_stable);
}

#[test]
fn a_broken_keyframe_file_is_an_error_naming_file_line_and_key() {
    let root = tempfile::tempdir().unwrap();
    testkit::files::copy_dir(&config::default_root(), root.path());
    let wave = root.path().join("default/motions/wave.toml");
    let text = std::fs::read_to_string(&wave).unwrap().replacen(
        "RightElbowRoll = 85",
        "RightElbowRol = 85",
        1,
    );
    std::fs::write(&wave, &text).unwrap();
    let line = text
        .lines()
        .position(|line| line.starts_with("RightElbowRol "))
        .unwrap()
        + 1;
    let config = config::Config::load(root.path(), None, &[]).unwrap();
    let modules: ModuleRegistry = motion::modules();
    let error = match modules.get("MotionCombinator").unwrap().construct(&config) {
        Ok(_) => panic!("a broken keyframe file must not load"),
        Err(error) => error.to_string(),
    };
    assert!(error.contains(&format!("wave.toml:{line}:")), "{error}");
    assert!(
        error.contains("keyframe[1].positions_deg.RightElbowRol"),
        "{error}"
    );
    assert!(
        error.contains("`RightElbowRoll`") || error.contains("JointId"),
        "{error}"
    );
}

/// A copy of the shipped configuration whose table runs the bridge, the shipped motion modules
/// and the scripted behaviour (the shipped cognition modules need the Python crate).
fn checked_tree() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    testkit::files::copy_dir(&config::default_root(), root.path());
    let shipped = std::fs::read_to_string(root.path().join("default/processes.toml")).unwrap();
    // The shipped lola and motion entries, as they are.
    let start = shipped.find("[[process]]\nname = \"lola\"").unwrap();
    let end = shipped
        .find("[[process]]\nname = \"perception.upper\"")
        .unwrap();
    let table = format!(
        "{}[[process]]\nname = \"cognition\"\nkind = \"cognition\"\nrate_hz = 60\n\n\
         [process.providers]\nMotionRequest = \"ScriptedBehaviour\"\nLedRequest = \"ScriptedBehaviour\"\n",
        &shipped[start..end]
    );
    std::fs::write(root.path().join("default/processes.toml"), table).unwrap();
    root
}

fn checked_modules() -> ModuleRegistry {
    let mut modules = motion::modules();
    modules.extend(cognition::modules());
    modules.extend(ModuleRegistry::default().with::<ScriptedBehaviour>());
    modules
}

const BRIDGE: framework::ParameterSet = framework::ParameterSet {
    name: "LolaBridge",
    check: |config| lola::bridge::BridgeParameters::load(config).map(drop),
};

/// What `cortex check` reports for the tree at `root` with these overrides.
fn check(root: &Path, overrides: &[&str]) -> Vec<String> {
    let overrides: Vec<config::Override> = overrides
        .iter()
        .map(|text| config::Override::parse(text).unwrap())
        .collect();
    let config = config::Config::load(root, None, &overrides).unwrap();
    let modules = checked_modules();
    let graph = build_graph(config.process_table(), &modules, &registry()).unwrap();
    framework::check_parameters(&config, &graph, &modules, &[BRIDGE])
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Replaces `from` by `to` in the file `relative` under `root`; returns the 1-based line of
/// the change.
fn edit(root: &Path, relative: &str, from: &str, to: &str) -> usize {
    let path = root.join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    let offset = text
        .find(from)
        .unwrap_or_else(|| panic!("{from} in {relative}"));
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    text[..offset].matches('\n').count() + 1
}

#[test]
fn the_check_finds_every_broken_parameter_file_with_file_line_and_key() {
    let clean = checked_tree();
    assert_eq!(check(clean.path(), &[]), Vec::<String>::new());

    type Break = fn(&Path) -> (String, Option<usize>, &'static str);
    let cases: [Break; 10] = [
        |root| {
            let line = edit(
                root,
                "default/motions/wave.toml",
                "duration_ms = 1200",
                "duration_ms = 1e30",
            );
            ("motions/wave.toml".into(), Some(line), "at most 60000")
        },
        |root| {
            let motions = root.join("default/motions");
            std::fs::remove_dir_all(&motions).unwrap();
            std::fs::write(&motions, "").unwrap();
            ("default/motions:1:".into(), None, "must be a folder")
        },
        |root| {
            let line = edit(
                root,
                "default/MotionCombinator.toml",
                "holding_stiffness = ",
                "holding_stiffness = nan\n#",
            );
            (
                "MotionCombinator.toml".into(),
                Some(line),
                "`holding_stiffness`: expected a number from 0 to 1, found NaN",
            )
        },
        |root| {
            let line = edit(
                root,
                "default/MotionCombinator.toml",
                "cycle_time_ms",
                "bogus = 1\ncycle_time_ms",
            );
            (
                "MotionCombinator.toml".into(),
                Some(line),
                "unknown key `bogus`",
            )
        },
        |root| {
            let line = edit(
                root,
                "default/MotionCombinator.toml",
                "cycle_time_ms = ",
                "cycle_time_ms = = ",
            );
            ("MotionCombinator.toml".into(), Some(line), "not valid TOML")
        },
        |root| {
            let line = edit(
                root,
                "default/FallStateProvider.toml",
                "falling_tilt_deg = 40.0",
                "falling_tilt_deg = 10.0",
            );
            (
                "FallStateProvider.toml".into(),
                Some(line),
                "`falling_tilt_deg`: expected more than `staggering_tilt_deg` (20)",
            )
        },
        |root| {
            let line = edit(
                root,
                "default/motions/wave.toml",
                "RightElbowRoll = 85",
                "RightElbowRol = 85",
            );
            ("motions/wave.toml".into(), Some(line), "RightElbowRol")
        },
        |root| {
            let line = edit(
                root,
                "default/motions/wave.toml",
                "RightElbowRoll = 85",
                "RightElbowRoll = 850",
            );
            ("motions/wave.toml".into(), Some(line), "RightElbowRoll")
        },
        |root| {
            std::fs::remove_file(root.join("default/motions/stand.toml")).unwrap();
            (
                "`motions/stand.toml` not found".into(),
                None,
                "MotionCombinator",
            )
        },
        |root| {
            let line = edit(
                root,
                "default/LolaBridge.toml",
                "sit_stiffness = 0.6",
                "sit_stiffness = 5",
            );
            ("LolaBridge.toml".into(), Some(line), "sit_stiffness")
        },
    ];
    for broken in cases {
        let root = checked_tree();
        let (file, line, what) = broken(root.path());
        let errors = check(root.path(), &[]);
        assert_eq!(errors.len(), 1, "{file}: {errors:?}");
        let error = &errors[0];
        let place = match line {
            Some(line) => format!("{file}:{line}:"),
            None => file.clone(),
        };
        assert!(error.contains(&place), "expected `{place}` in: {error}");
        assert!(error.contains(what), "expected `{what}` in: {error}");
        // The process builds its modules through the same loader: it refuses the same way.
        if let Some(module) = ["MotionCombinator", "FallStateProvider"]
            .into_iter()
            .find(|module| error.contains(&format!("module `{module}`")))
        {
            let config = config::Config::load(root.path(), None, &[]).unwrap();
            let built = checked_modules().get(module).unwrap().construct(&config);
            let refused = built.err().expect("the process refuses it too").to_string();
            assert!(error.starts_with(&refused), "{refused} / {error}");
        }
    }
}

#[test]
fn overrides_must_name_parameters_that_are_read_and_keys_that_exist() {
    let root = checked_tree();
    assert!(check(root.path(), &["MotionCombinator.holding_stiffness=0.7"]).is_empty());
    assert!(check(root.path(), &["LolaBridge.sit_stiffness=0.5"]).is_empty());
    for (text, what) in [
        (
            "MotionCombinator.nonexistent=1",
            "unknown key `nonexistent`",
        ),
        (
            "MotionCombinater.x=1",
            "no module or parameter set `MotionCombinater`",
        ),
        (
            "ScriptedBehaviour.x=1",
            "module `ScriptedBehaviour` has no parameters",
        ),
        (
            "MotionCombinator.cycle_time_ms=1e9",
            "`cycle_time_ms`: expected a number from 1 to 100",
        ),
        ("LolaBridge.sit_stiffness=5", "sit_stiffness"),
        ("LolaBridge.sit_stifness=0.5", "sit_stifness"),
        // GameStateProvider runs nowhere here, but its file is there: its keys are checked.
        (
            "GameStateProvider.debounce_ms=5000",
            "`debounce_ms`: expected a number from 0 to 1000",
        ),
    ] {
        let errors = check(root.path(), &[text]);
        assert_eq!(errors.len(), 1, "{text}: {errors:?}");
        assert!(
            errors[0].contains(&format!("--set {text}`")),
            "{text}: {}",
            errors[0]
        );
        assert!(errors[0].contains(what), "{text}: {}", errors[0]);
    }
    // A module that runs nowhere and has no file: the override would change nothing.
    std::fs::remove_file(root.path().join("default/GameStateProvider.toml")).unwrap();
    let errors = check(root.path(), &["GameStateProvider.debounce_ms=20"]);
    assert!(
        errors.len() == 1 && errors[0].contains("runs in no process"),
        "{errors:?}"
    );
}
