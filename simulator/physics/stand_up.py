#!/usr/bin/env python3
"""Plays the stand-up motions on the MuJoCo NAO, measures them, and searches for better ones.

    python3 simulator/physics/stand_up.py front|back|left|right [--motion FILE] [--seeds N]
        [--mass-jitter F] [--friction-scale F] [--search N --out FILE]

Each trial does what the motion process does after a fall, without the Rust side: the robot
starts limp on its front or back (``NaoBody("lying-front")``), ``fall_protection`` holds for
1 s, then the stand-up motion (default ``config/data/default/motions/stand_up_<side>.toml``)
and ``stand`` are played with the keyframe player's rules (from the measured pose, cosine ramp
for positions, linear stiffness), and the robot is watched for 5 s more. A trial succeeds when
the torso is above ``UP_HEIGHT_M`` and tilted less than ``UP_TILT_DEG`` from the motion's end
to the end of those 5 s; the time to stand is from the start of the motion to the first moment
of that stretch.

``left`` and ``right``: the robot starts on that side and ``roll_to_back`` is played (without
``stand``); a trial succeeds when the robot then lies on its back (torso pitched back beyond
60°), which is where ``stand_up_back`` takes over.

Cases: ``--seeds`` robots (seed 1..N: each seeds the starting yaw and, with ``--mass-jitter``,
every link's mass and inertia times 1 ± F), each with ``--friction-scale`` (see
``NaoBody.perturb``). The table goes to stdout.

``--search N``: a random local search (N candidates) over the motion's keyframe angles (legs'
and arms' pitch joints, ±15° steps) and durations (±30 %), scored on the same cases by the
final torso height and uprightness plus a bonus per success; the best is written to ``--out``
in the keyframe format of ``motion/src/keyframes``. Prefer margins: search with jitter and
friction on, and check the result on seeds it was not searched on.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import sys
import time
import tomllib

FRAME_S = 0.012
UP_HEIGHT_M = 0.28
UP_TILT_DEG = 15.0
# Rolled onto the back: the torso pitched back by more than this.
ROLLED_PITCH_DEG = 60.0
WATCH_S = 5.0
PROTECT_S = 1.0
HERE = os.path.dirname(os.path.abspath(__file__))
MOTIONS = os.path.join(HERE, "..", "..", "config", "data", "default", "motions")

# The keyframe format's joint names in LoLA's order (motion/src/keyframes).
JOINTS = (
    "HeadYaw", "HeadPitch",
    "LeftShoulderPitch", "LeftShoulderRoll", "LeftElbowYaw", "LeftElbowRoll", "LeftWristYaw",
    "LeftHipYawPitch", "LeftHipRoll", "LeftHipPitch", "LeftKneePitch", "LeftAnklePitch",
    "LeftAnkleRoll", "RightHipRoll", "RightHipPitch", "RightKneePitch", "RightAnklePitch",
    "RightAnkleRoll", "RightShoulderPitch", "RightShoulderRoll", "RightElbowYaw",
    "RightElbowRoll", "RightWristYaw", "LeftHand", "RightHand",
)
HANDS = ("LeftHand", "RightHand")
# What the search varies: pitch joints, both sides together.
SEARCHED = ("ShoulderPitch", "HipPitch", "KneePitch", "AnklePitch")


class MotionFileError(Exception):
    pass


def load_motion(path: str) -> list[dict]:
    """Keyframes as dicts: duration_ms, positions (joint -> rad, hands 0..1, None = keep),
    stiffness (joint -> 0..1)."""
    try:
        with open(path, "rb") as file:
            document = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise MotionFileError(f"{path}: {error}") from None
    frames = []
    for index, raw in enumerate(document.get("keyframe", [])):
        where = f"{path}: keyframe {index + 1}"
        stiffness = raw.get("stiffness", 0.0)
        table = stiffness if isinstance(stiffness, dict) else {"*": stiffness}
        positions_deg = raw.get("positions_deg", {})
        positions, stiffnesses = {}, {}
        for joint in JOINTS:
            value = positions_deg.get(joint, positions_deg.get("*", "*"))
            if value == "*":
                positions[joint] = None
            elif isinstance(value, (int, float)):
                positions[joint] = float(value) if joint in HANDS else math.radians(value)
            else:
                raise MotionFileError(f"{where}: {joint} = {value!r} is neither a number nor \"*\"")
            stiffnesses[joint] = float(table.get(joint, table.get("*", 0.0)))
        duration = raw.get("duration_ms")
        if not isinstance(duration, (int, float)) or duration <= 0:
            raise MotionFileError(f"{where}: duration_ms must be a positive number")
        frames.append({"duration_ms": float(duration), "positions": positions,
                       "stiffness": stiffnesses})
    if not frames:
        raise MotionFileError(f"{path}: no [[keyframe]]")
    return frames


def play(body, frames, watch=None) -> None:
    """Plays ``frames`` on ``body`` from its measured pose; ``watch(body)`` after each frame."""
    start = body.joint_positions()
    start_stiffness = list(body.stiffness)
    for frame in frames:
        end = [start[i] if frame["positions"][joint] is None else frame["positions"][joint]
               for i, joint in enumerate(JOINTS)]
        end_stiffness = [frame["stiffness"][joint] for joint in JOINTS]
        ticks = max(1, round(frame["duration_ms"] / 1000.0 / FRAME_S))
        for tick in range(ticks):
            fraction = (tick + 1) / ticks
            progress = 0.5 - 0.5 * math.cos(math.pi * fraction)
            body.apply([a + (b - a) * progress for a, b in zip(start, end)],
                       [a + (b - a) * fraction for a, b in zip(start_stiffness, end_stiffness)])
            body.step(FRAME_S)
            if watch is not None:
                watch(body)
        start, start_stiffness = end, end_stiffness


def tilt_deg(body) -> float:
    return math.degrees(math.acos(max(-1.0, min(1.0, float(body.torso_rotation()[2, 2])))))


def trial(side: str, motion, library, seed: int, mass_jitter: float, friction_scale: float):
    """One robot getting up: (success, seconds to stand or None, final height m, final tilt°)."""
    from nao_body import NaoBody

    body = NaoBody(f"lying-{side}", seed=seed)
    if mass_jitter > 0.0 or friction_scale != 1.0:
        body.perturb(mass_jitter, friction_scale)
    protection = copy.deepcopy(library["fall_protection"])
    protection[-1]["duration_ms"] = PROTECT_S * 1000.0
    play(body, protection)
    started = body.data.time
    if side in ("left", "right"):
        play(body, motion)
        settle = copy.deepcopy(protection)
        play(body, settle)
        _, pitch = body.torso_angles()
        on_back = pitch < -math.radians(ROLLED_PITCH_DEG)
        return (on_back, body.data.time - started if on_back else None,
                float(body.data.xpos[body.torso][2]), tilt_deg(body))
    play(body, motion + library["stand"])
    up_since = [None]

    def watch(body):
        up = (body.data.xpos[body.torso][2] > UP_HEIGHT_M and tilt_deg(body) < UP_TILT_DEG)
        if not up:
            up_since[0] = None
        elif up_since[0] is None:
            up_since[0] = body.data.time

    watch(body)
    hold = copy.deepcopy(library["stand"])
    hold[-1]["duration_ms"] = WATCH_S * 1000.0
    play(body, hold, watch)
    success = up_since[0] is not None
    seconds = None
    if success:
        seconds = up_since[0] - started
    return success, seconds, float(body.data.xpos[body.torso][2]), tilt_deg(body)


def cases(arguments):
    return [(seed, arguments.mass_jitter, arguments.friction_scale)
            for seed in range(1, arguments.seeds + 1)]


def measure(side, motion, library, case_list, table=True):
    """Runs every case; prints a table; returns (score, successes, times)."""
    score, successes, times = 0.0, 0, []
    if table:
        print("| side | seed | mass jitter | friction | result | time to stand (roll) s | height m | tilt ° |")
        print("|---|---|---|---|---|---|---|---|")
    for seed, jitter, friction in case_list:
        success, seconds, height, tilt = trial(side, motion, library, seed, jitter, friction)
        score += (0.0 if side in ("left", "right") else height + 0.1 * math.cos(math.radians(tilt))) + (1.0 if success else 0.0)
        successes += success
        if seconds is not None:
            times.append(seconds)
        if table:
            print(f"| {side} | {seed} | {jitter:g} | {friction:g} | {'up' if success else 'down'} | "
                  f"{'-' if seconds is None else f'{seconds:.1f}'} | {height:.3f} | {tilt:.0f} |",
                  flush=True)
    return score / len(case_list), successes, times


def mutate(motion, rng: random.Random):
    candidate = copy.deepcopy(motion)
    frame = rng.choice(candidate)
    if rng.random() < 0.25:
        frame["duration_ms"] = max(200.0, frame["duration_ms"] * rng.uniform(0.7, 1.3))
        return candidate
    joint = rng.choice(SEARCHED)
    step = math.radians(rng.gauss(0.0, 15.0))
    for side in ("Left", "Right"):
        name = side + joint
        if frame["positions"][name] is not None:
            frame["positions"][name] += step
    return candidate


def write_motion(path: str, motion, description: str) -> None:
    lines = [f"# Written by simulator/physics/stand_up.py --search.\n",
             f'description = "{description}"\n']
    for frame in motion:
        stiffness = ", ".join(f"{joint} = {value:g}" for joint, value in frame["stiffness"].items())
        lines.append(f"\n[[keyframe]]\nduration_ms = {round(frame['duration_ms'])}\n"
                     f"stiffness = {{ {stiffness} }}\n[keyframe.positions_deg]\n")
        for joint, value in frame["positions"].items():
            if value is None:
                lines.append(f'{joint} = "*"\n')
            elif joint in HANDS:
                lines.append(f"{joint} = {value:g}\n")
            else:
                lines.append(f"{joint} = {round(math.degrees(value), 1):g}\n")
    with open(path, "w", encoding="utf-8") as file:
        file.writelines(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="stand_up.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("side", choices=("front", "back", "left", "right"))
    parser.add_argument("--motion", default=None, help="the keyframe file to play")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--mass-jitter", type=float, default=0.0)
    parser.add_argument("--friction-scale", type=float, default=1.0)
    parser.add_argument("--search", type=int, default=0, metavar="N")
    parser.add_argument("--out", default=None, help="where --search writes the best motion")
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.seeds <= 1000:
        parser.error("--seeds: 1 to 1000")
    if not 0.0 <= arguments.mass_jitter <= 0.5 or not 0.1 <= arguments.friction_scale <= 3.0:
        parser.error("--mass-jitter 0 to 0.5, --friction-scale 0.1 to 3")
    if arguments.search and not arguments.out:
        parser.error("--search needs --out FILE")
    sys.path.insert(0, HERE)
    try:
        import mujoco  # noqa: F401
    except ImportError:
        print("stand_up: the Python package `mujoco` is missing: "
              "pip install -r simulator/physics/requirements.txt", file=sys.stderr)
        return 66
    default = ("roll_to_back" if arguments.side in ("left", "right")
               else f"stand_up_{arguments.side}")
    path = arguments.motion or os.path.join(MOTIONS, f"{default}.toml")
    try:
        motion = load_motion(path)
        library = {name: load_motion(os.path.join(MOTIONS, f"{name}.toml"))
                   for name in ("fall_protection", "stand")}
    except MotionFileError as error:
        print(f"stand_up: {error}", file=sys.stderr)
        return 65
    case_list = cases(arguments)
    began = time.monotonic()
    score, successes, times = measure(arguments.side, motion, library, case_list)
    rolling = arguments.side in ("left", "right")
    print(f"\n{path}: {successes} of {len(case_list)} {'on the back' if rolling else 'up'}"
          + (f", {min(times):.1f} to {max(times):.1f} s {'to roll' if rolling else 'to stand'}"
             if times else "")
          + f" (score {score:.3f}; {time.monotonic() - began:.0f} s)")
    if arguments.search:
        rng = random.Random(1)
        best, best_score = motion, score
        for number in range(arguments.search):
            candidate = mutate(best, rng)
            candidate_score, candidate_successes, _ = measure(
                arguments.side, candidate, library, case_list, table=False)
            if candidate_score > best_score:
                best, best_score = candidate, candidate_score
                print(f"candidate {number}: score {candidate_score:.3f}, "
                      f"{candidate_successes} of {len(case_list)} up", flush=True)
        write_motion(arguments.out, best, f"Get up from the {arguments.side} (searched)")
        print(f"best score {best_score:.3f} written to {arguments.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
