//! Whole games, time-accelerated: five robots each run a [`MessagePacer`] tick by tick, a
//! GameController broadcasts at 2 Hz and takes one from the budget for every team message it
//! hears while messages count, packets and messages arrive late or not at all. The budget
//! must never be exceeded, no message may pass 128 bytes, and the messages must be spread
//! over the game (not spent early, not hoarded).

use spl_network::pacing::remaining_game_time_ms;
use spl_network::{
    Ball, GamePhase, Intention, MessagePacer, PacingInput, PacingParameters, Pose, Role,
    SendDecision, State, TeamMessage, Urgency, MAX_TEAM_MESSAGE_SIZE,
};

const HALF_MS: u64 = 10 * 60 * 1000;
const STEP_MS: u64 = 1;
const TICK_MS: u64 = 33;

struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A stretch of the game as the GameController runs it.
#[derive(Clone, Copy)]
struct Segment {
    state: State,
    game_phase: GamePhase,
    first_half: bool,
    duration_ms: u64,
    /// Robots hear a whistle (or see a referee signal) this long before the segment ends.
    priority_event_before_end_ms: Option<u64>,
    /// This player is penalised throughout.
    penalised_player: Option<usize>,
}

fn segment(state: State, first_half: bool, seconds: u64) -> Segment {
    Segment {
        state,
        game_phase: GamePhase::Normal,
        first_half,
        duration_ms: seconds * 1000,
        priority_event_before_end_ms: (state == State::Set || state == State::Standby)
            .then_some(500),
        penalised_player: None,
    }
}

/// A full game: standby, kick-offs, three goals with READY/SET in between (the clock stops),
/// half-time, a timeout, a penalised robot, and FINISHED.
fn full_game() -> Vec<Segment> {
    use State::*;
    let mut penalised = segment(Playing, false, 45);
    penalised.penalised_player = Some(2);
    let mut timeout = segment(Initial, false, 120);
    timeout.game_phase = GamePhase::Timeout;
    vec![
        segment(Initial, true, 30),
        segment(Standby, true, 20),
        segment(Ready, true, 45),
        segment(Set, true, 10),
        segment(Playing, true, 180),
        segment(Ready, true, 45),
        segment(Set, true, 10),
        segment(Playing, true, 240),
        segment(Ready, true, 45),
        segment(Set, true, 10),
        segment(Playing, true, 180),
        segment(Finished, true, 300),
        segment(Initial, false, 60),
        segment(Ready, false, 45),
        segment(Set, false, 10),
        segment(Playing, false, 200),
        penalised,
        segment(Playing, false, 55),
        timeout,
        segment(Ready, false, 45),
        segment(Set, false, 10),
        segment(Playing, false, 300),
        segment(Finished, false, 60),
    ]
}

/// What a robot knows from the newest GameController packet it received.
#[derive(Clone, Copy)]
struct Heard {
    state: State,
    game_phase: GamePhase,
    first_half: bool,
    seconds_remaining: i16,
    budget: u16,
    penalised: bool,
}

enum Delivery {
    GameController { robot: usize, heard: Heard },
    TeamMessageToGameController,
    TeamMessageToMate { robot: usize },
}

struct Network {
    game_controller_loss_percent: u64,
    team_mate_loss_percent: u64,
    max_delay_ms: u64,
}

struct Outcome {
    sent_per_robot: Vec<u64>,
    /// Counted messages per minute of playing time.
    per_playing_minute: Vec<u64>,
    budget_left: u16,
    lowest_budget: u16,
    illegal: u64,
    not_counted: u64,
}

fn message(robot: usize, now_ms: u64) -> TeamMessage {
    TeamMessage {
        team_number: 5,
        player_number: robot as u8 + 1,
        fallen: false,
        role: Role::Supporter,
        intention: Intention::WalkToPosition,
        pass_target: None,
        timestamp_ms: now_ms as u32,
        game_controller_reference: None,
        pose: Pose {
            x_mm: -3000.0 + (now_ms % 6000) as f32,
            y_mm: 0.0,
            angle_rad: 0.0,
        },
        ball: Some(Ball {
            position_mm: [1000.0, 0.0],
            age_ms: 100,
        }),
        walk_target_mm: [0.0, 0.0],
    }
}

