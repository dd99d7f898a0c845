"""Initial (and Standby): stand still, look straight ahead; the eyes say which state the robot
is in. The team mates hear the robot's role, and no intention yet."""

from states import show, team


def act(blackboard, request):
    request.body.stand()
    request.head.look(yaw=0.0, pitch=0.0)
    show.state(request, "initial")
    team.tell(blackboard, request, "None")
