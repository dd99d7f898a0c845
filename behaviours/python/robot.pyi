"""Type stubs of the `robot` module that Cortex builds into the cognition process.

An editor (or mypy) reads this file to complete and check the API a behaviour uses; at run time
`import robot` is the real module. behaviours/tests/stubs.rs compares this file with the real
module, so it names exactly what exists.

One spelling for enum values, everywhere: the Rust variant name, exactly as `cortex get` prints
it. On the blackboard ("Playing", "PenaltyKick", "Purple", "Fallen", "Striker"), in
`robot.Blackboard(...)`, and on the request: colours ("Green"), the kicking foot ("Left"), and
what reads back (`request.body.kind == "Walk"`, `request.sound.request == ("Say", text)`).
Any other spelling is refused with a ValueError that gives the right one ("green" is spelled
"Green"). Method and attribute names stay Python's (`request.body.walk()`, `leds.left_eye`), and
`robot.log` levels are Python logging's ("warning").
"""

from typing import Literal, NamedTuple, Optional, Tuple, Union

_Colour = Literal[
    "Off", "White", "Red", "Green", "Blue", "Yellow", "Cyan", "Magenta", "Orange", "Purple"
]
_LedGroup = Literal[
    "left_eye", "right_eye", "left_ear", "right_ear", "chest", "left_foot", "right_foot", "skull"
]
_TeamRole = Literal["None", "Goalkeeper", "Striker", "Supporter", "Defender", "Searcher"]
_TeamIntention = Literal["None", "PlayBall", "Pass", "WalkToPosition", "SearchBall", "KeepGoal"]
_Number = Union[int, float]
_Light = Tuple[_Colour, float]
_Vector3 = Tuple[float, float, float]

