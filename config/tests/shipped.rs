//! The configuration that ships in `config/data/` loads cleanly and says what the design says.

use std::path::Path;
use std::time::Duration;

use config::{Config, ProcessKind, RobotIdentitySerials, Robots, Schedule};

fn shipped_root() -> &'static Path {
    // Not `default_root()`: a CORTEX_CONFIG_DIR in the environment must not change this test.
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))
}

#[test]
fn the_shipped_configuration_loads_without_warnings() {
    let config = Config::load(shipped_root(), None, &[]).unwrap();
    let settings = config.settings();
    assert_eq!((settings.team_number, settings.player_number), (24, 1));
    assert_eq!(
        (settings.location.as_str(), settings.scenario.as_str()),
        ("default", "default")
    );
    assert_eq!(config.search_path().len(), 3);
    assert!(config.warnings().is_empty());
}

#[test]
fn the_example_robots_resolve() {
    let identity = RobotIdentitySerials {
        body: "P0000073A07S94700012".into(),
        head: "P0000074A05S93M00061".into(),
    };
    let config = Config::load(shipped_root(), Some(&identity), &[]).unwrap();
    assert_eq!(config.selection().head.as_deref(), Some("alan"));
    assert_eq!(config.selection().body.as_deref(), Some("alan"));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let robots = Robots::load(&shipped_root().join("robots.toml")).unwrap();
    assert_eq!(robots.head_name("P0000074A05S93M00087"), Some("grace"));
    assert_eq!(robots.body_name("P0000074A05S93M00087"), None);
}

#[test]
fn the_shipped_process_table_matches_the_architecture() {
    let config = Config::load(shipped_root(), None, &[]).unwrap();
    let table = config.process_table();
    let names: Vec<&str> = table.processes().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "lola",
            "motion",
            "perception.upper",
            "perception.lower",
            "cognition",
            "audio",
            "network",
            "debug"
        ]
    );

    let lola = table.get("lola").unwrap();
    assert_eq!(lola.kind, ProcessKind::Lola);
    assert_eq!(lola.schedule, Schedule::Rate { hz: 83.33 });
    assert!(lola.providers.is_empty());

    let motion = table.get("motion").unwrap();
    assert_eq!(motion.watchdog, Duration::from_millis(40));
    assert!(
        matches!(&motion.schedule, Schedule::Trigger { representations, timeout: Some(_) }
        if representations.iter().map(|r| r.value.as_str()).eq(["SensorData"]))
    );
    // The tightest watchdog of all is motion's.
    let tightest = table.processes().iter().min_by_key(|p| p.watchdog).unwrap();
    assert_eq!(tightest.name, "motion");

    // The cameras run at 30 Hz and each provides its BallPercept; cognition is woken by either
    // camera's percepts.
    for camera in ["perception.upper", "perception.lower"] {
        let process = table.get(camera).unwrap();
        assert_eq!(process.schedule, Schedule::Rate { hz: 30.0 });
        assert_eq!(
            process.provider_of("BallPercept").unwrap().module,
            "BallPerceptor"
        );
    }
    let cognition = table.get("cognition").unwrap();
    assert!(
        matches!(&cognition.schedule, Schedule::Trigger { representations, timeout: Some(_) }
        if representations.iter().map(|r| r.value.as_str()).eq(["upper.BallPercept", "lower.BallPercept"]))
    );
    assert_eq!(
        cognition.provider_of("BehaviourRequest").unwrap().module,
        "BehaviourControl"
    );
    // Every entry knows its place in the file, for the graph builder's errors.
    let text = std::fs::read_to_string(table.file()).unwrap();
    for process in table.processes() {
        let header = text.lines().nth(process.line - 1).unwrap();
        assert_eq!(header, "[[process]]", "{}", process.name);
        for provider in &process.providers {
            let line = text.lines().nth(provider.line - 1).unwrap();
            assert!(line.starts_with(&provider.representation), "{line}");
        }
    }
}
