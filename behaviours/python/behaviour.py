"""The default behaviour: the entry point Cortex calls once per cognition tick.

Copy this package to start a new behaviour. Cortex imports this module (``behaviour.py``) and
calls ``tick(blackboard)``, which must return a ``robot.BehaviourRequest``. Save a file and the
robot runs the new code at its next tick; if the new code does not compile or raises while
loading, the old code keeps running and the error is logged.

The game state decides what the robot does (B-Human's first SPL behaviour):

    Initial    stand, look ahead, eyes show the state
    Playing    look around and walk (the visible sign that the robot plays)
    Penalized  stand still, eyes red
    Finished   sit down

Without a GameController the chest button drives the game state: press it to go Initial →
Playing → Penalized → Playing …; hold it for a second, or touch the head, for Finished.
"""

import robot

from states import finished, initial, penalized, playing


def tick(blackboard):
    """Called once per cognition tick with a read-only view of the robot's state."""
    request = robot.BehaviourRequest()
    game_state = blackboard.game_state
    if game_state.penalty is not None:
        penalized.act(blackboard, request)
    elif game_state.state == "Playing":
        playing.act(blackboard, request)
    elif game_state.state == "Finished":
        finished.act(blackboard, request)
    else:
        # Initial, and Ready/Set/Standby until a behaviour for them exists: stand and wait.
        initial.act(blackboard, request)
    return request
