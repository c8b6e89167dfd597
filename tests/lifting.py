"""Shared end-to-end assertion of the kernel-shape tests: a kernel lifts, passes the
translation validation and its certificate re-checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tenspiler.pipeline import LiftResult, lift_file
from tenspiler.verify.certificate import is_valid, recheck


def assert_lifts(path: Path, tmp_path: Path, **options: Any) -> LiftResult:
    """Lift ``path`` to NumPy with ``--check``; it must verify, pass every check and its
    certificate must re-check with a fresh cvc5."""
    res = lift_file(path, ("numpy",), out_dir=tmp_path, check=True, timeout=120, **options)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    assert res.certificate is not None and is_valid(recheck(res.certificate))
    return res
