"""The Spark engine: the same per-group audit as a partition-parallel map over the input.

* the input is read by Spark's own readers (``textFile`` for JSON lines, ``read.parquet``) and
  numbered with ``zipWithIndex`` (the same row numbers as the local engine);
* ``mapPartitions`` audits each partition's groups on the executors; the strategy names travel
  in a broadcast and every executor process builds its own :class:`AuditContext` once (the
  assignframe packages and plugins must be installed where executors run);
* rows and malformed rows are written by Spark's writers (``rows.parquet/``, ``rows.jsonl/``,
  ``malformed.jsonl/``); the summary is computed with Spark aggregations, and only the few
  worst groups are brought to the driver, for the report. Nothing collects the data set.

Spark listens on 127.0.0.1 only and its logs are quiet (WARN from Spark itself is hidden too).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..snapshot import MalformedSnapshot
from .chunks import input_format, superseded_rows
from .group import audit_group, fewer_collections
from .options import AuditOptions
from .output import MIGRATION_CSV, migration_line, write_json
from .rerun import AuditContext
from .rows import ATTENTION, COLUMNS, GROUP_COLUMNS, MIGRATION_COLUMNS
from .summary import (
    ATTENTION_EXAMPLES,
    EXAMPLE_COLUMNS,
    GROUP_SUMS,
    STRATEGY_SUMS,
    Aggregates,
    run_facts,
    summary_document,
)

__all__ = ["run_spark", "spark_session"]

_executor_context: dict[tuple[str, ...], AuditContext] = {}


def spark_session(master: str = "local[*]", app_name: str = "assignframe-audit") -> Any:
    """A SparkSession bound to loopback with quiet logs."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    quiet = (
        f"-Dlog4j2.configurationFile={Path(__file__).with_name('log4j2-quiet.properties').as_uri()}"
    )
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.extraJavaOptions", quiet)
        .config("spark.executor.extraJavaOptions", quiet)
    )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _context(strategies: tuple[str, ...]) -> AuditContext:
    """One context per executor Python process (built on first use, then reused)."""
    if strategies not in _executor_context:
        _executor_context[strategies] = AuditContext.create(strategies)
    return _executor_context[strategies]


def _audit_partition(
    strategies: tuple[str, ...], items: Iterable[tuple[int, Any]]
) -> Iterator[tuple]:
    """Executor side: ``(input_row, raw)`` -> ("row", values) or ("malformed", (row, error))."""
    context = _context(strategies)
    for input_row, raw in items:
        try:
            with fewer_collections():  # per group: never held while the generator waits
                rows, _ = audit_group(input_row, raw, context)
        except MalformedSnapshot as exc:
            yield ("malformed", (input_row, str(exc)))
            continue
        for row in rows:
            yield ("row", tuple(row[name] for name, _ in COLUMNS))


def _indexed_input(spark: Any, path: str, options: AuditOptions) -> Any:
    """RDD of ``(input_row, raw)`` read with Spark's readers, numbered like the local engine."""
    if input_format(Path(path)) == "jsonl":
        lines = spark.sparkContext.textFile(path, options.spark_partitions)
        numbered = lines.zipWithIndex().map(lambda pair: (pair[1] + 1, pair[0]))
        return numbered.filter(lambda item: item[1].strip() != "")
    frame = spark.read.parquet(path)
    if options.spark_partitions:
        frame = frame.repartition(options.spark_partitions)  # keeps zipWithIndex order stable
    rows = frame.rdd.zipWithIndex()
    return rows.map(lambda pair: (pair[1] + 1, pair[0].asDict(recursive=True)))


def _spark_schema() -> Any:
    from pyspark.sql import types as T

    kinds = {"string": T.StringType(), "int": T.LongType(), "bool": T.BooleanType()}
    return T.StructType([T.StructField(name, kinds[kind], True) for name, kind in COLUMNS])


def run_spark(input_path: str | Path, out_dir: str | Path, options: AuditOptions) -> dict[str, Any]:
    """Audit with Spark; writes the same outputs as the local engine (as Spark folders)."""
    from pyspark import StorageLevel
    from pyspark.sql import types as T

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    driver_context = AuditContext.create(options.strategies)
    strategies = driver_context.strategies
    spark = spark_session(options.master)
    started = time.perf_counter()
    shipped = spark.sparkContext.broadcast(strategies)
    skip = frozenset() if options.all_generations else superseded_rows(input_path)
    skipped = spark.sparkContext.broadcast(skip)
    indexed = _indexed_input(spark, str(input_path), options).filter(
        lambda item: item[0] not in skipped.value
    )
    results = indexed.mapPartitions(lambda items: _audit_partition(shipped.value, items))
    results.persist(StorageLevel.MEMORY_AND_DISK)
    rows = spark.createDataFrame(
        results.filter(lambda r: r[0] == "row").map(lambda r: r[1]), _spark_schema()
    )
    malformed_schema = T.StructType(
        [T.StructField("input_row", T.LongType()), T.StructField("error", T.StringType())]
    )
    malformed = spark.createDataFrame(
        results.filter(lambda r: r[0] == "malformed").map(lambda r: r[1]), malformed_schema
    )
    _write(rows, malformed, out_dir)
    aggregates = _aggregates(rows, malformed, strategies)
    worst_rows = _worst_input_rows(rows, options.worst)
    attention = _attention_lists(rows)
    elapsed = time.perf_counter() - started
    results.unpersist()
    details = _details(indexed, worst_rows, driver_context)
    run = run_facts("spark", input_path, elapsed, aggregates, len(skip), master=options.master)
    summary = summary_document(aggregates, details, run, attention)
    write_json(out_dir / "summary.json", summary)
    return summary


