"""Type stubs of the `robot` module that Cortex builds into the cognition process.

An editor (or mypy) reads this file to complete and check the API a behaviour uses; at run time
`import robot` is the real module. behaviours/tests/stubs.rs compares this file with the real
module, so it names exactly what exists.

Spelling today: what a behaviour *sets* on the request is lower case ("sit", "left", "green");
what it *reads* from the blackboard is the Rust variant name ("Playing", "Sit", "Fallen").
"""

from typing import Literal, NamedTuple, Optional, Tuple, Union

_Colour = Literal[
    "off", "white", "red", "green", "blue", "yellow", "cyan", "magenta", "orange", "purple"
]
_LedGroup = Literal[
    "left_eye", "right_eye", "left_ear", "right_ear", "chest", "left_foot", "right_foot", "skull"
]
_Number = Union[int, float]
_Light = Tuple[_Colour, float]
_Vector3 = Tuple[float, float, float]

COLOURS: Tuple[_Colour, ...]
"""The colour names an LED accepts."""
LED_GROUPS: Tuple[_LedGroup, ...]
"""The LED groups of `request.leds`."""

class Joints(NamedTuple):
    """`robot.JOINTS`: the index of each joint in the joint tuples of `blackboard.sensors`."""

    HeadYaw: int
    HeadPitch: int
    LeftShoulderPitch: int
    LeftShoulderRoll: int
    LeftElbowYaw: int
    LeftElbowRoll: int
    LeftWristYaw: int
    LeftHipYawPitch: int
    LeftHipRoll: int
    LeftHipPitch: int
    LeftKneePitch: int
    LeftAnklePitch: int
    LeftAnkleRoll: int
    RightHipRoll: int
    RightHipPitch: int
    RightKneePitch: int
    RightAnklePitch: int
    RightAnkleRoll: int
    RightShoulderPitch: int
    RightShoulderRoll: int
    RightElbowYaw: int
    RightElbowRoll: int
    RightWristYaw: int
    LeftHand: int
    RightHand: int

JOINTS: Joints

class TickTimeout(BaseException):
    """Raised inside a tick (or a load) that runs longer than its budget. Derives from
    BaseException so that `except Exception:` does not swallow it."""

class Log:
    """`robot.log`: messages into the system's log, with file, line and function; each line of
    Python logs at most 5 messages per second (the rest are counted and reported)."""

    def __call__(
        self, level: Literal["debug", "info", "warning", "error"], *parts: object
    ) -> None: ...
    def debug(self, *parts: object) -> None: ...
    def info(self, *parts: object) -> None: ...
    def warning(self, *parts: object) -> None: ...
    def error(self, *parts: object) -> None: ...

log: Log

# ---- What tick returns -------------------------------------------------------------------

class Body:
    """`request.body`: one motion; every value is checked when set (TypeError, ValueError)."""

    @property
    def kind(self) -> Literal["sit", "stand", "unstiff", "walk", "special_action", "kick"]: ...
    @property
    def parameters(self) -> dict: ...
    def stand(self) -> None: ...
    def sit(self) -> None: ...
    def unstiff(self) -> None: ...
    def walk(
        self,
        x: Optional[_Number] = None,
        y: Optional[_Number] = None,
        turn: Optional[_Number] = None,
    ) -> None:
        """x forward and y to the left in m/s (-1..1), turn counter-clockwise in rad/s."""
    def special_action(self, name: str) -> None:
        """A recorded motion by name, e.g. "stand_up_back"."""
    def kick(
        self,
        foot: Literal["left", "right"],
        direction: Optional[_Number] = None,
        strength: Optional[_Number] = None,
    ) -> None:
        """Towards `direction` (rad, robot frame) with `strength` 0..1."""

class Head:
    """`request.head`: where to look."""

    yaw: float
    """rad, -2.09..2.09 (positive: left)."""
    pitch: float
    """rad, -0.67..0.51 (positive: down)."""
    speed: float
    """rad/s, 0..8."""
    def look(self, yaw: _Number, pitch: _Number, speed: Optional[_Number] = None) -> None: ...

class Leds:
    """`request.leds`: each group is a colour name or (colour, intensity 0..1); reads back as
    (colour, intensity)."""

    left_eye: Union[_Colour, _Light]
    right_eye: Union[_Colour, _Light]
    left_ear: Union[_Colour, _Light]
    right_ear: Union[_Colour, _Light]
    chest: Union[_Colour, _Light]
    left_foot: Union[_Colour, _Light]
    right_foot: Union[_Colour, _Light]
    skull: Union[_Colour, _Light]
    def eyes(self, colour: _Colour, intensity: Optional[_Number] = None) -> None: ...
    def ears(self, colour: _Colour, intensity: Optional[_Number] = None) -> None: ...
    def feet(self, colour: _Colour, intensity: Optional[_Number] = None) -> None: ...
    def all(self, colour: _Colour, intensity: Optional[_Number] = None) -> None: ...

class Sound:
    """`request.sound`: something to say or play, once per call."""

    @property
    def request(self) -> Optional[Tuple[Literal["say", "play"], str]]: ...
    def say(self, text: str) -> None:
        """Speak `text` (1 to 200 characters)."""
    def play(self, name: str) -> None:
        """Play the sound file `name` (no extension), e.g. "whistle"."""
    def silence(self) -> None: ...

