"""An offline test of the shipped behaviour: `tick(blackboard)` with blackboards written here,
without starting Cortex. Run it with the real `robot` module:

    cargo run -p behaviours --bin behaviour-pytest -- --behaviours behaviours/python behaviours/examples/offline

(behaviours/tests/offline.rs runs it in CI.) Copy this file next to your own behaviour's tests.
"""

import pytest

import behaviour
import robot


def test_it_walks_while_playing_and_upright():
    request = behaviour.tick(robot.Blackboard(game_state={"state": "Playing"}))
    assert request.body.kind == "walk"
    assert request.body.parameters["x"] > 0


def test_a_fallen_robot_stands_up_instead_of_walking():
    blackboard = robot.Blackboard(
        game_state={"state": "Playing"}, fall_state={"phase": "Fallen", "direction": "Backward"}
    )
    assert behaviour.tick(blackboard).body.kind == "stand"


def test_a_penalised_robot_stands_and_looks_down():
    blackboard = robot.Blackboard(game_state={"state": "Playing", "penalty": "PlayerPushing"})
    request = behaviour.tick(blackboard)
    assert request.body.kind == "stand"
    assert request.head.pitch > 0


def test_it_sits_when_the_game_is_finished():
    assert behaviour.tick(robot.Blackboard(game_state={"state": "Finished"})).body.kind == "sit"


def test_the_blackboard_is_checked_like_on_the_robot():
    with pytest.raises(ValueError, match=r"game_state\.stat is not a field"):
        robot.Blackboard(game_state={"stat": "Playing"})
    with pytest.raises(ValueError, match="Plying"):
        robot.Blackboard(game_state={"state": "Plying"})