fn play(script: &[Segment], players: usize, network: &Network, seed: u64) -> Outcome {
    let mut random = Random(seed);
    let parameters = PacingParameters::default();
    let mut pacers: Vec<_> = (0..players)
        .map(|_| MessagePacer::new(parameters))
        .collect();
    let mut heard: Vec<Option<Heard>> = vec![None; players];
    let mut pending_priority = vec![false; players];
    let tick_offsets: Vec<u64> = (0..players).map(|_| random.below(TICK_MS)).collect();
    let mut deliveries: Vec<(u64, Delivery)> = Vec::new();
    let mut outcome = Outcome {
        sent_per_robot: vec![0; players],
        per_playing_minute: vec![0; 21],
        budget_left: parameters.overall_budget,
        lowest_budget: parameters.overall_budget,
        illegal: 0,
        not_counted: 0,
    };
    let mut budget = parameters.overall_budget;
    let mut half_remaining_ms = HALF_MS;
    let mut playing_ms = 0_u64;
    let mut now = 0_u64;
    for segment in script {
        let end = now + segment.duration_ms;
        while now < end {
            let counts = matches!(
                segment.state,
                State::Standby | State::Ready | State::Set | State::Playing
            ) && segment.game_phase != GamePhase::PenaltyShootout;
            // The GameController: 2 Hz packets, each to each robot with its own delay/loss.
            if now % 500 == 0 {
                for robot in 0..players {
                    if random.chance(network.game_controller_loss_percent) {
                        continue;
                    }
                    let heard = Heard {
                        state: segment.state,
                        game_phase: segment.game_phase,
                        first_half: segment.first_half,
                        seconds_remaining: half_remaining_ms.div_ceil(1000) as i16,
                        budget,
                        penalised: segment.penalised_player == Some(robot),
                    };
                    let at = now + random.below(network.max_delay_ms + 1);
                    deliveries.push((at, Delivery::GameController { robot, heard }));
                }
            }
            // Deliveries that are due.
            let mut index = 0;
            while index < deliveries.len() {
                if deliveries[index].0 > now {
                    index += 1;
                    continue;
                }
                match deliveries.swap_remove(index).1 {
                    Delivery::GameController {
                        robot,
                        heard: packet,
                    } => {
                        pacers[robot].game_controller_budget(packet.budget);
                        heard[robot] = Some(packet);
                    }
                    Delivery::TeamMessageToGameController => {
                        if !counts {
                            outcome.not_counted += 1;
                        } else if budget == 0 {
                            outcome.illegal += 1;
                        } else {
                            budget -= 1;
                            let minute = (playing_ms / 60_000) as usize;
                            outcome.per_playing_minute[minute.min(20)] += 1;
                        }
                    }
                    Delivery::TeamMessageToMate { robot } => pacers[robot].heard_team_message(),
                }
            }
            // Priority events (a whistle heard by every robot).
            if let Some(before_end) = segment.priority_event_before_end_ms {
                if now + before_end == end {
                    pending_priority
                        .iter_mut()
                        .for_each(|pending| *pending = true);
                }
            }
            // The robots' ticks.
            for robot in 0..players {
                if now % TICK_MS != tick_offsets[robot] {
                    continue;
                }
                let Some(packet) = heard[robot] else { continue };
                let urgency = if pending_priority[robot] {
                    Urgency::Priority
                } else {
                    Urgency::Normal
                };
                let input = PacingInput {
                    state: packet.state,
                    game_phase: packet.game_phase,
                    penalised: packet.penalised,
                    team_budget: packet.budget,
                    remaining_game_time_ms: remaining_game_time_ms(
                        packet.game_phase,
                        packet.first_half,
                        packet.seconds_remaining,
                        HALF_MS,
                    ),
                    players: players as u8,
                    urgency,
                };
                if pacers[robot].decide(now, &input) != SendDecision::Send {
                    continue;
                }
                let bytes = message(robot, now).encode().expect("a valid message");
                assert!(bytes.len() <= MAX_TEAM_MESSAGE_SIZE);
                pacers[robot].sent(now);
                pending_priority[robot] = false;
                outcome.sent_per_robot[robot] += 1;
                let at = now + 1 + random.below(network.max_delay_ms);
                deliveries.push((at, Delivery::TeamMessageToGameController));
                for mate in (0..players).filter(|&mate| mate != robot) {
                    if !random.chance(network.team_mate_loss_percent) {
                        let at = now + 1 + random.below(network.max_delay_ms);
                        deliveries.push((at, Delivery::TeamMessageToMate { robot: mate }));
                    }
                }
            }
            if segment.state == State::Playing {
                half_remaining_ms = half_remaining_ms.saturating_sub(STEP_MS);
                playing_ms += STEP_MS;
            }
            outcome.lowest_budget = outcome.lowest_budget.min(budget);
            now += STEP_MS;
        }
        if segment.state == State::Finished && segment.first_half {
            half_remaining_ms = HALF_MS;
        }
    }
    outcome.budget_left = budget;
    outcome
}

