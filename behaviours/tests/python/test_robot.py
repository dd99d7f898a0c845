"""Python-side tests of the `robot` module, run inside the embedded interpreter by
tests/robot_module.rs (every function named test_* is called)."""

import math

import robot


def expect_error(kind, field, action):
    try:
        action()
    except kind as error:
        assert field in str(error), f"{field!r} not in {error!r}"
        return str(error)
    raise AssertionError(f"no {kind.__name__} for {field}")


def test_defaults():
    request = robot.BehaviourRequest()
    assert request.body.kind == "Sit"
    assert request.head.yaw == 0.0 and request.head.pitch == 0.0 and request.head.speed > 0
    assert request.leds.chest == ("Off", 0.0)
    assert request.sound.request is None


def test_body_motions_read_back():
    request = robot.BehaviourRequest()
    request.body.walk(x=0.2, y=-0.1, turn=0.5)
    assert request.body.kind == "Walk"
    assert math.isclose(request.body.parameters["x"], 0.2, rel_tol=1e-6)
    assert math.isclose(request.body.parameters["turn"], 0.5, rel_tol=1e-6)
    request.body.kick("Right", direction=0.1, strength=0.5)
    assert request.body.kind == "Kick" and request.body.parameters["foot"] == "Right"
    request.body.special_action("stand_up_back")
    assert request.body.parameters == {"name": "stand_up_back"}
    for motion in ("stand", "sit", "unstiff"):
        getattr(request.body, motion)()
        assert request.body.kind == motion.capitalize()


def test_leds_accept_names_and_pairs():
    request = robot.BehaviourRequest()
    request.leds.chest = "Green"
    assert request.leds.chest == ("Green", 1.0)
    request.leds.left_foot = ("Blue", 0.5)
    assert request.leds.left_foot == ("Blue", 0.5)
    request.leds.eyes("Red", 0.25)
    assert request.leds.left_eye == ("Red", 0.25) == request.leds.right_eye
    request.leds.all("Off")
    assert all(getattr(request.leds, group) == ("Off", 1.0) for group in robot.LED_GROUPS)
    assert "Yellow" in robot.COLOURS


def test_bad_values_name_their_field():
    request = robot.BehaviourRequest()
    message = expect_error(ValueError, "BehaviourRequest.head.yaw", lambda: setattr(request.head, "yaw", 5.0))
    assert "5.0 is outside -2.09..2.09 rad" in message, message
    expect_error(TypeError, "BehaviourRequest.head.pitch", lambda: setattr(request.head, "pitch", "up"))
    expect_error(TypeError, "BehaviourRequest.head.speed", lambda: setattr(request.head, "speed", True))
    expect_error(ValueError, "BehaviourRequest.head.speed", lambda: setattr(request.head, "speed", math.nan))
    expect_error(ValueError, "BehaviourRequest.body.walk.x", lambda: request.body.walk(x=300))
    expect_error(ValueError, "BehaviourRequest.body.walk.turn", lambda: request.body.walk(turn=90))
    expect_error(ValueError, "BehaviourRequest.body.kick.foot", lambda: request.body.kick("middle"))
    expect_error(ValueError, "BehaviourRequest.body.kick.strength", lambda: request.body.kick("Left", strength=2))
    expect_error(ValueError, "BehaviourRequest.body.special_action.name", lambda: request.body.special_action("../etc"))
    expect_error(ValueError, "BehaviourRequest.leds.chest", lambda: setattr(request.leds, "chest", "pink"))
    expect_error(ValueError, "BehaviourRequest.leds.chest intensity", lambda: setattr(request.leds, "chest", ("Red", 1.5)))
    expect_error(TypeError, "BehaviourRequest.leds.chest", lambda: setattr(request.leds, "chest", 3))
    expect_error(AttributeError, "left_eyes", lambda: setattr(request.leds, "left_eyes", "Red"))
    expect_error(TypeError, "BehaviourRequest.sound.say", lambda: request.sound.say(42))
    expect_error(ValueError, "BehaviourRequest.sound.play", lambda: request.sound.play(""))
    # A refused value leaves the old one.
    assert request.head.yaw == 0.0
    assert request.leds.chest == ("Off", 0.0)


def test_typos_are_errors():
    request = robot.BehaviourRequest()
    expect_error(AttributeError, "yw", lambda: setattr(request.head, "yw", 1.0))
    expect_error(AttributeError, "bdy", lambda: setattr(request, "bdy", None))
    expect_error(AttributeError, "head", lambda: setattr(request, "head", None))


def test_joint_indices():
    assert robot.JOINTS.HeadYaw == 0
    assert robot.JOINTS.RightHand == 24


