//! `python/robot.pyi` (the type stubs an editor completes the API from) names exactly what the
//! real `robot` module has: its names, its classes' members and the fields of every record a
//! blackboard holds. The comparison is `tests/python/stub_check.py`, run in the embedded
//! interpreter, so a change to the Rust side that the stub misses fails here.

use behaviours::view::PyBlackboard;
use behaviours::{prepare_interpreter, BlackboardSnapshot};
use pyo3::prelude::*;
use pyo3::types::PyModule;
use std::ffi::CString;
use std::path::Path;
use types::{SeenBall, TeamMate, TeamMateMessage};

fn check(stub_source: &str) -> Vec<String> {
    prepare_interpreter().unwrap();
    let checker = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/stub_check.py");
    let checker = CString::new(std::fs::read_to_string(checker).unwrap()).unwrap();
    Python::attach(|py| {
        let module = PyModule::from_code(py, &checker, c"stub_check.py", c"stub_check").unwrap();
        let blackboard = Py::new(py, PyBlackboard::new(snapshot_reaching_every_record())).unwrap();
        module
            .getattr("differences")
            .unwrap()
            .call1((stub_source, "robot.pyi", blackboard))
            .unwrap_or_else(|error| panic!("stub_check.py: {error}"))
            .extract()
            .unwrap()
    })
}

/// A default blackboard, except that the records only an `Option` or a list would hold (a team
/// mate, its ball) are there, so that the check sees them.
fn snapshot_reaching_every_record() -> BlackboardSnapshot {
    let mut snapshot = BlackboardSnapshot::default();
    snapshot.team_mates.players.push(TeamMate {
        message: TeamMateMessage {
            ball: Some(SeenBall::default()),
            ..TeamMateMessage::default()
        },
        ..TeamMate::default()
    });
    snapshot
}

fn shipped_stub() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/robot.pyi"))
        .expect("behaviours/python/robot.pyi is shipped")
}

#[test]
fn the_shipped_stub_names_every_public_attribute_of_the_real_module() {
    let problems = check(&shipped_stub());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_stub_that_misses_a_member_or_names_a_stale_one_is_caught() {
    let stub = shipped_stub();
    // A method of the request's body taken out: caught as missing.
    let without_walk = stub.replacen("    def walk(", "    def _gone(", 1);
    assert_ne!(without_walk, stub, "the stub declares Body.walk");
    let problems = check(&without_walk);
    assert!(
        problems.iter().any(|p| p.contains("Body.walk exists")),
        "{problems:?}"
    );
    // A field of GameState that does not exist: caught as stale.
    let stale = stub.replacen(
        "class GameState(NamedTuple):\n",
        "class GameState(NamedTuple):\n    shirt_number: int\n",
        1,
    );
    assert_ne!(stale, stub, "the stub declares GameState");
    let problems = check(&stale);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("GameState.shirt_number is in the stub")),
        "{problems:?}"
    );
}
