"""Finished: sit down; the game is over."""

from states import show


def act(blackboard, request):
    request.body.sit()
    show.state(request, "finished")
