//! Pacing strategies side by side over the same simulated games (tests/support): Cortex's
//! `MessagePacer` (B-Human's line + a per-robot share + a modelled budget) against the line
//! alone, the share alone, and a fixed interval. Prints one table: messages sent past the
//! budget, the lowest budget, what was used, the longest silence while PLAYING, the spread over
//! playing minutes, and the cost of one decision.
//!
//! ```text
//! cargo bench -p spl_network --bench pacing_strategies
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use spl_network::{GamePhase, MessagePacer, PacingInput, PacingParameters, State, Urgency};
use std::hint::black_box;
use std::time::Instant;
use support::{full_game, play_with, random_game, Network, Outcome, Pacer, Random};

const RESERVE: u16 = 30;
const PRIORITY_RESERVE: u16 = 15;
const MIN_INTERVAL_MS: u64 = 1000;
const GAME_MS: u64 = 20 * 60 * 1000;

/// The state rule every strategy shares (so that only the budget rule differs).
fn needed(input: &PacingInput) -> bool {
    if input.penalised || input.game_phase == GamePhase::PenaltyShootout {
        return false;
    }
    match input.state {
        State::Ready | State::Playing => true,
        State::Standby | State::Set => input.urgency == Urgency::Priority,
        State::Initial | State::Finished => false,
    }
}

/// Budget and interval rules over the GameController's budget as reported (no model).
#[derive(Clone, Copy)]
enum Rule {
    /// B-Human's `withinNormalBudget` and a 1 s minimum interval.
    LineOnly,
    /// Each robot every `remaining · players / (budget − reserve)`.
    ShareOnly,
    /// Each robot every `players · game / overall budget` (5 s for 5 players), until the
    /// reported budget is 0.
    FixedInterval,
}

struct Simple {
    rule: Rule,
    last_sent_ms: Option<u64>,
}

impl Pacer for Simple {
    fn game_controller_budget(&mut self, _budget: u16) {}
    fn heard_team_message(&mut self) {}
    fn sent(&mut self, now_ms: u64) {
        self.last_sent_ms = Some(now_ms);
    }
    fn may_send(&mut self, now_ms: u64, input: &PacingInput) -> bool {
        if !needed(input) {
            return false;
        }
        let priority = input.urgency == Urgency::Priority;
        let reserve = match (self.rule, priority) {
            // A naive team: stops only when the GameController says nothing is left.
            (Rule::FixedInterval, _) => 0,
            (_, true) => PRIORITY_RESERVE,
            (_, false) => RESERVE,
        };
        if input.team_budget <= reserve {
            return false;
        }
        let spendable = u64::from(input.team_budget - reserve);
        let remaining = input.remaining_game_time_ms.min(GAME_MS);
        let players = u64::from(input.players.max(1));
        let interval = match (self.rule, priority) {
            (_, true) => MIN_INTERVAL_MS,
            (Rule::LineOnly, false) => {
                let line = u64::from(1200 - reserve) * remaining.saturating_sub(5000);
                if spendable * GAME_MS <= line {
                    return false;
                }
                MIN_INTERVAL_MS
            }
            (Rule::ShareOnly, false) => MIN_INTERVAL_MS.max(remaining * players / spendable),
            (Rule::FixedInterval, false) => players * GAME_MS / 1200,
        };
        self.last_sent_ms
            .is_none_or(|last| now_ms >= last + interval)
    }
}

#[derive(Default)]
struct Totals {
    games: u64,
    illegal: u64,
    lowest_budget: u16,
    used: u64,
    longest_silence_ms: u64,
    quietest_minute: u64,
    busiest_minute: u64,
    /// The smallest ratio of the least to the most messages of one robot in a game (robots
    /// never penalised).
    fairness: f64,
}

impl Totals {
    /// `penalised`: robots penalised at some time of the game (left out of the fairness).
    fn add(&mut self, outcome: &Outcome, penalised: &[usize]) {
        if self.games == 0 {
            self.lowest_budget = u16::MAX;
            self.quietest_minute = u64::MAX;
            self.fairness = 1.0;
        }
        let sent = || {
            outcome
                .sent_per_robot
                .iter()
                .enumerate()
                .filter(|(robot, _)| !penalised.contains(robot))
                .map(|(_, &sent)| sent)
        };
        let most = sent().max().unwrap_or(0).max(1);
        let least = sent().min().unwrap_or(0);
        self.fairness = self.fairness.min(least as f64 / most as f64);
        self.games += 1;
        self.illegal += outcome.illegal;
        self.lowest_budget = self.lowest_budget.min(outcome.lowest_budget);
        self.used += 1200 - u64::from(outcome.budget_left);
        self.longest_silence_ms = self
            .longest_silence_ms
            .max(outcome.longest_playing_silence_ms);
        let minutes = &outcome.per_playing_minute[..20];
        self.quietest_minute = self
            .quietest_minute
            .min(*minutes.iter().min().unwrap_or(&0));
        self.busiest_minute = self.busiest_minute.max(*minutes.iter().max().unwrap_or(&0));
    }
}

