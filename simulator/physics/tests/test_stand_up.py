"""The lying start poses and stand_up.py (the stand-up motions' measuring tool)."""

import math
import os
import subprocess
import sys

import pytest

from conftest import SIMULATOR_DIR, require_mujoco

require_mujoco()

from nao_body import NaoBody  # noqa: E402
import stand_up  # noqa: E402

SCRIPT = os.path.join(SIMULATOR_DIR, "stand_up.py")


def settle(body, seconds=1.0):
    for _ in range(round(seconds / 0.012)):
        body.step(0.012)


def test_lying_front_is_face_down_and_lying_back_face_up_as_the_imu_says():
    front, back = NaoBody("lying-front", seed=1), NaoBody("lying-back", seed=1)
    settle(front)
    settle(back)
    for body, sign in ((front, 1.0), (back, -1.0)):
        _, pitch = body.torso_angles()
        assert sign * pitch > math.radians(60), (sign, pitch)
        # The accelerometer (LoLA's sign: minus the proper acceleration) agrees.
        x, _, _ = body.sensor_values().accelerometer
        assert sign * x > 7.0, (sign, body.sensor_values().accelerometer)
        assert body.ground_truth()["torso_position_m"][2] < 0.16
    # "lying" stays what it was: on the back.
    assert NaoBody("lying", seed=1).torso_angles()[1] < -1.0


def test_the_shipped_motions_load_and_a_trial_reports_what_happened():
    library = {name: stand_up.load_motion(os.path.join(stand_up.MOTIONS, f"{name}.toml"))
               for name in ("fall_protection", "stand", "stand_up_front", "stand_up_back")}
    front = library["stand_up_front"]
    assert len(front) >= 4 and all(frame["stiffness"]["LeftKneePitch"] == 1.0 for frame in front)
    success, seconds, height, tilt = stand_up.trial(
        "front", front, library, seed=1, mass_jitter=0.0, friction_scale=1.0)
    # Whatever the motion achieves, the verdict matches the final state it reports.
    assert success == (height > stand_up.UP_HEIGHT_M and tilt < stand_up.UP_TILT_DEG)
    assert (seconds is None) == (not success)


