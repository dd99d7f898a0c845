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
    assert request.body.kind == "sit"
    assert request.head.yaw == 0.0 and request.head.pitch == 0.0 and request.head.speed > 0
    assert request.leds.chest == ("off", 0.0)
    assert request.sound.request is None


def test_body_motions_read_back():
    request = robot.BehaviourRequest()
    request.body.walk(x=0.2, y=-0.1, turn=0.5)
    assert request.body.kind == "walk"
    assert math.isclose(request.body.parameters["x"], 0.2, rel_tol=1e-6)
    assert math.isclose(request.body.parameters["turn"], 0.5, rel_tol=1e-6)
    request.body.kick("right", direction=0.1, strength=0.5)
    assert request.body.kind == "kick" and request.body.parameters["foot"] == "right"
    request.body.special_action("stand_up_back")
    assert request.body.parameters == {"name": "stand_up_back"}
    for motion in ("stand", "sit", "unstiff"):
        getattr(request.body, motion)()
        assert request.body.kind == motion


def test_leds_accept_names_and_pairs():
    request = robot.BehaviourRequest()
    request.leds.chest = "green"
    assert request.leds.chest == ("green", 1.0)
    request.leds.left_foot = ("blue", 0.5)
    assert request.leds.left_foot == ("blue", 0.5)
    request.leds.eyes("red", 0.25)
    assert request.leds.left_eye == ("red", 0.25) == request.leds.right_eye
    request.leds.all("off")
    assert all(getattr(request.leds, group) == ("off", 1.0) for group in robot.LED_GROUPS)
    assert "yellow" in robot.COLOURS


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
    expect_error(ValueError, "BehaviourRequest.body.kick.strength", lambda: request.body.kick("left", strength=2))
    expect_error(ValueError, "BehaviourRequest.body.special_action.name", lambda: request.body.special_action("../etc"))
    expect_error(ValueError, "BehaviourRequest.leds.chest", lambda: setattr(request.leds, "chest", "pink"))
    expect_error(ValueError, "BehaviourRequest.leds.chest intensity", lambda: setattr(request.leds, "chest", ("red", 1.5)))
    expect_error(TypeError, "BehaviourRequest.leds.chest", lambda: setattr(request.leds, "chest", 3))
    expect_error(AttributeError, "left_eyes", lambda: setattr(request.leds, "left_eyes", "red"))
    expect_error(TypeError, "BehaviourRequest.sound.say", lambda: request.sound.say(42))
    expect_error(ValueError, "BehaviourRequest.sound.play", lambda: request.sound.play(""))
    # A refused value leaves the old one.
    assert request.head.yaw == 0.0
    assert request.leds.chest == ("off", 0.0)


def test_typos_are_errors():
    request = robot.BehaviourRequest()
    expect_error(AttributeError, "yw", lambda: setattr(request.head, "yw", 1.0))
    expect_error(AttributeError, "bdy", lambda: setattr(request, "bdy", None))
    expect_error(AttributeError, "head", lambda: setattr(request, "head", None))


def test_joint_indices():
    assert robot.JOINTS.HeadYaw == 0
    assert robot.JOINTS.RightHand == 24
