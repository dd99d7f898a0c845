"""lola_physics.py as a process, with a small LoLA client: frames, cadence, commands,
reconnection, garbage, bad command lines."""

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import SCRIPT, decode, require_mujoco

require_mujoco()

from lola_wire import SENSOR_FRAME_SIZE, encode_command  # noqa: E402

START_TIMEOUT_S = 60.0
STAND = [0.0, 0.0, 1.57, 0.17, -1.22, -0.52, 0.0, 0.0, 0.0, -0.44, 0.87, -0.44, 0.0,
         0.0, -0.44, 0.87, -0.44, 0.0, 1.57, -0.17, 1.22, 0.52, 0.0, 0.0, 0.0]


class Simulator:
    def __init__(self, folder, *arguments):
        self.socket_path = str(folder / "robocup")
        self.truth_path = str(folder / "truth.jsonl")
        self.stderr_path = folder / "simulator.log"
        self.process = subprocess.Popen(
            [sys.executable, SCRIPT, self.socket_path, "--ground-truth", self.truth_path, *arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.stderr_path, "w"))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not os.path.exists(self.socket_path):
            assert self.process.poll() is None, self.log()
            assert time.monotonic() < deadline, "the simulator did not listen"
            time.sleep(0.01)

    def log(self) -> str:
        return self.stderr_path.read_text()

    def connect(self):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(30.0)
        client.connect(self.socket_path)
        return client

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)

    def truth(self):
        with open(self.truth_path, encoding="utf-8") as lines:
            return [json.loads(line) for line in lines if line.endswith("\n")]


@pytest.fixture
def tmp_path():
    """A fresh folder removed after the test (pytest's own keeps the last few in /tmp)."""
    with tempfile.TemporaryDirectory(prefix="lola-physics-test-") as folder:
        yield pathlib.Path(folder)


@pytest.fixture
def simulator(tmp_path):
    started = []

    def start(*arguments):
        started.append(Simulator(tmp_path, *arguments))
        return started[-1]

    yield start
    for simulator in started:
        if simulator.process.poll() is None:
            simulator.process.kill()
            simulator.process.wait()


def read_frame(client) -> dict:
    data = b""
    while len(data) < SENSOR_FRAME_SIZE:
        chunk = client.recv(SENSOR_FRAME_SIZE - len(data))
        assert chunk, "the simulator closed the connection"
        data += chunk
    frame, end, _ = decode(data)
    assert end == SENSOR_FRAME_SIZE, f"the map ends at byte {end}"
    return frame


def test_frames_are_896_bytes_at_lolas_12_ms_cadence(simulator):
    sim = simulator("--realtime")
    client = sim.connect()
    started = time.monotonic()
    frames = [read_frame(client) for _ in range(50)]
    elapsed = time.monotonic() - started
    assert all(len(frame) == 13 for frame in frames)
    assert frames[-1]["RobotConfig"][0] == "P0000073A07S94700012"
    # Paced to the wall clock: 49 periods cannot take less than 49 × 12 ms (an upper bound on
    # the rate, not a speed requirement).
    assert elapsed > 49 * 0.012 * 0.9, elapsed
    client.close()
    assert sim.stop() == 0
    times = [line["time_s"] for line in sim.truth()]
    steps = {round(later - earlier, 4) for earlier, later in zip(times, times[1:])}
    assert steps == {0.012}, steps
    assert not os.path.exists(sim.socket_path), "the socket file is removed at the end"


def test_a_command_moves_a_joint_and_stiffness_zero_lets_it_go(simulator):
    sim = simulator("--fast", "--initial-pose", "stand")
    client = sim.connect()
    read_frame(client)
    target = list(STAND)
    target[0] = 0.6  # HeadYaw
    client.sendall(encode_command({"Position": target, "Stiffness": [1.0] * 25}))
    for _ in range(100):
        frame = read_frame(client)
    assert frame["Position"][0] == pytest.approx(0.6, abs=0.03)
    assert frame["Stiffness"] == [1.0] * 25
    assert sum(frame["FSR"]) == pytest.approx(5.36, abs=0.25), frame["FSR"]
    assert frame["Accelerometer"][2] == pytest.approx(-9.81, abs=0.2)
    assert frame["Status"] == [0] * 25
    standing = sim.truth()[-1]["torso_position_m"][2]
    # Only Stiffness: Position keeps its last value; limp, the robot collapses.
    client.sendall(encode_command({"Stiffness": [0.0] * 25}))
    for _ in range(300):
        frame = read_frame(client)
    assert frame["Stiffness"] == [0.0] * 25
    assert sim.truth()[-1]["torso_position_m"][2] < standing - 0.1
    client.close()
    assert sim.stop() == 0


