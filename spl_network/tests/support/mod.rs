//! Simulated games for the pacing tests and the pacing bench, time-accelerated in 1 ms steps:
//! robots tick every 33 ms and ask their pacer, a GameController broadcasts at 2 Hz and takes
//! one from the budget for every team message it hears while messages count, and packets and
//! messages arrive late or not at all.

#![allow(dead_code)]

use spl_network::pacing::remaining_game_time_ms;
use spl_network::{
    Ball, GamePhase, Intention, MessagePacer, PacingInput, PacingParameters, Pose, Role,
    SendDecision, State, TeamMessage, Urgency, MAX_TEAM_MESSAGE_SIZE,
};

/// What a robot asks before it sends; [`MessagePacer`] is the one Cortex uses.
pub trait Pacer {
    fn game_controller_budget(&mut self, budget: u16);
    fn heard_team_message(&mut self);
    fn sent(&mut self, now_ms: u64);
    fn may_send(&mut self, now_ms: u64, input: &PacingInput) -> bool;
}

impl Pacer for MessagePacer {
    fn game_controller_budget(&mut self, budget: u16) {
        MessagePacer::game_controller_budget(self, budget);
    }
    fn heard_team_message(&mut self) {
        MessagePacer::heard_team_message(self);
    }
    fn sent(&mut self, now_ms: u64) {
        MessagePacer::sent(self, now_ms);
    }
    fn may_send(&mut self, now_ms: u64, input: &PacingInput) -> bool {
        self.decide(now_ms, input) == SendDecision::Send
    }
}

pub const HALF_MS: u64 = 10 * 60 * 1000;
pub const STEP_MS: u64 = 1;
pub const TICK_MS: u64 = 33;

pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A stretch of the game as the GameController runs it.
#[derive(Clone, Copy)]
pub struct Segment {
    pub state: State,
    pub game_phase: GamePhase,
    pub first_half: bool,
    pub duration_ms: u64,
    /// Robots hear a whistle (or see a referee signal) this long before the segment ends.
    pub priority_event_before_end_ms: Option<u64>,
    /// This player is penalised throughout.
    pub penalised_player: Option<usize>,
}

pub fn segment(state: State, first_half: bool, seconds: u64) -> Segment {
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
pub fn full_game() -> Vec<Segment> {
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
pub struct Heard {
    state: State,
    game_phase: GamePhase,
    first_half: bool,
    seconds_remaining: i16,
    budget: u16,
    penalised: bool,
    sending_players: u8,
}

pub enum Delivery {
    GameController { robot: usize, heard: Heard },
    TeamMessageToGameController,
    TeamMessageToMate { robot: usize },
}

pub struct Network {
    pub game_controller_loss_percent: u64,
    pub team_mate_loss_percent: u64,
    pub max_delay_ms: u64,
}

pub struct Outcome {
    pub sent_per_robot: Vec<u64>,
    /// Counted messages per minute of playing time.
    pub per_playing_minute: Vec<u64>,
    pub budget_left: u16,
    pub lowest_budget: u16,
    pub illegal: u64,
    pub not_counted: u64,
    /// The longest stretch of PLAYING without a counted message, ms.
    pub longest_playing_silence_ms: u64,
}

pub fn message(robot: usize, now_ms: u64) -> TeamMessage {
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

/// A game with [`MessagePacer`]s of the default parameters.
pub fn play(script: &[Segment], players: usize, network: &Network, seed: u64) -> Outcome {
    play_with(script, players, network, seed, |_| {
        MessagePacer::new(PacingParameters::default())
    })
}

/// A game with the pacers `make_pacer` gives each robot.
pub fn play_with<P: Pacer>(
    script: &[Segment],
    players: usize,
    network: &Network,
    seed: u64,
    make_pacer: impl Fn(usize) -> P,
) -> Outcome {
    let mut random = Random(seed);
    let parameters = PacingParameters::default();
    let mut pacers: Vec<P> = (0..players).map(make_pacer).collect();
    let mut last_counted_playing_ms = 0_u64;
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
        longest_playing_silence_ms: 0,
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
                        sending_players: (players - usize::from(segment.penalised_player.is_some()))
                            as u8,
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
                            if segment.state == State::Playing {
                                outcome.longest_playing_silence_ms = outcome
                                    .longest_playing_silence_ms
                                    .max(playing_ms - last_counted_playing_ms);
                                last_counted_playing_ms = playing_ms;
                            }
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
                    players: packet.sending_players,
                    urgency,
                };
                if !pacers[robot].may_send(now, &input) {
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
    outcome.longest_playing_silence_ms = outcome
        .longest_playing_silence_ms
        .max(playing_ms - last_counted_playing_ms);
    outcome
}

pub fn report(name: &str, outcome: &Outcome) {
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

/// A random game: each half has 600 s of PLAYING cut into stretches, with READY and SET of
/// random length before each (the clock stands), sometimes a timeout or a penalised robot.
pub fn random_game(random: &mut Random, players: usize) -> Vec<Segment> {
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
