//! `--set` overrides of settings and module parameters.

mod common;

use common::{assert_names, Tree};
use config::{Config, ConfigError, Origin, Override};
use serde::Deserialize;

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Kick {
    strength: f64,
    foot: String,
    phases: Vec<u32>,
}

fn tree_with_kick() -> Tree {
    let tree = Tree::new();
    tree.write(
        "default/Kick.toml",
        "strength = 1.0\nfoot = \"left\"\nphases = [1, 2]\n",
    );
    tree
}

fn load(tree: &Tree, overrides: &[&str]) -> Result<Config, ConfigError> {
    let overrides: Vec<Override> = overrides.iter().map(|t| t.parse().unwrap()).collect();
    Config::load(tree.root(), None, &overrides)
}

#[test]
fn overrides_change_settings_and_the_search_path() {
    let tree = Tree::new();
    tree.mkdir("locations/hall");
    tree.write("robots/ada/settings.toml", "player_number = 5\n");
    let config = tree
        .load_robot(&["settings.player_number=3", "settings.location=hall"])
        .unwrap();
    // The override beats the head's settings.toml.
    assert_eq!(config.settings().player_number, 3);
    assert_eq!(config.settings().location, "hall");
    assert!(config.search_path().contains(&tree.path("locations/hall")));
}

#[test]
fn overrides_change_module_parameters_and_later_ones_win() {
    let tree = tree_with_kick();
    let config = load(
        &tree,
        &[
            "Kick.strength=2",
            "Kick.foot=right",
            "Kick.phases=[3]",
            "Kick.strength=2.5",
        ],
    )
    .unwrap();
    let kick: Kick = config.parameters("Kick").unwrap();
    assert_eq!(
        kick,
        Kick {
            strength: 2.5,
            foot: "right".into(),
            phases: vec![3]
        }
    );
    // Other modules do not see them.
    tree.write(
        "default/Other.toml",
        "strength = 1.0\nfoot = \"x\"\nphases = []\n",
    );
    let other: Kick = config.parameters("Other").unwrap();
    assert_eq!(other.strength, 1.0);
}

#[test]
fn a_bad_override_value_names_the_override_and_the_key() {
    let tree = tree_with_kick();
    let config = load(&tree, &["Kick.strength=strong"]).unwrap();
    let error = config.parameters::<Kick>("Kick").unwrap_err();
    assert_eq!(
        error.to_string(),
        "command-line override `--set Kick.strength=strong`: key `strength`: invalid type: \
         string \"strong\", expected f64"
    );
    assert_eq!(
        error.origin(),
        Some(Origin::Override {
            text: "Kick.strength=strong".into()
        })
    );

    let error = load(&tree, &["Kick.stregth=2"])
        .unwrap()
        .parameters::<Kick>("Kick")
        .unwrap_err();
    assert!(matches!(error, ConfigError::UnknownKey { ref key, .. } if key == "stregth"));
    assert!(
        error.to_string().contains("--set Kick.stregth=2"),
        "{error}"
    );

    let error = load(&tree, &["settings.team_number=300"]).unwrap_err();
    assert!(
        error.to_string().starts_with(
            "command-line override `--set settings.team_number=300`: key `team_number`"
        ),
        "{error}"
    );
    let error = load(&tree, &["settings.colour=red"]).unwrap_err();
    assert!(matches!(error, ConfigError::UnknownKey { ref key, .. } if key == "colour"));
}

#[test]
fn a_file_below_an_override_keeps_its_own_lines() {
    let tree = tree_with_kick();
    tree.write(
        "default/Kick.toml",
        "strength = 1.0\nfoot = 7\nphases = [1, 2]\n",
    );
    let config = load(&tree, &["Kick.strength=2"]).unwrap();
    let error = config.parameters::<Kick>("Kick").unwrap_err();
    assert_names(&tree, &error, "default/Kick.toml", 2, "foot");
}

#[test]
fn overrides_alone_are_not_a_parameter_file() {
    let tree = Tree::new();
    let config = load(&tree, &["Kick.strength=2"]).unwrap();
    assert!(matches!(
        config.parameters::<Kick>("Kick"),
        Err(ConfigError::MissingParameters { .. })
    ));
    #[derive(Debug, Deserialize, Default, PartialEq)]
    #[serde(default, deny_unknown_fields)]
    struct Partial {
        strength: f64,
        foot: String,
    }
    // With a default, the override applies on top of nothing: missing keys take defaults.
    let partial: Partial = config.parameters_or_default("Kick").unwrap();
    assert_eq!(partial.strength, 2.0);
    assert_eq!(partial.foot, "");
}
