"""The version of balancer (what run.json, baselines and the engine hash record)."""

__version__ = "0.1.0"
