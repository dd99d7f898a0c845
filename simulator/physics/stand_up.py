#!/usr/bin/env python3
"""Plays the stand-up motions on the MuJoCo NAO, measures them, and searches for better ones.

    python3 simulator/physics/stand_up.py front|back|left|right|roll-front|left-front|right-front
        [--motion FILE] [--seeds N] [--first-seed S] [--mass-jitter F]
        [--friction-scale F ...] [--gain-scale G ...] [--model MJCF] [--workers W]
        [--lying-s S ...] [--search GENERATIONS --out FILE [--sigma S] [--frozen K]
        [--searched N] [--asymmetric]]
    python3 simulator/physics/stand_up.py back --compose [...]

Each trial does what the motion process does after a fall, without the Rust side: the robot
starts limp on its front or back (``NaoBody("lying-front")``), ``fall_protection`` holds for
1 s, then the stand-up motion (default ``config/data/default/motions/stand_up_<side>.toml``)
and ``stand`` are played with the keyframe player's rules (from the measured pose, cosine ramp
for positions, linear stiffness), and the robot is watched for 5 s more. A trial succeeds when
the torso is above ``UP_HEIGHT_M`` and tilted less than ``UP_TILT_DEG`` from the motion's end
to the end of those 5 s; the time to stand is from the start of the motion to the first moment
of that stretch.

Rolls (``ROLLS``): ``left``/``right`` start on that side and play ``roll_to_back``;
``roll-front`` starts on the back and ``left-front``/``right-front`` on a side and play
``roll_to_front``; after the roll ``fall_protection`` holds 1 s, and a trial succeeds when the
torso then lies pitched beyond 60° the way the roll goes.

Cases: every seed (``--first-seed`` on, ``--seeds`` of them: each seeds the starting yaw and,
with ``--mass-jitter``, every link's mass and inertia times 1 ± F) × every ``--friction-scale``
× every ``--gain-scale`` (servo kp and kv; see ``NaoBody.perturb``). The table goes to stdout.

``--search GENERATIONS``: CMA-ES (``cma_search``) over every keyframe's angles (``SEARCHED``;
the right side mirrors the left unless ``--asymmetric``) and durations, all but the first
``--frozen`` keyframes (with ``--searched N`` only the N after them: an opening searched in
front of a motion that stays as it is), maximising ``trial_score`` averaged over the cases; the
best motion so far is written to ``--out`` in the keyframe format of ``motion/src/keyframes``
whenever it improves. Prefer margins: search with jitter, friction and gains on, and check the result on
seeds (``--first-seed``) it was not searched on.

``back --compose``: writes ``stand_up_back.toml`` = ``roll_to_front`` + a settle in the fall
protection's pose + ``stand_up_front`` after its opening (``compose_back``), then measures it.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import sys
import tempfile
import time
import tomllib

FRAME_S = 0.012
# The bridge's limit on a stiff joint's target per frame (LolaBridge.toml max_target_step_rad:
# 8.3 rad/s) and what counts as limp there.
MAX_TARGET_STEP_RAD = 0.1
LIMP_STIFFNESS = 0.05
UP_HEIGHT_M = 0.28
UP_TILT_DEG = 15.0
# Rolled onto the back (front): the torso pitched back (forward) by more than this.
ROLLED_PITCH_DEG = 60.0
# The rolls: side (as on the command line) -> (where the robot starts, where it should end):
# "left"/"right" roll onto the back, "roll-front" from the back onto the front,
# "left-front"/"right-front" from a side onto the front.
ROLLS = {"left": ("left", "back"), "right": ("right", "back"), "roll-front": ("back", "front"),
         "left-front": ("left", "front"), "right-front": ("right", "front")}
START = {side: start for side, (start, _) in ROLLS.items()}
WATCH_S = 5.0
PROTECT_S = 1.0
HERE = os.path.dirname(os.path.abspath(__file__))
MOTIONS = os.path.join(HERE, "..", "..", "config", "data", "default", "motions")
MODEL_DEFAULT = os.path.join(HERE, "nao_v6.xml")

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
    """Plays ``frames`` on ``body`` from its measured pose; ``watch(body)`` after each frame.
    As the bridge does (``max_target_step_rad`` in LolaBridge.toml), no stiff joint's target
    moves more than ``MAX_TARGET_STEP_RAD`` from one frame to the next."""
    start = body.joint_positions()
    start_stiffness = list(body.stiffness)
    sent = list(start)
    for frame in frames:
        end = [start[i] if frame["positions"][joint] is None else frame["positions"][joint]
               for i, joint in enumerate(JOINTS)]
        end_stiffness = [frame["stiffness"][joint] for joint in JOINTS]
        ticks = max(1, round(frame["duration_ms"] / 1000.0 / FRAME_S))
        for tick in range(ticks):
            fraction = (tick + 1) / ticks
            progress = 0.5 - 0.5 * math.cos(math.pi * fraction)
            stiffness = [a + (b - a) * fraction for a, b in zip(start_stiffness, end_stiffness)]
            wanted = [a + (b - a) * progress for a, b in zip(start, end)]
            sent = [target if stiff <= LIMP_STIFFNESS
                    else last + min(max(target - last, -MAX_TARGET_STEP_RAD), MAX_TARGET_STEP_RAD)
                    for target, last, stiff in zip(wanted, sent, stiffness)]
            body.apply(sent, stiffness)
            body.step(FRAME_S)
            if watch is not None:
                watch(body)
        start, start_stiffness = end, end_stiffness


def tilt_deg(body) -> float:
    return math.degrees(math.acos(max(-1.0, min(1.0, float(body.torso_rotation()[2, 2])))))


def contact_shares(body) -> tuple[float, float]:
    """(share of the floor's normal force carried by the soles, total normal force N)."""
    import mujoco
    import numpy as np

    feet = {foot.body for foot in body.feet.values()}
    on_feet, total = 0.0, 0.0
    force = np.zeros(6)
    for index in range(body.data.ncon):
        contact = body.data.contact[index]
        geom = contact.geom2 if contact.geom1 == body.floor else contact.geom1
        mujoco.mj_contactForce(body.model, body.data, index, force)
        total += abs(force[0])
        if body.model.geom_bodyid[geom] in feet:
            on_feet += abs(force[0])
    return (on_feet / total if total > 1e-6 else 0.0), total


def centre_of_mass_offset(body) -> float:
    """Horizontal distance (m) from the robot's centre of mass to the middle of its two soles."""
    import numpy as np

    mass = body.model.body_mass[1:]
    centre = (mass[:, None] * body.data.xipos[1:]).sum(axis=0) / mass.sum()
    soles = np.mean([body.data.geom_xpos[foot.geom] for foot in body.feet.values()], axis=0)
    return float(np.hypot(*(centre[:2] - soles[:2])))


def trial_metrics(side: str, motion, library, seed: int, mass_jitter: float,
                  friction_scale: float, gain_scale: float = 1.0, model_path=None,
                  lying_s: float = PROTECT_S) -> dict:
    """One robot getting up: success, seconds to stand (None), final height m and tilt°, and
    for the search: at the motion's end the soles' share of the load, the tilt and the centre
    of mass's distance from the soles, and the best of (soles' share × uprightness) on the way."""
    from nao_body import NaoBody

    from nao_body import MODEL_PATH

    body = NaoBody(f"lying-{START.get(side, side)}", model_path=model_path or MODEL_PATH,
                   seed=seed)
    if mass_jitter > 0.0 or friction_scale != 1.0 or gain_scale != 1.0:
        body.perturb(mass_jitter, friction_scale, gain_scale)
    protection = copy.deepcopy(library["fall_protection"])
    protection[-1]["duration_ms"] = lying_s * 1000.0
    play(body, protection)
    protection[-1]["duration_ms"] = PROTECT_S * 1000.0
    started = body.data.time
    result = {"success": False, "seconds": None}
    if side in ROLLS:
        play(body, motion)
        settle = copy.deepcopy(protection)
        play(body, settle)
        _, pitch = body.torso_angles()
        # Rolled: pitched beyond ROLLED_PITCH_DEG the way the roll goes (back: negative).
        sign = 1.0 if ROLLS[side][1] == "front" else -1.0
        rolled = sign * pitch > math.radians(ROLLED_PITCH_DEG)
        result.update(success=rolled, seconds=body.data.time - started if rolled else None,
                      rolled=(sign * math.degrees(pitch) + 90.0) / 180.0)
    else:
        best = [0.0]
        ticks = [0]

        def progress(body):
            ticks[0] += 1
            if ticks[0] % 4 == 0:
                share, _ = contact_shares(body)
                best[0] = max(best[0], share * max(0.0, math.cos(math.radians(tilt_deg(body)))))

        play(body, motion, progress)
        share, _ = contact_shares(body)
        result.update(end_feet_share=share, end_tilt=tilt_deg(body),
                      end_com_offset=centre_of_mass_offset(body), best_on_feet=best[0])
        play(body, library["stand"])
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
        if up_since[0] is not None:
            result.update(success=True, seconds=up_since[0] - started)
    result.update(height=float(body.data.xpos[body.torso][2]), tilt=tilt_deg(body))
    return result


def trial(side: str, motion, library, seed: int, mass_jitter: float, friction_scale: float,
          gain_scale: float = 1.0):
    """One robot getting up: (success, seconds to stand or None, final height m, final tilt°)."""
    result = trial_metrics(side, motion, library, seed, mass_jitter, friction_scale, gain_scale)
    return result["success"], result["seconds"], result["height"], result["tilt"]


def trial_score(result: dict) -> float:
    """What the search maximises for one trial: 4 for getting up, plus shaping terms (each
    0..0.5) that reward ending the motion on the soles, upright, with the centre of mass over
    them, and a high, upright torso at the end."""
    if "end_feet_share" not in result:
        # A roll: how far over (0: lying the wrong way, 1: the right way), 2 for success.
        return 2.0 * result["success"] + result["rolled"]
    upright_end = max(0.0, math.cos(math.radians(result["end_tilt"])))
    upright_final = max(0.0, math.cos(math.radians(result["tilt"])))
    return (4.0 * result["success"]
            + 0.5 * result["end_feet_share"] + 0.5 * upright_end
            + 0.5 * max(0.0, 1.0 - result["end_com_offset"] / 0.15)
            + 0.5 * result["best_on_feet"]
            + 0.5 * min(1.0, result["height"] / 0.33) + 0.5 * upright_final)


# Variants of nao_v6.xml for checking that a motion does not depend on the model's quirks
# (--model NAME): what an independent NAO model is likely to do differently.
VARIANTS = {
    # Limbs collide with each other (nao_v6.xml: only with the floor), except neighbours that
    # overlap in the stand pose anyway.
    "self-collision": [
        ('<geom contype="1" conaffinity="0" density="0"', '<geom contype="1" conaffinity="1" density="0"'),
        ("</equality>", "</equality>\n  <contact>\n" + "".join(
            f'    <exclude body1="{a}" body2="{b}"/>\n' for a, b in (
                ("torso", "LThigh"), ("torso", "RThigh"), ("torso", "LBiceps"),
                ("torso", "RBiceps"), ("torso", "head"), ("LBiceps", "LForeArm"),
                ("RBiceps", "RForeArm"))) + "  </contact>"),
    ],
    # The legs' gear trains: damping, armature and friction loss doubled.
    "leg-friction-x2": [
        ('<joint damping="0.2" armature="0.004" frictionloss="0.5"/>',
         '<joint damping="0.4" armature="0.008" frictionloss="1.0"/>'),
    ],
}


def variant_model(name: str, folder: str) -> str:
    """Writes the ``VARIANTS`` entry ``name`` of nao_v6.xml into ``folder``; returns its path."""
    from nao_body import MODEL_PATH

    with open(MODEL_PATH, encoding="utf-8") as file:
        text = file.read()
    for old, new in VARIANTS[name]:
        if old not in text:
            raise MotionFileError(f"{MODEL_PATH}: the {name} variant expects {old!r}")
        text = text.replace(old, new, 1)
    path = os.path.join(folder, f"nao_v6-{name}.xml")
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return path


def cases(arguments, first_seed: int = 1):
    """(seed, mass jitter, friction scale, gain scale, model path or None, seconds lying) for
    every model × seed × friction × gain × seconds lying."""
    return [(seed, arguments.mass_jitter, friction, gain, model, lying)
            for model in (arguments.model or [None])
            for seed in range(first_seed, first_seed + arguments.seeds)
            for friction in arguments.friction_scale for gain in arguments.gain_scale
            for lying in arguments.lying_s]


def measure(side, motion, library, case_list, table=True, workers=1):
    """Runs every case; prints a table; returns (mean search score, successes, times)."""
    results = run_cases(side, motion, library, case_list, workers)
    score, successes, times = 0.0, 0, []
    if table:
        print("| side | model | seed | mass jitter | friction | gains | lying s | result | time to stand (roll) s | height m | tilt ° |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (seed, jitter, friction, gain, model, lying), result in zip(case_list, results):
        score += trial_score(result)
        successes += result["success"]
        if result["seconds"] is not None:
            times.append(result["seconds"])
        if table:
            seconds = result["seconds"]
            print(f"| {side} | {os.path.basename(model or 'nao_v6.xml')} | {seed} | {jitter:g} | "
                  f"{friction:g} | {gain:g} | {lying:g} | "
                  f"{'up' if result['success'] else 'down'} | "
                  f"{'-' if seconds is None else f'{seconds:.1f}'} | {result['height']:.3f} | "
                  f"{result['tilt']:.0f} |", flush=True)
    return score / len(case_list), successes, times


def _run_case(job):
    side, motion, library, (seed, jitter, friction, gain, model_path, lying) = job
    return trial_metrics(side, motion, library, seed, jitter, friction, gain, model_path, lying)


def run_cases(side, motion, library, case_list, workers=1, pool=None):
    jobs = [(side, motion, library, case) for case in case_list]
    if pool is not None:
        return pool.map(_run_case, jobs)
    if workers > 1:
        import multiprocessing

        with multiprocessing.Pool(workers) as own:
            return own.map(_run_case, jobs)
    return [_run_case(job) for job in jobs]


# --- the search: CMA-ES over the keyframes' angles and durations ------------------------------

# What the search varies in every keyframe: these joints, the right side mirroring the left
# (a symmetric motion), and the keyframe's duration.
SEARCHED = ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll", "HipYawPitch", "HipRoll",
            "HipPitch", "KneePitch", "AnklePitch", "AnkleRoll")
# Mirrored joints: the right side's angle is minus the left side's.
MIRRORED = ("ShoulderRoll", "ElbowYaw", "ElbowRoll", "WristYaw", "HipRoll", "AnkleRoll")
# Search coordinates: 10° per unit for angles, a factor e^0.3 per unit for durations.
ANGLE_UNIT_DEG = 10.0
DURATION_UNIT = 0.3
DURATION_RANGE_MS = (150.0, 3000.0)
# Targets stay this far inside the joint limits.
LIMIT_MARGIN_DEG = 1.0


def joint_limits_deg() -> dict:
    """name -> (low, high) in degrees from the model, for the searched (left-side) joints, so
    that the mirrored right side fits its own range too."""
    import mujoco
    from nao_body import MODEL_PATH

    model = mujoco.MjModel.from_xml_path(MODEL_PATH)

    def limits(name):
        model_name = name.replace("Left", "L", 1).replace("Right", "R", 1)
        joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, model_name)
        return [math.degrees(v) for v in model.jnt_range[joint]]

    result = {}
    for base in SEARCHED:
        low, high = limits("Left" + base)
        if base != "HipYawPitch":
            right_low, right_high = limits("Right" + base)
            if base in MIRRORED:
                right_low, right_high = -right_high, -right_low
            low, high = max(low, right_low), min(high, right_high)
        result[base] = (low + LIMIT_MARGIN_DEG, high - LIMIT_MARGIN_DEG)
    return result


