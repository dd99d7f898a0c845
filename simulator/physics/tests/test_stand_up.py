"""The lying start poses and stand_up.py (the stand-up motions' measuring tool)."""

import math
import os
import subprocess
import sys

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
