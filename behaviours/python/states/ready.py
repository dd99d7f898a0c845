"""Ready: walk in to the kick-off position, then wait for Set.

There is no localisation yet, so the robot cannot know where its kick-off position is. It does
what a robot placed on the sideline facing the field can do without one: walk straight in for
the first part of Ready, then stand still. The GameController's Ready lasts 45 s (30 s before a
penalty kick); the robot walks while more than ``STOP_WALKING_S`` of it remain, about 1.5 m at
``WALK_FORWARD_M_PER_S``. When the remaining time is not known (no GameController: the chest
button never makes Ready) it stands.

Walking is the motion process's: until it walks, it stands instead and says so in
``blackboard.motion_info.note``.

The team mates hear "WalkToPosition" while it walks in (or gets up to walk on), no intention
once it waits.
"""

from states import show, team

# Walk while more than this much of Ready remains, s.
STOP_WALKING_S = 30
# Walking speed, m/s.
WALK_FORWARD_M_PER_S = 0.1


def act(blackboard, request):
    request.head.look(yaw=0.0, pitch=0.0)
    remaining_s = blackboard.game_state.secondary_seconds_remaining
    upright = blackboard.fall_state.phase == "Upright"
    walking_in = remaining_s > STOP_WALKING_S
    if upright and walking_in:
        request.body.walk(x=WALK_FORWARD_M_PER_S)
    else:
        request.body.stand()
    # Fallen while walking in: it gets up and walks on, so the intention stays.
    team.tell(blackboard, request, "WalkToPosition" if walking_in else "None")
    show.state(request, "ready")
