//! `robot.log`: a behaviour's messages reach `tracing` at their level with file, line and
//! function; a bad level is a `ValueError` naming it; one line of Python cannot flood the log.

use behaviours::log::BURST;
use behaviours::prepare_interpreter;
use pyo3::prelude::*;
use pyo3::types::PyModule;
use std::ffi::CString;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Everything `tracing` writes while `run` runs on this thread.
fn captured(run: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);
    impl Write for Capture {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, run);
    let bytes = capture.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

/// Runs `source` as the module `file` (its file name in tracebacks and in the log) and calls
/// its `main()`; the Python error as text if it raises.
fn run_python(file: &str, source: &str) -> Result<(), String> {
    prepare_interpreter().unwrap();
    let code = CString::new(source).unwrap();
    let file_name = CString::new(file).unwrap();
    let module_name = CString::new(file.trim_end_matches(".py")).unwrap();
    Python::attach(|py| {
        let module = PyModule::from_code(py, &code, &file_name, &module_name)
            .map_err(|error| error.to_string())?;
        module
            .getattr("main")
            .and_then(|main| main.call0())
            .map(drop)
            .map_err(|error| error.to_string())
    })
}

#[test]
fn every_level_reaches_the_log_with_file_line_and_function() {
    let log = captured(|| {
        run_python(
            "log_levels.py",
            "import robot\n\ndef look(x):\n    robot.log.info('ball at', x, [2])\n    robot.log.debug('details')\n    robot.log.warning('no goal')\n    robot.log.error('lost')\n    robot.log('warning', 'by name', 7)\n\ndef main():\n    look(1.5)\n",
        )
        .unwrap();
    });
    for expected in [
        "INFO behaviour: log_levels.py:4 (look): ball at 1.5 [2]",
        "DEBUG behaviour: log_levels.py:5 (look): details",
        "WARN behaviour: log_levels.py:6 (look): no goal",
        "ERROR behaviour: log_levels.py:7 (look): lost",
        "WARN behaviour: log_levels.py:8 (look): by name 7",
    ] {
        assert!(
            log.contains(expected),
            "{expected:?} not in the log:\n{log}"
        );
    }
}

#[test]
fn an_unknown_level_is_a_value_error_naming_it_and_the_known_ones() {
    for (call, named) in [
        ("robot.log('loud', 'x')", "\"loud\""),
        ("robot.log(3, 'x')", "int"),
    ] {
        let error = run_python(
            "log_bad_level.py",
            &format!("import robot\n\ndef main():\n    {call}\n"),
        )
        .expect_err(call);
        assert!(
            error.starts_with("ValueError: robot.log: the level must be one of")
                && error.contains("\"warning\"")
                && error.contains(named),
            "{call}: {error}"
        );
    }
}

#[test]
fn one_line_logs_a_burst_per_second_and_another_line_still_gets_through() {
    let log = captured(|| {
        run_python(
            "log_flood.py",
            "import robot\n\ndef main():\n    for i in range(100):\n        robot.log.info('flood', i)\n    robot.log.info('after the flood')\n",
        )
        .unwrap();
    });
    let flood_lines = log.matches("log_flood.py:5 (main): flood").count();
    assert_eq!(flood_lines, BURST as usize, "{log}");
    assert!(
        log.contains("log_flood.py:6 (main): after the flood"),
        "{log}"
    );
}
