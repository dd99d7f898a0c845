//! Table-driven tests of the graph builder in the style of B-Human's `ModuleGraphCreator` tests:
//! small test modules, a process table, and the expected provider order and received/sent
//! channels per process; then one test per error, asserting that the message names the culprit.

use framework::{build_graph, GraphError, ModuleRegistry, RepresentationRegistry, Update};
use serde::{Deserialize, Serialize};
use std::path::Path;

macro_rules! test_representations {
    ($($name:ident),*) => {
        $(
            #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
            pub struct $name { pub value: i64 }
        )*
        types::representations!($($name),*);
        fn representations() -> RepresentationRegistry {
            RepresentationRegistry::default()$(.with::<$name>())*
        }
    };
}
test_representations!(
    SensorData,
    RobotIdentity,
    JointRequest,
    LedRequest,
    A,
    B,
    C,
    D,
    E,
    F,
    X,
    Y,
    BallPercept,
    Unused,
    GroundTruth,
    Judged
);

macro_rules! test_module {
    ($module:ident, $inputs:ident, requires { $($r:ident : $rt:ty),* }, uses { $($u:ident : $ut:ty),* }, provides { $($p:ty),* }) => {
        #[derive(Debug)]
        pub struct $module;
        framework::module! {
            $module {
                inputs: $inputs,
                requires: { $($r: $rt),* },
                uses: { $($u: $ut),* },
                provides: { $($p),* },
            }
        }
        impl $module {
            fn new(_: framework::NoParameters) -> Self {
                $module
            }
        }
        $(
            impl Update<$p> for $module {
                fn update(&mut self, _: &$inputs, _: &mut $p) {}
            }
        )*
    };
}

test_module!(
    ProvideA,
    ProvideAInputs,
    requires {},
    uses {},
    provides { A }
);
test_module!(
    ProvideB,
    ProvideBInputs,
    requires { a: A },
    uses {},
    provides { B }
);
test_module!(
    ProvideC,
    ProvideCInputs,
    requires { b: B },
    uses { d: D },
    provides { C }
);
test_module!(
    ProvideD,
    ProvideDInputs,
    requires { c: C },
    uses {},
    provides { D }
);
test_module!(
    ProvideEF,
    ProvideEFInputs,
    requires { a: A },
    uses {},
    provides { E, F }
);
test_module!(OtherE, OtherEInputs, requires {}, uses {}, provides { E });
test_module!(
    CycleX,
    CycleXInputs,
    requires { y: Y },
    uses {},
    provides { X }
);
test_module!(
    CycleY,
    CycleYInputs,
    requires { x: X },
    uses {},
    provides { Y }
);
test_module!(
    Motion,
    MotionInputs,
    requires {
        sensor_data: SensorData
    },
    uses { b: B },
    provides {
        JointRequest,
        LedRequest
    }
);
test_module!(
    Perceptor,
    PerceptorInputs,
    requires {},
    uses {},
    provides { BallPercept }
);
test_module!(
    NeedsBall,
    NeedsBallInputs,
    requires { ball: BallPercept },
    uses {},
    provides { F }
);
test_module!(
    Judge,
    JudgeInputs,
    requires {},
    uses { truth: GroundTruth },
    provides { Judged }
);

/// Reads the ball of each camera by instance (HULKs' `PerceptionInput` from `VisionTop` and
/// `VisionBottom`).
#[derive(Debug)]
pub struct BothBalls;
framework::module! {
    BothBalls {
        inputs: BothBallsInputs,
        requires: { ball_upper from upper: BallPercept },
        uses: { ball_lower from lower: BallPercept },
        provides: { X },
    }
}
impl BothBalls {
    fn new(_: framework::NoParameters) -> Self {
        BothBalls
    }
}
impl Update<X> for BothBalls {
    fn update(&mut self, _: &BothBallsInputs, _: &mut X) {}
}

fn modules() -> ModuleRegistry {
    ModuleRegistry::default()
        .with::<BothBalls>()
        .with::<ProvideA>()
        .with::<ProvideB>()
        .with::<ProvideC>()
        .with::<ProvideD>()
        .with::<ProvideEF>()
        .with::<OtherE>()
        .with::<CycleX>()
        .with::<CycleY>()
        .with::<Motion>()
        .with::<Perceptor>()
        .with::<NeedsBall>()
        .with::<Judge>()
}

