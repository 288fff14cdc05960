"""The codec builds what a process uses, when it first uses it (issue 34: start-up).

Importing the registry loads no declaration module and no construct; its table is made on the
first ``CODECS``/``KINDS``/``message_codec`` use; a generated model is made when its kind is
first decoded or encoded, and only that kind's. Each check runs in a fresh interpreter, since
this one has long since used every kind. Structural, not timed (bench/bench_startup.py times).
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
exec(sys.argv[1])
modules = sorted(name for name in ("construct", "assignframe_codec.kip848",
                                   "assignframe_codec.admin",
                                   "assignframe_codec.coordinator_records") if name in sys.modules)
from assignframe_codec.flexible_models import FlexibleFormat  # the probe's own import, after
registry = sys.modules.get("assignframe_codec.registry")
table = vars(registry).get("CODECS") if registry else None
made = None if table is None else sorted(
    kind for kind, codec in table.items()
    if isinstance(getattr(codec, "fmt", None), FlexibleFormat) and "model" in vars(codec.fmt))
print(json.dumps({"modules": modules, "table": table is not None, "models": made}))
"""


def probe(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, code], capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_importing_the_registry_builds_nothing():
    seen = probe("import assignframe_codec.registry")
    assert seen == {"modules": [], "table": False, "models": None}


def test_the_probe_sees_a_built_table():
    # the check above can fail: a table that is made shows here
    seen = probe("import assignframe_codec; assignframe_codec.KINDS")
    assert seen["table"] is True
    assert "construct" in seen["modules"]
    assert seen["models"] == []  # the table is made; no generated model yet


def test_a_decode_makes_only_its_kinds_model():
    seen = probe("import assignframe_codec as c\n"
                 "value = {'states_filter': [], 'types_filter': []}\n"
                 "c.decode('ListGroupsRequest', c.encode('ListGroupsRequest', value, 5), 5)")
    assert seen["models"] == ["ListGroupsRequest"]


def test_message_codec_answers_without_making_a_model():
    seen = probe("from assignframe_codec.registry import message_codec\n"
                 "assert message_codec('DescribeGroupsResponse').api_key == 15\n"
                 "assert message_codec('NoSuchKind') is None")
    assert seen["table"] is True and seen["models"] == []
