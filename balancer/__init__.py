"""balancer: if I change this rule, who wins more often?

Plays tabletop games between AI players, aggregates win rates and seat advantages with intervals,
and renders a self-contained HTML report. See README.md and ../shared/DESIGN.md.
"""

__version__ = "0.1.0"