fn report(name: &str, outcome: &Outcome) {
    eprintln!(
        "{name}: sent per robot {:?}, per playing minute {:?}, budget left {} (lowest {}), \
         not counted {}",
        outcome.sent_per_robot,
        outcome.per_playing_minute,
        outcome.budget_left,
        outcome.lowest_budget,
        outcome.not_counted
    );
}

#[test]
fn a_full_game_stays_within_the_budget_and_spreads_it() {
    let network = Network {
        game_controller_loss_percent: 5,
        team_mate_loss_percent: 5,
        max_delay_ms: 40,
    };
    for seed in [1, 2, 3] {
        let outcome = play(&full_game(), 5, &network, seed);
        report(&format!("seed {seed}"), &outcome);
        assert_eq!(outcome.illegal, 0, "a message was sent with no budget left");
        assert!(outcome.lowest_budget > 0);
        let used = 1200 - u64::from(outcome.budget_left);
        assert!(used >= 1000, "only {used} of 1200 messages used: hoarded");
        assert_eq!(
            outcome.not_counted, 0,
            "messages in states where nobody needs them"
        );
        for (minute, &count) in outcome.per_playing_minute[..20].iter().enumerate() {
            assert!(
                (20..=120).contains(&count),
                "playing minute {minute}: {count} messages (even spending is ~58)"
            );
        }
        let share = 1200 / 5;
        for (robot, &sent) in outcome.sent_per_robot.iter().enumerate() {
            assert!(
                sent <= share + share / 4 && sent >= share / 2,
                "robot {robot} sent {sent}, its share is {share}"
            );
        }
    }
}

#[test]
fn ten_minutes_of_playing_spend_no_more_than_their_share() {
    let script = [
        segment(State::Ready, true, 1),
        segment(State::Playing, true, 600),
    ];
    let network = Network {
        game_controller_loss_percent: 0,
        team_mate_loss_percent: 0,
        max_delay_ms: 20,
    };
    for players in [3, 5, 7] {
        let outcome = play(&script, players, &network, 7);
        report(&format!("{players} players"), &outcome);
        let used = 1200 - u64::from(outcome.budget_left);
        // Half the game is over: at most half of what lies above the reserve, plus what the
        // lookahead (5 s) lets through early.
        let half = (1200 - 30) / 2;
        let lookahead = (1200 - 30) * 5 / 1200 + 1;
        assert!(
            used <= half + lookahead,
            "{players} players used {used} in the first half (share {half})"
        );
        assert!(used >= half * 9 / 10, "{players} players used only {used}");
        let robot_share = (half + lookahead) / players as u64 + 2;
        assert!(outcome
            .sent_per_robot
            .iter()
            .all(|&sent| sent <= robot_share));
    }
}

#[test]
fn lossy_network_never_exceeds_the_budget() {
    let network = Network {
        game_controller_loss_percent: 40,
        team_mate_loss_percent: 30,
        max_delay_ms: 400,
    };
    for seed in [11, 12] {
        let outcome = play(&full_game(), 7, &network, seed);
        report(&format!("lossy seed {seed}"), &outcome);
        assert_eq!(outcome.illegal, 0);
        assert!(outcome.lowest_budget > 0);
    }
}

fn input(state: State, budget: u16) -> PacingInput {
    PacingInput {
        state,
        game_phase: GamePhase::Normal,
        penalised: false,
        team_budget: budget,
        remaining_game_time_ms: HALF_MS,
        players: 5,
        urgency: Urgency::Normal,
    }
}

