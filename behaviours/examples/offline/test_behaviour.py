"""An offline test of the shipped behaviour: `tick(blackboard)` with blackboards written here,
without starting Cortex. Run it with the real `robot` module:

    cargo run -p behaviours --bin behaviour-pytest -- --behaviours behaviours/python behaviours/examples/offline

(behaviours/tests/offline.rs runs it in CI.) Copy this file next to your own behaviour's tests.
Enum values are spelled as the Rust variants everywhere ("Playing", "Fallen", "Walk", "Blue").
"""

import pytest

import behaviour
import robot


def tick(**game_state):
    return behaviour.tick(robot.Blackboard(game_state=game_state))


def test_it_stands_still_looking_ahead_in_initial_and_standby():
    for state in ("Initial", "Standby"):
        request = tick(state=state)
        assert request.body.kind == "Stand", state
        assert (request.head.yaw, request.head.pitch) == (0.0, 0.0), state


def test_it_walks_in_during_the_first_part_of_ready_then_waits():
    walking = tick(state="Ready", secondary_seconds_remaining=44)
    assert walking.body.kind == "Walk"
    assert walking.body.parameters["x"] > 0
    assert walking.leds.left_eye == ("Blue", 1.0)
    assert tick(state="Ready", secondary_seconds_remaining=20).body.kind == "Stand"
    # Ready without a GameController's clock: it does not know how long to walk, so it stands.
    assert tick(state="Ready").body.kind == "Stand"


def test_it_holds_still_in_set():
    request = tick(state="Set", own_team_is_kicking=True)
    assert request.body.kind == "Stand"
    assert (request.head.yaw, request.head.pitch) == (0.0, 0.0)
    assert request.leds.left_eye == ("Yellow", 1.0)


def test_it_walks_while_playing_and_upright():
    request = tick(state="Playing")
    assert request.body.kind == "Walk"
    assert request.body.parameters["x"] > 0


def test_a_fallen_robot_stands_up_instead_of_walking():
    blackboard = robot.Blackboard(
        game_state={"state": "Playing"}, fall_state={"phase": "Fallen", "direction": "Backward"}
    )
    assert behaviour.tick(blackboard).body.kind == "Stand"
    # Also in Ready: no walking while down.
    blackboard = robot.Blackboard(
        game_state={"state": "Ready", "secondary_seconds_remaining": 44},
        fall_state={"phase": "Fallen", "direction": "Forward"},
    )
    assert behaviour.tick(blackboard).body.kind == "Stand"


@pytest.mark.parametrize("state", ["Initial", "Ready", "Set", "Playing", "Finished"])
def test_a_penalised_robot_stands_still_in_every_state(state):
    request = tick(
        state=state,
        penalty="PlayerPushing",
        seconds_until_unpenalised=30,
        secondary_seconds_remaining=44,
    )
    assert request.body.kind == "Stand"
    assert (request.head.yaw, request.head.pitch) == (0.0, 0.0)
    assert request.leds.left_eye == ("Red", 1.0)
    # Out of play: the team mates hear no role.
    assert (request.team.role, request.team.intention) == ("None", "None")


def test_it_plays_again_when_the_penalty_ends():
    assert tick(state="Playing", penalty="IllegalPosition").body.kind == "Stand"
    assert tick(state="Playing", penalty=None).body.kind == "Walk"


@pytest.mark.parametrize(
    "game_state, role, intention",
    [
        ({"state": "Initial"}, "Striker", "None"),
        ({"state": "Ready", "secondary_seconds_remaining": 44}, "Striker", "WalkToPosition"),
        ({"state": "Ready", "secondary_seconds_remaining": 20}, "Striker", "None"),
        ({"state": "Set"}, "Striker", "None"),
        ({"state": "Playing"}, "Striker", "PlayBall"),
        ({"state": "Playing", "is_goalkeeper": True}, "Goalkeeper", "KeepGoal"),
        ({"state": "Ready", "secondary_seconds_remaining": 44, "is_goalkeeper": True},
         "Goalkeeper", "WalkToPosition"),
        ({"state": "Finished"}, "Striker", "None"),
    ],
)
def test_the_team_mates_hear_a_role_and_intention_that_match_what_it_does(
    game_state, role, intention
):
    request = tick(**game_state)
    assert (request.team.role, request.team.intention) == (role, intention)
    if intention == "WalkToPosition":
        assert request.body.kind == "Walk"
    if intention == "PlayBall":
        assert request.body.kind == "Walk"
    # No pass without a ball model.
    assert request.team.pass_target is None


