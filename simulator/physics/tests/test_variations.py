"""Another robot than the model (``NaoBody.vary``, ``--sensor-delay-frames``): each variation
changes what it says and nothing else, and out-of-range options are refused by name."""

import subprocess
import sys

import numpy as np
import pytest

from conftest import SCRIPT, require_mujoco

require_mujoco()

from lola_physics import parse_arguments  # noqa: E402
from nao_body import NaoBody  # noqa: E402


def test_nothing_varies_by_default():
    plain, varied = NaoBody("stand", seed=3), NaoBody("stand", seed=3)
    varied.vary()
    assert np.array_equal(plain.full_kp, varied.full_kp)
    assert np.array_equal(plain.model.geom_solref, varied.model.geom_solref)
    assert np.array_equal(plain.data.qpos, varied.data.qpos)


def test_each_variation_changes_its_part_of_the_model():
    plain, varied = NaoBody("stand", seed=3), NaoBody("stand", seed=3)
    varied.vary(actuator_jitter=0.3, joint_friction_scale=2.0, torso_com_offset_m=(0.01, -0.01),
                contact_softness=2.0)
    ratio = varied.full_kp / plain.full_kp
    assert np.all((ratio >= 0.7 - 1e-9) & (ratio <= 1.3 + 1e-9)) and ratio.std() > 0.05
    # Gain, damping and torque limit of a motor scale together (the same motor, stronger).
    assert np.allclose(varied.full_kv / plain.full_kv, ratio)
    assert np.allclose(varied.full_force[:, 1] / plain.full_force[:, 1], ratio)
    assert np.allclose(varied.model.dof_damping, 2.0 * plain.model.dof_damping)
    assert np.allclose(varied.model.dof_frictionloss, 2.0 * plain.model.dof_frictionloss)
    moved = varied.model.body_ipos[varied.torso] - plain.model.body_ipos[plain.torso]
    assert np.allclose(moved, [0.01, -0.01, 0.0])
    assert np.allclose(varied.model.geom_solref[:, 0], 2.0 * plain.model.geom_solref[:, 0])
    # The robot still stands on the varied model.
    varied.apply(stiffnesses=[1.0] * 25)
    varied.step(2.0)
    assert varied.ground_truth()["torso_position_m"][2] > 0.28


def test_out_of_range_variations_are_refused_by_name():
    for arguments, name in [
        (["--actuator-jitter", "0.9"], "--actuator-jitter"),
        (["--joint-friction-scale", "0"], "--joint-friction-scale"),
        (["--torso-com-offset", "0.1", "0"], "--torso-com-offset"),
        (["--torso-com-offset", "nan", "0"], "--torso-com-offset"),
        (["--contact-softness", "9"], "--contact-softness"),
        (["--sensor-delay-frames", "7"], "--sensor-delay-frames"),
    ]:
        result = subprocess.run([sys.executable, SCRIPT, "/tmp/unused.sock", *arguments],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 64, (arguments, result.stderr)
        assert name in result.stderr, (arguments, result.stderr)
    parsed = parse_arguments(["/tmp/x.sock", "--sensor-delay-frames", "2",
                              "--torso-com-offset", "0.01", "-0.01"])
    assert parsed.sensor_delay_frames == 2 and tuple(parsed.torso_com_offset) == (0.01, -0.01)


@pytest.mark.parametrize("frames", [1, 2])
def test_a_sensor_delay_sends_the_values_of_that_many_frames_ago(frames):
    from lola_physics import Server

    server = Server.__new__(Server)
    server.sensor_delay_frames = frames
    server.sensor_history = __import__("collections").deque()
    sent = [server.delayed(value) for value in range(6)]
    assert sent == [0] * frames + list(range(6 - frames))
