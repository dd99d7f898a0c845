//! When a robot may send a team message: B-Human's budget pacing, per robot.
//!
//! The team may send [`PacingParameters::overall_budget`] messages per game (1200 in the SPL);
//! the GameController counts every message it hears in STANDBY, READY, SET and PLAYING (not in
//! a penalty shoot-out) and broadcasts what is left in `TeamInfo::messageBudget`. Sending past
//! zero zeroes the team's score. A robot sends a *normal* message only when all of these hold:
//!
//! 1. The state needs it: READY and PLAYING (robots move and share the ball). INITIAL,
//!    FINISHED, a timeout and a penalty shoot-out are not counted, but nobody needs messages
//!    then; STANDBY and SET are counted and only *priority* messages (a whistle heard, a
//!    referee signal seen) go out. A penalised robot sends nothing.
//! 2. The budget is ahead of the line from `overall_budget` at kick-off to `normal_reserve` at
//!    the end: `(budget − normal_reserve) · game_duration > (overall_budget − normal_reserve) ·
//!    (remaining − lookahead)` (B-Human's `withinNormalBudget`). The team as a whole then
//!    spends the budget evenly over the game, whatever the robots do.
//! 3. The robot's own share: at least `remaining · players / (budget − normal_reserve)` since
//!    its last message, and never less than `min_send_interval`, `players` being the robots
//!    not penalised now. If every robot keeps this interval, the team spends exactly what is
//!    left over the time that is left (`benches/pacing_strategies.rs` compares the rules).
//!
//! *Priority* messages skip 2 and 3 (but keep `min_send_interval`) down to `priority_reserve`.
//! The budget used is the GameController's, minus every team message heard since that packet
//! (our own included): the GameController broadcasts at 2 Hz, and five robots can send in
//! between. The reserves are the safety margin for messages the model could not see (lost
//! broadcasts, a GameController packet that arrives late).

use crate::game_controller_enums::{GamePhase, State};
use crate::game_controller_message::GameControllerMessage;
use serde::{Deserialize, Serialize};

/// The pacer's settings; [`Default`] holds the SPL's budget and B-Human's reserves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacingParameters {
    /// Messages per game for the whole team (SPL: 1200).
    pub overall_budget: u16,
    /// Left unused at the end of the game by normal messages.
    pub normal_reserve: u16,
    /// Left unused by priority messages (smaller than `normal_reserve`).
    pub priority_reserve: u16,
    /// The least time between two messages of one robot, ms.
    pub min_send_interval_ms: u64,
    /// The line of rule 2 is evaluated this far in the future, ms.
    pub lookahead_ms: u64,
    /// Two halves of playing time, ms (SPL: 2 × 10 min).
    pub game_duration_ms: u64,
}

impl Default for PacingParameters {
    fn default() -> Self {
        Self {
            overall_budget: 1200,
            normal_reserve: 30,
            priority_reserve: 15,
            min_send_interval_ms: 1000,
            lookahead_ms: 5000,
            game_duration_ms: 2 * 10 * 60 * 1000,
        }
    }
}

/// How much a message matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Urgency {
    /// The regular update of pose, ball and role.
    Normal,
    /// An event team mates must hear now (a whistle, a referee signal).
    Priority,
}

/// What the pacer needs to know about the game this tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacingInput {
    pub state: State,
    pub game_phase: GamePhase,
    /// This robot is penalised (or a substitute).
    pub penalised: bool,
    /// `messageBudget` of our team in the newest GameController packet.
    pub team_budget: u16,
    /// Playing time left in the game (see [`remaining_game_time_ms`]), ms.
    pub remaining_game_time_ms: u64,
    /// Robots sending now (see `TeamInfo::sending_players`; a penalised robot's share goes to
    /// the others), at least 1.
    pub players: u8,
    pub urgency: Urgency,
}

impl PacingInput {
    /// The input for player `player_number` of team `team_number` from a GameController
    /// packet, or `None` if the team does not play in it. `half_duration_ms`: 10 min in the SPL.
    ///
    /// ```
    /// use spl_network::fake_game_controller::GameSetup;
    /// use spl_network::{MessagePacer, PacingInput, PacingParameters, SendDecision, State, Urgency};
    ///
    /// let mut game = GameSetup::new(5, 12);
    /// game.state = State::Playing;
    /// let packet = game.message(0);
    /// let input = PacingInput::from_game_controller(&packet, 5, 2, 600_000, Urgency::Normal).unwrap();
    /// assert_eq!((input.players, input.team_budget, input.remaining_game_time_ms), (5, 1200, 1_200_000));
    /// let mut pacer = MessagePacer::new(PacingParameters::default());
    /// pacer.game_controller_budget(input.team_budget);
    /// assert_eq!(pacer.decide(0, &input), SendDecision::Send);
    /// ```
    pub fn from_game_controller(
        message: &GameControllerMessage,
        team_number: u8,
        player_number: u8,
        half_duration_ms: u64,
        urgency: Urgency,
    ) -> Option<Self> {
        let team = message.team(team_number)?;
        Some(Self {
            state: message.state,
            game_phase: message.game_phase,
            penalised: team
                .player(player_number)
                .is_none_or(|player| player.penalty.is_penalised()),
            team_budget: team.message_budget,
            remaining_game_time_ms: remaining_game_time_ms(
                message.game_phase,
                message.first_half,
                message.seconds_remaining,
                half_duration_ms,
            ),
            players: team.sending_players(),
            urgency,
        })
    }
}

