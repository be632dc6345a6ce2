"""Skill ladders: seat balance as a function of player strength.

A ladder plays agents of rising strength (rungs) in mirror tables and against each other, and
reports how each balance number moves as the players get stronger: seat win rates by rung with a
test of seat x rung, the match-up matrix, ratings on one scale and the skill depth
(:mod:`balancer.stats.ladder`, :mod:`balancer.stats.ratings`). The study-file form is a ``ladder:``
section (:mod:`balancer.ladder.model`); ``balancer ladder`` writes such a file and plays it.

This package imports nothing at import time, so that the study model can import its model.
"""
