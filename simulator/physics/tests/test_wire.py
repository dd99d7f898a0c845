"""LoLA's byte layout as the simulator writes and reads it (no physics needed)."""

import math

import pytest

from conftest import decode
from lola_wire import (COMMAND_KEYS, Incomplete, SENSOR_FRAME_SIZE, SensorValues, WireError,
                       decode_command, encode_command, encode_sensor_frame)

SENSOR_KEYS = ["RobotConfig", "Accelerometer", "Angles", "Battery", "Current", "FSR",
               "Gyroscope", "Position", "Sonar", "Stiffness", "Temperature", "Touch", "Status"]


def values(**changes):
    base = dict(
        robot_config=("P0000073A07S94700012", "6.0.0", "P0000074A05S93M00061", "6.0.0"),
        accelerometer=(0.1, -0.2, -9.81), angles=(0.01, -0.02), battery=(1.0, -32708.0, -1.2, 32.0),
        current=[0.1] * 25, fsr=[0.6] * 8, gyroscope=(0.0, 0.5, -0.25), position=[0.25] * 25,
        sonar=(2.55, 2.55), stiffness=[1.0] * 25, temperature=[30.0] * 25, touch=[0.0] * 14,
        status=[0] * 24 + [3])
    base.update(changes)
    return SensorValues(**base)


def test_a_sensor_frame_is_896_bytes_in_lolas_key_order_and_encodings():
    frame = encode_sensor_frame(values())
    assert len(frame) == SENSOR_FRAME_SIZE
    assert frame[0] == 0x8D
    decoded, end, markers = decode(frame)
    assert end == len(frame)
    assert list(decoded) == SENSOR_KEYS
    assert decoded["Accelerometer"][2] == pytest.approx(-9.81, abs=1e-5)
    assert decoded["Status"][24] == 3
    assert markers.count(0xDC) == 5, "the five 25-joint arrays are array16"
    assert 0xCB not in markers, "floats are float32"


def test_a_frame_with_a_number_that_is_not_finite_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"Gyroscope\[1\] is nan"):
        encode_sensor_frame(values(gyroscope=(0.0, math.nan, 0.0)))


def test_a_full_command_is_786_bytes_and_decodes_back():
    full = {key: [0.5] * length for key, length in COMMAND_KEYS.items()}
    full["Sonar"] = [True, False]
    data = encode_command(full)
    assert len(data) == 786
    command, length = decode_command(data + b"\x81")
    assert length == 786
    assert command.values["Sonar"] == [True, False]
    assert command.values["Position"] == [0.5] * 25


def test_partial_and_map16_and_double_commands_decode():
    partial = encode_command({"Stiffness": [0.0] * 25})
    command, length = decode_command(partial)
    assert list(command.values) == ["Stiffness"] and length == len(partial)
    as_map16 = b"\xde\x00\x01" + partial[1:]
    assert decode_command(as_map16)[0].values == command.values
    # Chest with one float64 and two integers: numbers of any width are accepted.
    doubles = b"\x81\xa5Chest\x93\xcb" + bytes.fromhex("3fe0000000000000") + b"\x01\x00"
    assert decode_command(doubles)[0].values["Chest"] == [0.5, 1.0, 0.0]


@pytest.mark.parametrize("data, offset, text", [
    (b"\x93\x01\x02\x03", 0, "expected a map"),
    (b"\x81\xa4Nose\x90", 1, "unknown key 'Nose'"),
    (b"\x81\xa5Chest\x92\xca\x00\x00\x00\x00\xca\x00\x00\x00\x00", 7, '"Chest" has 2 values, expected 3'),
    (b"\x81\xa5Chest\x93\xca\x7f\xc0\x00\x00\x00\x00", 8, "Chest[0] is nan"),
    (b"\x81\xa5Chest\x93\xa1x\x00\x00", 8, "Chest[0]: expected a number"),
    (b"\x81\xa5Sonar\x92\x01\x01", 8, "Sonar[0]: expected a bool"),
    (b"\x82\xa5Chest\x93\x00\x00\x00\xa5Chest\x93\x00\x00\x00", 11, "appears a second time"),
])
def test_bad_commands_name_the_byte_offset_and_what_was_wrong(data, offset, text):
    with pytest.raises(WireError) as error:
        decode_command(data)
    assert error.value.offset == offset
    assert text in str(error.value)
    assert str(error.value).startswith(f"byte {offset}:")


def test_a_command_cut_short_is_incomplete_at_every_length():
    data = encode_command({"Position": [0.1] * 25, "Sonar": [True, True]})
    for length in range(len(data)):
        with pytest.raises(Incomplete):
            decode_command(data[:length])
