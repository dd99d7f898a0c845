#!/usr/bin/env python3
"""Physics time step: cost against fidelity, side by side in one run.

    python3 simulator/physics/bench.py

For each MuJoCo time step it simulates 30 s of the stiff stand and 10 s of the limp crouch
(as ``nao_body.NaoBody`` does for LoLA, 12 ms per frame) and prints one table row: how many
times faster than real time, the largest torso tilt while standing, the knee's servo error
under the robot's weight, how far the limp crouch has tipped after 10 s, and how far the torso's
height strays from the 1 ms run while rising from the crouch (a motion with changing contacts). The wall-clock
figures depend on the machine; compare the rows with each other.
"""

import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nao_body import SIT_POSE, STAND_POSE, NaoBody  # noqa: E402

FRAME_S = 0.012
TIME_STEPS_S = (0.001, 0.002, 0.004, 0.006)


def stand(time_step):
    body = NaoBody("stand")
    body.model.opt.timestep = time_step
    body.apply(STAND_POSE, [1.0] * 25)
    frames = round(30.0 / FRAME_S)
    worst_tilt = 0.0
    started = time.perf_counter()
    for _ in range(frames):
        body.step(FRAME_S)
        truth = body.ground_truth()
        worst_tilt = max(worst_tilt, abs(truth["torso_roll_rad"]), abs(truth["torso_pitch_rad"]))
    wall = time.perf_counter() - started
    knee_error = abs(body.joint_positions()[10] - STAND_POSE[10])
    height = body.ground_truth()["torso_position_m"][2]
    return 30.0 / wall, worst_tilt, knee_error, height


def stand_up(time_step):
    """Torso heights, one per frame, while rising from the crouch into the stand in 1.5 s."""
    body = NaoBody("sit")
    body.model.opt.timestep = time_step
    heights = []
    frames = round(2.0 / FRAME_S)
    for frame in range(frames):
        blend = min(frame * FRAME_S / 1.5, 1.0)
        targets = [sit + (stand - sit) * blend for sit, stand in zip(SIT_POSE, STAND_POSE)]
        body.apply(targets, [1.0] * 25)
        body.step(FRAME_S)
        heights.append(body.ground_truth()["torso_position_m"][2])
    return heights


def limp_crouch(time_step):
    body = NaoBody("sit")
    body.model.opt.timestep = time_step
    body.apply(SIT_POSE, [0.0] * 25)
    for _ in range(round(10.0 / FRAME_S)):
        body.step(FRAME_S)
    truth = body.ground_truth()
    return max(abs(truth["torso_roll_rad"]), abs(truth["torso_pitch_rad"]))


def main():
    print("| time step | × real time (stand) | worst tilt standing | knee error | torso height "
          "| limp crouch tilt after 10 s | stand-up vs 1 ms (RMS, largest) |")
    print("|---|---|---|---|---|---|---|")
    reference = stand_up(TIME_STEPS_S[0])
    for time_step in TIME_STEPS_S:
        speed, tilt, knee_error, height = stand(time_step)
        crouch_tilt = limp_crouch(time_step)
        differences = [a - b for a, b in zip(stand_up(time_step), reference)]
        rms_mm = 1000 * math.sqrt(sum(d * d for d in differences) / len(differences))
        largest_mm = 1000 * max(abs(d) for d in differences)
        print(f"| {time_step * 1000:.0f} ms | {speed:.1f} | {math.degrees(tilt):.2f}° | "
              f"{math.degrees(knee_error):.2f}° | {height:.3f} m | {math.degrees(crouch_tilt):.1f}° | "
              f"{rms_mm:.2f} mm, {largest_mm:.2f} mm |")


if __name__ == "__main__":
    main()
