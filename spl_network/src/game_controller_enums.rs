//! The enumerations of `RoboCupGameControlData` v18, with the byte values of its C header
//! (`RoboCupGameControlData.h` of the SPL GameController).

use crate::wire_enum::wire_enum;

wire_enum! {
    /// `competitionPhase`: round robin or play-off.
    pub enum CompetitionPhase ("a competition phase (0 round robin, 1 play-off)") {
        RoundRobin = 0 => "round-robin",
        PlayOff = 1 => "play-off",
    }
}

wire_enum! {
    /// `competitionType`: v18 knows only the normal competition.
    pub enum CompetitionType ("a competition type (0 normal)") {
        Normal = 0 => "normal",
    }
}

wire_enum! {
    /// `gamePhase`. A timeout is sent as state [`State::Initial`] with phase `Timeout`.
    pub enum GamePhase ("a game phase (0 normal, 1 penalty shoot-out, 2 overtime, 3 timeout)") {
        Normal = 0 => "normal",
        PenaltyShootout = 1 => "penalty-shootout",
        Overtime = 2 => "overtime",
        Timeout = 3 => "timeout",
    }
}

wire_enum! {
    /// `state`: the game state the referee set.
    pub enum State ("a state (0 initial, 1 ready, 2 set, 3 playing, 4 finished, 5 standby)") {
        Initial = 0 => "initial",
        Ready = 1 => "ready",
        Set = 2 => "set",
        Playing = 3 => "playing",
        Finished = 4 => "finished",
        Standby = 5 => "standby",
    }
}

wire_enum! {
    /// `setPlay`. A kick-off is sent as `None`.
    pub enum SetPlay ("a set play (0 none … 5 penalty kick)") {
        None = 0 => "none",
        GoalKick = 1 => "goal-kick",
        PushingFreeKick = 2 => "pushing-free-kick",
        CornerKick = 3 => "corner-kick",
        KickIn = 4 => "kick-in",
        PenaltyKick = 5 => "penalty-kick",
    }
}

wire_enum! {
    /// `fieldPlayerColour` and `goalkeeperColour`.
    pub enum TeamColour ("a team colour (0 blue … 9 gray)") {
        Blue = 0 => "blue",
        Red = 1 => "red",
        Yellow = 2 => "yellow",
        Black = 3 => "black",
        White = 4 => "white",
        Green = 5 => "green",
        Orange = 6 => "orange",
        Purple = 7 => "purple",
        Brown = 8 => "brown",
        Gray = 9 => "gray",
    }
}

wire_enum! {
    /// `RobotInfo::penalty`. 12 and 13 are unused by v18; 14 marks a substitute (not on the
    /// field), 15 a manual penalty.
    pub enum Penalty ("a penalty (0 none … 11, 14 substitute, 15 manual)") {
        None = 0 => "none",
        IllegalBallContact = 1 => "illegal-ball-contact",
        PlayerPushing = 2 => "player-pushing",
        IllegalMotionInSet = 3 => "illegal-motion-in-set",
        InactivePlayer = 4 => "inactive-player",
        IllegalPosition = 5 => "illegal-position",
        LeavingTheField = 6 => "leaving-the-field",
        RequestForPickup = 7 => "request-for-pickup",
        LocalGameStuck = 8 => "local-game-stuck",
        IllegalPositionInSet = 9 => "illegal-position-in-set",
        PlayerStance = 10 => "player-stance",
        IllegalMotionInStandby = 11 => "illegal-motion-in-standby",
        Substitute = 14 => "substitute",
        Manual = 15 => "manual",
    }
}

impl Penalty {
    /// Whether the robot is off the game right now (penalised or a substitute).
    pub fn is_penalised(self) -> bool {
        self != Penalty::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte is either exactly one variant (which writes that byte back) or none, and
    /// every variant's name parses back to it.
    fn check<T: Copy + PartialEq + std::fmt::Debug + std::str::FromStr>(
        all: &[T],
        from_byte: fn(u8) -> Option<T>,
        to_byte: fn(T) -> u8,
        name: fn(T) -> &'static str,
    ) {
        let mut valid = 0;
        for byte in 0..=u8::MAX {
            if let Some(value) = from_byte(byte) {
                assert_eq!(to_byte(value), byte);
                valid += 1;
            }
        }
        assert_eq!(valid, all.len());
        for &value in all {
            assert_eq!(name(value).parse::<T>().ok(), Some(value));
        }
    }

    #[test]
    fn bytes_and_names_round_trip() {
        check(
            CompetitionPhase::ALL,
            CompetitionPhase::from_byte,
            CompetitionPhase::to_byte,
            CompetitionPhase::name,
        );
        check(
            CompetitionType::ALL,
            CompetitionType::from_byte,
            CompetitionType::to_byte,
            CompetitionType::name,
        );
        check(
            GamePhase::ALL,
            GamePhase::from_byte,
            GamePhase::to_byte,
            GamePhase::name,
        );
        check(State::ALL, State::from_byte, State::to_byte, State::name);
        check(
            SetPlay::ALL,
            SetPlay::from_byte,
            SetPlay::to_byte,
            SetPlay::name,
        );
        check(
            TeamColour::ALL,
            TeamColour::from_byte,
            TeamColour::to_byte,
            TeamColour::name,
        );
        check(
            Penalty::ALL,
            Penalty::from_byte,
            Penalty::to_byte,
            Penalty::name,
        );
        assert_eq!(Penalty::from_byte(12), None);
        assert_eq!(Penalty::from_byte(14), Some(Penalty::Substitute));
        assert_eq!(State::from_byte(5), Some(State::Standby));
        assert_eq!(
            "dancing".parse::<State>(),
            Err(
                "unknown State \"dancing\": expected one of initial, ready, set, playing, \
                 finished, standby"
                    .to_owned()
            )
        );
    }
}
