#!/usr/bin/env python3
"""A physics simulator of the NAO v6 that speaks LoLA: the bridge cannot tell it from the robot.

    python3 simulator/physics/lola_physics.py /tmp/robocup [--fast] [--seconds S]
        [--initial-pose stand|sit|lying-back|lying-front|lying-left|lying-right] [--seed N] [--ground-truth FILE.jsonl]

It listens on a Unix stream socket at the given path, like LoLA (one client at a time; a second
client waits in the backlog until the first is gone). Every 12 ms of simulated time it sends
one 896-byte sensor frame (``lola_wire.encode_sensor_frame``) of the MuJoCo NAO in
``nao_v6.xml`` (``nao_body.NaoBody``), reads the client's commands (partial maps, several per
frame, maps split across reads), applies ``Position`` and ``Stiffness`` (each key keeps its
last value, as LoLA does), and steps the physics by 12 ms.

- ``--realtime`` (default): frames are paced to the wall clock by absolute deadlines.
- ``--fast``: as fast as the client answers. After each frame it waits up to 12 ms of wall time
  for the client's command, then steps (a slow client sees LoLA's real pacing); without a client
  the world stands still.
- A command that is not a valid command map is counted, logged (rate-limited) and ignored
  with the bytes received so far; the client stays connected. A client that stops reading
  (a frame cannot be written within 0.5 s) or disconnects is dropped and the next is accepted.
- ``--control SOCKET``: one line per connection, ``press BUTTON MS`` (held for MS of simulated
  time, reported in ``Touch``) or ``eyes`` (the colour LoLA was last told), as the kinematic
  simulator's (``cortex sim``); ``push FX FY FZ MS`` pushes the torso with that force (N, world
  frame: the robot starts facing +x) for MS of simulated time (tests of falling).
- ``--ball X Y``: an SPL ball on the floor there (m, world frame). ``--mass-jitter F`` and
  ``--friction-scale F``: another robot than the model (every link's mass and inertia times
  1 ± F, seeded; the sliding friction times F), for robustness checks. An independent model
  differs in more: ``--actuator-jitter F`` (each motor's gain and torque limit times 1 ± F,
  seeded), ``--joint-friction-scale F`` (joint damping and friction loss), ``--torso-com-offset
  DX DY`` (m), ``--contact-softness F`` (the contacts' spring time constant times F) and
  ``--sensor-delay-frames N`` (each frame carries the sensors of N frames earlier).
- ``--ground-truth FILE``: one JSON line per frame: simulated time, torso position and angles,
  feet positions (see ``NaoBody.ground_truth``).
- SIGTERM / SIGINT (once a connected client has let go, at most 10 s later) or the end of
  ``--seconds``: the socket file is removed, counters go to stderr, exit 0. Exit 64: bad command line; 66: the model is missing; 65: the model is
  refused; 73: the socket cannot be created.
"""

from __future__ import annotations

import argparse
import collections
import errno
import json
import math
import os
import select
import signal
import socket
import stat
import sys
import time

# The simulator's folder is on the path when this file runs as a script.
from lola_wire import Incomplete, WireError, decode_command, encode_sensor_frame

FRAME_PERIOD_S = 0.012
# `--lockstep`: how long a frame waits for the client's command before the world steps on.
LOCKSTEP_TIMEOUT_S = 2.0
WRITE_TIMEOUT_S = 0.5
# Unparsed bytes beyond which the pending input counts as garbage (four full commands).
MAX_PENDING_BYTES = 4 * 786
LOG_INTERVAL_S = 1.0
# How long the simulator keeps serving a connected client after SIGTERM.
LINGER_S = 10.0

# Buttons by the names `cortex sim press` uses, as indices of LoLA's `Touch` array.
BUTTONS = {
    "chest": 0, "head-front": 1, "head-middle": 2, "head-rear": 3,
    "left-foot-left": 4, "left-foot-right": 5,
    "left-hand-back": 6, "left-hand-left": 7, "left-hand-right": 8,
    "right-foot-left": 9, "right-foot-right": 10,
    "right-hand-back": 11, "right-hand-left": 12, "right-hand-right": 13,
}

EXIT_USAGE = 64
EXIT_DATA = 65
EXIT_NO_INPUT = 66
EXIT_CANNOT_CREATE = 73


def log(message: str) -> None:
    print(f"lola_physics: {message}", file=sys.stderr, flush=True)