def searched_joints(asymmetric: bool) -> list[tuple[str, str]]:
    """(joint, base name) the search varies per keyframe: the left side's (the right mirrors
    it), or with ``asymmetric`` each side's own (in its own sign convention)."""
    joints = [("Left" + base, base) for base in SEARCHED]
    if asymmetric:
        joints += [("Right" + base, base) for base in SEARCHED if base != "HipYawPitch"]
    return joints


def encode(motion, frozen: int, asymmetric: bool = False, searched=None) -> list[float]:
    """The search vector of ``motion``'s keyframes after the first ``frozen`` (only ``searched``
    of them if given); the right side's mirrored joints are stored with the left side's sign."""
    vector = []
    for frame in motion[frozen:None if searched is None else frozen + searched]:
        for joint, base in searched_joints(asymmetric):
            value = frame["positions"][joint]
            sign = -1.0 if joint.startswith("Right") and base in MIRRORED else 1.0
            vector.append(0.0 if value is None else sign * math.degrees(value) / ANGLE_UNIT_DEG)
        vector.append(math.log(frame["duration_ms"] / 1000.0) / DURATION_UNIT)
    return vector


def decode(vector, template, frozen: int, limits: dict, asymmetric: bool = False,
           searched=None):
    """``template`` with the searched values of ``vector`` (clamped into the joint limits)."""
    motion = copy.deepcopy(template)
    values = iter(vector)
    for frame in motion[frozen:None if searched is None else frozen + searched]:
        for joint, base in searched_joints(asymmetric):
            low, high = limits[base]
            angle = math.radians(min(max(next(values) * ANGLE_UNIT_DEG, low), high))
            mirrored = -angle if base in MIRRORED else angle
            if joint.startswith("Right"):
                frame["positions"][joint] = mirrored
                continue
            frame["positions"][joint] = angle
            if base != "HipYawPitch" and not asymmetric:
                frame["positions"]["Right" + base] = mirrored
        milliseconds = 1000.0 * math.exp(next(values) * DURATION_UNIT)
        frame["duration_ms"] = min(max(milliseconds, DURATION_RANGE_MS[0]), DURATION_RANGE_MS[1])
    return motion


