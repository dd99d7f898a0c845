//! The shipped `WalkingEngine.toml` loads through the configuration, and broken files are
//! refused with the file, line and key named.

use std::fs;
use std::path::Path;

use config::Validate;
use walking::WalkingEngineParameters;

#[test]
fn the_shipped_file_is_valid_and_equals_the_default() {
    let config = config::Config::load(&config::default_root(), None, &[]).unwrap();
    let parameters: WalkingEngineParameters = config.validated_parameters("WalkingEngine").unwrap();
    assert_eq!(parameters, WalkingEngineParameters::default());
    parameters.validate().unwrap();
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Loads the configuration with `WalkingEngine.toml` edited by `edit`; returns the error text.
fn error_with(edit: impl Fn(&str) -> String) -> String {
    let root = tempfile::tempdir().unwrap();
    copy_tree(&config::default_root(), root.path());
    let file = root.path().join("default/WalkingEngine.toml");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, edit(&text)).unwrap();
    let config = config::Config::load(root.path(), None, &[]).unwrap();
    config
        .validated_parameters::<WalkingEngineParameters>("WalkingEngine")
        .unwrap_err()
        .to_string()
}

fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| line.starts_with(key))
        .map(|index| index + 1)
        .unwrap()
}

#[test]
fn a_value_out_of_range_is_named_with_its_file_line_and_key() {
    let error = error_with(|text| text.replace("foot_lift_m = 0.02", "foot_lift_m = 0.5"));
    let shipped =
        fs::read_to_string(config::default_root().join("default/WalkingEngine.toml")).unwrap();
    let line = line_of(&shipped, "foot_lift_m");
    assert!(
        error.contains(&format!("WalkingEngine.toml:{line}")) && error.contains("foot_lift_m"),
        "{error}"
    );
    assert!(error.contains("0.5"), "{error}");

    let error =
        error_with(|text| text.replace("max_step_fraction = 1.25", "max_step_fraction = 0.5"));
    assert!(error.contains("max_step_fraction"), "{error}");
}

#[test]
fn unknown_missing_and_mistyped_keys_are_refused() {
    let error = error_with(|text| format!("{text}\nstep_lenght_m = 0.1\n"));
    assert!(error.contains("step_lenght_m"), "{error}");

    let error = error_with(|text| {
        text.lines()
            .filter(|line| !line.starts_with("walk_hip_height_m"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    assert!(error.contains("walk_hip_height_m"), "{error}");

    let error = error_with(|text| text.replace("step_period_s = 0.25", "step_period_s = \"fast\""));
    assert!(error.contains("step_period_s"), "{error}");
}

#[test]
fn a_step_adjustment_value_out_of_range_is_named_with_its_table() {
    let error = error_with(|text| text.replace("gain = 1.5", "gain = 30"));
    let shipped =
        fs::read_to_string(config::default_root().join("default/WalkingEngine.toml")).unwrap();
    let line = line_of(&shipped, "gain = ");
    assert!(
        error.contains(&format!("WalkingEngine.toml:{line}"))
            && error.contains("step_adjustment.gain"),
        "{error}"
    );
    assert!(error.contains("30"), "{error}");
    let error = error_with(|text| text.replace("enabled = true", "enabled = 1"));
    assert!(error.contains("enabled"), "{error}");
}