#[allow(clippy::result_large_err)] // errors carry their whole context; see graph.rs
fn build(table: &str) -> Result<framework::Graph, GraphError> {
    let table =
        config::ProcessTable::parse(Path::new("processes.toml"), table).expect("a valid table");
    build_graph(&table, &modules(), &representations())
}

struct Expected {
    process: &'static str,
    order: &'static [&'static str],
    received: &'static [&'static str],
    sent: &'static [&'static str],
}

fn check(table: &str, expected: &[Expected]) {
    let graph = build(table).unwrap_or_else(|error| panic!("{error}"));
    for case in expected {
        let plan = graph
            .process(case.process)
            .unwrap_or_else(|| panic!("no process {}", case.process));
        let order: Vec<&str> = plan.order.iter().map(|step| step.module.as_str()).collect();
        assert_eq!(order, case.order, "order of {}", case.process);
        let received: Vec<&str> = plan.inbound.iter().map(|i| i.channel.as_str()).collect();
        assert_eq!(received, case.received, "received by {}", case.process);
        assert_eq!(plan.outbound, case.sent, "sent by {}", case.process);
    }
}

#[test]
fn orders_and_channels() {
    // One process: order follows `requires` whatever the table order; `uses` of a later
    // provider does not constrain (C uses D, D requires C).
    check(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        D = "ProvideD"
        C = "ProvideC"
        B = "ProvideB"
        A = "ProvideA"
        "#,
        &[Expected {
            process: "one",
            order: &["ProvideA", "ProvideB", "ProvideC", "ProvideD"],
            received: &[],
            sent: &["A", "B", "C", "D"],
        }],
    );
    // Two processes: B crosses from "first" to "second"; a module providing two representations
    // runs once.
    check(
        r#"
        [[process]]
        name = "first"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        A = "ProvideA"
        B = "ProvideB"
        E = "ProvideEF"
        F = "ProvideEF"

        [[process]]
        name = "second"
        kind = "motion"
        rate_hz = 10
        [process.providers]
        C = "ProvideC"
        D = "ProvideD"
        "#,
        &[
            Expected {
                process: "first",
                order: &["ProvideA", "ProvideB", "ProvideEF"],
                received: &[],
                sent: &["A", "B", "E", "F"],
            },
            Expected {
                process: "second",
                order: &["ProvideC", "ProvideD"],
                received: &["B"],
                sent: &["C", "D"],
            },
        ],
    );
    // The lola bridge: provides SensorData, reads JointRequest and LedRequest; motion is woken by
    // SensorData; a default satisfies a `uses`.
    check(
        r#"
        [[process]]
        name = "lola"
        kind = "lola"
        rate_hz = 83.33

        [[process]]
        name = "motion"
        kind = "motion"
        trigger = ["SensorData"]
        timeout_ms = 24
        defaults = ["B"]
        [process.providers]
        JointRequest = "Motion"
        LedRequest = "Motion"
        "#,
        &[
            Expected {
                process: "lola",
                order: &[],
                received: &["JointRequest", "LedRequest"],
                sent: &["RobotIdentity", "SensorData"],
            },
            Expected {
                process: "motion",
                order: &["Motion"],
                received: &["SensorData"],
                sent: &["JointRequest", "LedRequest"],
            },
        ],
    );
    // Instances of one kind: channels are named with the instance alias; a trigger picks one.
    check(
        r#"
        [[process]]
        name = "perception.upper"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"

        [[process]]
        name = "perception.lower"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"

        [[process]]
        name = "cognition"
        kind = "cognition"
        trigger = ["upper.BallPercept", "lower.BallPercept"]
        timeout_ms = 50
        "#,
        &[
            Expected {
                process: "perception.upper",
                order: &["Perceptor"],
                received: &[],
                sent: &["upper.BallPercept"],
            },
            Expected {
                process: "perception.lower",
                order: &["Perceptor"],
                received: &[],
                sent: &["lower.BallPercept"],
            },
            Expected {
                process: "cognition",
                order: &[],
                received: &["lower.BallPercept", "upper.BallPercept"],
                sent: &[],
            },
        ],
    );
}

