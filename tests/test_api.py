"""The Python API (tenspiler.lift / Lifted.compile) and the persistent result cache."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tenspiler
from tenspiler.cache import ResultCache, cache_key, normalise_source

HERE = Path(__file__).parent
SAXPY = """void saxpy(float a, float *x, float *y, int n) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""


def test_lift_source_text_and_compile(tmp_path: Path) -> None:
    res = tenspiler.lift(SAXPY, to="numpy", cache_dir=tmp_path)
    assert res.status == "verified" and not res.from_cache
    assert res.summary == "y[0:n] = tensor_tensor(scalar_tensor(a, take(x, n), *), take(y, n), +)"
    assert res.invariants and res.certificate and Path(res.certificate).is_file()
    assert set(res.timings) >= {"parse", "analyze", "synthesis", "verification", "codegen"}
    fast = res.compile()
    y = fast(2.0, np.array([1.0, 2.0]), np.array([10.0, 20.0]), 2)
    assert y.tolist() == [12.0, 24.0]


def test_lift_a_path_with_check(tmp_path: Path) -> None:
    res = tenspiler.lift(HERE / "kernels" / "img_avg.cc", check=True, cache_dir=tmp_path)
    assert res.status == "verified" and res.result.check is not None
    assert res.result.check["numpy"]["ok"]
    out = res.compile()(np.full((2, 3), 9, dtype=np.uint8), np.full((2, 3), 4, dtype=np.uint8))
    assert out.shape == (2, 3) and int(out[0, 0]) == 6


