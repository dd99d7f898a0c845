"""One module per game state. Each has ``act(blackboard, request)``, which fills in the request.

``set_play`` is the Set state (``set`` is a Python built-in).
"""
