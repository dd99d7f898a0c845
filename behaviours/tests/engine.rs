//! The behaviour engine for real: the shipped behaviour, hot reload, the error policy and the
//! tick budget, each with a real interpreter, real files and real threads.

mod common;

use behaviours::{BlackboardSnapshot, ERROR_COLOURS, ERROR_SPEECH};
use common::{engine, one_engine_at_a_time, shipped_behaviours, write};
use std::time::{Duration, Instant};
use types::{
    BehaviourTeam, BodyMotion, Colour, Penalty, PlayState, Sound, TeamIntention, TeamRole,
};

fn game(state: PlayState, penalty: Option<Penalty>) -> BlackboardSnapshot {
    let mut snapshot = BlackboardSnapshot::default();
    snapshot.game_state.state = state;
    snapshot.game_state.penalty = penalty;
    snapshot
}

/// Ticks until `done` holds for the request (at most 3 s); returns the ticks needed.
fn tick_until(
    engine: &mut behaviours::BehaviourEngine,
    mut done: impl FnMut(&types::BehaviourRequest) -> bool,
) -> u32 {
    let started = Instant::now();
    for ticks in 1.. {
        let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
        if done(&request) {
            return ticks;
        }
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "gave up after {ticks} ticks"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    unreachable!()
}

const STAND: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.stand()\n    return request\n";
const SIT: &str = "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    request.body.sit()\n    return request\n";

#[test]
fn the_shipped_behaviour_follows_the_game_state() {
    let _one = one_engine_at_a_time();
    let mut engine = engine(&shipped_behaviours());
    assert_eq!(engine.status().load_error, None);
    let now = Instant::now();

    let initial = engine.tick(game(PlayState::Initial, None), now);
    assert_eq!(initial.body, BodyMotion::Stand);
    assert_eq!(initial.leds.left_eye.colour, Colour::White);

    let standby = engine.tick(game(PlayState::Standby, None), now);
    assert_eq!(standby.body, BodyMotion::Stand);

    // Ready: walks in while most of Ready remains, then stands and waits.
    let mut ready = game(PlayState::Ready, None);
    ready.game_state.secondary_seconds_remaining = 44;
    let walking_in = engine.tick(ready.clone(), now);
    assert!(
        matches!(walking_in.body, BodyMotion::Walk { forward_m_per_s, .. } if forward_m_per_s > 0.0),
        "{walking_in:?}"
    );
    assert_eq!(walking_in.leds.left_eye.colour, Colour::Blue);
    ready.game_state.secondary_seconds_remaining = 10;
    assert_eq!(engine.tick(ready, now).body, BodyMotion::Stand);

    let set = engine.tick(game(PlayState::Set, None), now);
    assert_eq!(set.body, BodyMotion::Stand);
    assert_eq!(set.head.yaw_rad, 0.0);
    assert_eq!(set.leds.left_eye.colour, Colour::Yellow);

    let playing = engine.tick(game(PlayState::Playing, None), now);
    assert!(
        matches!(playing.body, BodyMotion::Walk { forward_m_per_s, .. } if forward_m_per_s > 0.0)
    );
    assert_eq!(playing.leds.left_eye.colour, Colour::Green);
    assert_eq!(
        (playing.team.role, playing.team.intention),
        (TeamRole::Striker, TeamIntention::PlayBall)
    );
    let mut keeping = game(PlayState::Playing, None);
    keeping.game_state.is_goalkeeper = true;
    let keeping = engine.tick(keeping, now);
    assert_eq!(keeping.body, BodyMotion::Stand);
    assert_eq!(
        (keeping.team.role, keeping.team.intention),
        (TeamRole::Goalkeeper, TeamIntention::KeepGoal)
    );

    let penalized = engine.tick(game(PlayState::Playing, Some(Penalty::Manual)), now);
    assert_eq!(penalized.body, BodyMotion::Stand);
    assert_eq!(penalized.leds.left_eye.colour, Colour::Red);
    assert_eq!(penalized.team.role, TeamRole::None);

    let finished = engine.tick(game(PlayState::Finished, None), now);
    assert_eq!(finished.body, BodyMotion::Sit);
    assert_eq!(engine.status().failed_ticks, 0);
    // No bytecode caches appear in the behaviour folder.
    assert!(!shipped_behaviours().join("__pycache__").exists());
    assert!(!shipped_behaviours().join("states/__pycache__").exists());
}

#[test]
fn a_saved_file_is_running_at_the_next_ticks_and_a_syntax_error_keeps_the_old_code() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "behaviour.py",
        "from moves import act\n\ndef tick(blackboard):\n    return act()\n",
    );
    write(folder.path(), "moves/__init__.py", "");
    write(
        folder.path(),
        "moves/__init__.py",
        &STAND.replace("def tick(blackboard)", "def act()"),
    );
    let mut engine = engine(folder.path());
    assert_eq!(engine.status().load_error, None, "{:?}", engine.status());
    assert_eq!(
        engine
            .tick(BlackboardSnapshot::default(), Instant::now())
            .body,
        BodyMotion::Stand
    );

    // An edit in a module of a sub-package reaches the running behaviour.
    write(
        folder.path(),
        "moves/__init__.py",
        &SIT.replace("def tick(blackboard)", "def act()"),
    );
    tick_until(&mut engine, |request| request.body == BodyMotion::Sit);
    assert_eq!(engine.status().loads, 2);

    // A syntax error in any file (even one the behaviour does not import) keeps the old code.
    write(folder.path(), "moves/helpers.py", "def broken(:\n");
    write(
        folder.path(),
        "moves/__init__.py",
        &STAND.replace("def tick(blackboard)", "def act()"),
    );
    let started = Instant::now();
    while engine.status().failed_loads == 0 {
        assert_eq!(
            engine
                .tick(BlackboardSnapshot::default(), Instant::now())
                .body,
            BodyMotion::Sit
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "the broken file was never loaded"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let error = engine.status().load_error.clone().unwrap();
    assert!(error.contains("helpers.py:1"), "{error}");
    assert!(error.contains("SyntaxError"), "{error}");
    for _ in 0..5 {
        assert_eq!(
            engine
                .tick(BlackboardSnapshot::default(), Instant::now())
                .body,
            BodyMotion::Sit
        );
    }
    assert_eq!(engine.status().failed_ticks, 0, "the old code kept running");

    // An exception while importing keeps the old code too.
    write(
        folder.path(),
        "moves/helpers.py",
        "raise RuntimeError('top-level failure')\n",
    );
    write(
        folder.path(),
        "behaviour.py",
        "import moves.helpers\nfrom moves import act\n\ndef tick(blackboard):\n    return act()\n",
    );
    let started = Instant::now();
    while engine.status().failed_loads < 2 {
        assert_eq!(
            engine
                .tick(BlackboardSnapshot::default(), Instant::now())
                .body,
            BodyMotion::Sit
        );
        assert!(started.elapsed() < Duration::from_secs(3));
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(engine
        .status()
        .load_error
        .as_ref()
        .unwrap()
        .contains("top-level failure"));

    // The fix loads, with every module executed anew.
    write(folder.path(), "moves/helpers.py", "");
    tick_until(&mut engine, |request| request.body == BodyMotion::Stand);
    assert_eq!(engine.status().load_error, None);
    assert!(!folder.path().join("__pycache__").exists());
    assert!(!folder.path().join("moves/__pycache__").exists());
}

#[test]
fn an_exception_stands_flashes_says_python_error_every_10_s_and_recovers() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "behaviour.py",
        "def tick(blackboard):\n    return 1 / 0\n",
    );
    let mut engine = engine(folder.path());
    let start = Instant::now();
    let mut sounds = Vec::new();
    let mut colours = Vec::new();
    let mut last_counter = 0;
    // 30 s of failing ticks at 50 Hz, on the engine's clock.
    for tick in 0..1500u64 {
        let now = start + Duration::from_millis(tick * 20);
        let request = engine.tick(BlackboardSnapshot::default(), now);
        assert_eq!(request.body, BodyMotion::Stand);
        assert_eq!(request.leds.left_eye, request.leds.chest);
        colours.push(request.leds.chest.colour);
        if request.sound.request_counter != last_counter {
            last_counter = request.sound.request_counter;
            assert_eq!(
                request.sound.sound,
                Some(Sound::Say {
                    text: ERROR_SPEECH.into()
                })
            );
            sounds.push(tick * 20);
        }
    }
    assert_eq!(sounds, [0, 10_000, 20_000], "at most once every 10 s");
    assert_eq!(colours[0], ERROR_COLOURS[0]);
    assert_eq!(
        colours[13], ERROR_COLOURS[1],
        "the colour alternates every 250 ms"
    );
    assert_eq!(colours[26], ERROR_COLOURS[0]);
    assert!(engine
        .status()
        .tick_error
        .as_ref()
        .unwrap()
        .contains("ZeroDivisionError"));

    // Not returning a BehaviourRequest is an error too.
    write(
        folder.path(),
        "behaviour.py",
        "def tick(blackboard):\n    return 42\n",
    );
    let started = Instant::now();
    while !engine
        .status()
        .tick_error
        .as_deref()
        .unwrap_or("")
        .contains("returned int")
    {
        engine.tick(BlackboardSnapshot::default(), Instant::now());
        assert!(started.elapsed() < Duration::from_secs(3));
        std::thread::sleep(Duration::from_millis(5));
    }

    // The fix: the next tick after the reload is a normal one again.
    write(folder.path(), "behaviour.py", SIT);
    tick_until(&mut engine, |request| request.body == BodyMotion::Sit);
    let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert_eq!(request.leds.chest.colour, Colour::Off);
    assert_eq!(engine.status().tick_error, None);
}

