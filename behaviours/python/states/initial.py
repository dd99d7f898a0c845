"""Initial (and Standby): stand still, look at the ball while it is seen, else straight ahead;
the eyes say which state the robot is in. The team mates hear the robot's role, and no
intention yet."""

from states import head, show, team


def act(blackboard, request):
    request.body.stand()
    if not head.look_at_ball(blackboard, request):
        request.head.look(yaw=0.0, pitch=0.0)
    show.state(request, "initial")
    team.tell(blackboard, request, "None")
