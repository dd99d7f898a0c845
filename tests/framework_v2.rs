//! Framework v2 with the real binary (issue 10, items 3–4, system test (d)): a representation
//! that no other process requires is not published while nobody watches it, and `cortex get`
//! of it still returns its current value (it watches the channel and takes the next publish);
//! when the watch lease runs out the producer stops publishing it again, while a representation
//! another process reads is published every tick all along.

mod support;

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::Instance;

/// The channels of the shipped table as `cortex check` lists them: `  NAME: producer -> readers`
/// (`- (published only while watched…)` for none), as `(name, producer, readers)` with `-` for
/// none.
fn shipped_channels() -> Vec<(String, String, String)> {
    let output = Command::new(support::cortex())
        .arg("check")
        .output()
        .expect("running cortex check");
    assert!(
        output.status.success(),
        "cortex check: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let channels = text
        .split_once("\nchannels:\n")
        .map(|(_, channels)| channels)
        .expect("a channel list");
    channels
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.trim().split_once(": ")?;
            let (producer, readers) = rest.split_once(" -> ")?;
            let readers = if readers.starts_with("- ") {
                "-"
            } else {
                readers
            };
            Some((name.to_owned(), producer.to_owned(), readers.to_owned()))
        })
        .collect()
}

/// `cortex get NAME` in text form: the publish count of the value it printed, and the value.
fn get_counted(instance: &Instance, name: &str) -> (u64, Value) {
    let output = instance.command(&["get", name]);
    assert!(
        output.status.success(),
        "cortex get {name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let (first, value) = text.split_once('\n').expect("a header line");
    // `NAME (publish N, B bytes):`
    let count = first
        .split_once("(publish ")
        .and_then(|(_, rest)| rest.split_once(','))
        .and_then(|(count, _)| count.parse().ok())
        .unwrap_or_else(|| panic!("no publish count in {first:?}"));
    (count, serde_json::from_str(value).expect("a JSON value"))
}

fn ticks(instance: &Instance, process: &str) -> u64 {
    instance.process(process).ticks
}

const RAISES: &str =
    "import robot\n\ndef tick(blackboard):\n    raise RuntimeError('broken on purpose')\n";

#[test]
fn get_of_a_representation_no_other_process_requires_returns_its_value() {
    let channels = shipped_channels();
    let unread = channels
        .iter()
        .find(|(name, _, _)| name == "PlayedSounds")
        .expect("the shipped table has a PlayedSounds channel");
    assert_eq!(
        unread.2, "-",
        "the test needs a representation no other process requires; PlayedSounds is read by {}",
        unread.2
    );
    let producer = unread.1.clone();
    let read = channels
        .iter()
        .find(|(name, _, _)| name == "SoundRequest")
        .expect("the shipped table has a SoundRequest channel");
    assert_ne!(read.2, "-", "SoundRequest is read by the audio process");

    // A behaviour that raises: the Python error is said, so PlayedSounds gets a value that is
    // not its default.
    let folder = tempfile::tempdir().unwrap();
    let behaviours = folder.path().join("python");
    support::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../behaviours/python"),
        &behaviours,
    );
    std::fs::write(behaviours.join("behaviour.py"), RAISES).unwrap();
    let instance = Instance::start(
        "framework-v2-get",
        &[
            "--behaviours",
            behaviours.to_str().unwrap(),
            "--set",
            "BehaviourControl.error_sound_interval_s=2",
        ],
    );
    // Let the producer tick many times with nobody watching.
    instance.wait_for(
        "the audio process ticked 40 times",
        Duration::from_secs(60),
        |status| {
            status
                .process(&producer)
                .is_some_and(|process| process.ticks >= 40)
        },
    );
    let ticked = ticks(&instance, &producer);
    let (count, first) = get_counted(&instance, "PlayedSounds");
    assert!(
        (1..=3).contains(&count),
        "PlayedSounds was published {count} times when first watched, though {producer} ticked \
         {ticked} times: a value nobody reads must not be published; value {first}"
    );
    serde_json::from_value::<types::PlayedSounds>(first.clone())
        .unwrap_or_else(|error| panic!("not a PlayedSounds: {error}: {first}"));

    // Its current value: the Python error, said and played to its end.
    let deadline = Instant::now() + Duration::from_secs(60);
    let played = loop {
        let played = instance.get("PlayedSounds");
        if played["played_count"].as_u64().unwrap_or(0) >= 1 {
            break played;
        }
        assert!(
            Instant::now() < deadline,
            "PlayedSounds stays {played}; log:\n{}",
            instance.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(played["recent"][0]["label"], "Python error", "{played}");

    // The lease of one `get` runs out: over a few seconds the producer publishes for the lease
    // only, far fewer values than it ticks.
    let (before, _) = get_counted(&instance, "PlayedSounds");
    let ticks_before = ticks(&instance, &producer);
    std::thread::sleep(Duration::from_secs(7));
    let ticks_after = ticks(&instance, &producer);
    let (after, _) = get_counted(&instance, "PlayedSounds");
    let published = after - before;
    let ticked = ticks_after - ticks_before;
    assert!(
        published * 3 < ticked * 2,
        "{published} publishes of PlayedSounds in {ticked} ticks of {producer}: publishing \
         should stop when the 2 s lease of `cortex get` runs out"
    );

    // A representation another process reads is published every tick, watched or not.
    let cognition_ticks = ticks(&instance, &read.1);
    let (count, _) = get_counted(&instance, "SoundRequest");
    assert!(
        count + 10 >= cognition_ticks,
        "SoundRequest published {count} times in {cognition_ticks} ticks of {}",
        read.1
    );
}