#[test]
fn a_failing_tick_tells_the_team_mates_role_and_intention_none() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "behaviour.py",
        "import robot\n\ndef tick(blackboard):\n    request = robot.BehaviourRequest()\n    \
         request.team.role = 'Striker'\n    request.team.intention = 'PlayBall'\n    \
         request.team.pass_to(2)\n    \
         if blackboard.game_state.state == 'Playing':\n        raise RuntimeError('no ball')\n    \
         return request\n",
    );
    let mut engine = engine(folder.path());
    let now = Instant::now();
    let told = engine.tick(game(PlayState::Ready, None), now).team;
    assert_eq!(
        (told.role, told.intention, told.pass_target),
        (TeamRole::Striker, TeamIntention::PlayBall, Some(2))
    );
    // The role was set before the exception: the error policy's request says nothing.
    let failed = engine.tick(game(PlayState::Playing, None), now);
    assert_eq!(failed.leds.chest.colour, ERROR_COLOURS[0]);
    assert_eq!(failed.team, BehaviourTeam::default());
    assert_eq!(failed.team.role, TeamRole::None);
    assert_eq!(failed.team.intention, TeamIntention::None);
    // And back once the tick succeeds.
    let told = engine.tick(game(PlayState::Ready, None), now).team;
    assert_eq!(told.role, TeamRole::Striker);
}