def _write(rows: Any, malformed: Any, out_dir: Path) -> None:
    from pyspark.sql import functions as F

    rows.write.mode("overwrite").parquet(str(out_dir / "rows.parquet"))
    rows.write.mode("overwrite").option("ignoreNullFields", "false").json(
        str(out_dir / "rows.jsonl")
    )
    groups = rows.filter(F.col("first_of_group")).select(
        *[name for name, _ in GROUP_COLUMNS + MIGRATION_COLUMNS]
    )
    groups.write.mode("overwrite").option("ignoreNullFields", "false").json(
        str(out_dir / "groups.jsonl")
    )
    lines = groups.filter(F.col("migration_verdict").isNotNull()).rdd.map(
        lambda record: ["" if v is None else str(v) for v in migration_line(record.asDict())]
    )
    header = list(MIGRATION_CSV)
    lines.toDF(header).write.mode("overwrite").option("header", "true").csv(
        str(out_dir / "migration.csv")
    )
    malformed.write.mode("overwrite").json(str(out_dir / "malformed.jsonl"))


def _sum_expression(column: str, how: str) -> Any:
    """The Spark aggregate of :func:`assignframe.audit.summary.contribution` for ``how``."""
    from pyspark.sql import functions as F

    c = F.col(column)
    allowed = how.endswith("_allowed")
    how = how.removesuffix("_allowed")
    kind, _, argument = how.partition(":")
    expressions = {
        "count": F.lit(1),
        "not_null": F.when(c.isNotNull(), 1).otherwise(0),
        "not_empty": F.when(c.isNotNull() & (c != ""), 1).otherwise(0),
        "is_null": F.when(c.isNull(), 1).otherwise(0),
        "is_false": F.when(c == F.lit(False), 1).otherwise(0),
        "is_true": F.when(c == F.lit(True), 1).otherwise(0),
        "positive": F.when(c > 0, 1).otherwise(0),
        "equals": F.when(c == F.lit(argument), 1).otherwise(0),
        "has": F.when(F.array_contains(F.split(F.coalesce(c, F.lit("")), ","), argument), 1)
        .otherwise(0),
        "sum": F.coalesce(c, F.lit(0)),
        "max": F.coalesce(c, F.lit(0)),
    }
    value = expressions[kind]
    if allowed:
        value = F.when(F.col("migration_verdict") == F.lit("allowed"), value).otherwise(0)
    return F.max(value) if kind == "max" else F.sum(value)


def _aggregates(rows: Any, malformed: Any, strategies: tuple[str, ...]) -> Aggregates:
    from pyspark.sql import functions as F

    aggregates = Aggregates(strategies)
    per_strategy = rows.groupBy("strategy").agg(
        *[_sum_expression(column, how).alias(key) for key, column, how in STRATEGY_SUMS]
    )
    for record in per_strategy.collect():  # one small row per strategy
        values = record.asDict()
        name = values.pop("strategy")
        aggregates.per_strategy[name] = {k: int(v or 0) for k, v in values.items()}
    first_rows = rows.filter(F.col("first_of_group"))
    group_level = first_rows.agg(
        *[_sum_expression(c, how).alias(key) for key, c, how in GROUP_SUMS]
    )
    aggregates.current = {k: int(v or 0) for k, v in group_level.first().asDict().items()}
    switched = first_rows.filter(
        F.col("recommendation").isNotNull()
        & ~F.col("recommendation").eqNullSafe(F.col("current_strategy"))
    )
    for record in switched.groupBy("current_strategy", "recommendation").count().collect():
        key = (str(record["current_strategy"]), record["recommendation"])
        aggregates.switches[key] = int(record["count"])
    aggregates.malformed = malformed.count()
    examples = malformed.orderBy("input_row").limit(20).collect()
    aggregates.malformed_examples = [(int(r["input_row"]), r["error"]) for r in examples]
    return aggregates


def _worst_input_rows(rows: Any, limit: int) -> list[int]:
    """The input rows of the worst groups needing attention, ordered as the local engine
    orders them."""
    from pyspark.sql import functions as F

    if not limit:
        return []
    order = [
        F.col(c).desc_nulls_last()
        for c in (
            "current_problem_count",
            "current_spread",
            "current_idle_members",
            "current_balance_score",
        )
    ]
    worst = rows.filter(F.col("first_of_group") & (F.col("attention") != "")).orderBy(
        *order, F.col("input_row").asc()
    )
    return [int(r["input_row"]) for r in worst.select("input_row").limit(limit).collect()]


def _attention_lists(rows: Any) -> dict[str, list[dict[str, Any]]]:
    """The first groups (input order) of each problem, as the local engine names them."""
    from pyspark.sql import functions as F

    first_rows = rows.filter(F.col("first_of_group"))
    named = {}
    for key, _ in ATTENTION:
        having = first_rows.filter(F.array_contains(F.split(F.col("attention"), ","), key))
        found = having.orderBy("input_row").select(*EXAMPLE_COLUMNS).limit(ATTENTION_EXAMPLES)
        named[key] = [record.asDict() for record in found.collect()]
    return named


def _details(indexed: Any, input_rows: list[int], context: AuditContext) -> list[dict[str, Any]]:
    """Bring only the worst groups' input rows to the driver and audit them in detail."""
    wanted = set(input_rows)
    raws = dict(indexed.filter(lambda item: item[0] in wanted).collect())
    return [
        audit_group(row, raws[row], context, detail=True)[1] or {}
        for row in input_rows
        if row in raws
    ]
