"""The MuJoCo NAO itself: mass, standing and collapsing, and LoLA's sensor signs."""

import math

import pytest

from conftest import require_mujoco

require_mujoco()

from nao_body import INITIAL_POSES, STAND_POSE, NaoBody  # noqa: E402

FRAME_S = 0.012
# Torso height of the stand pose (knees bent 50°) on the floor, m.
STANDING_HEIGHT_M = 0.313


def run(body, seconds, every=None):
    """Steps ``body`` for ``seconds`` in LoLA frames; calls ``every(body)`` after each."""
    for _ in range(round(seconds / FRAME_S)):
        body.step(FRAME_S)
        if every is not None:
            every(body)


def standing(stiffness=1.0, pose=STAND_POSE):
    body = NaoBody("stand", seed=3)
    body.apply(pose, [stiffness] * 25)
    return body


def with_legs(pose, **joints):
    names = {"LHipRoll": 8, "LAnklePitch": 11, "LAnkleRoll": 12, "RHipRoll": 13,
             "RAnklePitch": 16, "RAnkleRoll": 17}
    changed = list(pose)
    for name, offset in joints.items():
        changed[names[name]] += offset
    return changed


def test_the_model_loads_with_the_published_mass():
    body = NaoBody("sit")
    assert 5.2 <= body.total_mass_kg() <= 5.5
    assert body.model.nu == 23, "one servo per joint; the hands are not model joints"


def test_stiff_in_the_stand_pose_it_stands_30_seconds():
    body = standing()
    worst = {"low": math.inf, "high": -math.inf, "tilt": 0.0}

    def check(body):
        truth = body.ground_truth()
        height = truth["torso_position_m"][2]
        worst["low"] = min(worst["low"], height)
        worst["high"] = max(worst["high"], height)
        worst["tilt"] = max(worst["tilt"], abs(truth["torso_roll_rad"]), abs(truth["torso_pitch_rad"]))

    run(body, 30.0, check)
    assert body.data.time >= 29.99
    assert STANDING_HEIGHT_M - 0.01 < worst["low"] and worst["high"] < STANDING_HEIGHT_M + 0.01, worst
    assert worst["tilt"] < 0.05, worst


def test_limp_it_collapses():
    body = standing(stiffness=0.0)
    run(body, 5.0)
    assert body.ground_truth()["torso_position_m"][2] < 0.2


def test_upright_the_accelerometer_reads_minus_g_and_the_feet_carry_the_robot():
    body = standing()
    run(body, 2.0)
    sensors = body.sensor_values()
    x, y, z = sensors.accelerometer
    assert abs(z + 9.81) < 0.15 and abs(x) < 0.3 and abs(y) < 0.3, sensors.accelerometer
    assert all(abs(rate) < 0.01 for rate in sensors.gyroscope)
    total = sum(sensors.fsr)
    assert abs(total - body.total_mass_kg()) < 0.2, sensors.fsr
    left, right = sum(sensors.fsr[:4]), sum(sensors.fsr[4:])
    assert abs(left - right) < 0.15 * total, sensors.fsr


def lean(joints, seconds=1.5):
    """Stands, then changes the legs to ``joints``; returns the sensors before, the integral of
    the gyroscope during the change and the sensors after."""
    body = standing()
    run(body, 1.5)
    before = body.sensor_values()
    body.apply(with_legs(STAND_POSE, **joints), [1.0] * 25)
    integral = [0.0, 0.0, 0.0]

    def integrate(body):
        rates = body.sensor_values().gyroscope
        for axis in range(3):
            integral[axis] += rates[axis] * FRAME_S

    run(body, seconds, integrate)
    return before, integral, body.sensor_values(), body


def test_leaning_forward_is_positive_pitch_and_positive_accelerometer_x():
    # Ankles more negative: the legs (and the robot) lean forward over flat feet.
    before, integral, after, body = lean({"LAnklePitch": -0.12, "RAnklePitch": -0.12})
    pitch = after.angles[1] - before.angles[1]
    assert 0.08 < pitch < 0.16, after.angles
    assert abs(integral[1] - pitch) < 0.2 * pitch, (integral, pitch)
    # LoLA's accelerometer is the negated proper acceleration: +g·sin(pitch) on x.
    assert after.accelerometer[0] == pytest.approx(9.81 * math.sin(after.angles[1]), abs=0.2)
    front = after.fsr[0] + after.fsr[1] + after.fsr[4] + after.fsr[5]
    rear = after.fsr[2] + after.fsr[3] + after.fsr[6] + after.fsr[7]
    assert front > rear, after.fsr


def test_leaning_right_is_positive_roll_and_negative_accelerometer_y():
    # Ankle rolls negative: the legs tilt to the robot's right (both feet roll onto their right
    # edges, since the legs and the pelvis form a locked parallelogram with flat feet).
    before, integral, after, body = lean({"LAnkleRoll": -0.1, "RAnkleRoll": -0.1})
    roll = after.angles[0] - before.angles[0]
    assert 0.02 < roll < 0.12, after.angles
    assert abs(integral[0] - roll) < 0.2 * roll, (integral, roll)
    assert after.accelerometer[1] < -9.81 * math.sin(roll) * 0.7, after.accelerometer


