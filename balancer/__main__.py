"""``python -m balancer``: the command line."""

from balancer.cli import app

app(prog_name="balancer")
