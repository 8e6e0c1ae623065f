"""The order tests start in: those marked ``slow`` first (a Spark or Ray job, a fresh
interpreter importing a framework, a child under a deadline, the largest messages), the longest
of them (``slow(longest=True)``) before the rest, then every other test in file order. Run on
several workers (pytest-xdist's ``-n 2 --maxschedchunk 1``), the long tests are spread over the
workers from the start, and the run does not end waiting on one begun last. Each test sets up
what it uses: the order changes when a test runs, never what it checks."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow(longest=False): a test of many seconds, started before the others (conftest.py)"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        slow = item.get_closest_marker("slow")
        if slow is None:
            return 2
        return 0 if slow.kwargs.get("longest") else 1

    items.sort(key=rank)