def cma_search(side, motion, library, case_list, generations, sigma, out, workers, frozen,
               asymmetric=False, seed=1, searched=None):
    """CMA-ES (Hansen's (μ/μ_w, λ) with rank-one and rank-μ updates and step-size control),
    maximising the mean ``trial_score`` over ``case_list``. Writes the best motion found to
    ``out`` whenever it improves; returns (best score, best motion)."""
    import multiprocessing

    import numpy as np

    limits = joint_limits_deg()
    mean = np.array(encode(motion, frozen, asymmetric, searched))
    n = len(mean)
    population = 4 + int(3 * math.log(n))
    parents = population // 2
    weights = np.log(parents + 0.5) - np.log(np.arange(1, parents + 1))
    weights /= weights.sum()
    mu_eff = 1.0 / (weights ** 2).sum()
    c_sigma = (mu_eff + 2) / (n + mu_eff + 5)
    d_sigma = 1 + 2 * max(0.0, math.sqrt((mu_eff - 1) / (n + 1)) - 1) + c_sigma
    c_c = (4 + mu_eff / n) / (n + 4 + 2 * mu_eff / n)
    c_1 = 2 / ((n + 1.3) ** 2 + mu_eff)
    c_mu = min(1 - c_1, 2 * (mu_eff - 2 + 1 / mu_eff) / ((n + 2) ** 2 + mu_eff))
    chi_n = math.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n))
    p_sigma, p_c, covariance = np.zeros(n), np.zeros(n), np.eye(n)
    rng = np.random.default_rng(seed)
    best_score, best_motion = -math.inf, motion
    pool = multiprocessing.Pool(workers) if workers > 1 else None
    try:
        for generation in range(generations):
            eigenvalues, basis = np.linalg.eigh(covariance)
            scales = np.sqrt(np.maximum(eigenvalues, 1e-20))
            normal = rng.standard_normal((population, n))
            steps = (normal * scales) @ basis.T
            candidates = mean + sigma * steps
            scores, successes = [], []
            for candidate in candidates:
                trial_motion = decode(candidate, motion, frozen, limits, asymmetric, searched)
                results = run_cases(side, trial_motion, library, case_list, pool=pool)
                scores.append(sum(trial_score(r) for r in results) / len(results))
                successes.append(sum(r["success"] for r in results))
            order = np.argsort(scores)[::-1]
            if scores[order[0]] > best_score:
                best_score = scores[order[0]]
                best_motion = decode(candidates[order[0]], motion, frozen, limits, asymmetric,
                                     searched)
                write_motion(out, best_motion,
                             f"Get up from the {side} (searched: score {best_score:.3f})")
            print(f"generation {generation + 1}: best {scores[order[0]]:.3f} "
                  f"({successes[order[0]]} of {len(case_list)} up), mean {np.mean(scores):.3f}, "
                  f"sigma {sigma:.3f}; best so far {best_score:.3f}", flush=True)
            selected = steps[order[:parents]]
            step = weights @ selected
            mean = mean + sigma * step
            inverse_root = basis @ np.diag(1 / scales) @ basis.T
            p_sigma = ((1 - c_sigma) * p_sigma
                       + math.sqrt(c_sigma * (2 - c_sigma) * mu_eff) * inverse_root @ step)
            stalled = (np.linalg.norm(p_sigma)
                       / math.sqrt(1 - (1 - c_sigma) ** (2 * (generation + 1))) / chi_n
                       < 1.4 + 2 / (n + 1))
            p_c = (1 - c_c) * p_c + stalled * math.sqrt(c_c * (2 - c_c) * mu_eff) * step
            rank_mu = (selected.T * weights) @ selected
            covariance = ((1 - c_1 - c_mu) * covariance
                          + c_1 * (np.outer(p_c, p_c) + (not stalled) * c_c * (2 - c_c) * covariance)
                          + c_mu * rank_mu)
            covariance = (covariance + covariance.T) / 2
            sigma *= math.exp((c_sigma / d_sigma) * (np.linalg.norm(p_sigma) / chi_n - 1))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return best_score, best_motion


