//! One behaviour tick, Rust → Python → Rust with the request converted, for a trivial behaviour
//! and the shipped one, and for a behaviour that reads its team mates (none heard against
//! four); and the time from saving a file to the first tick running it.
//!
//! `cargo bench -p behaviours` prints a table. Targets (issue 6): trivial < 30 µs, default
//! < 300 µs (medians), save → new code < 200 ms.

use behaviours::{BehaviourEngine, BlackboardSnapshot, EngineSettings};
use std::path::Path;
use std::time::{Duration, Instant};
use types::{BodyMotion, PlayState, TeamMate, TeamMateMessage};

fn settings(folder: &Path, watch: bool) -> EngineSettings {
    EngineSettings {
        folder: folder.to_path_buf(),
        entry_module: "behaviour".to_owned(),
        tick_budget: Duration::from_millis(20),
        load_budget: Duration::from_secs(2),
        reload_budget: Duration::from_secs(2),
        error_sound_interval: Duration::from_secs(10),
        reload_settle: Duration::from_millis(20),
        watch,
    }
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * fraction) as usize]
}

fn row(name: &str, samples: &mut [Duration], target: Duration) {
    let median = percentile(samples, 0.5);
    let p99 = percentile(samples, 0.99);
    println!(
        "{name:<38} {:>10.1} {:>10.1} {:>10.1}   {}",
        median.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6,
        target.as_secs_f64() * 1e6,
        if median < target { "ok" } else { "MISSED" }
    );
}

fn ticks(
    engine: &mut BehaviourEngine,
    snapshot: &BlackboardSnapshot,
    count: usize,
) -> Vec<Duration> {
    for _ in 0..200 {
        engine.tick(snapshot.clone(), Instant::now());
    }
    (0..count)
        .map(|_| {
            let snapshot = snapshot.clone();
            let started = Instant::now();
            let request = engine.tick(snapshot, Instant::now());
            let took = started.elapsed();
            std::hint::black_box(request);
            took
        })
        .collect()
}

fn main() {
    println!(
        "{:<38} {:>10} {:>10} {:>10}",
        "what (µs)", "median", "p99", "target"
    );

    let trivial = tempfile::tempdir().unwrap();
    std::fs::write(
        trivial.path().join("behaviour.py"),
        "import robot\n\ndef tick(blackboard):\n    return robot.BehaviourRequest()\n",
    )
    .unwrap();
    let mut engine = BehaviourEngine::new(settings(trivial.path(), false)).unwrap();
    let mut samples = ticks(&mut engine, &BlackboardSnapshot::default(), 20_000);
    row(
        "tick: trivial behaviour",
        &mut samples,
        Duration::from_micros(30),
    );
    assert_eq!(engine.status().failed_ticks, 0, "{:?}", engine.status());
    drop(engine);

    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    let mut engine = BehaviourEngine::new(settings(&shipped, false)).unwrap();
    for (name, state) in [
        ("tick: default behaviour, Initial", PlayState::Initial),
        ("tick: default behaviour, Ready", PlayState::Ready),
        ("tick: default behaviour, Playing", PlayState::Playing),
    ] {
        let mut snapshot = BlackboardSnapshot::default();
        snapshot.game_state.state = state;
        snapshot.game_state.secondary_seconds_remaining = 40;
        let mut samples = ticks(&mut engine, &snapshot, 20_000);
        row(name, &mut samples, Duration::from_micros(300));
    }
    assert_eq!(engine.status().failed_ticks, 0, "{:?}", engine.status());
    drop(engine);

    // Reading the team mates: the blackboard converts them on first read; 0 against 4 mates.
    let readers = tempfile::tempdir().unwrap();
    std::fs::write(
        readers.path().join("behaviour.py"),
        "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    \
         closest = None\n    for mate in blackboard.team_mates.players:\n        \
         if mate.message.ball is not None and (closest is None or mate.message.ball.age_ms < closest):\n            \
         closest = mate.message.ball.age_ms\n    request.body.stand()\n    return request\n",
    )
    .unwrap();
    let mut engine = BehaviourEngine::new(settings(readers.path(), false)).unwrap();
    for mates in [0u8, 4] {
        let mut snapshot = BlackboardSnapshot::default();
        snapshot.team_mates.players = (1..=mates)
            .map(|player_number| TeamMate {
                message: TeamMateMessage {
                    player_number,
                    ball: Some(types::SeenBall::default()),
                    ..TeamMateMessage::default()
                },
                ..TeamMate::default()
            })
            .collect();
        let mut samples = ticks(&mut engine, &snapshot, 20_000);
        row(
            &format!("tick: reads team_mates, {mates} mates"),
            &mut samples,
            Duration::from_micros(300),
        );
    }
    assert_eq!(engine.status().failed_ticks, 0, "{:?}", engine.status());
    drop(engine);

    // Save → first tick with the new code, ticking at 60 Hz like cognition.
    let folder = tempfile::tempdir().unwrap();
    let source = |motion: &str| {
        format!("import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.{motion}()\n    return request\n")
    };
    std::fs::write(folder.path().join("behaviour.py"), source("sit")).unwrap();
    let mut engine = BehaviourEngine::new(settings(folder.path(), true)).unwrap();
    let mut samples = Vec::new();
    for round in 0..20 {
        let (motion, expected) = if round % 2 == 0 {
            ("stand", BodyMotion::Stand)
        } else {
            ("sit", BodyMotion::Sit)
        };
        std::thread::sleep(Duration::from_millis(50));
        let saved = Instant::now();
        std::fs::write(folder.path().join("behaviour.py"), source(motion)).unwrap();
        let mut next_tick = saved;
        loop {
            let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
            if request.body == expected {
                samples.push(saved.elapsed());
                break;
            }
            assert!(
                saved.elapsed() < Duration::from_secs(5),
                "the change never arrived"
            );
            next_tick += Duration::from_micros(16_667);
            std::thread::sleep(next_tick.saturating_duration_since(Instant::now()));
        }
    }
    row(
        "save → first tick with new code (60 Hz)",
        &mut samples,
        Duration::from_millis(200),
    );
}
