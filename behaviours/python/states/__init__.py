"""One module per game state. Each has ``act(blackboard, request)``, which fills in the request."""
