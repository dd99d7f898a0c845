"""Set: stand still and wait for the kick-off (the whistle or the GameController's Playing).

The rules allow moving the head in Set but nothing else; this behaviour keeps the head still
too, looking ahead.
"""

from states import show, team


def act(blackboard, request):
    request.body.stand()
    request.head.look(yaw=0.0, pitch=0.0)
    show.state(request, "set")
    team.tell(blackboard, request, "None")
