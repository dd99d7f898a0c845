"""Penalized: stand still and look down (B-Human's penalized robot), eyes red."""

from states import show


def act(blackboard, request):
    request.body.stand()
    request.head.look(yaw=0.0, pitch=0.5)
    show.state(request, "penalized")
