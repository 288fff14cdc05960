"""docs/adapters.md's aiokafka example, run as written against the test broker.

It needs aiokafka, a broker and the cooperative-sticky strategy: the aiokafka tox envs run it
(core and docs have no aiokafka and leave this file out)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ADAPTERS = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def example() -> str:
    """The one python block of the "A complete example" section."""
    text = ADAPTERS.read_text(encoding="utf-8")
    section = text.split("### A complete example", 1)[1].split("\n### ", 1)[0]
    (block,) = FENCE.findall(section)
    return block


def create_orders_topic(bootstrap: str, partitions: int) -> None:
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.errors import TopicAlreadyExistsError

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="docs-example")
    try:
        admin.create_topics([NewTopic("orders", partitions, 1)])
    except TopicAlreadyExistsError:
        pass  # a broker of one's own (ASSIGNFRAME_BOOTSTRAP) that ran it before
    finally:
        admin.close()


def test_the_aiokafka_example_runs_and_rebalances_cooperatively(assignframe_kafka_broker, tmp_path):
    create_orders_topic(assignframe_kafka_broker.bootstrap, 4)
    script = tmp_path / "example.py"
    script.write_text(example(), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, "BOOTSTRAP": assignframe_kafka_broker.bootstrap},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    said = [(name, verb, set(json.loads(partitions))) for name, verb, partitions in
            (line.split(" ", 2) for line in result.stdout.splitlines())]  # fmt: skip
    handed = next(i for i, (n, v, p) in enumerate(said) if (n, v) == ("second", "added") and p)
    rebalance = said[: handed + 1]  # later lines: one of them leaving, as they stop
    added_to_first = [p for n, v, p in rebalance if (n, v) == ("first", "added") and p]
    revoked = [p for n, v, p in rebalance if v == "revoked"]
    # The first takes all four, gives up two, which the second gets in the follow-up round;
    # the first is told nothing about the other two, the second revokes nothing.
    assert added_to_first == [{0, 1, 2, 3}], result.stdout
    assert [n for n, v, p in rebalance if v == "revoked"] == ["first"], result.stdout
    assert len(revoked[0]) == 2 and said[handed][2] == revoked[0], result.stdout