FSR_SITES = ("LFsrFrontLeft", "LFsrFrontRight", "LFsrRearLeft", "LFsrRearRight",
             "RFsrFrontLeft", "RFsrFrontRight", "RFsrRearLeft", "RFsrRearRight")


def centre_of_pressure_y(body, fsr):
    """Sideways position of the centre of pressure the eight FSRs report, m (world)."""
    import mujoco

    ys = [body.data.site_xpos[mujoco.mj_name2id(body.model, mujoco.mjtObj.mjOBJ_SITE, name)][1]
          for name in FSR_SITES]
    return sum(kg * y for kg, y in zip(fsr, ys)) / sum(fsr)


def test_the_weight_moves_to_the_foot_the_centre_of_mass_moves_over():
    # Hip rolls +, ankle rolls −: the torso shifts right, upright, toward the right foot.
    before, _, after, body = lean({"LHipRoll": 0.2, "RHipRoll": 0.2,
                                   "LAnkleRoll": -0.2, "RAnkleRoll": -0.2}, seconds=2.5)
    assert abs(after.angles[0]) < 0.05, "the torso stays upright"
    left_before, right_before = sum(before.fsr[:4]), sum(before.fsr[4:])
    assert abs(left_before - right_before) < 0.1 * (left_before + right_before), before.fsr
    left, right = sum(after.fsr[:4]), sum(after.fsr[4:])
    assert abs(left + right - body.total_mass_kg()) < 0.3
    assert right > 0.58 * (left + right), after.fsr
    # At rest the centre of pressure is under the centre of mass; the FSRs see it within the
    # span of their positions (a contact outside it counts at the nearest sensors).
    centre_of_mass_y = body.data.subtree_com[body.torso][1]
    assert centre_of_mass_y < -0.025, "the centre of mass moved right, toward the right foot"
    pressure_y = centre_of_pressure_y(body, after.fsr)
    assert abs(pressure_y - centre_of_mass_y) < 0.3 * abs(centre_of_mass_y), (pressure_y, centre_of_mass_y)
    # With the centre of mass over the right foot the left can be lifted: all weight on the right.
    lifted = with_legs(STAND_POSE, LHipRoll=0.2, RHipRoll=0.2, LAnkleRoll=-0.2, RAnkleRoll=-0.2)
    lifted[9] -= 0.3   # LHipPitch
    lifted[10] += 0.6  # LKneePitch
    lifted[11] -= 0.3  # LAnklePitch
    body.apply(lifted, [1.0] * 25)
    run(body, 1.5)
    one_leg = body.sensor_values()
    truth = body.ground_truth()
    assert truth["left_foot_m"][2] > truth["right_foot_m"][2] + 0.015, truth
    assert max(abs(truth["torso_roll_rad"]), abs(truth["torso_pitch_rad"])) < 0.1, truth
    assert sum(one_leg.fsr[:4]) < 0.05, one_leg.fsr
    assert abs(sum(one_leg.fsr[4:]) - body.total_mass_kg()) < 0.2, one_leg.fsr


def test_each_initial_pose_rests_where_it_should():
    heights = {}
    for pose in INITIAL_POSES:
        body = NaoBody(pose)
        # Held stiff (LoLA starts limp; a limp robot does not stay standing).
        body.apply(INITIAL_POSES[pose], [0.0 if pose == "lying" else 1.0] * 25)
        run(body, 1.0)
        heights[pose] = body.ground_truth()["torso_position_m"][2]
    assert heights["lying"] < 0.1 < heights["sit"] < 0.25 < heights["stand"], heights


def test_absurd_but_finite_commands_keep_the_simulation_finite_and_within_limits():
    body = standing()
    run(body, 0.5)
    body.apply([1e300] * 25, [50.0] * 25)
    run(body, 1.0)
    sensors = body.sensor_values()
    for name, values in vars(sensors).items():
        if name != "robot_config":
            assert all(math.isfinite(value) for value in values), (name, values)
    assert sensors.stiffness == [1.0] * 25, "stiffness is clamped to 0..1"
    for index, position in enumerate(sensors.position[:23]):
        joint = body.model.actuator_trnid[index, 0]
        low, high = body.model.jnt_range[joint]
        assert low - 0.05 <= position <= high + 0.05, (index, position)
    assert sensors.position[23:] == [1.0, 1.0], "hands open fully, no further"
    body.apply(None, [-3.0] * 25)
    assert body.sensor_values().stiffness == [0.0] * 25


def test_one_motor_turns_both_hip_yaw_pitch_joints():
    body = standing()
    run(body, 0.5)
    pose = list(STAND_POSE)
    pose[7] = -0.3  # LHipYawPitch: there is no RHipYawPitch in LoLA
    body.apply(pose, [1.0] * 25)
    run(body, 1.0)
    left = body.joint_positions()[7]
    right = body.data.qpos[body.right_hip_yaw_pitch]
    assert left == pytest.approx(-0.3, abs=0.03)
    assert right == pytest.approx(left, abs=0.005)


def test_the_same_seed_and_commands_give_the_same_run():
    def final(seed):
        body = NaoBody("sit", seed=seed)
        body.apply(STAND_POSE, [0.8] * 25)
        run(body, 2.0)
        return body.ground_truth()

    assert final(5) == final(5)
    assert final(5) != final(6)