#[test]
fn an_endless_loop_is_interrupted_within_the_budget_and_ticking_goes_on() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "behaviour.py",
        "import robot\n\ndef tick(blackboard):\n    try:\n        while True:\n            pass\n    except Exception:\n        return robot.BehaviourRequest()  # not reached: TickTimeout is no Exception\n",
    );
    let mut engine = engine(folder.path());
    let budget = engine.settings().tick_budget;
    for _ in 0..3 {
        let started = Instant::now();
        let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
        let took = started.elapsed();
        assert_eq!(request.body, BodyMotion::Stand, "the error stance");
        assert!(
            took < budget + Duration::from_millis(500),
            "interrupted after {took:?} (budget {budget:?})"
        );
        assert!(took >= budget);
    }
    assert_eq!(engine.status().interrupted_ticks, 3);
    assert!(engine
        .status()
        .tick_error
        .as_ref()
        .unwrap()
        .contains("TickTimeout"));

    // A tick that finishes just in time leaves nothing pending for the next tick.
    write(folder.path(), "behaviour.py", SIT);
    tick_until(&mut engine, |request| request.body == BodyMotion::Sit);
    let interrupted = engine.status().interrupted_ticks;
    for _ in 0..20 {
        assert_eq!(
            engine
                .tick(BlackboardSnapshot::default(), Instant::now())
                .body,
            BodyMotion::Sit
        );
    }
    assert_eq!(engine.status().interrupted_ticks, interrupted);
    assert_eq!(engine.status().tick_error, None);
}

