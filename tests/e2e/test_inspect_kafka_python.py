"""inspect reads kafka-python's version once a broker answered (issue 34: a refused broker costs
no package metadata): against the real broker, kafka-python older than 3.0 (tox -e kafka-oldest
installs 2.3.3) is one error line and exit 2, a 3.x one (kafka-latest) reads the cluster."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from assignframe.testing.broker import Broker


def test_inspect_says_which_kafka_python_it_needs_once_the_broker_answered(
    assignframe_kafka_broker: Broker,
) -> None:
    installed = version("kafka-python")
    done = subprocess.run(
        [sys.executable, "-m", "assignframe", "inspect", "--bootstrap-server",
         assignframe_kafka_broker.bootstrap, "--timeout", "30", "--json"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    major_minor = ".".join(installed.split(".")[:2])
    if int(installed.split(".")[0]) < 3:
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert done.stderr == (
            f"assignframe: error: reading a live cluster needs kafka-python >= 3.0 (installed: "
            f"{major_minor}); pip install 'assignframe[cluster]' (--bootstrap-server)\n")
    else:
        assert done.returncode in (0, 1), done.stderr  # 1: a group or API said on stderr
        assert "assignframe: error" not in done.stderr, done.stderr
