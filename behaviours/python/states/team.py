"""What the team mates hear, in one place: this robot's role and what it is about to do.

The network process sends it in the team messages within the message budget; team mates read
it in ``blackboard.team_mates``. The role follows the GameController: its goalkeeper (``
blackboard.game_state.is_goalkeeper``) is the "Goalkeeper", every other robot is a "Striker"
(there is one field-player behaviour so far). The intention is what the state's module does.
There is no localisation yet, so no walk target is told (``request.team.walk_target`` stays
0, 0, which team mates must not read as a place while the intention is not "WalkToPosition").
"""


def role(blackboard):
    """The role this robot plays."""
    return "Goalkeeper" if blackboard.game_state.is_goalkeeper else "Striker"


def tell(blackboard, request, intention):
    """Tells the team mates this robot's role and `intention` (a TeamIntention variant)."""
    request.team.role = role(blackboard)
    request.team.intention = intention


def out_of_play(request):
    """A penalised robot plays no role: role and intention "None"."""
    request.team.role = "None"
    request.team.intention = "None"