# Between the roll and the front stand-up in ``stand_up_back``: the fall protection's pose, held
# stiff this long while the robot comes to rest on its front.
SETTLE_MS = 800.0
BACK_HEADER = """Getting up from lying on the back (face up), played by the motion process's GetUp
(motion/src/get_up.rs) once the robot lies still, then `stand`: roll_to_front.toml, the fall
protection's pose held stiff for SETTLE_MS while the robot comes to rest on its front (which
leaves the chest propped on the forearms), then stand_up_front.toml after its opening (the first
FRONT_OPENING keyframes, for a flat chest). Composed from those two files by
`python3 simulator/physics/stand_up.py back --compose` (a test checks that it matches them):
change them, not this file. Measured: docs/performance.md, "Getting up in the physics simulator"."""


# The first keyframes of ``stand_up_front``: the opening that brings a robot whose chest lies flat
# (it lay limp long, the arms gave way) into the propped pose the rest starts from. The settle in
# ``stand_up_back`` leaves the chest propped already, so the back motion goes on after it.
FRONT_OPENING = 3


def compose_back(roll, protection, front):
    """``stand_up_back``: ``roll`` (to the front), a stiff settle in the last keyframe of
    ``protection``'s pose, then ``front`` after its opening (``FRONT_OPENING``)."""
    settle = copy.deepcopy(protection[-1])
    settle["duration_ms"] = SETTLE_MS
    settle["stiffness"] = {joint: (front[0]["stiffness"][joint]) for joint in JOINTS}
    return copy.deepcopy(roll) + [settle] + copy.deepcopy(front[FRONT_OPENING:])


