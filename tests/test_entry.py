"""The console script's end (balancer.entry.end_process): the process ends as the interpreter ends it,
without the teardown of the modules (issue 30): exit status, threads joined, atexit functions run,
output flushed."""

from __future__ import annotations

import subprocess
import sys

import pytest

ENDING = """
import atexit, sys, threading, time
from balancer.entry import end_process

def work():
    time.sleep(0.2)
    print("thread joined")

threading.Thread(target=work).start()  # not a daemon: the interpreter waits for it, and so must we
atexit.register(lambda: print("atexit ran"))
sys.stdout.write("buffered, ")  # a pipe is block-buffered: everything written is lost unless flushed
end_process(SystemExit({code!r}))
"""


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), (130, 130)])
def test_the_process_ends_with_the_status_after_threads_atexit_and_output(code, status) -> None:
    out = subprocess.run([sys.executable, "-c", ENDING.format(code=code)], capture_output=True, text=True)
    assert out.returncode == status, out.stderr
    # the thread ran to its end before the atexit function, and what both wrote was flushed
    assert out.stdout == "buffered, thread joined\natexit ran\n"


def test_a_message_as_the_status_ends_the_usual_way() -> None:
    # SystemExit("text"): Python prints the text and exits 1; end_process leaves that to Python
    out = subprocess.run([sys.executable, "-c", ENDING.format(code="stopped")], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip().endswith("stopped")
    assert out.stdout == "buffered, thread joined\natexit ran\n"