def test_lockstep_waits_for_the_command_to_each_frame(simulator):
    sim = simulator("--fast", "--lockstep", "--initial-pose", "stand")
    client = sim.connect()
    read_frame(client)
    # No command: no next frame (plain --fast would send one every 12 ms of wall time).
    client.settimeout(0.5)
    with pytest.raises(socket.timeout):
        client.recv(SENSOR_FRAME_SIZE)
    client.settimeout(30.0)
    for _ in range(20):
        client.sendall(encode_command({"Position": STAND, "Stiffness": [1.0] * 25}))
        read_frame(client)
    client.close()
    assert sim.stop() == 0
    times = [line["time_s"] for line in sim.truth()]
    # The first frame, one after the 2 s wait ran out, and one per command.
    assert len(times) <= 23, len(times)


def test_a_client_that_leaves_is_followed_by_the_next(simulator):
    sim = simulator("--fast")
    first = sim.connect()
    read_frame(first)
    first.close()
    second = sim.connect()
    for _ in range(5):
        read_frame(second)
    second.close()
    assert sim.stop() == 0
    assert "clients accepted 2" in sim.log()


def test_garbage_commands_are_counted_and_ignored(simulator):
    sim = simulator("--fast", "--initial-pose", "stand")
    client = sim.connect()
    read_frame(client)
    garbage = [
        b"\xff" * 100,                                    # not msgpack at all
        b"\x81\xa4Nose\x91\x00",                          # an unknown key
        b"\x81\xa5Chest\x93\xca\x7f\xc0\x00\x00\x00\x00",  # NaN
        b"\x81\xa8Position\x92\x00\x00",                  # two joints instead of 25
        os.urandom(5000),                                 # noise beyond four commands
    ]
    for chunk in garbage:
        client.sendall(chunk)
        for _ in range(3):
            read_frame(client)
    # Still connected, still obeying: a valid command after all that moves the head.
    target = list(STAND)
    target[1] = 0.3  # HeadPitch
    client.sendall(encode_command({"Position": target, "Stiffness": [1.0] * 25}))
    for _ in range(100):
        frame = read_frame(client)
    assert frame["Position"][1] == pytest.approx(0.3, abs=0.03)
    client.close()
    assert sim.stop() == 0
    log = sim.log()
    assert "ignored a command that is not valid" in log
    count = int(log.split("garbage commands ")[1].split(",")[0])
    assert count >= len(garbage), log
    assert "clients accepted 1," in log, "garbage does not cost the connection"