#[test]
fn a_missing_behaviour_runs_the_error_policy_until_one_appears() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    let mut engine = engine(folder.path());
    assert!(engine
        .status()
        .load_error
        .as_ref()
        .unwrap()
        .contains("behaviour.py"));
    let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert_eq!(request.body, BodyMotion::Stand);
    assert_eq!(request.leds.chest.colour, ERROR_COLOURS[0]);
    write(folder.path(), "behaviour.py", SIT);
    tick_until(&mut engine, |request| request.body == BodyMotion::Sit);
}

#[test]
fn behaviour_control_loads_the_shipped_behaviour_from_the_shipped_configuration() {
    use framework::{Blackboard, Module};
    use types::{BehaviourRequest, FallState, GameState, MotionInfo, SensorData, TeamMates};
    let _one = one_engine_at_a_time();
    let config = config::Config::load(&config::default_root(), None, &[]).unwrap();
    let mut control: behaviours::BehaviourControl = framework::construct(&config).unwrap();
    let engine = control.engine().unwrap();
    assert_eq!(engine.settings().folder, shipped_behaviours());
    assert_eq!(engine.status().load_error, None);
    let mut blackboard = Blackboard::new();
    blackboard.insert(SensorData::default());
    blackboard.insert(GameState {
        state: PlayState::Finished,
        ..Default::default()
    });
    blackboard.insert(MotionInfo::default());
    blackboard.insert(FallState::default());
    blackboard.insert(TeamMates::default());
    blackboard.insert(types::BallModel::default());
    blackboard.insert(BehaviourRequest::default());
    assert!(control
        .update_named("BehaviourRequest", &mut blackboard)
        .unwrap());
    assert_eq!(
        blackboard.get::<BehaviourRequest>().unwrap().body,
        BodyMotion::Sit
    );
    assert_eq!(
        behaviours::BehaviourControl::declaration().provides,
        ["BehaviourRequest"]
    );
}

#[test]
fn a_folder_deleted_and_made_again_is_watched_again() {
    let _one = one_engine_at_a_time();
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("python");
    write(&folder, "behaviour.py", STAND);
    let mut engine = engine(&folder);
    tick_until(&mut engine, |request| request.body == BodyMotion::Stand);
    for round in 0..2 {
        std::fs::remove_dir_all(&folder).unwrap();
        // Long enough for the watcher to notice the folder is gone (100 ms identity checks).
        for _ in 0..30 {
            engine.tick(BlackboardSnapshot::default(), Instant::now());
            std::thread::sleep(Duration::from_millis(10));
        }
        let text = if round == 0 { SIT } else { STAND };
        write(&folder, "behaviour.py", text);
        let wanted = if round == 0 {
            BodyMotion::Sit
        } else {
            BodyMotion::Stand
        };
        tick_until(&mut engine, |request| request.body == wanted);
    }
    // Deleted and made again between two identity checks (the inode number may even be reused):
    // the dead watch is noticed by its removal event.
    std::fs::remove_dir_all(&folder).unwrap();
    write(&folder, "behaviour.py", SIT);
    tick_until(&mut engine, |request| request.body == BodyMotion::Sit);
    write(&folder, "behaviour.py", STAND);
    tick_until(&mut engine, |request| request.body == BodyMotion::Stand);
}

