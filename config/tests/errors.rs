//! Every kind of error, each naming the file, the line and the key (or what it searched).

mod common;

use common::{assert_names, Tree, MINIMAL_PROCESSES};
use config::{Config, ConfigError};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Read only by serde.
struct Ball {
    radius_mm: f64,
    colours: Vec<String>,
    filter: Filter,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Filter {
    gain: f64,
}

const GOOD_BALL: &str = "radius_mm = 50.0\ncolours = [\"white\"]\n\n[filter]\ngain = 0.5\n";

fn ball_error(tree: &Tree) -> ConfigError {
    tree.load_robot(&[])
        .unwrap()
        .parameters::<Ball>("Ball")
        .unwrap_err()
}

#[test]
fn syntax_errors_name_line_and_column() {
    let tree = Tree::new();
    tree.write(
        "default/Ball.toml",
        "radius_mm = 50.0\ncolours = [\"white\"\n",
    );
    let error = ball_error(&tree);
    assert!(
        matches!(error, ConfigError::Syntax { line: 2, .. }),
        "{error}"
    );
    assert!(error
        .to_string()
        .starts_with(&format!("{}:2:", tree.path("default/Ball.toml").display())));
    // A key given twice is a syntax error at the second one.
    tree.write(
        "settings.toml",
        "team_number = 1\nplayer_number = 1\nteam_number = 2\n",
    );
    let error = tree.load().unwrap_err();
    assert!(
        matches!(error, ConfigError::Syntax { line: 3, .. }),
        "{error}"
    );
    // The parser only says "duplicate key": the message adds which.
    assert!(error.to_string().contains("`team_number`"), "{error}");
}

#[test]
fn unknown_keys_name_the_layer_that_added_them() {
    let tree = Tree::new();
    tree.write("default/Ball.toml", GOOD_BALL);
    tree.write(
        "robots/ada/Ball.toml",
        "# head calibration\n\n[filter]\ngian = 0.7\n",
    );
    let error = ball_error(&tree);
    assert_names(&tree, &error, "robots/ada/Ball.toml", 4, "filter.gian");
    assert!(error.to_string().contains("expected `gain`"), "{error}");
    assert!(matches!(error, ConfigError::UnknownKey { .. }));
}

#[test]
fn wrong_types_name_the_layer_that_set_the_value() {
    let tree = Tree::new();
    tree.write("default/Ball.toml", GOOD_BALL);
    tree.write("robots/bob/Ball.toml", "\n\nradius_mm = \"fifty\"\n");
    let error = ball_error(&tree);
    assert_names(&tree, &error, "robots/bob/Ball.toml", 3, "radius_mm");
    assert!(error.to_string().contains("expected f64"), "{error}");

    // An array element on its own line is named with its index and line.
    tree.write(
        "robots/bob/Ball.toml",
        "colours = [\n  \"white\",\n  false,\n]\n",
    );
    let error = ball_error(&tree);
    assert_names(&tree, &error, "robots/bob/Ball.toml", 3, "colours[1]");
}

#[test]
fn missing_keys_name_the_table_that_lacks_them() {
    let tree = Tree::new();
    tree.write(
        "default/Ball.toml",
        "radius_mm = 50.0\ncolours = []\n\n[filter]\n",
    );
    let error = ball_error(&tree);
    assert_names(&tree, &error, "default/Ball.toml", 4, "filter.gain");
    assert!(matches!(error, ConfigError::MissingKey { .. }));
}

#[test]
fn missing_parameters_name_the_module_and_every_folder_searched() {
    let tree = Tree::new();
    tree.mkdir("robots/ada");
    let config = tree.load_robot(&[]).unwrap();
    let error = config.parameters::<Ball>("Ball").unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`Ball`") && message.contains("`Ball.toml`"),
        "{message}"
    );
    for folder in config.search_path() {
        assert!(message.contains(&folder.display().to_string()), "{message}");
    }
    assert!(error.is_config_error());
}