def test_bad_command_lines_and_paths_are_refused_with_their_reason(tmp_path):
    def run(*arguments):
        return subprocess.run([sys.executable, SCRIPT, *arguments], capture_output=True,
                              text=True, timeout=60)

    result = run(str(tmp_path / "s"), "--seconds", "-1")
    assert result.returncode == 64 and "--seconds -1.0" in result.stderr, result.stderr
    result = run(str(tmp_path / "s"), "--lockstep")
    assert result.returncode == 64 and "--lockstep: only with --fast" in result.stderr, result.stderr
    result = run(str(tmp_path / "s"), "--initial-pose", "upside-down")
    assert result.returncode == 64 and "upside-down" in result.stderr, result.stderr
    occupied = tmp_path / "a-file"
    occupied.write_text("keep me")
    result = run(str(occupied))
    assert result.returncode == 73 and f"{occupied} exists and is not a socket" in result.stderr
    assert occupied.read_text() == "keep me"
    result = run(str(tmp_path / "no-such-folder" / "s"))
    assert result.returncode == 73 and "cannot listen on" in result.stderr, result.stderr
    broken = tmp_path / "broken.xml"
    broken.write_text("<mujoco><worldbody><body></mujoco>")
    result = run(str(tmp_path / "s"), "--model", str(broken))
    assert result.returncode == 65 and "broken.xml" in result.stderr, result.stderr
    not_a_nao = tmp_path / "floor.xml"
    not_a_nao.write_text('<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1"/></worldbody></mujoco>')
    result = run(str(tmp_path / "s"), "--model", str(not_a_nao))
    assert result.returncode == 65 and "not a NAO model for LoLA: no joint HeadYaw" in result.stderr, result.stderr
    result = run(str(tmp_path / "s"), "--ground-truth", str(tmp_path / "no-such-folder" / "t.jsonl"))
    assert result.returncode == 73 and "cannot write the ground truth" in result.stderr, result.stderr
    result = run(str(tmp_path / "s"), "--model", str(tmp_path / "missing.xml"))
    assert result.returncode == 66 and "missing.xml: no such model file" in result.stderr


def test_seconds_ends_the_run_with_a_summary(simulator):
    sim = simulator("--realtime", "--seconds", "0.5")
    assert sim.process.wait(timeout=60) == 0
    assert "stopped at 0.50" in sim.log(), sim.log()
    assert sim.truth()[-1]["time_s"] == pytest.approx(0.504, abs=0.013)


def test_a_client_that_stops_reading_is_dropped_and_the_next_is_served(simulator):
    sim = simulator("--fast")
    silent = sim.connect()  # never reads: the socket buffer fills, a frame cannot be written
    waiting = sim.connect()  # in the backlog, like a second client of LoLA
    frame = read_frame(waiting)
    assert frame["RobotConfig"][1] == "6.0.0"
    silent.close()
    waiting.close()
    assert sim.stop() == 0
    log = sim.log()
    assert "client 1 dropped: cannot send a frame" in log, log
    assert "clients dropped 1" in log, log


def test_sigterm_waits_for_a_connected_client_to_let_go(simulator):
    sim = simulator("--fast")
    client = sim.connect()
    read_frame(client)
    sim.process.send_signal(signal.SIGTERM)
    # Still the robot: a bridge stopping at the same time can sit it down.
    for _ in range(20):
        read_frame(client)
    assert sim.process.poll() is None
    client.close()
    assert sim.process.wait(timeout=30) == 0
    assert not os.path.exists(sim.socket_path)


def control(path, line):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stream:
        stream.settimeout(30.0)
        stream.connect(path)
        stream.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = stream.recv(256)
            if not chunk:
                break
            reply += chunk
    return reply.decode().strip()


def test_the_control_socket_presses_buttons_and_reports_the_eyes(simulator, tmp_path):
    control_path = str(tmp_path / "control")
    sim = simulator("--fast", "--control", control_path)
    client = sim.connect()
    assert read_frame(client)["Touch"] == [0.0] * 14
    assert control(control_path, "eyes") == "left unset right unset"
    assert control(control_path, "press chest 240") == "pressed chest for 240 ms"
    touches = [read_frame(client)["Touch"] for _ in range(40)]
    pressed = [touch[0] for touch in touches]
    # Held for 240 ms of simulated time: 20 frames (give or take the one in flight).
    assert 19 <= sum(pressed) <= 21, pressed
    assert all(sum(touch[1:]) == 0.0 for touch in touches)
    assert control(control_path, "press nose 5").startswith("error: unknown button `nose`")
    assert control(control_path, "press chest soon").startswith("error: `soon` is not")
    assert control(control_path, "dance").startswith("error: unknown command `dance`")
    client.sendall(encode_command({"LEye": [0.0] * 16 + [1.0] * 8, "REye": [1.0] * 24}))
    deadline = time.monotonic() + 30.0
    while (eyes := control(control_path, "eyes")) != "left blue right white":
        assert eyes == "left unset right unset", eyes
        assert time.monotonic() < deadline, "the eyes command was not applied"
        read_frame(client)
    client.close()
    assert sim.stop() == 0
    assert not os.path.exists(control_path)
