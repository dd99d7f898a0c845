"""What the LEDs show, in one place, so that every state looks the same way.

The eyes show the game state (the colours the SPL rules use for the chest button, which the
GameController-less robot does not show by itself); the chest shows the same colour.
"""

STATE_COLOURS = {
    "initial": "off",
    "ready": "blue",
    "set": "yellow",
    "playing": "green",
    "penalized": "red",
    "finished": "off",
}

# Initial and finished are "off" on the chest in the rules; the eyes show white instead, so
# that one can tell a running behaviour from a dead one.
EYE_COLOURS = dict(STATE_COLOURS, initial="white", finished="white")


def state(request, name):
    request.leds.eyes(EYE_COLOURS[name])
    request.leds.chest = STATE_COLOURS[name]