def test_a_broken_motion_file_is_refused_with_its_name(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text('[[keyframe]]\nduration_ms = 100\n[keyframe.positions_deg]\nLeftKneePitch = "bent"\n')
    result = subprocess.run([sys.executable, SCRIPT, "front", "--motion", str(broken), "--seeds", "1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 65, result
    assert "broken.toml: keyframe 1: LeftKneePitch = 'bent'" in result.stderr, result.stderr
    usage = subprocess.run([sys.executable, SCRIPT, "sideways"], capture_output=True, text=True,
                           timeout=60)
    assert usage.returncode == 2 and "invalid choice" in usage.stderr


def test_a_perturbed_robot_keeps_the_pose_it_was_placed_in():
    for pose in ("sit", "lying-left"):
        plain, perturbed = NaoBody(pose, seed=2), NaoBody(pose, seed=2)
        perturbed.perturb(0.1, 1.3)
        assert abs(perturbed.data.qpos[2] - plain.data.qpos[2]) < 1e-9, pose
        assert perturbed.joint_positions() == plain.joint_positions(), pose
        assert perturbed.torso_angles() == plain.torso_angles(), pose


def shipped(name):
    return stand_up.load_motion(os.path.join(stand_up.MOTIONS, f"{name}.toml"))


def test_the_shipped_stand_up_back_is_roll_to_front_then_stand_up_front():
    composed = stand_up.compose_back(shipped("roll_to_front"), shipped("fall_protection"),
                                     shipped("stand_up_front"))
    back = shipped("stand_up_back")
    assert len(back) == len(composed)
    for index, (frame, expected) in enumerate(zip(back, composed)):
        assert frame["duration_ms"] == round(expected["duration_ms"]), index
        assert frame["stiffness"] == expected["stiffness"], index
        for joint, value in expected["positions"].items():
            # The file holds angles to 0.1°.
            assert abs(frame["positions"][joint] - value) < math.radians(0.06), (index, joint)


def test_the_shipped_motions_get_the_robot_up_from_front_and_back():
    library = {name: shipped(name) for name in ("fall_protection", "stand")}
    for side in ("front", "back"):
        result = stand_up.trial_metrics(side, shipped(f"stand_up_{side}"), library, seed=7,
                                        mass_jitter=0.1, friction_scale=1.0)
        assert result["success"], (side, result)
        assert result["height"] > stand_up.UP_HEIGHT_M and result["tilt"] < stand_up.UP_TILT_DEG
    rolled = stand_up.trial_metrics("roll-front", shipped("roll_to_front"), library, seed=7,
                                    mass_jitter=0.1, friction_scale=1.0)
    assert rolled["success"] and rolled["rolled"] > 0.8, rolled


def test_the_search_vector_round_trips_and_stays_inside_the_joint_limits():
    limits = stand_up.joint_limits_deg()
    for asymmetric in (False, True):
        motion = shipped("roll_to_front" if asymmetric else "stand_up_front")
        vector = stand_up.encode(motion, 1, asymmetric)
        again = stand_up.decode(vector, motion, 1, limits, asymmetric)
        # Equal but for the clamping of values at a limit (the files hold them to 0.1°):
        # within 0.1° (0.01 units).
        assert stand_up.encode(again, 1, asymmetric) == pytest.approx(vector, abs=0.01)
        # Far outside: every searched joint lands at its limit less the margin, durations in range.
        wild = stand_up.decode([50.0] * len(vector), motion, 1, limits, asymmetric)
        for frame in wild[1:]:
            assert frame["duration_ms"] == stand_up.DURATION_RANGE_MS[1]
            knee = math.degrees(frame["positions"]["LeftKneePitch"])
            assert knee == pytest.approx(limits["KneePitch"][1])
            # Mirrored joints keep their signs on the right.
            assert frame["positions"]["RightHipRoll"] <= 0.0 <= frame["positions"]["LeftHipRoll"]


def test_gain_scale_scales_the_servos_and_not_the_torque_limits():
    plain, soft = NaoBody("stand", seed=1), NaoBody("stand", seed=1)
    soft.perturb(0.0, 1.0, 0.7)
    assert soft.full_kp == pytest.approx(0.7 * plain.full_kp)
    assert soft.full_kv == pytest.approx(0.7 * plain.full_kv)
    assert (soft.full_force == plain.full_force).all()


def test_searched_limits_the_search_to_the_keyframes_after_frozen():
    limits = stand_up.joint_limits_deg()
    motion = shipped("stand_up_front")
    vector = stand_up.encode(motion, 1, searched=2)
    assert len(vector) == 2 * (len(stand_up.searched_joints(False)) + 1)
    wild = stand_up.decode([50.0] * len(vector), motion, 1, limits, searched=2)
    # Keyframes 2 and 3 moved to the limits; the first and everything after them did not.
    assert [frame["duration_ms"] for frame in wild[1:3]] == [stand_up.DURATION_RANGE_MS[1]] * 2
    assert wild[0] == motion[0] and wild[3:] == motion[3:]


def test_the_front_stand_up_works_from_a_flat_chest_on_both_models(tmp_path):
    # Lying limp 3 s lets the arms give way: the chest lies on the floor (the old motion failed
    # from there every time); with the legs' friction doubled the bent legs used to tip it over.
    library = {name: shipped(name) for name in ("fall_protection", "stand")}
    for model in (None, stand_up.variant_model("leg-friction-x2", str(tmp_path))):
        result = stand_up.trial_metrics("front", shipped("stand_up_front"), library, seed=7,
                                        mass_jitter=0.1, friction_scale=1.0, model_path=model,
                                        lying_s=3.0)
        assert result["success"], (model, result)
