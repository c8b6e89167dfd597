"""Where tenspiler writes (one cache root) and with which permissions (the umask's)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tenspiler.cache import ResultCache, default_cache_dir
from tenspiler.paths import cache_root, current_umask, write_text_atomic
from tenspiler.pipeline import default_certificate_dir, lift_file

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: str | Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TENSPILER_CACHE_DIR", str(tmp_path / "t"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_root() == tmp_path / "t"
    assert default_cache_dir() == tmp_path / "t" / "results"
    assert default_certificate_dir() == tmp_path / "t" / "certificates"
    monkeypatch.setenv("TENSPILER_CACHE_DIR", "")
    assert cache_root() == tmp_path / "x" / "tenspiler"
    assert default_certificate_dir() == tmp_path / "x" / "tenspiler" / "certificates"
    monkeypatch.delenv("TENSPILER_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert cache_root() == tmp_path / "h" / ".cache" / "tenspiler"


def test_atomic_writes_honour_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        assert current_umask() == 0o022
        assert _mode(write_text_atomic(tmp_path / "a" / "f.txt", "x")) == 0o644
        os.umask(0o077)
        assert _mode(write_text_atomic(tmp_path / "a" / "g.txt", "x")) == 0o600
        os.umask(0o002)
        assert _mode(write_text_atomic(tmp_path / "a" / "f.txt", "y")) == 0o664
    finally:
        os.umask(old)
    assert (tmp_path / "a" / "f.txt").read_text() == "y"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["f.txt", "g.txt"]  # no temporary left


def test_cache_entries_honour_the_umask(tmp_path: Path, umask_022: None) -> None:
    path = ResultCache(tmp_path / "c").put("k" * 64, {"status": "verified", "certificate_text": "(check-sat)"})
    assert _mode(path) == 0o644


def test_generated_code_and_certificates_honour_the_umask_and_the_cache_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask_022: None,
) -> None:
    monkeypatch.setenv("TENSPILER_CACHE_DIR", str(tmp_path / "root"))
    res = lift_file(ROOT / "examples" / "saxpy.c", ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "verified"
    written = [Path(p) for p in res.outputs.values()] + [Path(str(res.certificate))]
    assert written and all(_mode(p) == 0o644 for p in written)
    res = lift_file(ROOT / "examples" / "saxpy.c", ("numpy",))  # no -o: the certificate in the cache root
    assert res.certificate is not None
    assert Path(res.certificate).parent == tmp_path / "root" / "certificates"
    assert _mode(res.certificate) == 0o644
