//! Which layer wins: scenario, head, body, location, default.

mod common;

use common::Tree;
use serde::Deserialize;

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Walk {
    step_mm: f64,
    gains: Gains,
    source: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Gains {
    p: f64,
    d: f64,
}

/// Each layer sets `source` and one more key, so every key shows which layer won.
fn layered_tree() -> Tree {
    let tree = Tree::new();
    tree.write(
        "settings.toml",
        "team_number = 24\nplayer_number = 1\nlocation = \"hall\"\nscenario = \"game\"\n",
    );
    tree.mkdir("locations/hall");
    tree.mkdir("scenarios/game");
    tree.write(
        "default/Walk.toml",
        "source = \"default\"\nstep_mm = 10.0\n[gains]\np = 1.0\nd = 1.0\n",
    );
    tree.write(
        "locations/hall/Walk.toml",
        "source = \"location\"\nstep_mm = 20.0\n",
    );
    tree.write(
        "robots/bob/Walk.toml",
        "source = \"body\"\n[gains]\np = 3.0\n",
    );
    tree.write(
        "robots/ada/Walk.toml",
        "source = \"head\"\n[gains]\nd = 4.0\n",
    );
    tree.write("scenarios/game/Walk.toml", "source = \"scenario\"\n");
    tree
}

#[test]
fn the_search_path_is_scenario_head_body_location_default() {
    let tree = layered_tree();
    let config = tree.load_robot(&[]).unwrap();
    let expected: Vec<_> = [
        "scenarios/game",
        "robots/ada",
        "robots/bob",
        "locations/hall",
        "default",
    ]
    .iter()
    .map(|folder| tree.path(folder))
    .collect();
    assert_eq!(config.search_path(), expected);
    assert_eq!(config.selection().head.as_deref(), Some("ada"));
    assert_eq!(config.selection().body.as_deref(), Some("bob"));
    assert_eq!(config.selection().location, "hall");
    assert_eq!(config.selection().scenario, "game");
    assert_eq!(
        config.find("Walk.toml"),
        Some(tree.path("scenarios/game/Walk.toml"))
    );
    assert_eq!(config.find_all("Walk.toml").len(), 5);
    assert_eq!(config.find("Missing.toml"), None);
}

#[test]
fn parameters_merge_key_by_key_with_the_most_specific_layer_winning() {
    let tree = layered_tree();
    let walk: Walk = tree.load_robot(&[]).unwrap().parameters("Walk").unwrap();
    assert_eq!(
        walk,
        Walk {
            source: "scenario".into(),
            step_mm: 20.0,
            gains: Gains { p: 3.0, d: 4.0 },
        }
    );
}

#[test]
fn without_a_robot_the_robot_layers_are_left_out() {
    let tree = layered_tree();
    let config = tree.load().unwrap();
    assert_eq!(config.search_path().len(), 3);
    let walk: Walk = config.parameters("Walk").unwrap();
    assert_eq!(walk.gains, Gains { p: 1.0, d: 1.0 });
    assert_eq!(walk.source, "scenario");
}

#[test]
fn a_robot_without_a_folder_has_no_layer() {
    let tree = layered_tree();
    std::fs::remove_dir_all(tree.path("robots/ada")).unwrap();
    let config = tree.load_robot(&[]).unwrap();
    assert!(!config.search_path().contains(&tree.path("robots/ada")));
    assert!(config.search_path().contains(&tree.path("robots/bob")));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
}

#[test]
fn a_head_and_a_body_with_one_name_share_one_folder() {
    let tree = layered_tree();
    tree.write(
        "robots.toml",
        &format!(
            "[heads]\n{} = \"bob\"\n[bodies]\n{} = \"bob\"\n",
            common::HEAD_SERIAL,
            common::BODY_SERIAL
        ),
    );
    let config = tree.load_robot(&[]).unwrap();
    let bob = tree.path("robots/bob");
    assert_eq!(
        config.search_path().iter().filter(|p| **p == bob).count(),
        1
    );
}

#[test]
fn the_most_specific_process_table_replaces_the_default_one() {
    let tree = layered_tree();
    tree.write(
        "scenarios/game/processes.toml",
        "# no debug process in games\n[[process]]\nname = \"cognition\"\nkind = \"cognition\"\n\
         rate_hz = 60\n",
    );
    let config = tree.load().unwrap();
    let table = config.process_table();
    assert_eq!(table.file(), tree.path("scenarios/game/processes.toml"));
    assert!(table.get("motion").is_none());
    let cognition = table.get("cognition").unwrap();
    assert_eq!(
        (cognition.file.clone(), cognition.line),
        (table.file().to_owned(), 2)
    );
}

#[test]
fn robot_folders_can_override_settings_with_the_head_winning() {
    let tree = layered_tree();
    tree.write(
        "robots/bob/settings.toml",
        "player_number = 4\nteam_number = 7\n",
    );
    tree.write("robots/ada/settings.toml", "player_number = 5\n");
    let config = tree.load_robot(&[]).unwrap();
    assert_eq!(config.settings().player_number, 5);
    assert_eq!(config.settings().team_number, 7);
    // Settings in a scenario folder are not read: the scenario is chosen by the settings.
    tree.write("scenarios/game/settings.toml", "player_number = 6\n");
    assert_eq!(tree.load_robot(&[]).unwrap().settings().player_number, 5);
}

#[test]
fn missing_parameters_can_fall_back_to_the_default() {
    #[derive(Debug, Deserialize, Default, PartialEq)]
    #[serde(deny_unknown_fields, default)]
    struct Whistle {
        threshold: f64,
        band_hz: (f64, f64),
    }
    let tree = layered_tree();
    let config = tree.load().unwrap();
    assert_eq!(
        config.parameters_or_default::<Whistle>("Whistle").unwrap(),
        Whistle::default()
    );
    // A file, even a partial one, is read.
    tree.write("default/Whistle.toml", "threshold = 0.5\n");
    assert_eq!(
        config.parameters_or_default::<Whistle>("Whistle").unwrap(),
        Whistle {
            threshold: 0.5,
            band_hz: (0.0, 0.0)
        }
    );
}
