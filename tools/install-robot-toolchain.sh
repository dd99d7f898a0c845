#!/usr/bin/env bash
# Installs what `cortex deploy` needs to build `cortex` for the NAO: cargo-zigbuild (crates.io)
# and zig (the PyPI package `ziglang`, which cargo-zigbuild finds by itself). zig links against
# an old glibc (2.23, NAO OS 2.8's) although this machine's is newer; see "On the robot" in the
# README and "Deploying to the NAO" in docs/decisions.md.
#
#   tools/install-robot-toolchain.sh
#
# Not part of tools/install-test-deps.sh: CI does not build for the robot (the release build
# with zig takes longer than the rest of CI); the test that reads the robot build's glibc
# requirement (`cargo test -p supervisor --test deploy`) says SKIPPED without these.
set -euo pipefail

if ! python3 -m ziglang version >/dev/null 2>&1 && ! command -v zig >/dev/null 2>&1; then
  echo "installing zig: python3 -m pip install ziglang"
  python3 -m pip install -q ziglang
fi
if ! command -v cargo-zigbuild >/dev/null 2>&1; then
  echo "installing cargo-zigbuild: cargo install --locked cargo-zigbuild"
  cargo install --locked cargo-zigbuild
fi
echo "zig $(python3 -m ziglang version 2>/dev/null || zig version), $(cargo-zigbuild --version)"
echo "build for the robot: cortex deploy ROBOT (cortex deploy --dry-run ROBOT prints the build command)"
