"""The default behaviour: the entry point Cortex calls once per cognition tick.

Copy this package to start a new behaviour. Cortex imports this module (``behaviour.py``) and
calls ``tick(blackboard)``, which must return a ``robot.BehaviourRequest``. Save a file and the
robot runs the new code at its next tick; if the new code does not compile or raises while
loading, the old code keeps running and the error is logged.

The game state decides what the robot does (the SPL rules' robot states):

    Initial    stand, look ahead
    Standby    stand, look ahead (as Initial)
    Ready      walk in from the sideline for the first part of Ready, then stand
    Set        stand still, look ahead
    Playing    look around and walk (the visible sign that the robot plays); the goalkeeper
               looks around and stays in its goal
    Penalized  stand still, look ahead (whatever the state)
    Finished   sit down

The eyes show the state; the chest and the feet are Cortex's, not the behaviour's: it shows the
game state there as the rules ask, even when this code fails. A penalised robot stands still
whatever this code asks (Cortex enforces that too); the behaviour stands anyway, so that what
it asks and what the robot does agree.

The team mates hear a role and an intention (states/team.py): the goalkeeper is "Goalkeeper"
("KeepGoal" while playing), every other robot "Striker" ("PlayBall" while playing,
"WalkToPosition" while walking in during Ready); a penalised robot says "None".

Without a GameController the chest button drives the game state: press it to go Initial →
Playing → Penalized → Playing …; hold it for a second, or touch the head, for Finished.
"""

import robot

from states import finished, initial, penalized, playing, ready, set_play

# What each game state does; blackboard.game_state.state is the Rust variant name.
STATES = {
    "Initial": initial,
    "Standby": initial,
    "Ready": ready,
    "Set": set_play,
    "Playing": playing,
    "Finished": finished,
}


def tick(blackboard):
    """Called once per cognition tick with a read-only view of the robot's state."""
    request = robot.BehaviourRequest()
    game_state = blackboard.game_state
    if game_state.penalty is not None:
        penalized.act(blackboard, request)
    else:
        STATES.get(game_state.state, initial).act(blackboard, request)
    return request
