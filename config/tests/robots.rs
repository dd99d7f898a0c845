//! Robot names from serial numbers (robots.toml).

mod common;

use common::{assert_names, serials, Tree, BODY_SERIAL, HEAD_SERIAL};
use config::{Config, ConfigError, ConfigWarning};

#[test]
fn serial_numbers_resolve_to_head_and_body_names() {
    let tree = Tree::new();
    tree.mkdir("robots/ada");
    tree.mkdir("robots/bob");
    let config = tree.load_robot(&[]).unwrap();
    assert_eq!(config.selection().head.as_deref(), Some("ada"));
    assert_eq!(config.selection().body.as_deref(), Some("bob"));
    assert_eq!(config.search_path()[1], tree.path("robots/ada"));
    assert_eq!(config.search_path()[2], tree.path("robots/bob"));
    assert!(config.warnings().is_empty());
}

#[test]
fn unknown_serial_numbers_are_warnings_and_the_defaults_are_used() {
    let tree = Tree::new();
    tree.mkdir("robots/ada");
    let unknown_body = "P0000073A07S94799999";
    let config = Config::load(tree.root(), Some(&serials(HEAD_SERIAL, unknown_body)), &[]).unwrap();
    assert_eq!(config.selection().head.as_deref(), Some("ada"));
    assert_eq!(config.selection().body, None);
    assert_eq!(
        config.warnings(),
        [ConfigWarning::UnknownBody {
            serial: unknown_body.to_owned(),
            robots_file: tree.path("robots.toml"),
        }]
    );
    let message = config.warnings()[0].to_string();
    assert!(
        message.contains(unknown_body) && message.contains("robots.toml"),
        "{message}"
    );
    assert_eq!(config.search_path().len(), 4);
}

#[test]
fn without_robots_toml_both_serials_are_unknown() {
    let tree = Tree::new();
    std::fs::remove_file(tree.path("robots.toml")).unwrap();
    let config = tree.load_robot(&[]).unwrap();
    assert_eq!(config.warnings().len(), 2);
    assert!(matches!(
        config.warnings()[0],
        ConfigWarning::UnknownHead { .. }
    ));
    assert_eq!(config.search_path().len(), 3);
}

#[test]
fn two_heads_with_one_name_are_an_error() {
    let tree = Tree::new();
    tree.write(
        "robots.toml",
        &format!("[heads]\n{HEAD_SERIAL} = \"ada\"\nP0000074A05S93M00099 = \"ada\"\n"),
    );
    let error = tree.load_robot(&[]).unwrap_err();
    assert_names(
        &tree,
        &error,
        "robots.toml",
        3,
        "heads.P0000074A05S93M00099",
    );
    assert!(matches!(
        error,
        ConfigError::Duplicate {
            what: "head name",
            ..
        }
    ));
    assert!(error.to_string().contains("robots.toml:2"), "{error}");
}

#[test]
fn names_must_be_folder_names() {
    let tree = Tree::new();
    tree.write(
        "robots.toml",
        &format!("\n[bodies]\n{BODY_SERIAL} = \"../etc\"\n"),
    );
    let error = tree.load_robot(&[]).unwrap_err();
    assert_names(
        &tree,
        &error,
        "robots.toml",
        3,
        &format!("bodies.{BODY_SERIAL}"),
    );
}

#[test]
fn robots_toml_is_only_read_for_a_robot() {
    let tree = Tree::new();
    tree.write("robots.toml", "[heads]\nbroken = 3\n");
    assert!(tree.load().is_ok());
    let error = tree.load_robot(&[]).unwrap_err();
    assert_names(&tree, &error, "robots.toml", 2, "heads.broken");
}
