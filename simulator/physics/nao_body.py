"""The simulated NAO v6: the MuJoCo model of ``nao_v6.xml`` driven like LoLA drives the motors,
and read like LoLA reads the sensors.

- ``apply(positions, stiffnesses)``: targets and stiffness per joint in LoLA's order. A joint's
  servo gain, damping and torque limit are the model's values times its stiffness (clamped to
  0..1): stiffness 0 is limp. The hands (LoLA indices 23, 24) have no joint in the model; their
  opening follows the target at a bounded speed while stiff.
- ``step(seconds)``: advances the physics.
- ``sensor_values()``: one frame's numbers in LoLA's units and signs (protocols.md §1, §8):
  accelerometer negated from the proper acceleration (upright at rest: z ≈ −9.81 m/s²),
  gyroscope in the torso frame (rad/s, right-handed: x forward, y left, z up; B-Human reads it
  unchanged), ``Angles`` the torso's roll and pitch (rad; leaning forward is positive pitch,
  right side down is positive roll), FSRs in kg: each sole's contact forces shared among its
  four sensors by where they act.
- ``ground_truth()``: torso pose and feet for tests.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import mujoco
import numpy as np

from lola_wire import JOINT_COUNT, JOINT_NAMES, SensorValues

MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nao_v6.xml")

GRAVITY_M_PER_S2 = 9.81
# Joints with a model joint and actuator: LoLA indices 0..22 (the hands are 23, 24).
ACTUATED_COUNT = 23
HAND_INDICES = (23, 24)
# How fast a stiff hand opens or closes, fraction per second.
HAND_SPEED_PER_S = 2.0

# Current and heat (a rough model, as in the kinematic simulator): current ∝ torque, at most
# ``STALL_CURRENT_A`` at the joint's torque limit; temperature rises with current².
STALL_CURRENT_A = 2.0
AMBIENT_CELSIUS = 30.0
HEATING_CELSIUS_PER_SECOND_PER_AMPERE_SQUARED = 0.5
COOLING_PER_SECOND = 0.01

# What LoLA reports that the body does not simulate.
ROBOT_CONFIG = ("P0000073A07S94700012", "6.0.0", "P0000074A05S93M00061", "6.0.0")
# Charge, Status (0x803C: the Webots emulator's default, not charging), Current A, Temperature °C.
BATTERY = (1.0, -32708.0, -1.2, 32.0)
SONAR_M = (2.55, 2.55)

# Poses in LoLA's order, rad (hands 0..1).
STAND_POSE = [
    0.0, 0.0,
    math.radians(90), math.radians(10), math.radians(-70), math.radians(-30), 0.0,
    0.0, 0.0, math.radians(-25), math.radians(50), math.radians(-25), 0.0,
    0.0, math.radians(-25), math.radians(50), math.radians(-25), 0.0,
    math.radians(90), math.radians(-10), math.radians(70), math.radians(30), 0.0,
    0.0, 0.0,
]
# B-Human's sitting pose (config/data/default/LolaBridge.toml), knees at their limit.
SIT_POSE = [
    0.0, 0.0,
    1.4, 0.2, -1.4, -0.5, 0.0,
    0.0, 0.0, -0.87, 2.11, -1.18, 0.0,
    0.0, -0.87, 2.11, -1.18, 0.0,
    1.4, -0.2, 1.4, 0.5, 0.0,
    0.0, 0.0,
]
LYING_POSE = [0.0] * JOINT_COUNT

# The SPL ball (rules: 100 mm, about 45 g; foam over a hard core), and how it rolls on the
# carpet: sliding, torsional and rolling friction (m) so that a rolling ball stops after metres,
# not never.
BALL_RADIUS_M = 0.05
BALL_MASS_KG = 0.045
BALL_FRICTION = [0.7, 0.005, 0.002]
# "lying" is on the back (as "lying-back"); "lying-front" face down; "lying-left" on the left
# side, "lying-right" on the right.
INITIAL_POSES = {"stand": STAND_POSE, "sit": SIT_POSE, "lying": LYING_POSE,
                 "lying-back": LYING_POSE, "lying-front": LYING_POSE,
                 "lying-left": LYING_POSE, "lying-right": LYING_POSE}

FOOT_SITES = {
    "left": ("LFsrFrontLeft", "LFsrFrontRight", "LFsrRearLeft", "LFsrRearRight"),
    "right": ("RFsrFrontLeft", "RFsrFrontRight", "RFsrRearLeft", "RFsrRearRight"),
}


class ModelError(Exception):
    """The model file is missing or MuJoCo refuses it."""


def temperature_status(celsius: float) -> int:
    if celsius >= 95.0:
        return 3
    if celsius >= 85.0:
        return 2
    if celsius >= 75.0:
        return 1
    return 0


@dataclass
class FootGeometry:
    geom: int
    body: int
    # Sensor positions in the foot frame: front x, rear x, left y, right y (averaged).
    front_x: float
    rear_x: float
    left_y: float
    right_y: float


class NaoBody:
    """The MuJoCo NAO with LoLA's view of its motors and sensors."""

    def __init__(self, initial_pose: str = "sit", model_path: str = MODEL_PATH, seed: int = 0,
                 ball=None):
        """``ball``: (x, y) on the floor in m (world frame: the robot starts at the origin facing
        +x) for an SPL ball (``BALL_RADIUS_M``, ``BALL_MASS_KG``, rolling friction of carpet);
        None: no ball."""
        if initial_pose not in INITIAL_POSES:
            raise ValueError(f"unknown initial pose {initial_pose!r} ({', '.join(INITIAL_POSES)})")
        try:
            if ball is None:
                self.model = mujoco.MjModel.from_xml_path(model_path)
            else:
                spec = mujoco.MjSpec.from_file(model_path)
                ball_body = spec.worldbody.add_body(name="ball", pos=[ball[0], ball[1], BALL_RADIUS_M])
                ball_body.add_freejoint()
                ball_body.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[BALL_RADIUS_M, 0, 0],
                                   mass=BALL_MASS_KG, condim=6, contype=1, conaffinity=1,
                                   friction=BALL_FRICTION, rgba=[1, 1, 1, 1])
                self.model = spec.compile()
        except (ValueError, FileNotFoundError) as error:
            raise ModelError(f"{model_path}: {error}") from None
        self.ball = None
        self.ball_position = ball
        self._require_names(model_path)
        self.data = mujoco.MjData(self.model)
        self.random = np.random.default_rng(seed)
        self.joint_qpos = []
        self.joint_dof = []
        for name in JOINT_NAMES[:ACTUATED_COUNT]:
            joint = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
            actuator = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)
            if joint < 0 or actuator != len(self.joint_qpos):
                raise ModelError(f"{model_path}: joint or actuator {name} missing or out of LoLA order")
            self.joint_qpos.append(self.model.jnt_qposadr[joint])
            self.joint_dof.append(self.model.jnt_dofadr[joint])
        self.right_hip_yaw_pitch = self.model.jnt_qposadr[
            mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, "RHipYawPitch")]
        self.full_kp = self.model.actuator_gainprm[:, 0].copy()
        self.full_kv = -self.model.actuator_biasprm[:, 2].copy()
        self.full_force = self.model.actuator_forcerange.copy()
        self.torso = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, "torso")
        self.imu = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SITE, "imu")
        self.sensor_slices = {}
        for name in ("accelerometer", "gyroscope", "torso_orientation"):
            sensor = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SENSOR, name)
            start = self.model.sensor_adr[sensor]
            self.sensor_slices[name] = slice(start, start + self.model.sensor_dim[sensor])
        self.feet = {side: self._foot(side, sites) for side, sites in FOOT_SITES.items()}
        self.floor = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_GEOM, "floor")

        pose = INITIAL_POSES[initial_pose]
        self.stiffness = np.zeros(JOINT_COUNT)
        self.targets = np.array(pose, dtype=float)
        self.hands = np.array([pose[index] for index in HAND_INDICES], dtype=float)
        self.temperatures = np.full(JOINT_COUNT, AMBIENT_CELSIUS)
        self.currents = np.zeros(JOINT_COUNT)
        if ball is not None:
            self.ball = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, "ball")
        lying = initial_pose.removeprefix("lying-") if initial_pose.startswith("lying-") else None
        lying = "back" if initial_pose == "lying" else lying
        self._place(pose, lying=lying)
        self._apply_stiffness()

    def _require_names(self, model_path: str) -> None:
        """Refuses a model that lacks a joint, actuator, body, site, geom or sensor used here."""
        wanted = [(mujoco.mjtObj.mjOBJ_JOINT, name) for name in JOINT_NAMES[:ACTUATED_COUNT]]
        wanted += [(mujoco.mjtObj.mjOBJ_JOINT, "RHipYawPitch"), (mujoco.mjtObj.mjOBJ_BODY, "torso"),
                   (mujoco.mjtObj.mjOBJ_SITE, "imu"), (mujoco.mjtObj.mjOBJ_GEOM, "floor"),
                   (mujoco.mjtObj.mjOBJ_GEOM, "LSole"), (mujoco.mjtObj.mjOBJ_GEOM, "RSole")]
        wanted += [(mujoco.mjtObj.mjOBJ_ACTUATOR, name) for name in JOINT_NAMES[:ACTUATED_COUNT]]
        wanted += [(mujoco.mjtObj.mjOBJ_SITE, site) for sites in FOOT_SITES.values() for site in sites]
        wanted += [(mujoco.mjtObj.mjOBJ_SENSOR, name)
                   for name in ("accelerometer", "gyroscope", "torso_orientation")]
        missing = [f"{kind.name[6:].lower()} {name}" for kind, name in wanted
                   if mujoco.mj_name2id(self.model, kind, name) < 0]
        if missing:
            raise ModelError(f"{model_path}: not a NAO model for LoLA: no {', '.join(missing[:5])}"
                             + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
        if self.model.nu != ACTUATED_COUNT:
            raise ModelError(f"{model_path}: {self.model.nu} actuators, expected {ACTUATED_COUNT} in LoLA's order")

    def _foot(self, side: str, sites) -> FootGeometry:
        name = "LSole" if side == "left" else "RSole"
        geom = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_GEOM, name)
        positions = [self.model.site_pos[mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SITE, s)] for s in sites]
        front_left, front_right, rear_left, rear_right = positions
        return FootGeometry(
            geom=geom,
            body=self.model.geom_bodyid[geom],
            front_x=(front_left[0] + front_right[0]) / 2,
            rear_x=(rear_left[0] + rear_right[0]) / 2,
            left_y=(front_left[1] + rear_left[1]) / 2,
            right_y=(front_right[1] + rear_right[1]) / 2,
        )

    # --- set-up -------------------------------------------------------------------------------

    def _place(self, pose, lying: str | None) -> None:
        """Puts the robot in ``pose`` with its lowest point just above the floor; ``lying``:
        "back", "front" (pitched back or forward by 90°), "left", "right" (rolled onto that
        side by 90°), None: upright."""
        mujoco.mj_resetData(self.model, self.data)
        for index, address in enumerate(self.joint_qpos):
            low, high = self.model.jnt_range[self.model.actuator_trnid[index, 0]]
            self.data.qpos[address] = min(max(pose[index], low), high)
        self.data.qpos[self.right_hip_yaw_pitch] = self.data.qpos[self.joint_qpos[7]]
        # A tiny random yaw (seeded) so that runs with different seeds differ, all else equal.
        yaw = self.random.uniform(-1e-3, 1e-3)
        if lying is not None:
            # On its back: pitched back by 90°; on its front: forward by 90°.
            roll, pitch = {"back": (0.0, -math.pi / 2), "front": (0.0, math.pi / 2),
                           "left": (-math.pi / 2, 0.0), "right": (math.pi / 2, 0.0)}[lying]
            rotation = np.zeros(4)
            mujoco.mju_euler2Quat(rotation, np.array([roll, pitch, yaw]), "xyz")
        else:
            rotation = np.zeros(4)
            mujoco.mju_euler2Quat(rotation, np.array([0.0, 0.0, yaw]), "xyz")
        self.data.qpos[3:7] = rotation
        self.data.qpos[2] = 1.0
        mujoco.mj_forward(self.model, self.data)
        self.data.qpos[2] -= self._lowest_point() - 0.001
        if self.ball is not None:
            address = self.model.jnt_qposadr[self.model.body_jntadr[self.ball]]
            self.data.qpos[address:address + 3] = [*self.ball_position, BALL_RADIUS_M]
            self.data.qpos[address + 3:address + 7] = [1, 0, 0, 0]
        mujoco.mj_forward(self.model, self.data)

    def _lowest_point(self) -> float:
        lowest = math.inf
        for geom in range(self.model.ngeom):
            if (geom == self.floor or self.model.geom_contype[geom] == 0
                    or self.model.geom_bodyid[geom] == self.ball):
                continue
            centre = self.data.geom_xpos[geom]
            axes = self.data.geom_xmat[geom].reshape(3, 3)
            size = self.model.geom_size[geom]
            kind = self.model.geom_type[geom]
            if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
                low = centre[2] - size[0]
            elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
                low = centre[2] - abs(axes[2, 2]) * size[1] - size[0]
            else:
                low = centre[2] - sum(abs(axes[2, k]) * size[k] for k in range(3))
            lowest = min(lowest, low)
        return lowest

    # --- actuation ----------------------------------------------------------------------------

    def apply(self, positions=None, stiffnesses=None) -> None:
        """Sets joint targets and/or stiffnesses (LoLA order, 25 values each)."""
        if positions is not None:
            self.targets = np.array(positions, dtype=float)
        if stiffnesses is not None:
            self.stiffness = np.clip(np.array(stiffnesses, dtype=float), 0.0, 1.0)
        self._apply_stiffness()

    def _apply_stiffness(self) -> None:
        scale = self.stiffness[:ACTUATED_COUNT]
        self.model.actuator_gainprm[:, 0] = self.full_kp * scale
        self.model.actuator_biasprm[:, 1] = -self.full_kp * scale
        self.model.actuator_biasprm[:, 2] = -self.full_kv * scale
        self.model.actuator_forcerange[:] = self.full_force * scale[:, None]
        for index in range(ACTUATED_COUNT):
            # LoLA clamps a target to the joint's range; MuJoCo refuses huge controls.
            low, high = self.model.jnt_range[self.model.actuator_trnid[index, 0]]
            self.data.ctrl[index] = min(max(self.targets[index], low), high)

    def step(self, seconds: float) -> None:
        steps = max(1, round(seconds / self.model.opt.timestep))
        for _ in range(steps):
            mujoco.mj_step(self.model, self.data)
        self._update_hands(seconds)
        self._update_motors(seconds)

    def _update_hands(self, seconds: float) -> None:
        for slot, index in enumerate(HAND_INDICES):
            if self.stiffness[index] <= 0.0:
                continue
            target = min(max(self.targets[index], 0.0), 1.0)
            largest = HAND_SPEED_PER_S * self.stiffness[index] * seconds
            self.hands[slot] += min(max(target - self.hands[slot], -largest), largest)

    def _update_motors(self, seconds: float) -> None:
        limits = np.maximum(self.full_force[:, 1], 1e-9)
        self.currents[:ACTUATED_COUNT] = np.abs(self.data.actuator_force) / limits * STALL_CURRENT_A
        self.temperatures += (HEATING_CELSIUS_PER_SECOND_PER_AMPERE_SQUARED * self.currents ** 2
                              - COOLING_PER_SECOND * (self.temperatures - AMBIENT_CELSIUS)) * seconds

    # --- sensing ------------------------------------------------------------------------------

    def joint_positions(self) -> list[float]:
        positions = [float(self.data.qpos[address]) for address in self.joint_qpos]
        return positions + [float(hand) for hand in self.hands]

    def torso_rotation(self) -> np.ndarray:
        return self.data.xmat[self.torso].reshape(3, 3)

    def torso_angles(self) -> tuple[float, float]:
        """Roll and pitch of the torso, rad (Z-Y-X Euler angles)."""
        rotation = self.torso_rotation()
        roll = math.atan2(rotation[2, 1], rotation[2, 2])
        pitch = math.atan2(-rotation[2, 0], math.hypot(rotation[2, 1], rotation[2, 2]))
        return roll, pitch

    def foot_pressures(self) -> dict[str, list[float]]:
        """kg on each foot's FL, FR, RL, RR sensor."""
        pressures = {"left": [0.0] * 4, "right": [0.0] * 4}
        force = np.zeros(6)
        for index in range(self.data.ncon):
            contact = self.data.contact[index]
            for side, foot in self.feet.items():
                if foot.geom not in (contact.geom1, contact.geom2):
                    continue
                mujoco.mj_contactForce(self.model, self.data, index, force)
                normal_n = abs(force[0])
                body_rotation = self.data.xmat[foot.body].reshape(3, 3)
                local = body_rotation.T @ (contact.pos - self.data.xpos[foot.body])
                front = min(max((local[0] - foot.rear_x) / (foot.front_x - foot.rear_x), 0.0), 1.0)
                left = min(max((local[1] - foot.right_y) / (foot.left_y - foot.right_y), 0.0), 1.0)
                kg = normal_n / GRAVITY_M_PER_S2
                shares = (front * left, front * (1 - left), (1 - front) * left, (1 - front) * (1 - left))
                for sensor, share in enumerate(shares):
                    pressures[side][sensor] += kg * share
        return pressures

    def sensor_values(self) -> SensorValues:
        proper_acceleration = self.data.sensordata[self.sensor_slices["accelerometer"]]
        gyroscope = self.data.sensordata[self.sensor_slices["gyroscope"]]
        pressures = self.foot_pressures()
        return SensorValues(
            robot_config=ROBOT_CONFIG,
            accelerometer=tuple(float(-value) for value in proper_acceleration),
            angles=self.torso_angles(),
            battery=BATTERY,
            current=[float(value) for value in self.currents],
            fsr=pressures["left"] + pressures["right"],
            gyroscope=tuple(float(value) for value in gyroscope),
            position=self.joint_positions(),
            sonar=SONAR_M,
            stiffness=[float(value) for value in self.stiffness],
            temperature=[float(value) for value in self.temperatures],
            touch=[0.0] * 14,
            status=[temperature_status(value) for value in self.temperatures],
        )

    def ground_truth(self) -> dict:
        roll, pitch = self.torso_angles()
        rotation = self.torso_rotation()
        yaw = math.atan2(rotation[1, 0], rotation[0, 0])
        feet = {}
        for side, foot in self.feet.items():
            feet[side] = [round(float(v), 5) for v in self.data.xpos[foot.body]]
        return {
            "time_s": round(float(self.data.time), 4),
            "torso_position_m": [round(float(v), 5) for v in self.data.xpos[self.torso]],
            "torso_roll_rad": round(roll, 5),
            "torso_pitch_rad": round(pitch, 5),
            "torso_yaw_rad": round(yaw, 5),
            "left_foot_m": feet["left"],
            "right_foot_m": feet["right"],
            **({} if self.ball is None else
               {"ball_m": [round(float(v), 5) for v in self.data.xpos[self.ball]]}),
        }

    def total_mass_kg(self) -> float:
        """The robot's mass (without the ball)."""
        ball = 0.0 if self.ball is None else float(self.model.body_mass[self.ball])
        return float(sum(self.model.body_mass)) - ball

    def push(self, force_n) -> None:
        """Applies ``force_n`` (x, y, z, world frame, N) at the torso's centre of mass until
        changed; (0, 0, 0) ends the push."""
        self.data.xfrc_applied[self.torso, :3] = force_n

    def vary(self, actuator_jitter: float = 0.0, joint_friction_scale: float = 1.0,
             torso_com_offset_m=(0.0, 0.0), contact_softness: float = 1.0) -> None:
        """Another robot than the model, as an independent NAO model would differ: each motor's
        gain and torque limit times a factor drawn uniformly from 1 ± ``actuator_jitter``
        (seeded; worn or other motors), every joint's damping and friction loss times
        ``joint_friction_scale`` (the gear trains), the torso's centre of mass moved by
        ``torso_com_offset_m`` (x, y; a battery or a head that sits elsewhere), and every contact
        ``contact_softness`` times slower to push back (a softer carpet, other foot soles)."""
        if (actuator_jitter == 0.0 and joint_friction_scale == 1.0 and contact_softness == 1.0
                and tuple(torso_com_offset_m) == (0.0, 0.0)):
            return
        factors = 1.0 + self.random.uniform(-actuator_jitter, actuator_jitter, len(self.full_kp))
        self.full_kp *= factors
        self.full_kv *= factors
        self.full_force *= factors[:, None]
        self.model.dof_damping[:] *= joint_friction_scale
        self.model.dof_frictionloss[:] *= joint_friction_scale
        self.model.body_ipos[self.torso, :2] += np.asarray(torso_com_offset_m, dtype=float)
        # The time constant of the contacts' springs (MuJoCo's solref), never below two steps.
        self.model.geom_solref[:, 0] = np.maximum(self.model.geom_solref[:, 0] * contact_softness,
                                                  2.0 * self.model.opt.timestep)
        self._apply_stiffness()
        mujoco.mj_forward(self.model, self.data)

    def perturb(self, mass_jitter: float, friction_scale: float, gain_scale: float = 1.0) -> None:
        """Another robot than the model: every link's mass and inertia times a factor drawn
        uniformly from 1 ± ``mass_jitter`` (seeded), every sliding friction times
        ``friction_scale``, every servo's gain and damping (kp, kv) times ``gain_scale`` (the
        torque limits stay)."""
        self.full_kp *= gain_scale
        self.full_kv *= gain_scale
        for body in range(1, self.model.nbody):
            if body == self.ball:
                continue
            factor = 1.0 + self.random.uniform(-mass_jitter, mass_jitter)
            self.model.body_mass[body] *= factor
            self.model.body_inertia[body] *= factor
        self.model.geom_friction[:, 0] *= friction_scale
        # mj_setConst works on the model's reference pose and leaves it in `data`: the robot
        # keeps the pose it was placed in.
        qpos, qvel = self.data.qpos.copy(), self.data.qvel.copy()
        mujoco.mj_setConst(self.model, self.data)
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        self._apply_stiffness()
        mujoco.mj_forward(self.model, self.data)