#[test]
fn module_names_cannot_leave_the_search_path() {
    let tree = Tree::new();
    tree.write("secret.toml", GOOD_BALL);
    let config = tree.load().unwrap();
    for name in ["../secret", "", "Ball.toml", "a/b"] {
        let error = config.parameters::<Ball>(name).unwrap_err();
        assert!(
            matches!(error, ConfigError::InvalidModuleName { .. }),
            "{name}: {error}"
        );
    }
}

#[test]
fn settings_errors_name_file_line_and_key() {
    let tree = Tree::new();
    let cases = [
        ("team_number = 24\nplayer_number = 0\nlocation = \"default\"\nscenario = \"default\"\n", 2, "player_number"),
        ("team_number = -1\nplayer_number = 1\nlocation = \"default\"\nscenario = \"default\"\n", 1, "team_number"),
        ("team_number = 24\nplayer_number = 1\nlocation = \"default\"\nscenario = \"default\"\nrole = \"keeper\"\n", 5, "role"),
        ("team_number = 24\nplayer_number = 1\n\nscenario = \"default\"\n", 1, "location"),
        ("team_number = 24\nplayer_number = 1\nlocation = \"../..\"\nscenario = \"default\"\n", 3, "location"),
    ];
    for (text, line, key) in cases {
        tree.write("settings.toml", text);
        let error = tree.load().unwrap_err();
        assert_names(&tree, &error, "settings.toml", line, key);
    }
}

#[test]
fn an_unknown_location_or_scenario_lists_the_available_ones() {
    let tree = Tree::new();
    tree.mkdir("scenarios/game");
    tree.write(
        "settings.toml",
        "team_number = 24\nplayer_number = 1\nlocation = \"default\"\nscenario = \"gaem\"\n",
    );
    let error = tree.load().unwrap_err();
    assert_names(&tree, &error, "settings.toml", 4, "scenario");
    let message = error.to_string();
    assert!(message.contains("`gaem`"), "{message}");
    assert!(message.contains("available: default, game"), "{message}");
}

#[test]
fn process_table_errors_name_file_line_and_key() {
    let tree = Tree::new();
    tree.write(
        "default/processes.toml",
        &format!("{MINIMAL_PROCESSES}\n[[process]]\nname = \"audio\"\nkind = \"audio\"\nrate_hz = 20\npriority = 0\n"),
    );
    let error = tree.load().unwrap_err();
    assert_names(
        &tree,
        &error,
        "default/processes.toml",
        10,
        "process[1].priority",
    );
    assert!(error.to_string().contains("from 1 to 99"), "{error}");
}

#[test]
fn missing_files_and_folders_name_what_was_searched() {
    let tree = Tree::new();
    std::fs::remove_file(tree.path("default/processes.toml")).unwrap();
    let error = tree.load().unwrap_err();
    assert!(
        matches!(error, ConfigError::MissingFile { ref file_name, ref searched }
        if file_name == "processes.toml" && searched.len() == 3)
    );
    assert!(error
        .to_string()
        .contains(&tree.path("default").display().to_string()));

    std::fs::remove_file(tree.path("settings.toml")).unwrap();
    let error = tree.load().unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("`settings.toml` not found in any of:"),
        "{error}"
    );

    std::fs::remove_dir_all(tree.path("default")).unwrap();
    let error = tree.load().unwrap_err();
    assert!(
        matches!(error, ConfigError::MissingFolder { .. }),
        "{error}"
    );
    assert!(error
        .to_string()
        .contains(&tree.path("default").display().to_string()));

    let error = Config::load(&tree.path("nowhere"), None, &[]).unwrap_err();
    assert!(
        matches!(error, ConfigError::MissingFolder { .. }),
        "{error}"
    );
    assert!(error.is_config_error());
}

#[test]
fn a_file_that_is_not_utf8_is_a_configuration_error() {
    let tree = Tree::new();
    let path = tree.path("default/Ball.toml");
    std::fs::write(&path, b"radius_mm = \xff\n").unwrap();
    let error = ball_error(&tree);
    assert!(matches!(error, ConfigError::Read { .. }), "{error}");
    assert!(
        error.to_string().contains(&path.display().to_string()),
        "{error}"
    );
    assert!(error.is_config_error());
}