COLOURS: Tuple[_Colour, ...]
"""The colour names an LED accepts."""
LED_GROUPS: Tuple[_LedGroup, ...]
"""The LED groups of `request.leds`."""
TEAM_ROLES: Tuple[_TeamRole, ...]
"""The roles `request.team.role` accepts."""
TEAM_INTENTIONS: Tuple[_TeamIntention, ...]
"""The intentions `request.team.intention` accepts."""

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
    def kind(self) -> Literal["Sit", "Stand", "Unstiff", "Walk", "WalkTo", "SpecialAction", "Kick"]: ...
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
    def walk_to(
        self,
        x: Optional[_Number] = None,
        y: Optional[_Number] = None,
        turn: Optional[_Number] = None,
    ) -> None:
        """Walk to x forward and y left (m, -20..20) turned by `turn` (rad) relative to the
        robot now, and stop there; ask again every tick with the target as it looks then."""
    def special_action(self, name: str) -> None:
        """A recorded motion by name, e.g. "stand_up_back"."""
    def kick(
        self,
        foot: Literal["Left", "Right"],
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
    (colour, intensity).

    The chest and the feet are shown only in `cortex get BehaviourRequest`: the robot's chest
    and feet show the game state as the SPL rules ask (chest: the state, red when penalised;
    left foot: the team colour; right foot: white before our kick-off), set by Cortex from
    `GameState`, so that a failing behaviour cannot show the wrong state. Eyes, ears and skull
    are the behaviour's."""

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
    def request(self) -> Optional[Tuple[Literal["Say", "Play"], str]]: ...
    def say(self, text: str) -> None:
        """Speak `text` (1 to 200 characters)."""
    def play(self, name: str) -> None:
        """Play the sound file `name` (no extension), e.g. "whistle"."""
    def silence(self) -> None: ...

class Team:
    """`request.team`: what the team mates hear (the network process sends it within the
    message budget; team mates read it in `blackboard.team_mates`). A new request says role
    "None" and intention "None", as does a robot whose behaviour fails."""

    role: _TeamRole
    """What this robot does in the team."""
    intention: _TeamIntention
    """What this robot is about to do."""
    @property
    def pass_target(self) -> Optional[int]: ...
    @property
    def walk_target_mm(self) -> Tuple[float, float]: ...
    def pass_to(self, player: Optional[int]) -> None:
        """Pass to player `player` (1..20); None: no pass."""
    def walk_target(self, x_mm: _Number, y_mm: _Number) -> None:
        """Field coordinates, mm: x towards the opponent goal (-6000..6000), y to the left
        (-4500..4500), 0, 0 the centre."""

class BehaviourRequest:
    """What `tick(blackboard)` returns. It starts sitting, looking ahead, LEDs off, silent,
    with team role and intention "None"."""

    def __init__(self) -> None: ...
    @property
    def body(self) -> Body: ...
    @property
    def head(self) -> Head: ...
    @property
    def leds(self) -> Leds: ...
    @property
    def sound(self) -> Sound: ...
    @property
    def team(self) -> Team: ...

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

_Penalty = Literal[
    "IllegalBallContact",
    "PlayerPushing",
    "IllegalMotionInSet",
    "InactivePlayer",
    "IllegalPosition",
    "LeavingTheField",
    "RequestForPickup",
    "LocalGameStuck",
    "IllegalPositionInSet",
    "PlayerStance",
    "IllegalMotionInStandby",
    "Substitute",
    "Manual",
]
_TeamColour = Literal[
    "Blue", "Red", "Yellow", "Black", "White", "Green", "Orange", "Purple", "Brown", "Gray"
]

class GameState(NamedTuple):
    """`blackboard.game_state`: the GameController's view of the game when one is heard (else
    the chest button's and the whistle's), names as in `RoboCupGameControlData` v18."""

    state: Literal["Initial", "Standby", "Ready", "Set", "Playing", "Finished"]
    phase: Literal["Normal", "PenaltyShootout", "Overtime", "Timeout"]
    """A timeout is state "Initial" with phase "Timeout"."""
    set_play: Literal[
        "None", "GoalKick", "PushingFreeKick", "CornerKick", "KickIn", "PenaltyKick"
    ]
    """The set play in progress; a kick-off is "None"."""
    penalty: Optional[_Penalty]
    """None when the robot may play, else the reason ("Manual": the chest button)."""
    seconds_until_unpenalised: int
    """0 when not penalised or not known."""
    team_number: int
    """From settings.toml (`--set settings.team_number=…`)."""
    player_number: int
    """1..20, from settings.toml (`--set settings.player_number=…`)."""
    opponent_team_number: int
    own_colour: _TeamColour
    """Our field players' jersey colour (the left foot LED shows it)."""
    own_score: int
    opponent_score: int
    first_half: bool
    own_team_is_kicking: Optional[bool]
    """Whether we kick off or take the set play; None when nobody does or it is not known."""
    seconds_remaining: int
    """Seconds left in the half."""
    secondary_seconds_remaining: int
    """Seconds left of Ready, a set play or a timeout; 0 when there is none."""
    is_goalkeeper: bool
    message_budget: int
    """Team messages left in our team's budget for this game."""
    source: Literal["Manual", "GameController"]
    """Where the state comes from: "Manual" until a GameController is heard."""

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

class FieldPose(NamedTuple):
    """On the field: mm from the centre, +x towards the opponent goal; angle rad."""

    x_mm: float
    y_mm: float
    angle_rad: float

class SeenBall(NamedTuple):
    position_mm: Tuple[float, float]
    """Relative to the robot that saw it, mm."""
    age_ms: int
    """Since it was last seen, ms."""

class TeamMateMessage(NamedTuple):
    player_number: int
    fallen: bool
    role: _TeamRole
    intention: _TeamIntention
    pass_target: Optional[int]
    timestamp_ms: int
    """The sender's clock when it sent, ms."""
    game_controller_packet_number: Optional[int]
    pose: FieldPose
    ball: Optional[SeenBall]
    walk_target_mm: Tuple[float, float]
    """Field coordinates, mm."""

class TeamMate(NamedTuple):
    """A team mate's newest message and when it arrived."""

    message: TeamMateMessage
    received_ns: int
    """Monotonic ns, as `blackboard.frame_info.time_monotonic_ns`."""
    messages: int
    """Messages received from this player since the network process started."""

class TeamMessageCounters(NamedTuple):
    accepted: int
    foreign: int
    other_version: int
    malformed: int
    other_team: int
    own: int

class TeamMates(NamedTuple):
    """`blackboard.team_mates`: the newest message of each team mate heard."""

    players: Tuple[TeamMate, ...]
    """One entry per team mate heard (by `message.player_number`)."""
    counters: TeamMessageCounters
    last_error: Optional[str]
    sent: int
    """Messages this robot sent."""
    last_sent_ns: Optional[int]
    socket_error: Optional[str]

class BallModel(NamedTuple):
    """`blackboard.ball`: cognition's ball model, from both cameras' percepts (a Kalman filter).
    Robot frame: x forward, y left, metres."""

    position: Tuple[float, float]
    velocity: Tuple[float, float]
    """m/s."""
    seconds_since_seen: float
    """Since a camera last saw it (since cognition started while never seen)."""
    ever_seen: bool
    last_seen_by: Optional[str]
    """ "Upper" or "Lower"."""
    position_deviation_m: float
    frame_captured_ns: int
    """When the newest frame the model took was captured, monotonic ns (0: none yet)."""
    frame_perceived_ns: int
    """When its perception process had its percept, monotonic ns."""
    frame_taken_ns: int
    """When cognition took it, monotonic ns."""

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
        team_mates: Optional[dict] = None,
        ball: Optional[dict] = None,
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
    @property
    def team_mates(self) -> TeamMates: ...
    @property
    def ball(self) -> BallModel: ...