#[test]
fn no_message_where_it_is_not_needed_or_not_affordable() {
    let pacer = MessagePacer::new(PacingParameters::default());
    for state in [State::Initial, State::Finished, State::Standby, State::Set] {
        assert_eq!(
            pacer.decide(0, &input(state, 1200)),
            SendDecision::NotNeeded,
            "{state}"
        );
    }
    let priority = |state| PacingInput {
        urgency: Urgency::Priority,
        ..input(state, 1200)
    };
    assert_eq!(pacer.decide(0, &priority(State::Set)), SendDecision::Send);
    assert_eq!(
        pacer.decide(0, &priority(State::Standby)),
        SendDecision::Send
    );
    assert_eq!(
        pacer.decide(0, &priority(State::Initial)),
        SendDecision::NotNeeded
    );
    let shootout = PacingInput {
        game_phase: GamePhase::PenaltyShootout,
        ..priority(State::Playing)
    };
    assert_eq!(pacer.decide(0, &shootout), SendDecision::NotNeeded);
    let penalised = PacingInput {
        penalised: true,
        ..input(State::Playing, 1200)
    };
    assert_eq!(pacer.decide(0, &penalised), SendDecision::NotNeeded);

    assert_eq!(
        pacer.decide(0, &input(State::Playing, 0)),
        SendDecision::ReserveReached
    );
    assert_eq!(
        pacer.decide(0, &input(State::Playing, 30)),
        SendDecision::ReserveReached
    );
    assert_eq!(
        pacer.decide(
            0,
            &PacingInput {
                urgency: Urgency::Priority,
                ..input(State::Playing, 15)
            }
        ),
        SendDecision::ReserveReached
    );
    // Half the game left but only a third of the budget: ahead of schedule.
    assert_eq!(
        pacer.decide(0, &input(State::Playing, 400)),
        SendDecision::AheadOfSchedule
    );
    assert_eq!(
        pacer.decide(0, &input(State::Playing, 700)),
        SendDecision::Send
    );
}

#[test]
fn heard_messages_and_own_sends_lower_the_modelled_budget() {
    let mut pacer = MessagePacer::new(PacingParameters::default());
    // Half the game (600 s) left: the line is at 30 + 1170 · 595 / 1200 ≈ 610.1 messages.
    let playing = input(State::Playing, 620);
    pacer.game_controller_budget(620);
    assert_eq!(pacer.modelled_budget(&playing), 620);
    assert_eq!(pacer.decide(0, &playing), SendDecision::Send);
    pacer.sent(0);
    assert!(matches!(
        pacer.decide(500, &playing),
        SendDecision::TooSoon { .. }
    ));
    for _ in 0..10 {
        pacer.heard_team_message();
    }
    assert_eq!(pacer.modelled_budget(&playing), 609);
    assert_eq!(
        pacer.decide(60_000, &playing),
        SendDecision::AheadOfSchedule
    );
    // A newer packet reports what the GameController counted; the model starts again.
    pacer.game_controller_budget(1000);
    let rich = input(State::Playing, 1000);
    assert_eq!(pacer.modelled_budget(&rich), 1000);
    // 970 spendable over 600 s for 5 players: this robot may send every ~3.1 s.
    let SendDecision::TooSoon { next_ms } = pacer.decide(1000, &rich) else {
        panic!("the robot's share interval applies")
    };
    assert_eq!(next_ms, 600_000 * 5 / (1000 - 30));
    assert_eq!(pacer.decide(next_ms, &rich), SendDecision::Send);
}

/// A random game: each half has 600 s of PLAYING cut into stretches, with READY and SET of
/// random length before each (the clock stands), sometimes a timeout or a penalised robot.
fn random_game(random: &mut Random, players: usize) -> Vec<Segment> {
    let mut script = vec![segment(State::Initial, true, 5)];
    if random.chance(50) {
        script.push(segment(State::Standby, true, 1 + random.below(60)));
    }
    for first_half in [true, false] {
        let mut playing_left = 600;
        while playing_left > 0 {
            script.push(segment(State::Ready, first_half, 1 + random.below(120)));
            script.push(segment(State::Set, first_half, 1 + random.below(30)));
            let seconds = (10 + random.below(300)).min(playing_left);
            let mut playing = segment(State::Playing, first_half, seconds);
            if random.chance(30) {
                playing.penalised_player = Some(random.below(players as u64) as usize);
            }
            script.push(playing);
            playing_left -= seconds;
            if random.chance(15) {
                let mut timeout = segment(State::Initial, first_half, 10 + random.below(120));
                timeout.game_phase = GamePhase::Timeout;
                script.push(timeout);
            }
        }
        script.push(segment(State::Finished, first_half, 10 + random.below(60)));
    }
    script
}

#[test]
fn random_games_never_exceed_the_budget() {
    let mut random = Random(0xBADC_0FFE);
    for game in 0..8 {
        let players = 3 + random.below(5) as usize;
        let network = Network {
            game_controller_loss_percent: random.below(40),
            team_mate_loss_percent: random.below(40),
            max_delay_ms: 1 + random.below(400),
        };
        let script = random_game(&mut random, players);
        let outcome = play(&script, players, &network, random.next());
        report(&format!("random game {game}, {players} players"), &outcome);
        assert_eq!(
            outcome.illegal, 0,
            "game {game}: a message with no budget left"
        );
        assert!(outcome.lowest_budget > 0, "game {game}");
        let used = 1200 - u64::from(outcome.budget_left);
        assert!(used >= 900, "game {game}: only {used} of 1200 used");
    }
}
