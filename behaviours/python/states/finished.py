"""Finished: sit down; the game is over (the role stays, with no intention)."""

from states import show, team


def act(blackboard, request):
    request.body.sit()
    show.state(request, "finished")
    team.tell(blackboard, request, "None")
