//! Whole games, time-accelerated: five robots each run a [`MessagePacer`] tick by tick, a
//! GameController broadcasts at 2 Hz and takes one from the budget for every team message it
//! hears while messages count, packets and messages arrive late or not at all. The budget
//! must never be exceeded, no message may pass 128 bytes, and the messages must be spread
//! over the game (not spent early, not hoarded).

mod support;

use spl_network::{
    GamePhase, MessagePacer, PacingInput, PacingParameters, SendDecision, State, Urgency,
};
use support::{full_game, play, random_game, report, segment, Network, Random, HALF_MS};

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
                (45..=75).contains(&count),
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
        assert!(used >= 1150, "game {game}: only {used} of 1200 used");
        for (minute, &count) in outcome.per_playing_minute[..20].iter().enumerate() {
            assert!(
                (40..=80).contains(&count),
                "game {game}, playing minute {minute}: {count} messages"
            );
        }
    }
}

#[test]
fn the_input_comes_from_a_game_controller_packet() {
    let mut game = spl_network::fake_game_controller::GameSetup::new(5, 12);
    game.state = State::Playing;
    game.first_half = false;
    game.seconds_remaining = 90;
    game.message_budgets = [400, 1200];
    game.penalties
        .push((5, 2, spl_network::Penalty::RequestForPickup));
    let packet = game.message(7);
    let input =
        |player| PacingInput::from_game_controller(&packet, 5, player, HALF_MS, Urgency::Normal);
    let three = input(3).expect("team 5 plays");
    assert!(!three.penalised);
    assert_eq!(three.team_budget, 400);
    assert_eq!(
        three.players, 4,
        "player 2 is penalised, 6-20 are substitutes"
    );
    assert_eq!(
        three.remaining_game_time_ms, 90_000,
        "second half: only this half"
    );
    assert!(input(2).unwrap().penalised);
    assert!(input(6).unwrap().penalised, "a substitute");
    assert!(input(21).unwrap().penalised, "no such player");
    assert!(PacingInput::from_game_controller(&packet, 7, 1, HALF_MS, Urgency::Normal).is_none());
}
