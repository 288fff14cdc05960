"""Start-up loads only what the work needs (issue 34): which modules a fresh interpreter holds
after ``import assignframe``, ``assignframe --help``, ``assignframe plugins`` and an ``inspect``
whose broker refuses. Structural, not timed (the time is bench/bench_startup.py's to print)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import assignframe
from assignframe.testing.broker_base import free_port

#: heavy modules no start-up path below may load: the clients, the wire declarations, tables,
#: YAML, Parquet, capture parsing, and the rebalance runner
HEAVY = (
    "kafka",
    "confluent_kafka",
    "construct",
    "rich",
    "yaml",
    "pyarrow",
    "dpkt",
    "assignframe_codec.registry",
    "assignframe_codec.coordinator_records",
    "assignframe.rebalance",
    "assignframe.replay",
)

#: runs ``CODE`` in a fresh interpreter and prints, as JSON, the heavy modules it left loaded
_PROBE = """
import contextlib, io, json, sys
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        exec(sys.argv[1])
    except SystemExit:
        pass
print(json.dumps(sorted(name for name in sys.argv[2:] if name in sys.modules)))
"""


def loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, code, *heavy],
        capture_output=True, text=True, timeout=120, check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_probe_sees_a_heavy_import():
    # the check below can fail: a command that loads the codec's declarations is caught
    # (importing the registry alone builds nothing: its table is made on first use)
    loaded = loaded_after("import assignframe_codec; assignframe_codec.KINDS")
    assert {"assignframe_codec.registry", "construct"} <= set(loaded)


def test_import_assignframe_loads_none_of_the_heavy_modules():
    assert loaded_after("import assignframe") == []


def test_the_strategy_api_loads_none_of_the_heavy_modules():
    # what a plugin does first: `from assignframe import Strategy, hookimpl`
    assert loaded_after("from assignframe import Strategy, TopicPartition, hookimpl") == []


def test_import_assignframe_codec_builds_no_declaration():
    assert loaded_after("import assignframe_codec; assignframe_codec.CodecError") == []


@pytest.mark.parametrize("argv", [["--help"], ["plugins", "--help"], ["inspect", "--help"]])
def test_help_loads_none_of_the_heavy_modules(argv):
    probe = f"from assignframe.cli import main; sys.exit(main({argv!r}))"
    heavy = HEAVY if argv == ["--help"] else ("kafka", "confluent_kafka", "pyarrow", "dpkt", "yaml")
    assert loaded_after(probe, heavy) == []


def test_python_m_assignframe_help_loads_none_of_the_heavy_modules():
    # the module entry point itself (__main__), as `python -m assignframe --help` runs it
    probe = ("import runpy; sys.argv = ['assignframe', '--help']; "
             "runpy.run_module('assignframe', run_name='__main__')")
    assert loaded_after(probe) == []


def test_plugins_json_loads_no_client_table_or_runner():
    # the installed plugins are imported (that is the command's work), but not a client, rich,
    # construct (the sticky plugin reaches the codec's user-data layouts on first use) or the
    # codec's registry
    probe = "from assignframe.cli import main; sys.exit(main(['plugins', '--json']))"
    assert loaded_after(probe) == []


#: ``python -m assignframe ARGS...`` as a shell runs it; at exit (after the error line and
#: SystemExit) the modules asked about that are loaded go, as JSON, to the file ``sys.argv[1]``
_AT_EXIT = """
import atexit, json, runpy, sys
dump, names, args = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
def _dump():
    with open(dump, "w") as out:
        json.dump(sorted(name for name in names if name in sys.modules), out)
atexit.register(_dump)
sys.argv = ["assignframe", *args]
runpy.run_module("assignframe", run_name="__main__", alter_sys=True)
"""


def test_an_inspect_whose_broker_refuses_loads_no_client_codec_table_or_audit(tmp_path):
    # nothing listens on the port: the command fails as docs/cli.md says (one error line, exit
    # 2) having loaded neither kafka-python (its version is read from its package metadata, its
    # client once a broker answered as Kafka), construct and the codec's table (the reader's
    # API versions are made on first use), the audit (loaded once a group is judged), rich
    # (asked about the terminal once the cluster is read) nor importlib.metadata (kafka-python's
    # version is read once a broker answered)
    address = f"127.0.0.1:{free_port()}"
    dump = tmp_path / "loaded.json"
    ran = "assignframe.cluster.transport"  # the connection was tried: the dump can see it
    heavy = (*HEAVY, "assignframe.audit", "importlib.metadata")
    done = subprocess.run(
        [sys.executable, "-c", _AT_EXIT, str(dump), ",".join((ran, *heavy)),
         "inspect", "--bootstrap-server", address, "--timeout", "1"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (f"assignframe: error: cannot connect to {address}: connection "
                           "refused: nothing listens on that port (check the port and that the "
                           "broker runs) (--bootstrap-server)\n")
    assert json.loads(dump.read_text()) == [ran]


def test_the_lazy_names_are_the_public_api():
    # every name of __all__ resolves through the lazy table, dir() lists them all, and an
    # unknown name is still an AttributeError
    assert set(assignframe.__all__) == set(assignframe._MODULE_OF) | {"__version__"}
    assert set(assignframe.__all__) <= set(dir(assignframe))
    for name in assignframe.__all__:
        assert getattr(assignframe, name) is not None
    assert assignframe.Strategy.__module__ == "assignframe.strategy"
    with pytest.raises(AttributeError, match="no_such_name"):
        assignframe.no_such_name  # noqa: B018


def test_an_inspect_without_kafka_python_says_so_before_connecting():
    # kafka-python's version is read once a broker answered; a missing kafka-python is still
    # said at once (here made unimportable the way Python documents: a None in sys.modules),
    # whatever the broker, as the same one line and exit 2
    code = ("import runpy, sys; sys.modules['kafka'] = None; sys.argv[0] = 'assignframe'; "
            "runpy.run_module('assignframe', run_name='__main__', alter_sys=True)")
    done = subprocess.run(
        [sys.executable, "-c", code, "inspect", "--bootstrap-server",
         f"127.0.0.1:{free_port()}", "--timeout", "1"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("assignframe: error: reading a live cluster needs kafka-python >= 3.0 "
                           "(installed: not installed); pip install 'assignframe[cluster]' "
                           "(--bootstrap-server)\n")