class Counters:
    def __init__(self):
        self.frames_sent = 0
        self.commands = 0
        self.garbage = 0
        self.clients_accepted = 0
        self.clients_dropped = 0

    def summary(self) -> str:
        return (f"frames sent {self.frames_sent}, commands {self.commands}, "
                f"garbage commands {self.garbage}, clients accepted {self.clients_accepted}, "
                f"clients dropped {self.clients_dropped}")


class Client:
    def __init__(self, connection: socket.socket, number: int):
        self.connection = connection
        self.number = number
        self.pending = bytearray()
        # Bytes of this client's stream before ``pending`` (for error offsets).
        self.consumed = 0


class Server:
    def __init__(self, path: str, body, fast: bool, truth_file, control_path: str | None = None,
                 lockstep: bool = False):
        self.path = path
        self.body = body
        self.fast = fast
        self.lockstep = lockstep
        self.truth_file = truth_file
        self.counters = Counters()
        self.client: Client | None = None
        self.last_log = -LOG_INTERVAL_S
        self.stop = False
        self.listener = bind(path)
        # Until when (simulated time, s) each button is held, and the eyes LoLA was last told.
        self.pressed_until = [0.0] * len(BUTTONS)
        # Until when (simulated time, s) the torso is pushed.
        self.push_until = None
        # `--sensor-delay-frames`: the frames' sensor values that are still to be sent.
        self.sensor_delay_frames = 0
        self.sensor_history = collections.deque()
        self.eyes = {"LEye": None, "REye": None}
        self.control_path = control_path
        self.control = None
        if control_path is not None:
            try:
                self.control = bind(control_path)
            except SetupError:
                self.listener.close()
                os.unlink(path)
                raise

    def close(self) -> None:
        if self.client is not None:
            self.client.connection.close()
        if self.control is not None:
            self.control.close()
            try:
                os.unlink(self.control_path)
            except FileNotFoundError:
                pass
        self.listener.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def log_limited(self, message: str) -> None:
        now = time.monotonic()
        if now - self.last_log >= LOG_INTERVAL_S:
            self.last_log = now
            log(message)

    # --- clients -------------------------------------------------------------------------------

    def accept(self) -> None:
        if self.client is not None:
            return
        try:
            connection, _ = self.listener.accept()
        except BlockingIOError:
            return
        connection.setblocking(False)
        self.counters.clients_accepted += 1
        self.client = Client(connection, self.counters.clients_accepted)
        log(f"client {self.client.number} connected")

    def drop(self, reason: str, dropped: bool) -> None:
        client = self.client
        self.client = None
        if client is None:
            return
        client.connection.close()
        if dropped:
            self.counters.clients_dropped += 1
        log(f"client {client.number} {reason}")

    def receive(self) -> None:
        """Reads what the client sent and applies every complete command."""
        client = self.client
        if client is None:
            return
        closed = False
        while len(client.pending) <= MAX_PENDING_BYTES:
            try:
                chunk = client.connection.recv(65536)
            except BlockingIOError:
                break
            except InterruptedError:
                continue
            except ConnectionResetError:
                closed = True
                break
            except OSError as error:
                self.drop(f"dropped: read failed: {error}", dropped=True)
                return
            if not chunk:
                closed = True
                break
            client.pending += chunk
        self.apply_pending(client)
        if closed:
            self.drop("disconnected", dropped=False)

    def apply_pending(self, client: Client) -> None:
        used = 0
        data = bytes(client.pending)
        while used < len(data):
            try:
                command, length = decode_command(data[used:])
            except Incomplete:
                break
            except WireError as error:
                self.garbage(client, f"stream byte {client.consumed + used}: "
                                     f"{error} (relative to the map)")
                return
            used += length
            self.counters.commands += 1
            values = command.values
            self.body.apply(values.get("Position"), values.get("Stiffness"))
            for eye in self.eyes:
                if eye in values:
                    self.eyes[eye] = values[eye]
        del client.pending[:used]
        client.consumed += used
        if len(client.pending) > MAX_PENDING_BYTES:
            self.garbage(client, f"stream byte {client.consumed}: {len(client.pending)} bytes "
                                 f"without a complete command")

    def garbage(self, client: Client, reason: str) -> None:
        """Ignores everything received so far (a client writes whole maps, so the next read
        starts a new one) and counts it."""
        self.counters.garbage += 1
        self.log_limited(f"client {client.number}: ignored a command that is not valid "
                         f"({reason}); {self.counters.garbage} so far")
        client.consumed += len(client.pending)
        client.pending.clear()

    def send_frame(self, frame: bytes) -> None:
        client = self.client
        if client is None:
            return
        try:
            client.connection.setblocking(True)
            client.connection.settimeout(WRITE_TIMEOUT_S)
            client.connection.sendall(frame)
            client.connection.setblocking(False)
            self.counters.frames_sent += 1
        except (BrokenPipeError, ConnectionResetError):
            self.drop("disconnected", dropped=False)
        except (socket.timeout, OSError) as error:
            self.drop(f"dropped: cannot send a frame ({error or 'timed out'})", dropped=True)

    def wait_for_command(self, timeout_s: float) -> None:
        client = self.client
        if client is None:
            return
        try:
            select.select([client.connection], [], [], timeout_s)
        except InterruptedError:
            pass

    # --- the loop ------------------------------------------------------------------------------

    def run(self, seconds: float | None) -> None:
        deadline = time.monotonic()
        stopping_since = None
        while True:
            if self.stop:
                # Like the robot, outlive a client that is still talking: a bridge told to stop
                # together with the simulator (its supervisor died) can still sit the robot down.
                if stopping_since is None:
                    stopping_since = time.monotonic()
                if self.client is None or time.monotonic() - stopping_since >= LINGER_S:
                    break
            if seconds is not None and self.body.data.time >= seconds - 1e-9:
                break
            if stopping_since is None:
                self.accept()
            self.serve_control()
            if self.fast and self.client is None:
                # Nobody is looking: the world waits for the next client.
                self.wait_for_client(0.01)
                continue
            self.receive()
            if self.push_until is not None and self.body.data.time >= self.push_until - 1e-9:
                self.body.push((0.0, 0.0, 0.0))
                self.push_until = None
            self.body.step(FRAME_PERIOD_S)
            if self.truth_file is not None:
                self.truth_file.write(json.dumps(self.body.ground_truth()) + "\n")
            if self.client is not None:
                try:
                    frame = encode_sensor_frame(self.delayed(self.sensor_values()))
                except ValueError as error:
                    # The physics diverged (a non-finite number): LoLA sends nothing then.
                    self.log_limited(f"frame skipped: {error}")
                else:
                    self.send_frame(frame)
            if self.fast:
                self.wait_for_command(LOCKSTEP_TIMEOUT_S if self.lockstep else FRAME_PERIOD_S)
                continue
            deadline += FRAME_PERIOD_S
            now = time.monotonic()
            if now > deadline + FRAME_PERIOD_S:
                deadline = now
            elif deadline > now:
                time.sleep(deadline - now)

    def delayed(self, values):
        """The sensor values of ``sensor_delay_frames`` frames ago (the oldest kept until there
        are that many)."""
        if self.sensor_delay_frames == 0:
            return values
        self.sensor_history.append(values)
        while len(self.sensor_history) > self.sensor_delay_frames + 1:
            self.sensor_history.popleft()
        return self.sensor_history[0]

    def sensor_values(self):
        values = self.body.sensor_values()
        now = self.body.data.time
        values.touch = [1.0 if now < until else 0.0 for until in self.pressed_until]
        return values

    # --- the control socket (`cortex sim press chest`) ----------------------------------------

    def serve_control(self) -> None:
        """Answers one waiting control connection: one line in, one line out."""
        if self.control is None:
            return
        try:
            connection, _ = self.control.accept()
        except BlockingIOError:
            return
        with connection:
            try:
                connection.settimeout(0.5)
                line = b""
                while b"\n" not in line and len(line) < 256:
                    chunk = connection.recv(256)
                    if not chunk:
                        break
                    line += chunk
                reply = self.control_reply(line.split(b"\n")[0].decode("utf-8", "replace").strip())
                connection.sendall((reply + "\n").encode())
            except OSError:
                pass

    def control_reply(self, line: str) -> str:
        words = line.split()
        if len(words) == 3 and words[0] == "press":
            name, duration = words[1], words[2]
            if name not in BUTTONS:
                return f"error: unknown button `{name}`; buttons: {', '.join(BUTTONS)}"
            if not duration.isdigit():
                return f"error: `{duration}` is not a duration in ms"
            self.pressed_until[BUTTONS[name]] = self.body.data.time + int(duration) / 1000.0
            return f"pressed {name} for {int(duration)} ms"
        if len(words) == 5 and words[0] == "push":
            try:
                numbers = [float(word) for word in words[1:]]
            except ValueError:
                return f"error: `{line}`: expected `push FX FY FZ MS` with numbers"
            if not all(math.isfinite(number) and abs(number) <= 1000 for number in numbers[:3]):
                return "error: push forces must be numbers within ±1000 N"
            if not (math.isfinite(numbers[3]) and 0 < numbers[3] <= 10000):
                return "error: the push lasts 1 to 10000 ms"
            self.body.push(tuple(numbers[:3]))
            self.push_until = self.body.data.time + numbers[3] / 1000.0
            return f"pushing {numbers[0]:g} {numbers[1]:g} {numbers[2]:g} N for {numbers[3]:g} ms"
        if words == ["eyes"]:
            return f"left {colour_name(self.eyes['LEye'])} right {colour_name(self.eyes['REye'])}"
        return (f"error: unknown command `{line}`; expected `press BUTTON MS`, "
                f"`push FX FY FZ MS` or `eyes`")

    def wait_for_client(self, timeout_s: float) -> None:
        try:
            select.select([self.listener], [], [], timeout_s)
        except InterruptedError:
            pass


