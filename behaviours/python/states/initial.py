"""Initial (and Standby): stand still, look straight ahead; the eyes say which state the robot
is in."""

from states import show


def act(blackboard, request):
    request.body.stand()
    request.head.look(yaw=0.0, pitch=0.0)
    show.state(request, "initial")