#[test]
fn the_fault_names_file_line_and_error_and_clears_after_the_fix() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "behaviour.py", STAND);
    write(
        folder.path(),
        "helpers/maths.py",
        "def divide(a, b):\n    return a / b\n",
    );
    let mut engine = engine(folder.path());
    assert_eq!(engine.status().fault, None);
    write(
        folder.path(),
        "behaviour.py",
        "import robot\nfrom helpers import maths\n\ndef tick(blackboard):\n    maths.divide(1, 0)\n    return robot.BehaviourRequest()\n",
    );
    engine.reload().unwrap();
    engine.tick(BlackboardSnapshot::default(), Instant::now());
    // The innermost frame inside the behaviour folder, relative to it.
    assert_eq!(
        engine.status().fault.as_deref(),
        Some("Python error: helpers/maths.py:2: ZeroDivisionError: division by zero")
    );
    let tick_error = engine.status().tick_error.clone().unwrap();
    assert!(
        tick_error.contains("line 5, in tick") && tick_error.contains("line 2, in divide"),
        "the logged traceback has its frames: {tick_error}"
    );
    let (count, current) = framework::faults::current_fault();
    assert!(count >= 1);
    assert_eq!(
        current,
        "Python error: helpers/maths.py:2: ZeroDivisionError: division by zero"
    );

    // A reload that fails while good code runs is still shown.
    write(folder.path(), "behaviour.py", STAND);
    engine.reload().unwrap();
    engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert_eq!(engine.status().fault, None);
    write(
        folder.path(),
        "behaviour.py",
        "import robot\n\ndef tick(:\n",
    );
    assert!(engine.reload().is_err());
    engine.tick(BlackboardSnapshot::default(), Instant::now());
    let fault = engine.status().fault.clone().unwrap();
    assert!(
        fault.starts_with("Python error: reload failed, the previous code runs: behaviour.py:3:")
            && fault.contains("SyntaxError"),
        "{fault}"
    );
    write(folder.path(), "behaviour.py", STAND);
    engine.reload().unwrap();
    engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert_eq!(engine.status().fault, None);
    assert_eq!(framework::faults::current_fault().1, "");
}

#[test]
fn threads_and_fork_are_refused_with_the_reason() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "behaviour.py", STAND);
    let mut engine = engine(folder.path());
    for (code, line) in [
        (
            "import threading\nthreading.Thread(target=print).start()\n",
            2,
        ),
        ("import _thread\n_thread.start_new_thread(print, ())\n", 2),
        ("import os\n\nos.fork()\n", 3),
    ] {
        write(
            folder.path(),
            "behaviour.py",
            &format!("{code}\ndef tick(blackboard):\n    pass\n"),
        );
        let error = engine.reload().unwrap_err();
        assert!(
            error.contains("a behaviour may not start threads"),
            "{code}: {error}"
        );
        let fault = engine.status().fault.clone().unwrap();
        assert!(
            fault.starts_with(&format!(
                "Python error: behaviour.py:{line}: ThreadsRefused"
            )),
            "{code}: {fault}"
        );
    }
}

#[test]
fn a_fixed_file_does_not_inherit_a_broken_ones_monkey_patching() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "behaviour.py", STAND);
    let mut engine = engine(folder.path());
    write(
        folder.path(),
        "behaviour.py",
        "import builtins, robot\nrobot.BehaviourRequest = None\ndel builtins.len\nbuiltins.extra = 1\n\ndef tick(blackboard):\n    return robot.BehaviourRequest()\n",
    );
    engine.reload().unwrap();
    let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert!(
        engine.status().tick_error.is_some(),
        "the broken code fails"
    );
    assert_eq!(request.body, BodyMotion::Stand);
    write(
        folder.path(),
        "behaviour.py",
        "import builtins, robot\n\ndef tick(blackboard):\n    assert len([1]) == 1 and not hasattr(builtins, 'extra')\n    request = robot.BehaviourRequest()\n    request.body.sit()\n    return request\n",
    );
    engine.reload().unwrap();
    let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert_eq!(engine.status().tick_error, None);
    assert_eq!(request.body, BodyMotion::Sit);
}