def colour_name(eye) -> str:
    """The colour of an eye's first LED (wire order: 8 reds, 8 greens, 8 blues)."""
    if eye is None:
        return "unset"
    on = tuple(value > 0.5 for value in (eye[0], eye[8], eye[16]))
    return {(False, False, False): "off", (True, False, False): "red",
            (False, True, False): "green", (False, False, True): "blue",
            (True, True, True): "white"}.get(on, "mixed")


def bind(path: str) -> socket.socket:
    """Listens at ``path``; a stale socket file there is replaced, anything else is refused."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISSOCK(mode):
            raise SetupError(EXIT_CANNOT_CREATE, f"{path} exists and is not a socket; refusing to replace it")
        os.unlink(path)
    if len(os.fsencode(path)) > 107:
        raise SetupError(EXIT_CANNOT_CREATE, f"{path}: a Unix socket path has at most 107 bytes")
    # Bound and listening under a temporary name, then renamed: whoever sees the file can connect
    # (between bind and listen a connect would be refused).
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}")
    if len(os.fsencode(temporary)) > 107:
        temporary = path
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(temporary)
        # Clients beyond the one served wait in the backlog, as with LoLA.
        listener.listen(16)
        if temporary != path:
            os.rename(temporary, path)
    except OSError as error:
        listener.close()
        if temporary != path:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        raise SetupError(EXIT_CANNOT_CREATE, f"cannot listen on {path}: {error.strerror or error}") from None
    listener.setblocking(False)
    return listener


class SetupError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="lola_physics.py",
        description="A MuJoCo NAO v6 behind a LoLA socket.")
    parser.add_argument("socket", help="where to listen (the robot's LoLA: /tmp/robocup)")
    pacing = parser.add_mutually_exclusive_group()
    pacing.add_argument("--realtime", dest="fast", action="store_false", default=False,
                        help="one frame every 12 ms of wall time (default)")
    pacing.add_argument("--fast", dest="fast", action="store_true",
                        help="as fast as the client answers")
    parser.add_argument("--lockstep", action="store_true",
                        help="with --fast: every frame waits for the client's command (up to "
                             f"{LOCKSTEP_TIMEOUT_S:g} s), so a loaded machine cannot change the run")
    parser.add_argument("--seconds", type=float, default=None,
                        help="stop after this much simulated time")
    parser.add_argument("--initial-pose", choices=("stand", "sit", "lying", "lying-back", "lying-front",
                                                   "lying-left", "lying-right"),
                        default="sit",
                        help="how the robot starts, limp (lying = lying-back: on its back; "
                             "lying-front: face down; lying-left, lying-right: on a side)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ground-truth", metavar="FILE", default=None,
                        help="write the torso pose and feet as JSON lines, one per frame")
    parser.add_argument("--model", metavar="FILE", default=None, help="another MJCF model")
    parser.add_argument("--control", metavar="SOCKET", default=None,
                        help="a control socket for `cortex sim press BUTTON` and `cortex sim eyes`")
    parser.add_argument("--ball", type=float, nargs=2, metavar=("X", "Y"), default=None,
                        help="an SPL ball on the floor at X, Y (m, world frame)")
    parser.add_argument("--mass-jitter", type=float, default=0.0,
                        help="every link's mass and inertia times 1 ± this (seeded), 0 to 0.5")
    parser.add_argument("--friction-scale", type=float, default=1.0,
                        help="every sliding friction times this, 0.1 to 3")
    parser.add_argument("--actuator-jitter", type=float, default=0.0,
                        help="each motor's gain and torque limit times 1 ± this (seeded), 0 to 0.5")
    parser.add_argument("--joint-friction-scale", type=float, default=1.0,
                        help="every joint's damping and friction loss times this, 0.1 to 5")
    parser.add_argument("--torso-com-offset", type=float, nargs=2, metavar=("DX", "DY"),
                        default=(0.0, 0.0), help="the torso's centre of mass moved by DX, DY (m, ±0.03)")
    parser.add_argument("--contact-softness", type=float, default=1.0,
                        help="the contacts' spring time constant times this, 0.2 to 5")
    parser.add_argument("--sensor-delay-frames", type=int, default=0,
                        help="each frame carries the sensors of this many frames earlier, 0 to 5")

    def error(message):
        parser.print_usage(sys.stderr)
        log(f"bad command line: {message}")
        raise SystemExit(EXIT_USAGE)

    parser.error = error
    arguments = parser.parse_args(argv)
    if arguments.lockstep and not arguments.fast:
        error("--lockstep: only with --fast (a real-time world does not wait)")
    if arguments.seconds is not None and not (arguments.seconds > 0 and arguments.seconds < 1e9):
        error(f"--seconds {arguments.seconds}: expected a positive number of seconds")
    if arguments.ball is not None and not all(math.isfinite(v) and abs(v) <= 4.5 for v in arguments.ball):
        error(f"--ball {arguments.ball}: expected a position within ±4.5 m")
    if not 0.0 <= arguments.mass_jitter <= 0.5:
        error(f"--mass-jitter {arguments.mass_jitter}: expected 0 to 0.5")
    if not 0.1 <= arguments.friction_scale <= 3.0:
        error(f"--friction-scale {arguments.friction_scale}: expected 0.1 to 3")
    if not 0.0 <= arguments.actuator_jitter <= 0.5:
        error(f"--actuator-jitter {arguments.actuator_jitter}: expected 0 to 0.5")
    if not 0.1 <= arguments.joint_friction_scale <= 5.0:
        error(f"--joint-friction-scale {arguments.joint_friction_scale}: expected 0.1 to 5")
    if not all(math.isfinite(v) and abs(v) <= 0.03 for v in arguments.torso_com_offset):
        error(f"--torso-com-offset {arguments.torso_com_offset}: expected two offsets within ±0.03 m")
    if not 0.2 <= arguments.contact_softness <= 5.0:
        error(f"--contact-softness {arguments.contact_softness}: expected 0.2 to 5")
    if not 0 <= arguments.sensor_delay_frames <= 5:
        error(f"--sensor-delay-frames {arguments.sensor_delay_frames}: expected 0 to 5")
    return arguments


def main(argv=None) -> int:
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    try:
        import mujoco  # noqa: F401
    except ImportError:
        log("the Python package `mujoco` is missing: "
            "pip install -r simulator/physics/requirements.txt")
        return EXIT_NO_INPUT
    from nao_body import MODEL_PATH, ModelError, NaoBody

    model_path = arguments.model or MODEL_PATH
    if not os.path.isfile(model_path):
        log(f"{model_path}: no such model file")
        return EXIT_NO_INPUT
    try:
        body = NaoBody(arguments.initial_pose, model_path=model_path, seed=arguments.seed,
                       ball=arguments.ball)
        if arguments.mass_jitter > 0.0 or arguments.friction_scale != 1.0:
            body.perturb(arguments.mass_jitter, arguments.friction_scale)
        body.vary(arguments.actuator_jitter, arguments.joint_friction_scale,
                  arguments.torso_com_offset, arguments.contact_softness)
    except ModelError as error:
        log(f"the model is refused: {error}")
        return EXIT_DATA
    try:
        server = Server(arguments.socket, body, arguments.fast, None, arguments.control,
                        lockstep=arguments.lockstep)
    except SetupError as error:
        log(str(error))
        return error.code
    truth_file = None
    if arguments.ground_truth:
        try:
            truth_file = open(arguments.ground_truth, "w", buffering=1, encoding="utf-8")
        except OSError as error:
            server.close()
            log(f"cannot write the ground truth to {arguments.ground_truth}: {error.strerror}")
            return EXIT_CANNOT_CREATE
        server.truth_file = truth_file
    server.sensor_delay_frames = arguments.sensor_delay_frames

    def stop(signal_number, _frame):
        server.stop = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log(f"listening on {arguments.socket} ({'fast' if arguments.fast else 'realtime'}, "
        f"initial pose {arguments.initial_pose}, seed {arguments.seed})")
    try:
        server.run(arguments.seconds)
    finally:
        server.close()
        if truth_file is not None:
            truth_file.close()
        log(f"stopped at {body.data.time:.3f} s simulated: {server.counters.summary()}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
    except OSError as error:
        if error.errno == errno.EPIPE:
            sys.exit(0)
        raise
