"""Generic agents over the compiled game interface (:mod:`balancer.core.kernel`): they play every
game that provides one. Parameters: :mod:`.params` (``agents.mcts`` in a game's YAML)."""
