//! Parsing and checking process tables.

use super::*;

fn parse(text: &str) -> Result<ProcessTable, ConfigError> {
    ProcessTable::parse(Path::new("processes.toml"), text)
}

#[test]
fn a_complete_entry_is_read_with_lines() {
    let text = r#"
[[process]]
name = "motion"
kind = "motion"
trigger = ["SensorData"]
timeout_ms = 24
watchdog_ms = 40
priority = 55
cpus = [3]
restart_intensity = 2
restart_window_s = 10
defaults = ["FallState"]

[process.providers]
JointRequest = "MotionCombinator"
Odometry = "OdometryProvider"

[[process]]
name = "perception.upper"
kind = "perception"
rate_hz = 30
"#;
    let table = parse(text).unwrap();
    let motion = table.get("motion").unwrap();
    assert_eq!(motion.line, 2);
    assert_eq!(motion.kind, ProcessKind::Motion);
    assert_eq!(motion.priority, Some(55));
    assert_eq!(motion.cpus, [3]);
    assert_eq!(motion.watchdog, Duration::from_millis(40));
    assert_eq!(
        motion.restart,
        RestartPolicy {
            intensity: 2,
            window: Duration::from_secs(10)
        }
    );
    let Schedule::Trigger {
        representations,
        timeout,
    } = &motion.schedule
    else {
        panic!("motion is triggered");
    };
    assert_eq!(representations[0].value, "SensorData");
    assert_eq!(representations[0].line, 5);
    assert_eq!(*timeout, Some(Duration::from_millis(24)));
    let joint = motion.provider_of("JointRequest").unwrap();
    assert_eq!(
        (joint.module.as_str(), joint.line),
        ("MotionCombinator", 15)
    );
    assert_eq!(motion.defaults[0].line, 12);

    let upper = table.get("perception.upper").unwrap();
    assert_eq!(upper.line, 18);
    assert_eq!(upper.schedule, Schedule::Rate { hz: 30.0 });
    // Three periods of 33.3 ms by default; default restart policy.
    assert_eq!(upper.watchdog, Duration::from_secs_f64(1.0 / 30.0) * 3);
    assert_eq!(upper.restart.intensity, DEFAULT_RESTART_INTENSITY);
    assert!(upper.providers.is_empty());
}

