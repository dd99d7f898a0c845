#!/usr/bin/env bash
# Makes the shipped fallback sounds in config/data/default/sounds/: one WAV per fixed message,
# spoken by flite's 16 kHz voice (mono, 16 kHz, 16-bit), named after its text the way the sound
# player looks them up ("Python error" -> python_error.wav). Needs the Debian package `flite`.
#
#   tools/make_sounds.sh            # (re)make all of them
#   tools/make_sounds.sh "Low battery"   # make one more
set -euo pipefail
cd "$(dirname "$0")/.."
out=config/data/default/sounds
command -v flite >/dev/null || { echo "make_sounds.sh: flite is not installed (apt-get install flite)" >&2; exit 69; }
messages=("$@")
if [ ${#messages[@]} -eq 0 ]; then
  messages=("Python error" "Safe state" "Whistle" "Ready" "Set" "Playing" "Finished" "Penalized"
            "Hello" "Fallen" "Low battery")
fi
mkdir -p "$out"
for text in "${messages[@]}"; do
  name=$(printf '%s' "$text" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '_' | sed 's/^_*//; s/_*$//')
  flite -voice kal16 -t "$text" -o "$out/$name.wav"
  echo "$out/$name.wav  \"$text\"  $(stat -c %s "$out/$name.wav") bytes"
done