def test_the_goalkeeper_keeps_its_goal_while_playing():
    goalkeeper = tick(state="Playing", is_goalkeeper=True)
    assert goalkeeper.body.kind == "Stand"
    # It still looks around for the ball.
    looks = {
        round(
            behaviour.tick(
                robot.Blackboard(
                    game_state={"state": "Playing", "is_goalkeeper": True},
                    frame_info={"time_monotonic_ns": ms * 1_000_000},
                )
            ).head.yaw,
            2,
        )
        for ms in (0, 1000, 3000)
    }
    assert len(looks) == 3, looks
    # A fallen striker stands up and still means to play the ball.
    fallen = behaviour.tick(
        robot.Blackboard(game_state={"state": "Playing"}, fall_state={"phase": "Fallen"})
    )
    assert (fallen.body.kind, fallen.team.intention) == ("Stand", "PlayBall")


def test_it_sits_when_the_game_is_finished():
    assert tick(state="Finished").body.kind == "Sit"


def test_the_whole_game_state_is_readable():
    blackboard = robot.Blackboard(
        game_state={
            "state": "Set",
            "phase": "PenaltyShootout",
            "set_play": "PenaltyKick",
            "own_colour": "Purple",
            "own_team_is_kicking": False,
            "own_score": 2,
            "opponent_score": 1,
            "seconds_remaining": 300,
            "secondary_seconds_remaining": -3,
            "message_budget": 1100,
            "is_goalkeeper": True,
            "source": "GameController",
        }
    )
    game_state = blackboard.game_state
    assert (game_state.phase, game_state.set_play) == ("PenaltyShootout", "PenaltyKick")
    assert (game_state.own_colour, game_state.own_team_is_kicking) == ("Purple", False)
    assert (game_state.own_score, game_state.opponent_score) == (2, 1)
    assert game_state.secondary_seconds_remaining == -3
    assert game_state.source == "GameController"
    with pytest.raises(AttributeError):
        game_state.own_score = 5


def test_the_blackboard_is_checked_like_on_the_robot():
    with pytest.raises(ValueError, match=r"game_state\.stat is not a field"):
        robot.Blackboard(game_state={"stat": "Playing"})
    with pytest.raises(ValueError, match="Plying"):
        robot.Blackboard(game_state={"state": "Plying"})
    # One spelling, the Rust variant name, on the blackboard and on the request.
    with pytest.raises(ValueError, match="playing"):
        robot.Blackboard(game_state={"state": "playing"})
    with pytest.raises(ValueError, match='"green" is spelled "Green"'):
        robot.BehaviourRequest().leds.chest = "green"


def test_the_head_follows_the_ball_while_it_is_seen():
    ball = {"position": [2.0, 1.0], "ever_seen": True, "seconds_since_seen": 0.1}
    for state in ("Initial", "Set", "Playing"):
        request = behaviour.tick(robot.Blackboard(game_state={"state": state}, ball=ball))
        assert abs(request.head.yaw - 0.4636) < 1e-3, state  # atan2(1, 2)
        assert 0.1 < request.head.pitch < 0.5, state  # looking down at the ground 2.2 m away


def test_a_lost_ball_is_searched_for_while_playing_and_not_in_initial():
    lost = {"position": [2.0, 1.0], "ever_seen": True, "seconds_since_seen": 5.0}
    initial = behaviour.tick(robot.Blackboard(game_state={"state": "Initial"}, ball=lost))
    assert (initial.head.yaw, initial.head.pitch) == (0.0, 0.0)
    yaws = set()
    for second in range(4):
        blackboard = robot.Blackboard(
            game_state={"state": "Playing"},
            ball=lost,
            frame_info={"time_monotonic_ns": second * 1_000_000_000 + 1, "cycle": second},
        )
        yaws.add(round(behaviour.tick(blackboard).head.yaw, 2))
    assert max(yaws) > 0.5 and min(yaws) < -0.5, yaws
