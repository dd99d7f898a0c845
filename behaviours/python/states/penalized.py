"""Penalized: stand still, head straight ahead, eyes red.

The rules forbid a penalised robot any movement, the head's included. Cortex enforces this
whatever the behaviour asks (stand, head straight ahead); this module asks for the same, so
that the request and what the robot does agree. It plays no role while out: the team mates
hear role and intention "None".
"""

from states import show, team


def act(blackboard, request):
    request.body.stand()
    request.head.look(yaw=0.0, pitch=0.0)
    show.state(request, "penalized")
    team.out_of_play(request)