fn games() -> Vec<(Vec<support::Segment>, usize, Network, u64)> {
    let mut random = Random(0x0BE7_C4E5);
    let mut games = Vec::new();
    for seed in 1..=3 {
        let network = Network {
            game_controller_loss_percent: 5,
            team_mate_loss_percent: 5,
            max_delay_ms: 40,
        };
        games.push((full_game(), 5, network, seed));
    }
    for _ in 0..9 {
        let players = 3 + random.below(5) as usize;
        let network = Network {
            game_controller_loss_percent: random.below(40),
            team_mate_loss_percent: random.below(40),
            max_delay_ms: 1 + random.below(400),
        };
        let script = random_game(&mut random, players);
        games.push((script, players, network, random.next()));
    }
    games
}

/// Nanoseconds per decision over inputs that sweep budget and time.
fn decision_ns(mut pacer: impl Pacer) -> f64 {
    let inputs: Vec<PacingInput> = (0..1024_u64)
        .map(|index| PacingInput {
            state: State::Playing,
            game_phase: GamePhase::Normal,
            penalised: false,
            team_budget: (index % 1200) as u16,
            remaining_game_time_ms: (index * 1171) % GAME_MS,
            players: 5,
            urgency: Urgency::Normal,
        })
        .collect();
    let rounds = 2000_u64;
    let start = Instant::now();
    let mut sends = 0_u64;
    for round in 0..rounds {
        for (index, input) in inputs.iter().enumerate() {
            let now = round * 1024 + index as u64;
            sends += u64::from(pacer.may_send(black_box(now), black_box(input)));
        }
    }
    black_box(sends);
    start.elapsed().as_nanos() as f64 / (rounds * inputs.len() as u64) as f64
}

fn main() {
    let games = games();
    let strategies: [(&str, Option<Rule>); 4] = [
        ("MessagePacer (line + share + model)", None),
        (
            "line only (B-Human withinNormalBudget)",
            Some(Rule::LineOnly),
        ),
        ("share only", Some(Rule::ShareOnly)),
        ("fixed interval (players x 1 s)", Some(Rule::FixedInterval)),
    ];
    println!(
        "{} games (3 full games with stoppages, 9 random: 3-7 players, up to 40 % loss, 400 ms delay)",
        games.len()
    );
    println!(
        "{:<40} {:>7} {:>6} {:>9} {:>9} {:>14} {:>8} {:>16}",
        "strategy",
        "illegal",
        "lowest",
        "used/game",
        "silence s",
        "minute min-max",
        "fairness",
        "ns/decide"
    );
    let mut reference_ns = 0.0;
    for (name, rule) in strategies {
        let mut totals = Totals::default();
        for (script, players, network, seed) in &games {
            let outcome = match rule {
                None => play_with(script, *players, network, *seed, |_| {
                    MessagePacer::new(PacingParameters::default())
                }),
                Some(rule) => play_with(script, *players, network, *seed, |_| Simple {
                    rule,
                    last_sent_ms: None,
                }),
            };
            let penalised: Vec<usize> = script
                .iter()
                .filter_map(|segment| segment.penalised_player)
                .collect();
            totals.add(&outcome, &penalised);
        }
        let ns = match rule {
            None => decision_ns(MessagePacer::new(PacingParameters::default())),
            Some(rule) => decision_ns(Simple {
                rule,
                last_sent_ms: None,
            }),
        };
        if rule.is_none() {
            reference_ns = ns;
        }
        println!(
            "{:<40} {:>7} {:>6} {:>9} {:>9.1} {:>10}-{:<3} {:>8.2} {:>8.1} ({:.2}x)",
            name,
            totals.illegal,
            totals.lowest_budget,
            totals.used / totals.games,
            totals.longest_silence_ms as f64 / 1000.0,
            totals.quietest_minute,
            totals.busiest_minute,
            totals.fairness,
            ns,
            ns / reference_ns
        );
    }
}
