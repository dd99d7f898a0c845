"""Playing: look at the ball, walk to it, line up and kick it ahead (states/striker.py); while
the ball is unknown look from side to side to find it (states/head.py) and walk slowly forward,
turning towards where the head looks.

The goalkeeper (``blackboard.game_state.is_goalkeeper``) keeps its goal instead: it looks from
side to side and stands where it is. The team mates hear "Striker" / "PlayBall" from the
others, "Goalkeeper" / "KeepGoal" from the goalkeeper.
"""

import math

from states import head, show, striker, team

# One full look from left to right and back, in seconds.
LOOK_PERIOD_S = 4.0
# How far the head turns to each side, rad (about 60 degrees).
LOOK_YAW_RAD = 1.0
# Looking slightly down, rad: the ball is on the ground.
LOOK_PITCH_RAD = 0.3
# Walking speed, m/s, and how strongly the robot turns towards the head's direction.
WALK_FORWARD_M_PER_S = 0.1
TURN_GAIN = 0.3


def act(blackboard, request):
    seconds = blackboard.frame_info.time_monotonic_ns / 1e9
    yaw = LOOK_YAW_RAD * math.sin(2.0 * math.pi * seconds / LOOK_PERIOD_S)
    request.head.look(yaw=yaw, pitch=LOOK_PITCH_RAD, speed=2.0)
    if head.look_at_ball(blackboard, request):
        yaw = request.head.yaw

    goalkeeper = blackboard.game_state.is_goalkeeper
    if blackboard.fall_state.phase == "Upright" and not goalkeeper and head.ball_is_known(blackboard):
        # The striker walks to the ball, lines up and kicks (states/striker.py).
        x, y = blackboard.ball.position
        striker.approach_and_kick(x, y, request)
    elif blackboard.fall_state.phase == "Upright" and not goalkeeper:
        request.body.walk(x=WALK_FORWARD_M_PER_S, turn=TURN_GAIN * yaw)
    else:
        # The goalkeeper stays in its goal. Fallen or falling: stand (motion gets up first);
        # walking on is pointless.
        request.body.stand()
    team.tell(blackboard, request, "KeepGoal" if goalkeeper else "PlayBall")
    show.state(request, "playing")