def write_motion(path: str, motion, description: str, header: str = "") -> None:
    """``motion`` in the keyframe format of ``motion/src/keyframes``; ``header``: comment lines."""
    lines = [f"# {line}".rstrip() + "\n" for line in header.splitlines()]
    lines += ["# Written by simulator/physics/stand_up.py.\n", "\n",
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
    parser.add_argument("side", choices=("front", "back", *ROLLS))
    parser.add_argument("--motion", default=None, help="the keyframe file to play")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--mass-jitter", type=float, default=0.0)
    parser.add_argument("--friction-scale", type=float, nargs="+", default=[1.0])
    parser.add_argument("--gain-scale", type=float, nargs="+", default=[1.0])
    parser.add_argument("--lying-s", type=float, nargs="+", default=[PROTECT_S],
                        help="how long the robot lies limp in the fall protection before the "
                             "motion, s (each a case of its own)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--model", nargs="+", default=None,
                        help="MJCF models of the NAO (same joint, actuator, site and sensor "
                             "names) to play on, each a case of its own: a path, nao_v6 (the "
                             f"default) or a variant of it by name ({', '.join(VARIANTS)})")
    parser.add_argument("--search", type=int, default=0, metavar="GENERATIONS")
    parser.add_argument("--sigma", type=float, default=1.0,
                        help="the search's first step size (1 = 10° and ×1.35 in duration)")
    parser.add_argument("--frozen", type=int, default=0,
                        help="keyframes at the start the search leaves as they are")
    parser.add_argument("--searched", type=int, default=None,
                        help="how many keyframes after --frozen the search varies (default: "
                             "all the rest)")
    parser.add_argument("--asymmetric", action="store_true",
                        help="the search varies each side's joints on their own")
    parser.add_argument("--out", default=None, help="where --search writes the best motion")
    parser.add_argument("--compose", action="store_true",
                        help="back: write stand_up_back.toml from roll_to_front.toml and "
                             "stand_up_front.toml, then measure it")
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.seeds <= 1000 or not 1 <= arguments.first_seed <= 100000:
        parser.error("--seeds: 1 to 1000, --first-seed 1 to 100000")
    if (not 0.0 <= arguments.mass_jitter <= 0.5
            or not all(0.1 <= f <= 3.0 for f in arguments.friction_scale)
            or not all(0.3 <= g <= 3.0 for g in arguments.gain_scale)):
        parser.error("--mass-jitter 0 to 0.5, --friction-scale 0.1 to 3, --gain-scale 0.3 to 3")
    if not all(0.0 < lying <= 30.0 for lying in arguments.lying_s):
        parser.error("--lying-s: above 0, at most 30")
    if not 1 <= arguments.workers <= 64 or not 0.01 <= arguments.sigma <= 10.0:
        parser.error("--workers 1 to 64, --sigma 0.01 to 10")
    if arguments.search and not arguments.out:
        parser.error("--search needs --out FILE")
    sys.path.insert(0, HERE)
    try:
        import mujoco  # noqa: F401
    except ImportError:
        print("stand_up: the Python package `mujoco` is missing: "
              "pip install -r simulator/physics/requirements.txt", file=sys.stderr)
        return 66
    default = (f"roll_to_{ROLLS[arguments.side][1]}" if arguments.side in ROLLS
               else f"stand_up_{arguments.side}")
    path = arguments.motion or os.path.join(MOTIONS, f"{default}.toml")
    if arguments.compose and (arguments.side != "back" or arguments.motion):
        parser.error("--compose: only for back, without --motion")
    try:
        if arguments.compose:
            parts = {name: load_motion(os.path.join(MOTIONS, f"{name}.toml"))
                     for name in ("roll_to_front", "fall_protection", "stand_up_front")}
            write_motion(path, compose_back(parts["roll_to_front"], parts["fall_protection"],
                                            parts["stand_up_front"]),
                         "Get up from lying on the back", BACK_HEADER.replace(
                             "SETTLE_MS", f"{SETTLE_MS:g} ms").replace(
                             "FRONT_OPENING", str(FRONT_OPENING)))
        motion = load_motion(path)
        library = {name: load_motion(os.path.join(MOTIONS, f"{name}.toml"))
                   for name in ("fall_protection", "stand")}
    except MotionFileError as error:
        print(f"stand_up: {error}", file=sys.stderr)
        return 65
    if not 0 <= arguments.frozen < len(motion):
        parser.error(f"--frozen: 0 to {len(motion) - 1} (the motion has {len(motion)} keyframes)")
    if arguments.searched is not None and not 1 <= arguments.searched <= len(motion) - arguments.frozen:
        parser.error(f"--searched: 1 to {len(motion) - arguments.frozen} (the keyframes after "
                     "--frozen)")
    variants = tempfile.TemporaryDirectory(prefix="stand_up-")
    try:
        arguments.model = [variant_model(model, variants.name) if model in VARIANTS
                           else MODEL_DEFAULT if model == "nao_v6" else model
                           for model in arguments.model or [MODEL_DEFAULT]]
    except (MotionFileError, OSError) as error:
        print(f"stand_up: {error}", file=sys.stderr)
        return 65
    case_list = cases(arguments, arguments.first_seed)
    began = time.monotonic()
    score, successes, times = measure(arguments.side, motion, library, case_list,
                                      table=not arguments.search, workers=arguments.workers)
    rolling = arguments.side in ROLLS
    rolled = f"on the {ROLLS[arguments.side][1]}" if rolling else ""
    print(f"\n{path}: {successes} of {len(case_list)} {rolled if rolling else 'up'}"
          + (f", {min(times):.1f} to {max(times):.1f} s {'to roll' if rolling else 'to stand'}"
             if times else "")
          + f" (score {score:.3f}; {time.monotonic() - began:.0f} s)", flush=True)
    if arguments.search:
        best_score, _ = cma_search(arguments.side, motion, library, case_list, arguments.search,
                                   arguments.sigma, arguments.out, arguments.workers,
                                   arguments.frozen, arguments.asymmetric,
                                   searched=arguments.searched)
        print(f"best score {best_score:.3f} written to {arguments.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
