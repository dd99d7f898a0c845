"""The striker's way to the ball: walk to a spot behind it, facing the opponent goal, and kick.

Without localisation the robot knows the opponent goal only as "ahead" (it walked in facing it
during Ready), so it lines up to kick straight ahead: it walks (``request.body.walk_to``) to the
point where the ball lies ``KICK_DISTANCE_M`` in front of the kicking foot, turning towards the
ball while it is far and back to ahead when near, and kicks (``request.body.kick``) once the ball
is within ``KICK_TOLERANCE_M``. The kicking foot is the one on the ball's side (as
``walking::kick_foot`` in Rust chooses it), kept while the ball stays within ``FOOT_HYSTERESIS_M``
of the middle.
"""

import math

# Ball ahead of the ankle of the kicking foot at which a kick hits it well, m (physics tests).
KICK_DISTANCE_M = 0.18
# The kicking foot's distance from the middle, m (the hips are 0.1 m apart).
FOOT_OFFSET_M = 0.05
# Close enough to kick: forward and sideways tolerance, m.
KICK_TOLERANCE_M = 0.03
# Farther than this, the robot turns towards the ball while it walks.
FAR_M = 0.5
FOOT_HYSTERESIS_M = 0.02

# The foot chosen last time ("Left" or "Right"), kept between ticks.
_foot = "Left"


def kick_foot(ball_y):
    """The foot on the ball's side, with hysteresis around the middle."""
    global _foot
    if ball_y > FOOT_HYSTERESIS_M:
        _foot = "Left"
    elif ball_y < -FOOT_HYSTERESIS_M:
        _foot = "Right"
    return _foot


def approach_and_kick(ball_x, ball_y, request):
    """Walks to the kicking spot behind the ball at (ball_x, ball_y) (robot frame, m), or kicks
    when there. Returns "kick" or "approach"."""
    foot = kick_foot(ball_y)
    foot_y = FOOT_OFFSET_M if foot == "Left" else -FOOT_OFFSET_M
    forward = ball_x - KICK_DISTANCE_M
    left = ball_y - foot_y
    if abs(forward) < KICK_TOLERANCE_M and abs(left) < KICK_TOLERANCE_M:
        request.body.kick(foot, 0.0, 1.0)
        return "kick"
    distance = math.hypot(ball_x, ball_y)
    turn = math.atan2(ball_y, ball_x) if distance > FAR_M else 0.0
    request.body.walk_to(x=max(-1.0, min(forward, 5.0)), y=max(-5.0, min(left, 5.0)), turn=turn)
    return "approach"
