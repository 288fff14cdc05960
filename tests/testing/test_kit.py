"""The rest of the test kit: hypothesis generators, shared_path, the pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from assignframe.testing import SHARED_ENV, shared_path
from assignframe.testing.strategies import clusters, group_subscriptions, histories


@settings(max_examples=30)
@given(group_subscriptions(racks=True))
def test_group_subscriptions_are_consistent(group):
    assert all(m.member_id == k for k, m in group.members.items())
    for topic, racks in (group.cluster.partition_racks or {}).items():
        assert len(racks) == group.cluster.partitions_per_topic[topic]


@settings(max_examples=30)
@given(histories(max_rounds=5, max_members=4))
def test_histories_have_members_every_round(history):
    assert 1 <= len(history) <= 5
    for step in history:
        assert 1 <= len(step.consumers) <= 4
        assert len({c.member_id for c in step.consumers}) == len(step.consumers)
    counts = [step.cluster.partitions_per_topic for step in history]
    for before, after in zip(counts, counts[1:], strict=False):
        assert all(after[t] >= n for t, n in before.items())  # topics only grow


@settings(max_examples=10)
@given(clusters(max_topics=2, max_partitions=3))
def test_clusters_respect_bounds(cluster):
    assert 1 <= len(cluster.partitions_per_topic) <= 2
    assert all(0 <= n <= 3 for n in cluster.partitions_per_topic.values())


def test_shared_path_walks_up_to_a_sibling_shared(tmp_path, monkeypatch):
    monkeypatch.delenv(SHARED_ENV, raising=False)
    (tmp_path / "shared" / "golden").mkdir(parents=True)
    start = tmp_path / "clone" / "tests"
    start.mkdir(parents=True)
    assert shared_path(start) == tmp_path / "shared"


def test_shared_path_prefers_the_environment(tmp_path, monkeypatch):
    (tmp_path / "golden").mkdir()
    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    assert shared_path("/") == tmp_path


def test_shared_path_missing_fails_loudly(tmp_path, monkeypatch):
    monkeypatch.delenv(SHARED_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match=f"set {SHARED_ENV}"):
        shared_path(tmp_path)
    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no golden/"):
        shared_path()


def test_shared_dir_fixture(shared_dir):
    assert (shared_dir / "golden" / "assign.jsonl").is_file()


def test_pm_fixture_is_isolated_and_cleans_up(pytester):
    pytester.makepyfile(
        """
        from assignframe import hookimpl

        class Plugin:
            @hookimpl
            def register_strategies(self, registry):
                pass

        PLUGIN = Plugin()

        def test_isolated(assignframe_isolated_pm):
            pm = assignframe_isolated_pm
            assert pm.strategy_names() == ()
            pm.register(PLUGIN, name="temporary")
            assert [s.plugin for s in pm.plugin_sources()] == ["temporary"]
            test_isolated.manager = pm

        def test_cleaned_up():
            manager = test_isolated.manager
            assert manager.plugin_sources() == ()

        def test_full_manager(assignframe_pm):
            assert assignframe_pm is not None
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_the_plugin_leaves_generic_fixture_names_to_the_project(pytester):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    listed = pytester.runpytest("--fixtures", "-p", "no:cacheprovider").stdout.lines
    names = {line.split()[0] for line in listed if line and not line.startswith(" ")}
    assert {"assignframe_isolated_pm", "assignframe_pm", "assignframe_shared_dir"} <= names
    assert not {"pm", "shared_dir", "kafka_broker"} & names


def test_kit_is_importable_from_the_package():
    import assignframe.testing as kit

    assert kit.__all__ == sorted(kit.__all__)
    assert Path(kit.__file__).parent.name == "testing"
