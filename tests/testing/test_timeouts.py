"""No test can hang (issue 35): a wait on a child fails at its deadline with what the child said,
and a test that runs out of its time limit fails alone, with its stack and its children's, while
the run goes on."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from assignframe.testing.broker_base import free_port
from assignframe.testing.child import Child, ChildTimeout, running_children

MEMBER = Path(__file__).resolve().parents[1] / "cluster" / "member.py"


def test_a_member_that_never_becomes_ready_fails_the_wait_with_its_stack_and_stderr():
    # the real member script, pointed at a port nothing listens on: it never owns partitions
    member = Child.start([sys.executable, str(MEMBER), f"127.0.0.1:{free_port()}", "g", "t",
                          "kafka-python", "range"], "member g/t", stack_signal=signal.SIGUSR1)
    try:
        with pytest.raises(ChildTimeout) as failure:
            member.wait_for_line("ready", 8)
    finally:
        member.stop()
    message = str(failure.value)
    assert message.startswith("member g/t never printed 'ready' on stdout (8 s passed)")
    assert f"pid {member.pid}, still running" in message
    # its stack, dumped on SIGUSR1 into its stderr: where it was stuck
    assert "most recent call first" in message and "member.py" in message
    assert member not in running_children()


def test_a_child_that_exits_first_fails_the_wait_at_once_with_its_state_lines():
    script = ("import json, sys; print(json.dumps({'member': 'm1', 'event': 'error', "
              "'error': 'no coordinator'}), file=sys.stderr); sys.exit(3)")
    child = Child.start([sys.executable, "-c", script], "member m1")
    try:
        with pytest.raises(ChildTimeout) as failure:
            child.wait_for_line("ready", 300)  # the closed pipe ends it, not the deadline
    finally:
        child.stop()
    message = str(failure.value)
    assert "(its stdout closed)" in message and "exited with code 3" in message
    assert '{"member": "m1", "event": "error", "error": "no coordinator"}' in message


def test_a_hung_test_fails_alone_with_its_stack_and_its_child(pytester):
    pytester.makepyfile(
        test_hangs="""
        import sys, time
        from assignframe.testing.child import Child

        def test_hangs():
            child = Child.start([sys.executable, "-c", "import time; print('waiting'); "
                                 "time.sleep(600)"], "sleeper")
            child.wait_for_line("waiting", 60)
            time.sleep(600)  # hangs: only the time limit ends it

        def test_after():
            assert True
        """
    )
    result = pytester.runpytest_subprocess("--timeout=5", "-p", "no:cacheprovider", timeout=300)
    result.assert_outcomes(failed=1, passed=1)
    out = result.stdout.str()
    assert "Timeout: the test ran longer than its limit of 5 s" in out
    assert "time.sleep(600)  # hangs" in out  # the test's own stack, where the alarm found it
    assert "--- sleeper (pid " in out and ", still running)" in out
    assert "killed 1 child process(es)" in out