def test_enum_values_have_one_spelling_the_rust_variant():
    request = robot.BehaviourRequest()
    for wrong, right, action in [
        ("green", "Green", lambda: setattr(request.leds, "chest", "green")),
        ("BLUE", "Blue", lambda: request.leds.eyes("BLUE")),
        ("left", "Left", lambda: request.body.kick("left")),
    ]:
        message = expect_error(ValueError, "BehaviourRequest.", action)
        assert f'"{wrong}" is spelled "{right}"' in message, message
    request.sound.say("hello")
    assert request.sound.request == ("Say", "hello")
    request.sound.play("whistle")
    assert request.sound.request == ("Play", "whistle")
    request.body.special_action("stand_up_back")
    assert request.body.kind == "SpecialAction"
    assert set(robot.COLOURS) == {
        "Off", "White", "Red", "Green", "Blue", "Yellow", "Cyan", "Magenta", "Orange", "Purple"
    }


def test_the_team_part_reads_back_and_starts_saying_nothing():
    request = robot.BehaviourRequest()
    team = request.team
    assert (team.role, team.intention, team.pass_target, team.walk_target_mm) == (
        "None", "None", None, (0.0, 0.0)
    )
    team.role = "Striker"
    team.intention = "Pass"
    team.pass_to(3)
    team.walk_target(1500, -300.5)
    assert (team.role, team.intention, team.pass_target) == ("Striker", "Pass", 3)
    assert team.walk_target_mm == (1500.0, -300.5)
    team.pass_to(None)
    assert team.pass_target is None
    assert set(robot.TEAM_ROLES) == {"None", "Goalkeeper", "Striker", "Supporter", "Defender", "Searcher"}
    assert set(robot.TEAM_INTENTIONS) == {
        "None", "PlayBall", "Pass", "WalkToPosition", "SearchBall", "KeepGoal"
    }
    assert "Striker" in repr(request)


def test_bad_team_values_name_their_field_and_keep_the_old_value():
    request = robot.BehaviourRequest()
    team = request.team
    team.role = "Goalkeeper"
    team.intention = "KeepGoal"
    team.pass_to(2)
    team.walk_target(-4000, 0)
    message = expect_error(ValueError, "BehaviourRequest.team.role", lambda: setattr(team, "role", "striker"))
    assert '"striker" is spelled "Striker"' in message, message
    message = expect_error(ValueError, "BehaviourRequest.team.role", lambda: setattr(team, "role", "Stricker"))
    assert "is not a role (None, Goalkeeper, Striker" in message, message
    message = expect_error(ValueError, "BehaviourRequest.team.intention", lambda: setattr(team, "intention", "play_ball"))
    assert "is not an intention" in message and "PlayBall" in message, message
    message = expect_error(ValueError, "BehaviourRequest.team.intention", lambda: setattr(team, "intention", "PLAYBALL"))
    assert '"PLAYBALL" is spelled "PlayBall"' in message, message
    expect_error(TypeError, "BehaviourRequest.team.role", lambda: setattr(team, "role", 2))
    expect_error(TypeError, "BehaviourRequest.team.intention", lambda: setattr(team, "intention", None))
    message = expect_error(ValueError, "BehaviourRequest.team.pass_to", lambda: team.pass_to(21))
    assert "21 is not a player number (1..20)" in message, message
    expect_error(ValueError, "BehaviourRequest.team.pass_to", lambda: team.pass_to(0))
    expect_error(ValueError, "BehaviourRequest.team.pass_to", lambda: team.pass_to(2**70))
    expect_error(TypeError, "BehaviourRequest.team.pass_to", lambda: team.pass_to(3.0))
    expect_error(TypeError, "BehaviourRequest.team.pass_to", lambda: team.pass_to(True))
    expect_error(TypeError, "BehaviourRequest.team.pass_to", lambda: team.pass_to("3"))
    message = expect_error(ValueError, "BehaviourRequest.team.walk_target.x_mm", lambda: team.walk_target(15000, 0))
    assert "outside -6000.00..6000.00 mm" in message, message
    expect_error(ValueError, "BehaviourRequest.team.walk_target.y_mm", lambda: team.walk_target(0, -5000))
    expect_error(ValueError, "BehaviourRequest.team.walk_target.x_mm", lambda: team.walk_target(math.inf, 0))
    expect_error(TypeError, "BehaviourRequest.team.walk_target.y_mm", lambda: team.walk_target(0, "left"))
    expect_error(AttributeError, "rol", lambda: setattr(team, "rol", "Striker"))
    expect_error(AttributeError, "pass_target", lambda: setattr(team, "pass_target", 3))
    expect_error(AttributeError, "team", lambda: setattr(request, "team", None))
    # Nothing refused changed anything.
    assert (team.role, team.intention, team.pass_target) == ("Goalkeeper", "KeepGoal", 2)
    assert team.walk_target_mm == (-4000.0, 0.0)
