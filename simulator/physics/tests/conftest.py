"""Shared by the physics simulator's tests: the simulator folder on the import path, a
sensor-frame decoder for the test client, and the skip when `mujoco` is missing."""

import os
import struct
import sys

import pytest

SIMULATOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SIMULATOR_DIR)

SCRIPT = os.path.join(SIMULATOR_DIR, "lola_physics.py")


def require_mujoco():
    """Skips the calling module (visibly) when the `mujoco` package is not installed."""
    try:
        import mujoco  # noqa: F401
    except ImportError:
        print("SKIPPED: the Python package `mujoco` is missing "
              "(pip install -r simulator/physics/requirements.txt)", file=sys.stderr)
        pytest.skip("SKIPPED: mujoco is not installed "
                    "(pip install -r simulator/physics/requirements.txt)", allow_module_level=True)


def decode(data: bytes, position: int = 0):
    """Decodes one MessagePack value at ``position`` (the subset a sensor frame uses, checked
    strictly); returns it, its position after it, and the markers seen (for encoding checks)."""
    markers = []

    def value(position):
        marker = data[position]
        markers.append(marker)
        if 0x80 <= marker <= 0x8F:
            result, position = {}, position + 1
            for _ in range(marker & 0x0F):
                key, position = value(position)
                item, position = value(position)
                result[key] = item
            return result, position
        if 0xA0 <= marker <= 0xBF:
            length = marker & 0x1F
            return data[position + 1:position + 1 + length].decode(), position + 1 + length
        if 0x90 <= marker <= 0x9F or marker == 0xDC:
            if marker == 0xDC:
                length, position = struct.unpack(">H", data[position + 1:position + 3])[0], position + 3
            else:
                length, position = marker & 0x0F, position + 1
            items = []
            for _ in range(length):
                item, position = value(position)
                items.append(item)
            return items, position
        if marker == 0xCA:
            return struct.unpack(">f", data[position + 1:position + 5])[0], position + 5
        if marker <= 0x7F:
            return marker, position + 1
        raise AssertionError(f"byte {position}: marker 0x{marker:02x} is not in LoLA's subset")

    result, end = value(position)
    return result, end, markers
