#!/usr/bin/env bash
# Installs what the README's test command needs beyond Rust and a Python 3 with a shared
# libpython, on a Debian or Ubuntu machine: rsync and ssh for `cortex sync` and its tests, an sshd
# for the tests that sync over real ssh, the Python headers pyo3 builds against, alsa-lib's
# headers for the robot build's ALSA code (CI lints and tests it), and the optional
# physics simulator's Python packages (MuJoCo, pytest). A test whose
# component is still missing afterwards prints `SKIPPED: <reason>` and passes without it.
#
#   tools/install-test-deps.sh          # as root, or with sudo available
#
# Without root or sudo it says what it could not install and exits 0.
set -euo pipefail

missing=()
command -v rsync >/dev/null 2>&1 || missing+=(rsync)
command -v ssh >/dev/null 2>&1 || missing+=(openssh-client)
{ [ -x /usr/sbin/sshd ] || [ -x /usr/bin/sshd ]; } || missing+=(openssh-server)
# `script` (util-linux) makes a terminal for the colour tests; setpriv runs a test as another user.
command -v script >/dev/null 2>&1 || missing+=(bsdutils)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
# flite: the robot's text-to-speech engine, for the speech tests of the sound output.
command -v flite >/dev/null 2>&1 || missing+=(flite)
# chromium: the web view's test drives it headless over the DevTools protocol (tests/web_view.rs).
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
# libasound2-dev (found through pkg-config): CI builds, lints and tests the robot build's ALSA
# capture and playback (`--features robot`) against alsa-lib's `null` device.
pkg-config --exists alsa 2>/dev/null || missing+=(pkg-config libasound2-dev)
# The robot build's V4L2 camera (cortex_image --features robot) needs no system package: its
# ioctls are written out in Rust (no bindgen, no libclang). Its capture test runs where a
# /dev/video* capture device exists (`modprobe vivid` on a machine with kernel modules).
# The behaviours crate embeds CPython (pyo3): python3 with a shared libpython and its headers.
if ! python3 -c 'import sysconfig, sys; sys.exit(0 if sysconfig.get_config_var("Py_ENABLE_SHARED") else 1)' 2>/dev/null; then
  missing+=(python3-dev libpython3-dev)
fi
# The optional physics simulator (MuJoCo) and pytest for its own tests: a pip install, no root.
if ! python3 -c 'import mujoco, pytest' 2>/dev/null; then
  echo "installing the physics extra: pip install -r simulator/physics/requirements.txt"
  python3 -m pip install -q -r "$(dirname "$0")/../simulator/physics/requirements.txt" \
    || echo "could not install the physics extra; its tests say SKIPPED"
fi
# Python's mcap and msgpack: the recording test reads the recorder's files with them.
if ! python3 -c 'import mcap, msgpack' 2>/dev/null; then
  python3 -m pip install -q -r "$(dirname "$0")/recording-requirements.txt" \
    || echo "could not install mcap and msgpack; the recording test says SKIPPED"
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "test dependencies: all present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "cannot install ${missing[*]} (not root, no sudo); the tests that need them say SKIPPED"
    exit 0
  fi
fi
echo "installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
