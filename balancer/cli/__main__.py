"""``python -m balancer.cli``: the command line."""

from balancer.cli import app

app(prog_name="balancer")