def test_not_lifted_raises_lift_error_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(tenspiler.NotLiftable, match=r"prefix_sum was not lifted \(not_lifted\): .*scan") as e:
        tenspiler.lift(HERE / "kernels" / "prefix_sum.c", cache_dir=tmp_path)
    assert e.value.result.status == "not_lifted"  # type: ignore[attr-defined]
    with pytest.raises(tenspiler.BadInput, match="syntax error"):
        tenspiler.lift("void f(int *a) { a[0] = ; }", cache_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []  # failures are not cached


def test_cache_hit_miss_and_corruption(tmp_path: Path) -> None:
    first = tenspiler.lift(SAXPY, cache_dir=tmp_path)
    (entry,) = tmp_path.glob("*.json")
    hit = tenspiler.lift(SAXPY, cache_dir=tmp_path)
    assert hit.from_cache and hit.summary == first.summary and hit.code == first.code
    # whitespace-only edits hit; a real edit, another backend list or check flag misses
    assert tenspiler.lift(SAXPY.replace("\n", "  \r\n"), cache_dir=tmp_path).from_cache
    assert not tenspiler.lift(SAXPY.replace("a * x[i]", "x[i] * a"), cache_dir=tmp_path).from_cache
    # a tampered payload (digest mismatch) is a miss, recomputed and rewritten
    data = json.loads(entry.read_text())
    data["payload"]["summary"] = "y[0:n] = take(x, n)"
    entry.write_text(json.dumps(data))
    again = tenspiler.lift(SAXPY, cache_dir=tmp_path)
    assert not again.from_cache and again.summary == first.summary
    assert json.loads(entry.read_text())["payload"]["summary"] == first.summary
    # a truncated file, and garbage, are misses too
    for junk in (entry.read_text()[:40], "not json", json.dumps({"format": 1})):
        entry.write_text(junk)
        assert not tenspiler.lift(SAXPY, cache_dir=tmp_path).from_cache
    assert tenspiler.lift(SAXPY, cache_dir=tmp_path, recheck=True).from_cache


def test_cache_hit_restores_a_deleted_certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    first = tenspiler.lift(SAXPY, cache_dir=tmp_path / "c")
    assert first.certificate is not None
    Path(first.certificate).unlink()
    hit = tenspiler.lift(SAXPY, cache_dir=tmp_path / "c")
    assert hit.from_cache and hit.certificate is not None and Path(hit.certificate).is_file()


def test_cache_key_and_store_contract(tmp_path: Path) -> None:
    assert normalise_source("a  \r\nb\t\n\n") == "a\nb\n"
    k1 = cache_key("x", "c", "f", ["numpy"])
    assert k1 == cache_key("x\n", "c", "f", ["numpy"])
    assert k1 != cache_key("x", "c", "f", ["numpy"], check=True)
    assert k1 != cache_key("x", "cxx", "f", ["numpy"])
    store = ResultCache(tmp_path)
    with pytest.raises(ValueError, match="only verified"):
        store.put(k1, {"status": "not_lifted"})
    assert store.get(k1) is None
    store.put(k1, {"status": "verified", "certificate_text": "(check-sat)"})
    assert store.get(k1) == {"status": "verified", "certificate_text": "(check-sat)"}
    assert store.get(cache_key("y", "c", "f", ["numpy"])) is None
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave no temporaries


def test_cache_key_changes_with_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edited tenspiler code (same version number) never reuses a result of the old code."""
    from tenspiler import cache

    before = cache_key("x", "c", "f", ["numpy"])
    assert len(cache.code_fingerprint()) == 64
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "edited")
    assert cache_key("x", "c", "f", ["numpy"]) != before


def normal_blend(base: list[float], active: list[float], opacity: float) -> list[float]:
    out = []
    for i in range(len(base)):
        out.append(opacity * active[i] + (1 - opacity) * base[i])
    return out


def not_a_kernel(xs: list[float]) -> float:
    total = 0.0
    for x in xs:
        total = total * 0.5 + x  # a recurrence: not expressible in TensIR
    return total


def test_lift_a_python_function_object(tmp_path: Path) -> None:
    res = tenspiler.lift(normal_blend, to="numpy", cache_dir=tmp_path, check=True)
    assert res.status == "verified" and res.function == "normal_blend"
    assert res.result.check is not None and res.result.check["numpy"]["ok"]
    fast = res.compile()
    got = fast([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], 0.25)
    assert np.allclose(got, normal_blend([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], 0.25))


def test_decorator_uses_the_verified_code_and_the_cache(tmp_path: Path) -> None:
    fast = tenspiler.lifted(to="numpy", cache_dir=tmp_path)(normal_blend)
    assert fast is not normal_blend and fast.original is normal_blend  # type: ignore[attr-defined]
    assert not fast.lifted.from_cache  # type: ignore[attr-defined]
    assert np.allclose(fast([1.0, 2.0], [3.0, 5.0], 0.5), [2.0, 3.5])
    assert fast.__name__ == "normal_blend" and fast.__doc__ == normal_blend.__doc__
    again = tenspiler.lifted(to="numpy", cache_dir=tmp_path)(normal_blend)  # a second import
    assert again.lifted.from_cache  # type: ignore[attr-defined]


def test_decorator_falls_back_to_the_original_with_one_warning(tmp_path: Path) -> None:
    with pytest.warns(tenspiler.LiftWarning, match="not_a_kernel was not lifted, the original function is used") as rec:
        f = tenspiler.lifted(to="numpy", cache_dir=tmp_path)(not_a_kernel)
    assert len(rec) == 1
    assert f is not_a_kernel and f([1.0, 2.0]) == 2.5
    with pytest.warns(tenspiler.LiftWarning, match="unknown backend|not lifted"):
        g = tenspiler.lifted(to="no_such_backend", cache_dir=tmp_path)(normal_blend)
    assert g is normal_blend


def test_decorated_module_with_check_imports_once(tmp_path: Path) -> None:
    """The differential check runs the module's original function (the decorator does not
    lift again inside the check's child process) and the decorator itself is accepted by
    the Python frontend."""
    import importlib.util

    mod = tmp_path / "legacy_mod.py"
    mod.write_text(
        "import tenspiler\n\n\n"
        f"@tenspiler.lifted(to='numpy', check=True, cache_dir={str(tmp_path / 'cache')!r})\n"
        "def scale(xs: list[float], s: float) -> list[float]:\n"
        "    out = []\n"
        "    for i in range(len(xs)):\n"
        "        out.append(xs[i] * s)\n"
        "    return out\n"
    )
    spec = importlib.util.spec_from_file_location("legacy_mod", mod)
    assert spec is not None and spec.loader is not None
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    assert hasattr(m.scale, "lifted"), "not lifted"
    assert m.scale.lifted.result.check["numpy"]["ok"]
    assert m.scale([1.0, 2.0], 3.0).tolist() == [3.0, 6.0]