#[test]
fn signal_handling_is_refused_with_the_reason() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "behaviour.py", STAND);
    let mut engine = engine(folder.path());
    for code in [
        "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n",
        "import signal\nsignal.alarm(1)\n",
        "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])\n",
    ] {
        write(
            folder.path(),
            "behaviour.py",
            &format!("{code}\ndef tick(blackboard):\n    pass\n"),
        );
        let error = engine.reload().unwrap_err();
        assert!(
            error.contains("may not change signal handling"),
            "{code}: {error}"
        );
        let fault = engine.status().fault.clone().unwrap();
        assert!(
            fault.starts_with("Python error: behaviour.py:2: SignalsRefused"),
            "{code}: {fault}"
        );
    }
}

#[test]
fn a_package_synced_into_the_folder_after_the_start_is_found_in_its_behaviours_folder() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    let mut engine = engine(folder.path());
    assert!(engine.status().load_error.is_some());
    // What `cortex sync --local DIR` makes: DIR/behaviours/behaviour.py.
    write(folder.path(), "behaviours/behaviour.py", SIT);
    tick_until(&mut engine, |request| request.body == BodyMotion::Sit);
    write(folder.path(), "behaviours/behaviour.py", STAND);
    tick_until(&mut engine, |request| request.body == BodyMotion::Stand);
}

#[test]
fn a_file_that_would_replace_a_module_in_use_or_a_looping_link_fails_the_load_only() {
    let _one = one_engine_at_a_time();
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "behaviour.py", STAND);
    let mut engine = engine(folder.path());
    write(
        folder.path(),
        "os.py",
        "def getcwd():\n    return 'hijacked'\n",
    );
    let error = engine.reload().unwrap_err();
    assert!(
        error.contains("os.py") && error.contains("would replace the module(s) `os`"),
        "{error}"
    );
    std::fs::remove_file(folder.path().join("os.py")).unwrap();
    // A folder link to its own parent: not followed, the load succeeds.
    std::os::unix::fs::symlink(folder.path(), folder.path().join("again")).unwrap();
    write(folder.path(), "behaviour.py", SIT);
    engine.reload().unwrap();
    let request = engine.tick(BlackboardSnapshot::default(), Instant::now());
    assert_eq!(request.body, BodyMotion::Sit);
}

#[test]
fn the_shipped_striker_walks_to_a_seen_ball_lines_up_and_kicks_it() {
    let _one = one_engine_at_a_time();
    let mut engine = engine(&shipped_behaviours());
    let now = Instant::now();
    let with_ball = |x: f32, y: f32| {
        let mut snapshot = game(PlayState::Playing, None);
        snapshot.ball.ever_seen = true;
        snapshot.ball.seconds_since_seen = 0.0;
        snapshot.ball.position = [x, y];
        snapshot
    };
    // Far away to the left: walk to it, turning towards it.
    let far = engine.tick(with_ball(2.0, 1.0), now);
    match far.body {
        BodyMotion::WalkTo {
            forward_m,
            left_m,
            turn_rad,
        } => {
            assert!(forward_m > 1.5 && left_m > 0.9, "{:?}", far.body);
            assert!((turn_rad - 0.5f32.atan()).abs() < 0.01, "{:?}", far.body);
        }
        other => panic!("expected WalkTo, got {other:?}"),
    }
    // In front of the right foot: kick with it, straight ahead.
    let kick = engine.tick(with_ball(0.19, -0.06), now);
    assert!(
        matches!(
            kick.body,
            BodyMotion::Kick {
                foot: types::Side::Right,
                direction_rad,
                ..
            } if direction_rad == 0.0
        ),
        "{:?}",
        kick.body
    );
    // Near but not lined up: a small walk_to without turning.
    let near = engine.tick(with_ball(0.3, 0.1), now);
    assert!(
        matches!(near.body, BodyMotion::WalkTo { turn_rad, .. } if turn_rad == 0.0),
        "{:?}",
        near.body
    );
    // Unknown ball: the search walk as before.
    let searching = engine.tick(game(PlayState::Playing, None), now);
    assert!(
        matches!(searching.body, BodyMotion::Walk { .. }),
        "{searching:?}"
    );
}
