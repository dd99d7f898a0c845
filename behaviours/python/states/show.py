"""What the eyes show, in one place, so that every state looks the same way.

The eyes show the game state in the colours the SPL rules give the chest LED. The chest and the
feet are not the behaviour's: Cortex sets them from the game state itself (chest: the state;
left foot: the team colour; right foot: our kick-off), so that a failing behaviour cannot show
a referee the wrong state.
"""

EYE_COLOURS = {
    # Initial and finished are "Off" on the chest in the rules; the eyes show white instead,
    # so that one can tell a running behaviour from a dead one.
    "initial": "White",
    "ready": "Blue",
    "set": "Yellow",
    "playing": "Green",
    "penalized": "Red",
    "finished": "White",
}


def state(request, name):
    request.leds.eyes(EYE_COLOURS[name])
