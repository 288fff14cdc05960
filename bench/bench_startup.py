"""Start-up cost of the commands people wait for, as ratios to two peers measured in the same run.

    python bench/bench_startup.py [--runs 9] [--source DIR] [--profile]

Each case is a fresh interpreter (this one, ``sys.executable``): ``assignframe --help``,
``assignframe plugins``, a failing ``assignframe inspect`` (127.0.0.1:1 refuses at once, so what
is left is start-up and the error), ``import assignframe``, ``import assignframe_codec``, the
codec's registry import and a first decode of one kind (ListGroupsRequest v4: the registry's table,
one generated model, one compiled parser);
the peers are ``python -c pass`` (the interpreter alone) and ``python -c "import kafka"`` (the
client every live command needs anyway). The cases run in alternation, ``--runs`` rounds, so
load on a shared machine falls on every case alike; each row gives the child's CPU time
(user + system, from ``os.wait4``) and wall time, median and minimum, and the median CPU as a
ratio to each peer's.

The children write ``.pyc`` files (the warm-up round makes them) into a directory of the run,
whatever ``PYTHONDONTWRITEBYTECODE`` says, and never into the trees measured.

``--source DIR`` puts DIR and DIR/codec/src first on PYTHONPATH: the same interpreter and
installed dependencies measure another tree (e.g. main before a change). ``--profile`` adds the
slowest imports (``-X importtime``, cumulative) of ``--help`` and of the failing inspect.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CLI = ("-m", "assignframe")
PEERS = {
    "python -c pass": ("-c", "pass"),
    "import kafka": ("-c", "import kafka"),
}
CASES = {
    "assignframe --help": (*CLI, "--help"),
    "assignframe plugins": (*CLI, "plugins"),
    "assignframe plugins --json": (*CLI, "plugins", "--json"),
    "inspect, broker refuses": (*CLI, "inspect", "--bootstrap-server", "127.0.0.1:1",
                                "--timeout", "1"),
    "import assignframe": ("-c", "import assignframe"),
    "import assignframe_codec": ("-c", "import assignframe_codec"),
    "import assignframe_codec.registry": ("-c", "import assignframe_codec.registry"),
    "codec: first decode of one kind": ("-c", "import assignframe_codec as c; "
                                        "c.decode('ListGroupsRequest', b'\\x01\\x00', 4)"),
}


#: children run here: ``-m``/``-c`` put the working directory first on sys.path, and a source
#: tree there would be imported instead of the one measured
NEUTRAL_DIR = tempfile.mkdtemp(prefix="bench-startup-")
atexit.register(shutil.rmtree, NEUTRAL_DIR, ignore_errors=True)  # with the .pyc files


def run_once(args: tuple[str, ...], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh interpreter running ``args``."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *args], env=env, cwd=NEUTRAL_DIR,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = 0  # reaped above: keep Popen from waiting again
    return usage.ru_utime + usage.ru_stime, wall


def import_profile(args: tuple[str, ...], env: dict[str, str], top: int) -> list[tuple[int, str]]:
    """The ``top`` imports with the largest cumulative time (microseconds, module)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], env=env, timeout=120,
                          cwd=NEUTRAL_DIR, capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name[1:]))  # the column's one space of padding
    # only top-level entries (the name not indented under another import) are disjoint
    top_level = [(us, name) for us, name in rows if not name.startswith(" ")]
    return sorted(top_level, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="rounds of every case (default 9)")
    parser.add_argument("--source", help="a source tree to measure instead of the installed one")
    parser.add_argument("--profile", action="store_true", help="print the slowest imports")
    args = parser.parse_args()
    env = dict(os.environ)
    # the warm-up round writes the .pyc files every later round reads: a shell that says
    # PYTHONDONTWRITEBYTECODE would make each child compile every module it imports again;
    # they go to a directory of this run, never into the trees measured
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(NEUTRAL_DIR, "pycache")
    if args.source:
        root = os.path.abspath(args.source)
        env["PYTHONPATH"] = os.pathsep.join([root, os.path.join(root, "codec", "src")])
    everything = {**PEERS, **CASES}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in everything}
    load_before = os.getloadavg()[0]
    for command in everything.values():  # a warm-up round: page cache, .pyc files
        run_once(command, env)
    for _ in range(args.runs):
        for name, command in everything.items():
            samples[name].append(run_once(command, env))
    load_after = os.getloadavg()[0]

    def median_cpu(name: str) -> float:
        return statistics.median(cpu for cpu, _ in samples[name])

    bare, kafka = median_cpu("python -c pass"), median_cpu("import kafka")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.runs} alternating "
          f"rounds, load average {load_before:.1f} before / {load_after:.1f} after"
          + (f", source {args.source}" if args.source else ""))
    print()
    print("| case | CPU median s | CPU min s | wall median s | wall min s | CPU / python -c pass "
          "| CPU / import kafka |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in everything:
        cpus = [cpu for cpu, _ in samples[name]]
        walls = [wall for _, wall in samples[name]]
        cpu = statistics.median(cpus)
        print(f"| {name} | {cpu:.3f} | {min(cpus):.3f} | {statistics.median(walls):.3f} | "
              f"{min(walls):.3f} | {cpu / bare:.1f}x | {cpu / kafka:.2f}x |")
    if args.profile:
        for name in ("assignframe --help", "inspect, broker refuses"):
            print(f"\nslowest imports of {name} (cumulative ms, -X importtime):")
            for us, module in import_profile(CASES[name], env, 8):
                print(f"  {us / 1000:8.1f}  {module}")


if __name__ == "__main__":
    main()
