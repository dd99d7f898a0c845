"""Where the head looks at the ball while the ball model has it. Once it has been lost for
``LOST_AFTER_S``, each state looks its own way: straight ahead (Initial, Set), or from side to
side to find it (Playing).

``blackboard.ball`` is cognition's ball model (both cameras, filtered): ``position`` (x forward,
y left, m, relative to the robot), ``velocity``, ``seconds_since_seen`` and ``ever_seen``.
"""

import math

# The ball model is trusted this long after a camera last saw the ball, s.
LOST_AFTER_S = 2.0
# Height of the upper camera above the ground, m: the head pitches down by the angle to the ball.
CAMERA_HEIGHT_M = 0.5
# The head's limits, rad (robot.pyi: yaw ±2.09, pitch -0.67..0.51), kept a little inside.
MAX_YAW_RAD = 2.0
MIN_PITCH_RAD = -0.3
MAX_PITCH_RAD = 0.5
# How fast the head follows the ball, rad/s.
TRACK_SPEED_RAD_PER_S = 3.0


def ball_is_known(blackboard):
    ball = blackboard.ball
    return ball.ever_seen and ball.seconds_since_seen < LOST_AFTER_S


def angles_to(x, y):
    """Head yaw and pitch that put the ground point (x, y) in the middle of the upper camera."""
    yaw = max(-MAX_YAW_RAD, min(MAX_YAW_RAD, math.atan2(y, x)))
    distance = math.hypot(x, y)
    pitch = math.atan2(CAMERA_HEIGHT_M, max(distance, 0.05))
    return yaw, max(MIN_PITCH_RAD, min(MAX_PITCH_RAD, pitch))


def look_at_ball(blackboard, request):
    """Turns the head toward the ball if the model has it; returns whether it did."""
    if not ball_is_known(blackboard):
        return False
    x, y = blackboard.ball.position
    yaw, pitch = angles_to(x, y)
    request.head.look(yaw=yaw, pitch=pitch, speed=TRACK_SPEED_RAD_PER_S)
    return True