#[test]
fn everything_provided_is_shared_and_consumers_are_listed() {
    let graph = build(
        r#"
        [[process]]
        name = "first"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        A = "ProvideA"
        B = "ProvideB"

        [[process]]
        name = "second"
        kind = "motion"
        rate_hz = 10
        [process.providers]
        C = "ProvideC"
        D = "ProvideD"
        "#,
    )
    .unwrap();
    assert_eq!(graph.channel("B").unwrap().consumers, ["second"]);
    assert_eq!(graph.channel("B").unwrap().producer, "first");
    assert!(
        graph.channel("A").unwrap().consumers.is_empty(),
        "A is read by nobody but still shared"
    );
    assert!(graph.channel("D").unwrap().consumers.is_empty());
}

#[test]
fn the_shipped_report_lists_processes_and_channels() {
    let graph = build(
        r#"
        [[process]]
        name = "a"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        A = "ProvideA"
        [[process]]
        name = "b"
        kind = "motion"
        rate_hz = 10
        [process.providers]
        B = "ProvideB"
        "#,
    )
    .unwrap();
    let report = graph.to_string();
    assert!(report.contains("1. ProvideA -> A"), "{report}");
    assert!(report.contains("A: a -> b"), "{report}");
    assert!(
        report.contains("B: b -> - (published only while watched"),
        "{report}"
    );
}

fn error(table: &str) -> String {
    match build(table) {
        Ok(graph) => panic!("expected an error, got {graph:?}"),
        Err(error) => error.to_string(),
    }
}

fn assert_names(message: &str, culprits: &[&str]) {
    for culprit in culprits {
        assert!(
            message.contains(culprit),
            "{message:?} does not name {culprit:?}"
        );
    }
}

#[test]
fn missing_provider() {
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        B = "ProvideB"
        "#,
    );
    assert_names(
        &message,
        &["processes.toml:2", "`one`", "`ProvideB` requires `A`"],
    );
}

#[test]
fn unknown_module_and_representation() {
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        A = "ProvideAA"
        "#,
    );
    assert_names(
        &message,
        &["processes.toml:7", "unknown module `ProvideAA`", "ProvideA"],
    );
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        Q = "ProvideA"
        "#,
    );
    assert_names(
        &message,
        &["processes.toml:7", "unknown representation `Q`"],
    );
}

#[test]
fn module_chosen_for_what_it_does_not_provide() {
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        B = "ProvideA"
        "#,
    );
    assert_names(&message, &["`ProvideA` does not provide `B`", "`A`"]);
}

#[test]
fn two_providers_in_one_process() {
    // A TOML table cannot hold a key twice, so the duplicate is built by hand from a table.
    let table = config::ProcessTable::parse(
        Path::new("processes.toml"),
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        E = "ProvideEF"
        A = "ProvideA"
        "#,
    )
    .unwrap();
    // Build the duplicate by hand: two entries for E in one process.
    let mut spec = table.processes()[0].clone();
    let mut second = spec.providers[0].clone();
    second.value.module = "OtherE".to_owned();
    second.line = 9;
    spec.providers.push(second);
    let table = config::ProcessTable::from_specs(Path::new("processes.toml"), vec![spec]);
    let message = build_graph(&table, &modules(), &representations())
        .unwrap_err()
        .to_string();
    assert_names(
        &message,
        &[
            "processes.toml:9",
            "`E` has two providers",
            "`ProvideEF`",
            "`OtherE`",
        ],
    );
}

#[test]
fn cycle_is_named() {
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        X = "CycleX"
        Y = "CycleY"
        "#,
    );
    assert_names(&message, &["`one`", "cycle", "CycleX", "CycleY", "->"]);
}

#[test]
fn bad_and_ambiguous_aliases() {
    let perception = r#"
        [[process]]
        name = "perception.upper"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"

        [[process]]
        name = "perception.lower"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"
    "#;
    let message = error(&format!(
        "{perception}\n[[process]]\nname = \"cognition\"\nkind = \"cognition\"\ntrigger = [\"middle.BallPercept\"]\ntimeout_ms = 50\n"
    ));
    assert_names(
        &message,
        &[
            "bad alias `middle.BallPercept`",
            "no process instance is called `middle`",
            "upper",
            "lower",
        ],
    );
    let message = error(&format!(
        "{perception}\n[[process]]\nname = \"cognition\"\nkind = \"cognition\"\ntrigger = [\"upper.A\"]\ntimeout_ms = 50\n"
    ));
    assert_names(&message, &["bad alias `upper.A`", "does not provide `A`"]);
    let message = error(&format!(
        "{perception}\n[[process]]\nname = \"cognition\"\nkind = \"cognition\"\nrate_hz = 10\n[process.providers]\nF = \"NeedsBall\"\n"
    ));
    assert_names(
        &message,
        &[
            "`BallPercept` is provided by",
            "`upper.BallPercept`",
            "`lower.BallPercept`",
        ],
    );
}

