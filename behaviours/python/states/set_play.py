"""Set: stand still and wait for the kick-off (the whistle or the GameController's Playing).

The rules allow moving the head in Set but nothing else: the head follows the ball while it is
seen, else it looks ahead.
"""

from states import head, show, team


def act(blackboard, request):
    request.body.stand()
    if not head.look_at_ball(blackboard, request):
        request.head.look(yaw=0.0, pitch=0.0)
    show.state(request, "set")
    team.tell(blackboard, request, "None")