#[test]
fn malformed_overrides_are_configuration_errors() {
    let error = "team_number=5".parse::<config::Override>().unwrap_err();
    assert!(error.to_string().contains("--set team_number=5"), "{error}");
    assert_eq!(error.exit_code(), config::EX_CONFIG);
}

/// Parameters with ranges, as a module declares them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Kick {
    stiffness: f32,
    gains: Vec<f64>,
    #[serde(rename = "sit_pose_rad")]
    pose: std::collections::BTreeMap<String, f32>,
}

impl config::Validate for Kick {
    fn validate(&self) -> Result<(), config::Invalid> {
        config::in_range("stiffness", self.stiffness, 0.0..=1.0)?;
        for (index, gain) in self.gains.iter().enumerate() {
            config::in_range(&format!("gains[{index}]"), *gain, 0.0..=10.0)?;
        }
        for (joint, angle) in &self.pose {
            config::in_range(&format!("sit_pose_rad.{joint}"), *angle, -3.0..=3.0)?;
        }
        Ok(())
    }
}

#[test]
fn out_of_range_values_name_the_line_that_set_them() {
    let tree = Tree::new();
    let cases = [
        ("stiffness = 5.0\n", 1, "stiffness", "found 5"),
        ("stiffness = nan\n", 1, "stiffness", "found NaN"),
        ("\n\ngains = [1.0,\n  inf]\n", 4, "gains[1]", "found inf"),
        (
            "stiffness = 0.5\n[sit_pose_rad]\nLeftKneePitch = 1.0\nRightKneePitch = -1e30\n",
            4,
            "sit_pose_rad.RightKneePitch",
            "from -3 to 3",
        ),
    ];
    for (text, line, key, message) in cases {
        tree.write("default/Kick.toml", text);
        let config = tree.load().unwrap();
        let error = config.validated_parameters::<Kick>("Kick").unwrap_err();
        assert_names(&tree, &error, "default/Kick.toml", line, key);
        assert!(error.to_string().contains(message), "{error}");
        // The unchecked read takes the same file without complaint: the ranges are the type's.
        assert!(config.parameters::<Kick>("Kick").is_ok());
    }
    // A more specific layer sets the bad value: its line is named, not the default's.
    tree.write("default/Kick.toml", "stiffness = 0.5\n");
    tree.write("scenarios/default/Kick.toml", "\n\nstiffness = -1\n");
    let error = tree
        .load()
        .unwrap()
        .validated_parameters::<Kick>("Kick")
        .unwrap_err();
    assert_names(&tree, &error, "scenarios/default/Kick.toml", 3, "stiffness");
}

#[test]
fn an_out_of_range_override_names_the_override() {
    let tree = Tree::new();
    tree.write("default/Kick.toml", "stiffness = 0.5\n");
    let config = tree.load_robot(&["Kick.stiffness=2"]).unwrap();
    let error = config.validated_parameters::<Kick>("Kick").unwrap_err();
    assert_eq!(
        error.to_string(),
        "command-line override `--set Kick.stiffness=2`: key `stiffness`: expected a number \
         from 0 to 1, found 2"
    );
    // No file at all: the override alone is checked, and without it the default.
    std::fs::remove_file(tree.path("default/Kick.toml")).unwrap();
    let config = tree.load_robot(&["Kick.stiffness=nan"]).unwrap();
    let error = config
        .validated_parameters_or_default::<Kick>("Kick")
        .unwrap_err();
    assert!(error.to_string().contains("found NaN"), "{error}");
    let config = tree.load().unwrap();
    assert!(config
        .validated_parameters_or_default::<Kick>("Kick")
        .is_ok());
    assert!(matches!(
        config.validated_parameters::<Kick>("Kick"),
        Err(ConfigError::MissingParameters { .. })
    ));
}

