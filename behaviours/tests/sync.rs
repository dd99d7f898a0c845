//! `cortex sync`: a real rsync into temporary folders, an unreachable host, a missing rsync.

use behaviours::sync::{sync, SyncError, SyncOptions, SyncTarget};
use std::path::Path;

fn have_rsync() -> bool {
    std::process::Command::new("rsync")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

fn sources() -> (tempfile::TempDir, SyncOptions) {
    let root = tempfile::tempdir().unwrap();
    let behaviours = root.path().join("behaviours");
    let config = root.path().join("config");
    std::fs::create_dir_all(behaviours.join("states/__pycache__")).unwrap();
    std::fs::create_dir_all(config.join("default")).unwrap();
    std::fs::write(behaviours.join("behaviour.py"), "def tick(b):\n    pass\n").unwrap();
    std::fs::write(behaviours.join("states/initial.py"), "X = 1\n").unwrap();
    std::fs::write(
        behaviours.join("states/__pycache__/initial.cpython-311.pyc"),
        "junk",
    )
    .unwrap();
    std::fs::write(behaviours.join("old.pyc"), "junk").unwrap();
    std::fs::write(config.join("default/processes.toml"), "# table\n").unwrap();
    let options = SyncOptions {
        behaviours,
        config,
        ..SyncOptions::default()
    };
    (root, options)
}

#[test]
fn local_sync_copies_reports_changes_deletes_and_skips_bytecode() {
    if !have_rsync() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let (_sources, options) = sources();
    let destination = tempfile::tempdir().unwrap();
    let target = SyncTarget::Local(destination.path().join("robot"));
    let robot = destination.path().join("robot");

    let first = sync(&target, &options).unwrap();
    assert!(
        first
            .behaviours
            .iter()
            .any(|line| line.ends_with("behaviour.py")),
        "{first}"
    );
    assert!(
        first
            .behaviours
            .iter()
            .any(|line| line.ends_with("states/initial.py")),
        "{first}"
    );
    assert!(
        first
            .config
            .iter()
            .any(|line| line.ends_with("default/processes.toml")),
        "{first}"
    );
    assert!(robot.join("behaviours/behaviour.py").is_file());
    assert!(robot.join("config/default/processes.toml").is_file());
    assert!(!robot.join("behaviours/states/__pycache__").exists());
    assert!(!robot.join("behaviours/old.pyc").exists());

    let again = sync(&target, &options).unwrap();
    assert!(again.is_unchanged(), "nothing changed, yet: {again}");

    std::fs::write(
        options.behaviours.join("states/initial.py"),
        "X = 2  # edited\n",
    )
    .unwrap();
    std::fs::remove_file(options.config.join("default/processes.toml")).unwrap();
    let edited = sync(&target, &options).unwrap();
    assert_eq!(edited.behaviours.len(), 1, "{edited}");
    assert!(edited.behaviours[0].ends_with("states/initial.py"));
    assert_eq!(
        edited.deleted,
        vec!["config/default/processes.toml".to_owned()],
        "{edited}"
    );
    assert!(edited.to_string().contains("deleted"), "{edited}");
    assert!(!robot.join("config/default/processes.toml").exists());
    assert_eq!(
        std::fs::read_to_string(robot.join("behaviours/states/initial.py")).unwrap(),
        "X = 2  # edited\n"
    );
    // `--behaviours DEST` finds the package inside the synced folder.
    behaviours::set_behaviour_dir(&robot);
    assert_eq!(
        behaviours::resolve_behaviour_dir(Path::new("unused"), "behaviour"),
        robot.join("behaviours")
    );
}

#[test]
fn an_unreachable_robot_is_a_clear_error() {
    if !have_rsync() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let (_sources, mut options) = sources();
    options.ssh_port = Some(1);
    options.connect_timeout_s = 2;
    let error = sync(&SyncTarget::Remote("nobody@127.0.0.1".into()), &options).unwrap_err();
    assert!(matches!(error, SyncError::Unreachable { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with("cannot reach `nobody@127.0.0.1` over ssh"),
        "{message}"
    );
    assert!(
        message.contains("port 1"),
        "ssh's own reason is kept: {message}"
    );
}

#[test]
fn a_missing_rsync_and_bad_targets_are_clear_errors() {
    let (_sources, mut options) = sources();
    options.rsync = "/nonexistent/rsync".into();
    let error = sync(
        &SyncTarget::Local(tempfile::tempdir().unwrap().path().into()),
        &options,
    )
    .unwrap_err();
    assert!(matches!(error, SyncError::RsyncMissing { .. }), "{error:?}");
    assert!(error.to_string().contains("install rsync"));

    for bad in ["", "-oProxyCommand=x", "nao@robot:/tmp", "two words"] {
        let error = sync(&SyncTarget::Remote(bad.into()), &options).unwrap_err();
        assert!(
            matches!(error, SyncError::BadTarget { .. }),
            "{bad}: {error:?}"
        );
    }
    options.remote_dir = "relative/dir".into();
    assert!(matches!(
        sync(&SyncTarget::Remote("nao".into()), &options).unwrap_err(),
        SyncError::BadTarget { .. }
    ));
    options.behaviours = "/nonexistent/behaviours".into();
    assert!(matches!(
        sync(&SyncTarget::Remote("nao".into()), &options).unwrap_err(),
        SyncError::MissingSource { .. }
    ));
}

#[test]
fn a_dry_run_and_keep_name_the_files_the_source_lacks_and_delete_nothing() {
    if !have_rsync() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let (_sources, mut options) = sources();
    let destination = tempfile::tempdir().unwrap();
    let robot = destination.path().join("robot");
    let target = SyncTarget::Local(robot.clone());

    // A dry run into a folder that does not exist yet makes nothing.
    options.dry_run = true;
    let planned = sync(&target, &options).unwrap();
    assert!(planned.dry_run && !planned.is_unchanged(), "{planned}");
    assert!(!robot.exists(), "a dry run made {}", robot.display());

    options.dry_run = false;
    sync(&target, &options).unwrap();
    let mine = robot.join("config/default/my_notes.toml");
    std::fs::write(&mine, "# the user's own file\n").unwrap();

    options.dry_run = true;
    let planned = sync(&target, &options).unwrap();
    assert_eq!(
        planned.deleted,
        vec!["config/default/my_notes.toml".to_owned()]
    );
    assert!(
        planned.to_string().contains("would be deleted"),
        "{planned}"
    );
    assert!(mine.exists(), "a dry run deletes nothing");

    options.dry_run = false;
    options.delete = false;
    let kept = sync(&target, &options).unwrap();
    assert!(kept.deleted.is_empty() && mine.exists(), "{kept}");

    options.delete = true;
    let synced = sync(&target, &options).unwrap();
    assert_eq!(
        synced.deleted,
        vec!["config/default/my_notes.toml".to_owned()]
    );
    assert!(!mine.exists());
}

#[test]
fn links_that_leave_the_tree_are_named_and_not_copied() {
    if !have_rsync() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let (sources, options) = sources();
    let outside = sources.path().join("outside.py");
    std::fs::write(&outside, "SECRET = 1\n").unwrap();
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(target, options.behaviours.join(at)).unwrap();
    };
    link(outside.to_str().unwrap(), "absolute.py");
    link("../outside.py", "climbs.py");
    link("../../outside.py", "states/climbs_twice.py");
    link("initial.py", "states/sibling.py");
    link("../behaviour.py", "states/parent_inside.py");
    link("states/../../outside.py", "sneaky.py");

    let leaving: Vec<String> = behaviours::sync::links_leaving(&options.behaviours)
        .into_iter()
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert_eq!(
        leaving,
        [
            "absolute.py",
            "climbs.py",
            "sneaky.py",
            "states/climbs_twice.py"
        ]
    );

    let destination = tempfile::tempdir().unwrap();
    let robot = destination.path().join("robot");
    let report = sync(&SyncTarget::Local(robot.clone()), &options).unwrap();
    assert_eq!(report.warnings.len(), 4, "{report}");
    assert!(
        report.warnings[0].contains("behaviours/absolute.py")
            && report.warnings[0].contains(outside.to_str().unwrap()),
        "{report}"
    );
    for name in [
        "absolute.py",
        "climbs.py",
        "sneaky.py",
        "states/climbs_twice.py",
    ] {
        assert!(
            std::fs::symlink_metadata(robot.join("behaviours").join(name)).is_err(),
            "{name} was copied"
        );
    }
    for name in ["states/sibling.py", "states/parent_inside.py"] {
        assert!(
            robot.join("behaviours").join(name).exists(),
            "{name} is missing"
        );
    }
}

#[test]
fn a_destination_part_that_is_a_link_is_refused_and_nothing_is_touched() {
    if !have_rsync() {
        eprintln!("SKIPPED: rsync is not installed (apt-get install rsync)");
        return;
    }
    let (_sources, options) = sources();
    let destination = tempfile::tempdir().unwrap();
    let elsewhere = destination.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("precious.txt"), "keep me\n").unwrap();
    let robot = destination.path().join("robot");
    std::fs::create_dir_all(&robot).unwrap();
    std::os::unix::fs::symlink(&elsewhere, robot.join("config")).unwrap();
    let error = sync(&SyncTarget::Local(robot.clone()), &options).unwrap_err();
    assert!(
        matches!(error, SyncError::LinkedDestination { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("robot/config") && message.contains("elsewhere"),
        "{message}"
    );
    assert!(elsewhere.join("precious.txt").exists());
    assert!(!elsewhere.join("default").exists());
}
