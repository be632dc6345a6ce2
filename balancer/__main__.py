"""``python -m balancer``: the command line (:func:`balancer.entry.main`)."""

from balancer.entry import main

main()