/// The pacer's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SendDecision {
    Send,
    /// Nobody needs a message of this urgency in this state (or the robot is penalised).
    NotNeeded,
    /// The modelled budget is down to the reserve of this urgency.
    ReserveReached,
    /// The team has spent more than the line allows at this point of the game.
    AheadOfSchedule,
    /// This robot sent too recently; it may send again at this time, ms.
    TooSoon {
        next_ms: u64,
    },
}

/// Decides, tick by tick, whether this robot may send a team message now.
#[derive(Debug, Clone)]
pub struct MessagePacer {
    parameters: PacingParameters,
    last_sent_ms: Option<u64>,
    game_controller_budget: Option<u16>,
    heard_since_game_controller: u16,
}

impl MessagePacer {
    pub fn new(parameters: PacingParameters) -> Self {
        Self {
            parameters,
            last_sent_ms: None,
            game_controller_budget: None,
            heard_since_game_controller: 0,
        }
    }

    pub fn parameters(&self) -> &PacingParameters {
        &self.parameters
    }

    /// A new GameController packet arrived with our team's `messageBudget`.
    pub fn game_controller_budget(&mut self, budget: u16) {
        self.game_controller_budget = Some(budget);
        self.heard_since_game_controller = 0;
    }

    /// A team mate's message was heard (it costs the team budget the GameController has not
    /// reported yet).
    pub fn heard_team_message(&mut self) {
        self.heard_since_game_controller = self.heard_since_game_controller.saturating_add(1);
    }

    /// This robot sent a message at `now_ms`.
    pub fn sent(&mut self, now_ms: u64) {
        self.last_sent_ms = Some(now_ms);
        self.heard_since_game_controller = self.heard_since_game_controller.saturating_add(1);
    }

    /// The budget the pacer believes is left: the smaller of the input's and the newest
    /// GameController packet's, minus the messages heard since that packet.
    pub fn modelled_budget(&self, input: &PacingInput) -> u16 {
        let reported = self
            .game_controller_budget
            .map_or(input.team_budget, |budget| budget.min(input.team_budget));
        reported.saturating_sub(self.heard_since_game_controller)
    }

    /// Whether this robot may send now (`now_ms`: a monotonic clock).
    pub fn decide(&self, now_ms: u64, input: &PacingInput) -> SendDecision {
        let parameters = &self.parameters;
        if input.penalised || input.game_phase == GamePhase::PenaltyShootout {
            return SendDecision::NotNeeded;
        }
        let needed = match input.state {
            State::Ready | State::Playing => true,
            State::Standby | State::Set => input.urgency == Urgency::Priority,
            State::Initial | State::Finished => false,
        };
        if !needed {
            return SendDecision::NotNeeded;
        }
        let budget = self.modelled_budget(input);
        let reserve = match input.urgency {
            Urgency::Normal => parameters.normal_reserve,
            Urgency::Priority => parameters.priority_reserve,
        };
        if budget <= reserve {
            return SendDecision::ReserveReached;
        }
        let mut interval_ms = parameters.min_send_interval_ms;
        if input.urgency == Urgency::Normal {
            let spendable = u64::from(budget - reserve);
            let remaining_ms = input
                .remaining_game_time_ms
                .min(parameters.game_duration_ms);
            let line = u64::from(parameters.overall_budget.saturating_sub(reserve))
                .saturating_mul(remaining_ms.saturating_sub(parameters.lookahead_ms));
            if spendable.saturating_mul(parameters.game_duration_ms) <= line {
                return SendDecision::AheadOfSchedule;
            }
            let share_ms = remaining_ms.saturating_mul(u64::from(input.players.max(1))) / spendable;
            interval_ms = interval_ms.max(share_ms);
        }
        match self.last_sent_ms {
            Some(last) if now_ms < last.saturating_add(interval_ms) => SendDecision::TooSoon {
                next_ms: last.saturating_add(interval_ms),
            },
            _ => SendDecision::Send,
        }
    }
}

/// Playing time left in the game from a GameController packet's view, ms: the rest of this
/// half plus, in the first half, a whole second half. In overtime and shoot-outs only the
/// rest of the current period counts; negative clocks count as 0.
pub fn remaining_game_time_ms(
    game_phase: GamePhase,
    first_half: bool,
    seconds_remaining: i16,
    half_duration_ms: u64,
) -> u64 {
    let this_half = u64::try_from(seconds_remaining).unwrap_or(0) * 1000;
    match (game_phase, first_half) {
        (GamePhase::Normal | GamePhase::Timeout, true) => {
            this_half.saturating_add(half_duration_ms)
        }
        _ => this_half,
    }
}