#[test]
fn default_that_is_also_provided() {
    // Within one process the table itself refuses it (config); across processes the graph does.
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        defaults = ["A"]

        [[process]]
        name = "two"
        kind = "motion"
        rate_hz = 10
        [process.providers]
        A = "ProvideA"
        "#,
    );
    assert_names(
        &message,
        &[
            "processes.toml:6",
            "`A` is a default representation",
            "`ProvideA` in process `two`",
            "`one`",
        ],
    );
}

#[test]
fn an_input_from_a_named_instance_reads_that_instances_channel() {
    let perception = r#"
        [[process]]
        name = "perception.upper"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"

        [[process]]
        name = "perception.lower"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"
    "#;
    let cognition = "[[process]]\nname = \"cognition\"\nkind = \"cognition\"\nrate_hz = 60\n[process.providers]\nX = \"BothBalls\"\n";
    let declaration = framework::ModuleEntry::of::<BothBalls>().declaration;
    assert!(declaration.requires.is_empty() && declaration.uses.is_empty());
    assert_eq!(declaration.qualified.len(), 2, "{declaration:?}");
    // Unqualified, the same read is ambiguous (`bad_and_ambiguous_aliases`); qualified, each
    // input reads its own instance's channel.
    check(
        &format!("{perception}\n{cognition}"),
        &[
            Expected {
                process: "cognition",
                order: &["BothBalls"],
                received: &["lower.BallPercept", "upper.BallPercept"],
                sent: &["X"],
            },
            Expected {
                process: "perception.upper",
                order: &["Perceptor"],
                received: &[],
                sent: &["upper.BallPercept"],
            },
        ],
    );
    let graph = build(&format!("{perception}\n{cognition}")).unwrap();
    for channel in ["upper.BallPercept", "lower.BallPercept"] {
        assert_eq!(graph.channel(channel).unwrap().consumers, ["cognition"]);
    }
    // What another process reads is published every tick; X (read by nobody) only while watched.
    let upper = graph.process("perception.upper").unwrap();
    assert_eq!(upper.outbound_read, ["upper.BallPercept"]);
    assert!(graph.process("cognition").unwrap().outbound_read.is_empty());

    // An instance that does not exist, or does not provide it, is named.
    let only_upper = r#"
        [[process]]
        name = "perception.upper"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        BallPercept = "Perceptor"

        [[process]]
        name = "perception.lower"
        kind = "perception"
        rate_hz = 30
    "#;
    let message = error(&format!("{only_upper}\n{cognition}"));
    assert_names(
        &message,
        &[
            "bad alias `lower.BallPercept (read by module `BothBalls`)`",
            "process `perception.lower` does not provide `BallPercept`",
        ],
    );
    let message = error(&format!(
        "[[process]]\nname = \"perception.upper\"\nkind = \"perception\"\nrate_hz = 30\n[process.providers]\nBallPercept = \"Perceptor\"\n{cognition}"
    ));
    assert_names(
        &message,
        &[
            "`lower.BallPercept",
            "no process instance is called `lower`",
            "upper",
        ],
    );
}

#[test]
fn ground_truth_comes_from_the_simulator_outside_the_table() {
    let graph = build(
        r#"
        [[process]]
        name = "perception.upper"
        kind = "perception"
        rate_hz = 30
        [process.providers]
        Judged = "Judge"
        "#,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let plan = graph.process("perception.upper").unwrap();
    let received: Vec<&str> = plan.inbound.iter().map(|i| i.channel.as_str()).collect();
    assert_eq!(received, ["GroundTruth"]);
    let channel = graph
        .channel("GroundTruth")
        .expect("a channel the supervisor makes");
    assert_eq!(channel.producer, framework::graph::SIMULATOR_PRODUCER);
    assert_eq!(channel.consumers, ["perception.upper"]);
    // Nobody else provides what the simulator does; anything else unprovided is still an error.
    let message = error(
        r#"
        [[process]]
        name = "one"
        kind = "cognition"
        rate_hz = 10
        [process.providers]
        B = "ProvideB"
        "#,
    );
    assert_names(&message, &["`A`", "no process provides"]);
}