class BehaviourRequest:
    """What `tick(blackboard)` returns. It starts sitting, looking ahead, LEDs off, silent."""

    def __init__(self) -> None: ...
    @property
    def body(self) -> Body: ...
    @property
    def head(self) -> Head: ...
    @property
    def leds(self) -> Leds: ...
    @property
    def sound(self) -> Sound: ...

# ---- What tick reads (read-only named tuples, the Rust field names) ----------------------

class FrameInfo(NamedTuple):
    time_monotonic_ns: int
    cycle: int

class InertialMeasurement(NamedTuple):
    accelerometer_m_per_s2: _Vector3
    gyroscope_rad_per_s: _Vector3
    torso_angles_rad: Tuple[float, float]

class FootPressure(NamedTuple):
    front_left_kg: float
    front_right_kg: float
    rear_left_kg: float
    rear_right_kg: float

class ForceSensitiveResistors(NamedTuple):
    left_foot: FootPressure
    right_foot: FootPressure

class TouchSensors(NamedTuple):
    chest_button: bool
    head_front: bool
    head_middle: bool
    head_rear: bool
    left_foot_bumper_left: bool
    left_foot_bumper_right: bool
    left_hand_back: bool
    left_hand_left: bool
    left_hand_right: bool
    right_foot_bumper_left: bool
    right_foot_bumper_right: bool
    right_hand_back: bool
    right_hand_left: bool
    right_hand_right: bool

class BatteryState(NamedTuple):
    charge_fraction: float
    status_bits: int
    charging: bool
    current_ampere: float
    temperature_celsius: float

class SonarReadings(NamedTuple):
    left_m: float
    right_m: float

class SensorData(NamedTuple):
    """`blackboard.sensors`; joint tuples are indexed by `robot.JOINTS`."""

    joint_positions_rad: Tuple[float, ...]
    joint_stiffnesses: Tuple[float, ...]
    joint_currents_ampere: Tuple[float, ...]
    joint_temperatures_celsius: Tuple[float, ...]
    joint_temperature_statuses: Tuple[Literal["Normal", "Hot", "VeryHot", "Critical"], ...]
    inertial_measurement: InertialMeasurement
    force_sensitive_resistors: ForceSensitiveResistors
    touch: TouchSensors
    battery: BatteryState
    sonar: SonarReadings
    pose_epoch: int

class GameState(NamedTuple):
    """`blackboard.game_state`."""

    state: Literal["Initial", "Ready", "Set", "Playing", "Finished", "Standby"]
    phase: Literal["Normal", "PenaltyShootout", "Overtime", "Timeout"]
    set_play: Literal[
        "None", "GoalKick", "PushingFreeKick", "CornerKick", "KickIn", "PenaltyKick"
    ]
    penalty: Optional[str]
    """None when the robot may play, else the reason, e.g. "Manual", "PlayerPushing"."""
    seconds_until_unpenalised: int
    team_number: int
    """From settings.toml (`--set settings.team_number=…`)."""
    player_number: int
    """1..20, from settings.toml (`--set settings.player_number=…`)."""
    opponent_team_number: int
    own_colour: str
    own_score: int
    opponent_score: int
    first_half: bool
    own_team_is_kicking: Optional[bool]
    seconds_remaining: int
    secondary_seconds_remaining: int
    is_goalkeeper: bool
    message_budget: int
    source: Literal["Manual", "GameController"]

class HeadMotionRequest(NamedTuple):
    yaw_rad: float
    pitch_rad: float
    max_speed_rad_per_s: float

class MotionRequest(NamedTuple):
    body: object
    """ "Sit", "Stand", "Unstiff", or a named tuple with `kind` ("Walk", "SpecialAction",
    "Kick") and the motion's fields."""
    head: HeadMotionRequest

class MotionInfo(NamedTuple):
    """`blackboard.motion_info`: what motion is executing."""

    current_motion: Literal[
        "Unstiff", "Sit", "Stand", "Walk", "SpecialAction", "Kick", "FallProtection", "GetUp"
    ]
    executed_request: MotionRequest
    can_be_left: bool
    is_stable: bool
    note: Optional[str]

class FallState(NamedTuple):
    """`blackboard.fall_state`."""

    phase: Literal["Upright", "Staggering", "Falling", "Fallen", "GettingUp"]
    direction: Literal["None", "Forward", "Backward", "Left", "Right"]
    phase_start_monotonic_ns: int

class Blackboard:
    """What `tick(blackboard)` reads: read-only, one per tick, converted on first read."""

    def __init__(
        self,
        *,
        frame_info: Optional[dict] = None,
        sensors: Optional[dict] = None,
        game_state: Optional[dict] = None,
        motion_info: Optional[dict] = None,
        fall_state: Optional[dict] = None,
    ) -> None:
        """A blackboard written by hand, for offline tests: dicts with the Rust field names,
        the rest defaults; an unknown key or a wrong value raises ValueError naming it."""

    @property
    def frame_info(self) -> FrameInfo: ...
    @property
    def sensors(self) -> SensorData: ...
    @property
    def game_state(self) -> GameState: ...
    @property
    def motion_info(self) -> MotionInfo: ...
    @property
    def fall_state(self) -> FallState: ...