fn error_of(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn rate_and_trigger_are_exclusive() {
    let both = "[[process]]\nname = \"a\"\nkind = \"debug\"\nrate_hz = 10\ntrigger = [\"X\"]\n";
    assert_eq!(
        error_of(both),
        "processes.toml:1: key `process[0].trigger`: process `a` has both `rate_hz` and \
             `trigger`; give exactly one"
    );
    let neither = "[[process]]\nname = \"a\"\nkind = \"debug\"\n";
    assert!(error_of(neither).starts_with("processes.toml:1: key `process[0].rate_hz`"));
}

#[test]
fn duplicate_names_name_both_lines() {
    let text = "[[process]]\nname = \"a\"\nkind = \"debug\"\nrate_hz = 10\n\n\
                    [[process]]\nname = \"a\"\nkind = \"audio\"\nrate_hz = 10\n";
    assert_eq!(
        error_of(text),
        "processes.toml:6: key `process[1].name`: process `a` is already given at \
             processes.toml:1"
    );
}

#[test]
fn ranges_and_kinds_are_checked_at_their_line() {
    let base = "[[process]]\nname = \"a\"\nkind = \"debug\"\n";
    let cases = [
        (
            "rate_hz = 0\n",
            4,
            "process[0].rate_hz",
            "expected a rate from 0.1 to 1000 Hz, found 0",
        ),
        (
            "rate_hz = 1e12\n",
            4,
            "process[0].rate_hz",
            "found 1000000000000",
        ),
        ("rate_hz = nan\n", 4, "process[0].rate_hz", "found NaN"),
        ("rate_hz = inf\n", 4, "process[0].rate_hz", "found inf"),
        (
            "rate_hz = 10\ncpus = [99]\n",
            5,
            "process[0].cpus[0]",
            "found 99",
        ),
        (
            "rate_hz = 10\nwatchdog_ms = 3600000\n",
            5,
            "process[0].watchdog_ms",
            "from 1 to 60000 ms",
        ),
        (
            "trigger = [\"A\"]\ntimeout_ms = 86400000\n",
            5,
            "process[0].timeout_ms",
            "from 1 to 10000 ms",
        ),
        (
            "rate_hz = 10\nrestart_intensity = 4000000000\n",
            5,
            "process[0].restart_intensity",
            "at most 10000",
        ),
        (
            "rate_hz = 10\nrestart_window_s = 1e300\n",
            5,
            "process[0].restart_window_s",
            "up to 3600",
        ),
        (
            "rate_hz = 10\npriority = 100\n",
            5,
            "process[0].priority",
            "from 1 to 99",
        ),
        (
            "rate_hz = 10\ncpus = [1, 1]\n",
            5,
            "process[0].cpus[1]",
            "listed twice",
        ),
        (
            "rate_hz = 10\ncpus = [-1]\n",
            5,
            "process[0].cpus[0]",
            "CPU index",
        ),
        (
            "rate_hz = 10\nwatchdog_ms = 50\n",
            5,
            "process[0].watchdog_ms",
            "shorter than",
        ),
        (
            "rate_hz = 10\ntimeout_ms = 50\n",
            5,
            "process[0].timeout_ms",
            "only for",
        ),
        ("trigger = []\n", 4, "process[0].trigger", "at least one"),
        (
            "trigger = [\"A\", \"A\"]\ntimeout_ms = 5\n",
            4,
            "process[0].trigger[1]",
            "already",
        ),
        (
            "trigger = [\"A\"]\n",
            1,
            "process[0].watchdog_ms",
            "give `timeout_ms`",
        ),
        (
            "rate_hz = 1\nrestart_window_s = -1\n",
            5,
            "process[0].restart_window_s",
            "above 0",
        ),
        (
            "rate_hz = \"fast\"\n",
            4,
            "process[0].rate_hz",
            "invalid type: string",
        ),
        (
            "rate_hz = 1\nbogus = 1\n",
            5,
            "process[0].bogus",
            "unknown key",
        ),
        (
            "rate_hz = 1\ndefaults = [\"A\"]\n[process.providers]\nA = \"M\"\n",
            7,
            "process[0].providers.A",
            "representation `A` is already given at processes.toml:5",
        ),
    ];
    for (tail, line, key, message) in cases {
        let error = error_of(&format!("{base}{tail}"));
        assert!(
            error.starts_with(&format!("processes.toml:{line}:")),
            "{tail}: {error}"
        );
        assert!(error.contains(&format!("key `{key}`")), "{tail}: {error}");
        assert!(error.contains(message), "{tail}: {error}");
    }
    let kind = error_of("[[process]]\nname = \"a\"\nkind = \"vision\"\nrate_hz = 1\n");
    assert!(
        kind.starts_with("processes.toml:3: key `process[0].kind`: unknown variant `vision`"),
        "{kind}"
    );
    let name = error_of("[[process]]\nname = \"Motion\"\nkind = \"motion\"\nrate_hz = 1\n");
    assert!(
        name.starts_with("processes.toml:2: key `process[0].name`"),
        "{name}"
    );
}

#[test]
fn lola_is_rate_paced_and_single() {
    let triggered = "[[process]]\nname = \"lola\"\nkind = \"lola\"\ntrigger = [\"X\"]\n";
    assert!(error_of(triggered).contains("paced by LoLA's frames"));
    let twice = "[[process]]\nname = \"lola\"\nkind = \"lola\"\nrate_hz = 83.33\n\
                     [[process]]\nname = \"lola2\"\nkind = \"lola\"\nrate_hz = 83.33\n";
    let error = error_of(twice);
    assert!(
        error.starts_with("processes.toml:5: key `process[1].kind`"),
        "{error}"
    );
    assert!(error.contains("LoLA accepts one client"), "{error}");
}

#[test]
fn an_empty_table_is_an_error() {
    assert_eq!(
        error_of("# nothing\n"),
        "processes.toml:1: missing key `process`"
    );
}

#[test]
fn tables_built_in_code_keep_their_specs() {
    let table = parse("[[process]]\nname = \"a\"\nkind = \"debug\"\nrate_hz = 10\n").unwrap();
    let mut twice = table.processes()[0].clone();
    twice.name = "b".to_owned();
    let built = ProcessTable::from_specs(
        Path::new("built.toml"),
        vec![table.processes()[0].clone(), twice],
    );
    assert_eq!(built.file(), Path::new("built.toml"));
    assert_eq!(built.get("b").map(|spec| spec.line), Some(1));
    assert_eq!(built.processes().len(), 2);
}

#[test]
fn the_highest_cpu_is_read_from_the_kernel_list() {
    assert_eq!(check::highest_cpu("0-3\n"), Some(3));
    assert_eq!(check::highest_cpu("0,2-5,7"), Some(7));
    assert_eq!(check::highest_cpu("0"), Some(0));
    assert_eq!(check::highest_cpu("x"), None);
    // The NAO's CPUs are always allowed, whatever this machine has.
    let table = parse("[[process]]\nname = \"a\"\nkind = \"debug\"\nrate_hz = 1\ncpus = [3]\n");
    assert_eq!(table.unwrap().processes()[0].cpus, [3]);
}

#[test]
fn memory_limits_are_read_and_out_of_range_ones_named() {
    let entry = |limit: &str| {
        format!("[[process]]\nname = \"a\"\nkind = \"cognition\"\nrate_hz = 60\n{limit}")
    };
    let table = parse(&entry("memory_limit_mb = 256\n")).unwrap();
    assert_eq!(table.get("a").unwrap().memory_limit_mb, Some(256));
    assert_eq!(
        parse(&entry("")).unwrap().get("a").unwrap().memory_limit_mb,
        None
    );
    for bad in ["0", "15", "-1", "2000000"] {
        let message = error_of(&entry(&format!("memory_limit_mb = {bad}\n")));
        assert!(
            message.starts_with("processes.toml:5: key `process[0].memory_limit_mb`")
                && message.contains("out of range"),
            "{bad}: {message}"
        );
    }
    assert!(error_of(&entry("memory_limit_mb = \"lots\"\n")).contains("memory_limit_mb"));
}

#[test]
fn standby_defaults_by_kind_and_is_refused_for_the_bridge() {
    let entry = |kind: &str, line: &str| {
        format!("[[process]]\nname = \"a\"\nkind = \"{kind}\"\nrate_hz = 60\n{line}")
    };
    for (kind, default) in [
        ("motion", true),
        ("cognition", true),
        ("perception", true),
        ("audio", false),
        ("network", false),
        ("debug", false),
        ("lola", false),
    ] {
        let table = parse(&entry(kind, "")).unwrap();
        assert_eq!(table.get("a").unwrap().standby, default, "{kind}");
    }
    let off = parse(&entry("motion", "standby = false\n")).unwrap();
    assert!(!off.get("a").unwrap().standby);
    let on = parse(&entry("debug", "standby = true\n")).unwrap();
    assert!(on.get("a").unwrap().standby);
    let message = error_of(&entry("lola", "standby = true\n"));
    assert!(
        message.starts_with("processes.toml:5: key `process[0].standby`")
            && message.contains("LoLA accepts one client"),
        "{message}"
    );
    assert!(
        !parse(&entry("lola", "standby = false\n"))
            .unwrap()
            .get("a")
            .unwrap()
            .standby
    );
    let message = error_of(&entry("motion", "standby = \"yes\"\n"));
    assert!(message.contains("processes.toml:5"), "{message}");
    assert!(
        message.contains("standby") || message.contains("bool"),
        "{message}"
    );
}

#[test]
fn alternatives_are_read_and_bad_ones_named_at_their_line() {
    let table = |alternatives: &str| {
        format!(
            "[[process]]\nname = \"cognition\"\nkind = \"cognition\"\nrate_hz = 60\n\n\
             [process.providers]\nBallModel = \"BallModelProvider\"\n\n\
             [process.alternatives]\n{alternatives}\n"
        )
    };
    let parsed = parse(&table(
        r#"BallModel = ["BallModelProvider", "SimpleBallModelProvider"]"#,
    ))
    .unwrap();
    let cognition = parsed.get("cognition").unwrap();
    assert_eq!(cognition.alternatives.len(), 1);
    assert_eq!(cognition.alternatives[0].representation, "BallModel");
    assert_eq!(
        cognition.alternatives[0].modules,
        ["BallModelProvider", "SimpleBallModelProvider"]
    );
    assert_eq!(cognition.alternatives[0].line, 10);
    for (alternatives, expected) in [
        (
            r#"JointRequest = ["A", "B"]"#,
            "processes.toml:10: key `process[0].alternatives.JointRequest`: `JointRequest` has no entry in `providers`",
        ),
        (
            r#"BallModel = ["BallModelProvider"]"#,
            "`process[0].alternatives.BallModel`: expected at least two modules",
        ),
        (
            r#"BallModel = ["SimpleBallModelProvider", "Other"]"#,
            "the list must contain `BallModelProvider`",
        ),
        (
            r#"BallModel = ["BallModelProvider", "X", "X"]"#,
            "`X` is listed twice",
        ),
        (r#"BallModel = ["BallModelProvider", " "]"#, "an empty module name"),
        (r#"BallModel = "BallModelProvider""#, "alternatives"),
    ] {
        let error = error_of(&table(alternatives));
        assert!(error.contains(expected), "{alternatives}: {error}");
    }
}
