"""PLAYOUT_STRICT=1 turns every skip into a failure, at collection time as well as in a test."""

from __future__ import annotations

import pytest

CONFTEST = (__import__("pathlib").Path(__file__).parent / "conftest.py").read_text()

MODULE_SKIP = """
import pytest
pytest.importorskip("no_such_peer_module")

def test_never_collected():
    assert True
"""

TEST_SKIP = """
import pytest

def test_skips():
    pytest.importorskip("no_such_peer_module")
"""


@pytest.mark.parametrize("strict", ["1", "0"])
@pytest.mark.parametrize("body", [MODULE_SKIP, TEST_SKIP], ids=["module-level", "in-test"])
def test_a_skip_fails_only_under_strict(pytester, monkeypatch, strict, body):
    monkeypatch.setenv("PLAYOUT_STRICT", strict)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_peer=body)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    outcomes = res.parseoutcomes()
    if strict == "1":
        # a failed collection interrupts the run (exit 2); a failed test exits 1
        assert res.ret in (1, 2) and outcomes.get("failed", 0) + outcomes.get("errors", 0) == 1
        assert "PLAYOUT_STRICT=1" in res.stdout.str()
    else:
        assert res.ret in (0, 5) and outcomes.get("skipped", 0) == 1
