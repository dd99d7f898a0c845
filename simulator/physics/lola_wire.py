"""LoLA's two messages in the MessagePack subset the robot uses (docs/protocols.md §1).

- ``encode_sensor_frame`` writes the 13-key map LoLA sends every 12 ms, in the order a real
  LoLA sends it, with LoLA's encodings (fixmap, fixstr keys, fixarray or array16, float32,
  positive fixint for ``Status``): exactly 896 bytes for 20-character serials.
- ``decode_command`` reads one command map (any of the 11 keys LoLA accepts, possibly partial)
  from the start of a byte buffer and says how many bytes it took. Anything that is not a valid
  command raises ``WireError`` naming the byte offset, the key and what was expected;
  ``Incomplete`` means the bytes so far are a valid beginning.

Hand-written instead of the ``msgpack`` package: the subset is small, the encodings must be
exactly LoLA's, and errors must carry byte offsets.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

SENSOR_FRAME_SIZE = 896
JOINT_COUNT = 25

# LoLA's joint order (Position, Stiffness, Current, Temperature, Status; both directions).
JOINT_NAMES = (
    "HeadYaw", "HeadPitch",
    "LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll", "LWristYaw",
    "LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll",
    "RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll",
    "RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw",
    "LHand", "RHand",
)

# The keys a command may carry and the number of values of each.
COMMAND_KEYS = {
    "Position": 25,
    "Stiffness": 25,
    "REar": 10,
    "LEar": 10,
    "Chest": 3,
    "LEye": 24,
    "REye": 24,
    "LFoot": 3,
    "RFoot": 3,
    "Skull": 12,
    "Sonar": 2,
}


class WireError(ValueError):
    """Bytes that are not what LoLA expects; the message names the byte offset."""

    def __init__(self, offset: int, message: str):
        super().__init__(f"byte {offset}: {message}")
        self.offset = offset


class Incomplete(Exception):
    """The bytes so far are a valid beginning of a map; more are needed."""


@dataclass
class SensorValues:
    """Everything one sensor frame carries, in LoLA's units and signs."""

    robot_config: tuple[str, str, str, str]
    accelerometer: tuple[float, float, float]
    angles: tuple[float, float]
    battery: tuple[float, float, float, float]
    current: list[float]
    fsr: list[float]
    gyroscope: tuple[float, float, float]
    position: list[float]
    sonar: tuple[float, float]
    stiffness: list[float]
    temperature: list[float]
    touch: list[float]
    status: list[int]


def _str(out: bytearray, text: str) -> None:
    data = text.encode("utf-8")
    if len(data) >= 32:
        raise ValueError(f"{text!r} is too long for a fixstr")
    out.append(0xA0 | len(data))
    out += data


def _array_header(out: bytearray, length: int) -> None:
    if length < 16:
        out.append(0x90 | length)
    else:
        out += b"\xdc" + struct.pack(">H", length)


def _floats(out: bytearray, key: str, values, expected: int) -> None:
    values = list(values)
    if len(values) != expected:
        raise ValueError(f"{key} has {len(values)} values, LoLA sends {expected}")
    _str(out, key)
    _array_header(out, expected)
    for index, value in enumerate(values):
        if not math.isfinite(value):
            raise ValueError(f"{key}[{index}] is {value}, LoLA sends finite numbers")
        out += b"\xca" + struct.pack(">f", value)


def encode_sensor_frame(values: SensorValues) -> bytes:
    """The 13-key map in a real LoLA's key order."""
    out = bytearray(b"\x8d")
    _str(out, "RobotConfig")
    _array_header(out, 4)
    for text in values.robot_config:
        _str(out, text)
    _floats(out, "Accelerometer", values.accelerometer, 3)
    _floats(out, "Angles", values.angles, 2)
    _floats(out, "Battery", values.battery, 4)
    _floats(out, "Current", values.current, JOINT_COUNT)
    _floats(out, "FSR", values.fsr, 8)
    _floats(out, "Gyroscope", values.gyroscope, 3)
    _floats(out, "Position", values.position, JOINT_COUNT)
    _floats(out, "Sonar", values.sonar, 2)
    _floats(out, "Stiffness", values.stiffness, JOINT_COUNT)
    _floats(out, "Temperature", values.temperature, JOINT_COUNT)
    _floats(out, "Touch", values.touch, 14)
    _str(out, "Status")
    _array_header(out, JOINT_COUNT)
    for index, status in enumerate(values.status):
        if not 0 <= status <= 3:
            raise ValueError(f"Status[{index}] is {status}, LoLA sends 0..=3")
        out.append(status)
    return bytes(out)