#[test]
fn exit_codes_say_what_kind_of_failure_it_was() {
    let tree = Tree::new();
    // A configuration root that is not there: the input named on the command line is missing.
    let error = Config::load(&tree.path("nowhere"), None, &[]).unwrap_err();
    assert_eq!(error.exit_code(), config::EX_NOINPUT);
    assert!(error.to_string().contains("nowhere"), "{error}");
    // A file in place of the default layer is a broken tree: a configuration error.
    std::fs::remove_dir_all(tree.path("default")).unwrap();
    std::fs::write(tree.path("default"), "").unwrap();
    let error = tree.load().unwrap_err();
    assert_eq!(error.exit_code(), config::EX_CONFIG, "{error}");
    // A file that exists and cannot be read, even by root: a link to `/proc/self/mem`, whose
    // first page is never mapped (EIO). The message names the file as it was found.
    let tree = Tree::new();
    let path = tree.path("default/Kick.toml");
    std::os::unix::fs::symlink("/proc/self/mem", &path).unwrap();
    let error = tree
        .load()
        .unwrap()
        .validated_parameters::<Kick>("Kick")
        .unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }), "{error}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot read {}: ", path.display())),
        "{error}"
    );
    assert_eq!(error.exit_code(), config::EX_IOERR, "{error}");
}

#[test]
fn a_folder_or_a_dangling_link_in_the_place_of_a_file_is_named() {
    let tree = Tree::new();
    let folder = tree.path("default/Kick.toml");
    std::fs::create_dir_all(&folder).unwrap();
    let error = tree
        .load()
        .unwrap()
        .validated_parameters::<Kick>("Kick")
        .unwrap_err();
    assert!(
        error.to_string().contains(&folder.display().to_string()),
        "{error}"
    );
    assert_eq!(error.exit_code(), config::EX_CONFIG, "{error}");

    let tree = Tree::new();
    let link = tree.path("scenarios/default/processes.toml");
    std::os::unix::fs::symlink(tree.path("nowhere.toml"), &link).unwrap();
    let error = tree.load().unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot read {}", link.display())),
        "{error}"
    );
    assert_eq!(error.exit_code(), config::EX_NOINPUT, "{error}");
}

#[test]
fn pipes_devices_and_huge_files_are_refused_without_reading_them() {
    let tree = Tree::new();
    let path = tree.path("default/Kick.toml");
    let kick_error = |tree: &Tree| {
        tree.load()
            .unwrap()
            .validated_parameters::<Kick>("Kick")
            .unwrap_err()
    };
    // A pipe nobody writes to: reading it would block forever.
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    if made.is_ok_and(|status| status.success()) {
        let error = kick_error(&tree);
        assert!(
            matches!(error, ConfigError::NotAFile { what: "a pipe", .. }),
            "{error}"
        );
        assert!(error.to_string().contains(&path.display().to_string()));
        assert_eq!(error.exit_code(), config::EX_CONFIG);
        std::fs::remove_file(&path).unwrap();
    } else {
        eprintln!("SKIPPED (the pipe case): no mkfifo");
    }
    // A link to an endless device.
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let error = kick_error(&tree);
    assert!(
        matches!(
            error,
            ConfigError::NotAFile {
                what: "a device",
                ..
            }
        ),
        "{error}"
    );
    std::fs::remove_file(&path).unwrap();
    // A (sparse) file larger than any configuration file.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(config::MAX_FILE_BYTES + 1).unwrap();
    let error = kick_error(&tree);
    assert!(matches!(error, ConfigError::TooLarge { .. }), "{error}");
    assert_eq!(error.exit_code(), config::EX_CONFIG);
    // At the limit it is read (and is not TOML: zero bytes).
    file.set_len(config::MAX_FILE_BYTES).unwrap();
    let error = kick_error(&tree);
    assert!(!matches!(error, ConfigError::TooLarge { .. }), "{error}");
}

#[test]
fn a_file_of_many_values_names_the_line_of_the_bad_one() {
    // Each value's line is looked up when the file is read (by binary search: scanning the
    // text before each value took minutes for a file of a million values).
    let tree = Tree::new();
    let count = 50_000;
    let mut text = String::from("stiffness = 0.5\ngains = [\n");
    text.push_str(&"1,".repeat(count - 1));
    text.push_str("\n11]\n");
    tree.write("default/Kick.toml", &text);
    let error = tree
        .load()
        .unwrap()
        .validated_parameters::<Kick>("Kick")
        .unwrap_err();
    assert_names(
        &tree,
        &error,
        "default/Kick.toml",
        4,
        &format!("gains[{}]", count - 1),
    );
}
