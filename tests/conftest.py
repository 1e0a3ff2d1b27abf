"""Shared test configuration.

With ``PLAYOUT_STRICT=1`` (set by ``.ci/run``) a skipped test fails instead: in CI
every peer (OpenSpiel, gnubg, bgsage, Ray, GNU Go) and the shared data are
installed, so a skip there would hide a broken install.  That holds for skips at
collection time too (a module-level ``pytest.importorskip`` that drops a whole
file): the collection report is turned into an error.  Prefer the peer fixtures
below, which import inside each test so each test reports its own skip.
"""

from __future__ import annotations

import os

import pytest


def _strict() -> bool:
    return os.environ.get("PLAYOUT_STRICT") == "1"


def _reason(longrepr) -> str:
    return longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _strict() and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under PLAYOUT_STRICT=1 (CI has every peer installed): {_reason(report.longrepr)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if _strict() and report.skipped:
        report.outcome = "failed"
        report.longrepr = (f"{collector.nodeid}: skipped at collection under PLAYOUT_STRICT=1 "
                           f"(CI has every peer installed): {_reason(report.longrepr)}")


@pytest.fixture
def gnubg():
    """PyPI ``gnubg`` (a test extra), imported in the test so a broken install is reported."""
    return pytest.importorskip("gnubg")


@pytest.fixture
def bgsage():
    """PyPI ``bgsage`` (a test extra), imported in the test."""
    return pytest.importorskip("bgsage")


@pytest.fixture
def pyspiel():
    """OpenSpiel's ``pyspiel`` (a test extra), imported in the test."""
    return pytest.importorskip("pyspiel")