def encode_command(values: dict) -> bytes:
    """A command map with the given keys (a client's side; tests use it), floats as float32 and
    ``Sonar`` as two bools: 786 bytes with all 11 keys, as clients send it."""
    out = bytearray()
    if len(values) > 15:
        raise ValueError("a command has at most 11 keys")
    out.append(0x80 | len(values))
    for key, items in values.items():
        if key not in COMMAND_KEYS:
            raise ValueError(f"unknown command key {key!r}")
        if key == "Sonar":
            _str(out, key)
            _array_header(out, 2)
            out += bytes(0xC3 if item else 0xC2 for item in items)
        else:
            _floats(out, key, items, COMMAND_KEYS[key])
    return bytes(out)


@dataclass
class Command:
    """One decoded command map: only the keys it carried."""

    values: dict[str, list] = field(default_factory=dict)


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.position = 0

    def take(self, count: int) -> bytes:
        if self.position + count > len(self.data):
            raise Incomplete()
        chunk = self.data[self.position:self.position + count]
        self.position += count
        return chunk

    def byte(self) -> int:
        return self.take(1)[0]

    def uint(self, width: int) -> int:
        return int.from_bytes(self.take(width), "big")

    def map_len(self) -> int:
        offset = self.position
        marker = self.byte()
        if 0x80 <= marker <= 0x8F:
            return marker & 0x0F
        if marker == 0xDE:
            return self.uint(2)
        if marker == 0xDF:
            return self.uint(4)
        raise WireError(offset, f"expected a map (fixmap or map16), found 0x{marker:02x}")

    def string(self, what: str) -> str:
        offset = self.position
        marker = self.byte()
        if 0xA0 <= marker <= 0xBF:
            length = marker & 0x1F
        elif marker == 0xD9:
            length = self.uint(1)
        elif marker == 0xDA:
            length = self.uint(2)
        elif marker == 0xDB:
            length = self.uint(4)
        else:
            raise WireError(offset, f"expected a string for {what}, found 0x{marker:02x}")
        if length > 64:
            raise WireError(offset, f"a {length}-byte string for {what}; LoLA's keys are short")
        raw = self.take(length)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError(offset, f"{what} is not valid UTF-8") from None

    def array_len(self, key: str) -> int:
        offset = self.position
        marker = self.byte()
        if 0x90 <= marker <= 0x9F:
            return marker & 0x0F
        if marker == 0xDC:
            return self.uint(2)
        if marker == 0xDD:
            return self.uint(4)
        raise WireError(offset, f'expected an array for "{key}", found 0x{marker:02x}')

    def number(self, key: str, index: int) -> float:
        offset = self.position
        marker = self.byte()
        if marker <= 0x7F:
            value = float(marker)
        elif marker >= 0xE0:
            value = float(marker - 0x100)
        elif marker == 0xCA:
            value = struct.unpack(">f", self.take(4))[0]
        elif marker == 0xCB:
            value = struct.unpack(">d", self.take(8))[0]
        elif marker in (0xCC, 0xCD, 0xCE, 0xCF):
            value = float(self.uint(1 << (marker - 0xCC)))
        elif marker in (0xD0, 0xD1, 0xD2, 0xD3):
            width = 1 << (marker - 0xD0)
            value = float(int.from_bytes(self.take(width), "big", signed=True))
        else:
            raise WireError(offset, f"{key}[{index}]: expected a number, found 0x{marker:02x}")
        if not math.isfinite(value):
            raise WireError(offset, f"{key}[{index}] is {value}, expected a finite number")
        return value

    def boolean(self, key: str, index: int) -> bool:
        offset = self.position
        marker = self.byte()
        if marker in (0xC2, 0xC3):
            return marker == 0xC3
        raise WireError(offset, f"{key}[{index}]: expected a bool, found 0x{marker:02x}")


def decode_command(data: bytes) -> tuple[Command, int]:
    """Decodes the command map at the start of ``data``; returns it and its length in bytes.

    Raises ``Incomplete`` when ``data`` is a valid but unfinished beginning, ``WireError`` for
    anything LoLA would not accept: not a map, an unknown or repeated key, a wrong type or
    array length, a number that is not finite.
    """
    reader = _Reader(data)
    entries = reader.map_len()
    if entries > len(COMMAND_KEYS):
        raise WireError(0, f"a map of {entries} entries; a command has at most {len(COMMAND_KEYS)}")
    command = Command()
    for _ in range(entries):
        key_offset = reader.position
        key = reader.string("a map key")
        if key not in COMMAND_KEYS:
            raise WireError(key_offset, f"unknown key {key!r}")
        if key in command.values:
            raise WireError(key_offset, f'key "{key}" appears a second time')
        expected = COMMAND_KEYS[key]
        array_offset = reader.position
        length = reader.array_len(key)
        if length != expected:
            raise WireError(array_offset, f'"{key}" has {length} values, expected {expected}')
        if key == "Sonar":
            command.values[key] = [reader.boolean(key, index) for index in range(length)]
        else:
            command.values[key] = [reader.number(key, index) for index in range(length)]
    return command, reader.position
