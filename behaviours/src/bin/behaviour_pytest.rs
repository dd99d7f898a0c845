//! `behaviour-pytest [--behaviours DIR] [PYTEST ARGUMENTS…]`: runs pytest on a behaviour's
//! offline tests with the real `robot` module (see `behaviours::offline`). Exit codes are
//! pytest's; 2 when pytest is not installed or the folder does not exist.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut arguments: Vec<String> = std::env::args().skip(1).collect();
    let mut folder = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/python"));
    if let Some(at) = arguments
        .iter()
        .position(|argument| argument == "--behaviours")
    {
        let Some(value) = arguments.get(at + 1).cloned() else {
            eprintln!("behaviour-pytest: --behaviours needs a folder");
            return ExitCode::from(2);
        };
        folder = PathBuf::from(value);
        arguments.drain(at..at + 2);
    }
    if !folder.join("behaviour.py").is_file() {
        eprintln!(
            "behaviour-pytest: {} has no behaviour.py (pass --behaviours DIR)",
            folder.display()
        );
        return ExitCode::from(2);
    }
    match behaviours::offline::run_pytest(&folder, &arguments) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!(
                "behaviour-pytest: {error} (is pytest installed? `python3 -m pip install pytest`)"
            );
            ExitCode::from(2)
        }
    }
}
