//! `default_root()` and `CORTEX_CONFIG_DIR`. One test in its own binary: it changes the
//! environment, which no other thread may read meanwhile.

use std::path::Path;

#[test]
fn the_environment_overrides_the_shipped_folder() {
    std::env::remove_var("CORTEX_CONFIG_DIR");
    let shipped = config::default_root();
    assert_eq!(shipped, Path::new(env!("CARGO_MANIFEST_DIR")).join("data"));
    assert!(shipped.join("default/processes.toml").is_file());

    std::env::set_var("CORTEX_CONFIG_DIR", "/srv/cortex-config");
    assert_eq!(config::default_root(), Path::new("/srv/cortex-config"));

    // Empty means unset.
    std::env::set_var("CORTEX_CONFIG_DIR", "");
    assert_eq!(config::default_root(), shipped);
    std::env::remove_var("CORTEX_CONFIG_DIR");
}
