"""Soundness of loop nests: every scalar a doubly nested loop writes is carried correctly
by the verification conditions (a counter, an induction, a row reduction, a total, or a
per-iteration value substituted by its definition in the *same* iteration) or the kernel
is refused with a reason naming it. Never verified with the scalar's pre-nest value.

Each kernel that lifts is compared with the C compiled by ``cc`` on adversarial inputs
(large values that take rare branches, empty and single rows, negative values), not only
on the pipeline's random states; each refusal's reason is asserted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tenspiler.check import differential_check
from tenspiler.codegen import get_backend
from tenspiler.errors import NotLiftable, VerificationError
from tenspiler.frontend.c import parse_c_source
from tenspiler.ir.terms import Cmp, Lit, ScalarSelect, ScalarVar, Take, TensorScalar, TensorVar
from tenspiler.loops.ir import DType, PointerType
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.conditions import BOUND, Candidate
from tenspiler.vc.nest import ROLES, NestKernel
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

INT = DType.INT
KERNELS = Path(__file__).parent / "kernels"

CARRIED = "is carried across iterations of the loop nest (not a reduction or counter)"

# ---------------------------------------------------------------- kernels that must be refused

REFUSED: dict[str, tuple[str, str]] = {
    # the issue's example: C gives B = {8001, 1} for m = 1, n = 2, A = {8000, 0}
    "sticky": ("""
void sticky(int *A, int *B, int m, int n) {
  int flag = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      if (A[i * n + j] / 1000 > 7) flag = 1;
      B[i * n + j] = A[i * n + j] + flag;
    }
}""", f"scalar 'flag' {CARRIED}"),
    # a value set after the inner loop and read in the next row
    "set_after_inner": ("""
void set_after_inner(int *A, int *B, int m, int n) {
  int last = 0;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] + last;
    }
    last = A[i * n];
  }
}""", f"scalar 'last' {CARRIED}"),
    # prev carried between rows
    "prev_row": ("""
void prev_row(int *A, int *B, int m, int n, int c) {
  int prev = 0;
  for (int i = 0; i < m; i++) {
    int cur = c * 3;
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] + prev;
    }
    prev = cur + 1;
  }
}""", f"scalar 'prev' {CARRIED}"),
    # w = cond ? 2 : 1 in the outer body, used by the next row
    "weight_next_row": ("""
void weight_next_row(int *A, int *B, int m, int n, int c) {
  int w = 1;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] * w;
    }
    w = (c > 0) ? 2 : 1;
  }
}""", f"scalar 'w' {CARRIED}"),
    # a flag that persists through the rows, set before the inner loop
    "sticky_row_flag": ("""
void sticky_row_flag(int *A, int *B, int m, int n, int c) {
  int seen = 0;
  for (int i = 0; i < m; i++) {
    if (c > i) seen = 1;
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] + seen;
    }
  }
}""", f"scalar 'seen' {CARRIED}"),
    # crash (a): a running prefix sum of each row (a scan)
    "row_prefix_sum": ("""
void row_prefix_sum(int *A, int *B, int m, int n) {
  for (int i = 0; i < m; i++) {
    int s = 0;
    for (int j = 0; j < n; j++) {
      s += A[i * n + j];
      B[i * n + j] = s;
    }
  }
}""", f"scalar 's' {CARRIED}"),
    # the last column's value read after the inner loop
    "last_column": ("""
void last_column(int *A, int *y, int m, int n) {
  int t = 0;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      t = A[i * n + j];
    }
    y[i] = t;
  }
}""", f"scalar 't' {CARRIED}"),
    # a total read before the inner loop of the next row
    "total_read_per_row": ("""
int total_read_per_row(int *A, int *B, int m, int n) {
  int total = 0;
  for (int i = 0; i < m; i++) {
    int base = total;
    for (int j = 0; j < n; j++) {
      total += A[i * n + j];
      B[i * n + j] = A[i * n + j] + base;
    }
  }
  return total;
}""", f"scalar 'total' {CARRIED}"),
}


def _write(tmp_path: Path, name: str, src: str) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(src.lstrip())
    return path


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_carried_scalars_are_refused_with_a_named_reason(name: str, tmp_path: Path) -> None:
    src, reason = REFUSED[name]
    res = lift_file(_write(tmp_path, name, src), ["numpy"], out_dir=tmp_path / "out")
    assert res.status == "not_lifted", (res.status, res.summary)
    assert "internal error" not in res.message
    assert reason in res.message, res.message
    assert f"{name}.c:" in res.message  # located
    assert not (tmp_path / "out").exists()


#: Per-row values broadcast along the row, refused before the second form of a VC clause
#: (verify/skolem.py) proved them: name -> (source, a part of the summary).
BROADCAST = {
    # crash (b): row scaling, a per-row value broadcast along the row (a matrix output whose
    # product of a matrix element and a per-row value: proved in the clause's second form,
    # verify/skolem.py)
    "row_scaling": ("""
void row_scaling(float *A, float *scale, float *B, int m, int n) {
  for (int i = 0; i < m; i++) {
    float w = scale[i];
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] * w;
    }
  }
}""", "transpose(matrix(scale, n, m, 0))"),
    # a per-row weight computed from the row's data
    "weight_from_row": ("""
void weight_from_row(int *A, int *B, int *g, int m, int n) {
  for (int i = 0; i < m; i++) {
    int w = (g[i] > 5) ? 2 : 1;
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] * w;
    }
  }
}""", "select(transpose(matrix(g, n, m, 0)) > 5, 2, 1)"),
}


@pytest.mark.parametrize("name", sorted(BROADCAST))
def test_per_row_values_broadcast_along_the_row_verify(name: str, tmp_path: Path) -> None:
    src, part = BROADCAST[name]
    res = assert_lifts(_write(tmp_path, name, src), tmp_path / "out")
    assert res.summary is not None and part in res.summary, res.summary


def test_the_issue_example_differs_from_the_pre_nest_reading() -> None:
    """The example is refused by the analysis itself (not by luck of the random states):
    its flag is read at the head of the nest, where only carried scalars may be read."""
    fn = parse_c_source(REFUSED["sticky"][0], "sticky.c")
    with pytest.raises(NotLiftable, match="scalar 'flag' is carried"):
        analyze_kernel(fn)


# ---------------------------------------------------------------- kernels that must lift

LIFTED: dict[str, tuple[str, dict[str, str]]] = {
    # a temporary assigned before its read in the same iteration
    "temp_in_body": ("""
void temp_in_body(int *A, int *B, int m, int n) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      int t = A[i * n + j] * 2;
      B[i * n + j] = t + 1;
    }
}""", {"t": "temporary"}),
    # the same temporary declared before the nest, with another initial value
    "temp_declared_outside": ("""
void temp_declared_outside(int *A, int *B, int m, int n) {
  int t = 5;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      t = A[i * n + j] * 2;
      B[i * n + j] = t - 1;
    }
}""", {"t": "temporary"}),
    # w = c ? 2 : 1 in the outer body, before the inner loop: a per-row value (the pre-nest
    # value 1 would give another program)
    "weight_per_row": ("""
void weight_per_row(int *A, int *B, int m, int n, int c) {
  int w = 1;
  for (int i = 0; i < m; i++) {
    w = (c > 0) ? 2 : 1;
    for (int j = 0; j < n; j++) {
      B[i * n + j] = A[i * n + j] * w;
    }
  }
}""", {"w": "row value"}),
    # w = scale[i] read after the inner loop: row sums scaled per row
    "scaled_row_sums": ("""
void scaled_row_sums(float *A, float *scale, float *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    float w = scale[i];
    float s = 0;
    for (int j = 0; j < n; j++) {
      s += A[i * n + j];
    }
    y[i] = s * w;
  }
}""", {"w": "row value", "s": "row reduction"}),
    # a value set after the inner loop that no later row reads, and a temporary there
    "set_after_inner_dead": ("""
void set_after_inner_dead(int *A, int *y, int m, int n) {
  int last = 7;
  for (int i = 0; i < m; i++) {
    int s = 0;
    for (int j = 0; j < n; j++) {
      s += A[i * n + j];
    }
    int r = s * 2;
    y[i] = r + 1;
    last = s;
  }
}""", {"last": "temporary", "r": "temporary", "s": "row reduction"}),
    # a per-row value read inside the inner loop by a row reduction: broadcast along the
    # columns (transpose(matrix(scale, n, m, 0)))
    "scaled_row_dot": ("""
void scaled_row_dot(float *A, float *scale, float *x, float *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    float w = scale[i];
    float s = 0;
    for (int j = 0; j < n; j++) {
      s += A[i * n + j] * w + x[j];
    }
    y[i] = s;
  }
}""", {"w": "row value", "s": "row reduction"}),
    "offset_row_sums": ("""
void offset_row_sums(int *A, int *g, int *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    int w = g[i + 1] * 3;
    int s = 0;
    for (int j = 0; j < n; j++) {
      int t = A[i * n + j] - w;
      s += t;
    }
    y[i] = s;
  }
}""", {"w": "row value", "s": "row reduction", "t": "temporary"}),
    # a conditional temporary: assigned on both paths before its read
    "temp_select": ("""
void temp_select(int *A, int *B, int m, int n) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      int t;
      if (A[i * n + j] / 1000 > 7) t = 1; else t = 0;
      B[i * n + j] = A[i * n + j] + t;
    }
}""", {"t": "temporary"}),
}


def _adversarial_inputs(fn: Any, rng: np.random.Generator, count: int = 40) -> list[dict[str, Any]]:
    """Shapes including empty and single rows; values up to ±20000 (so that ``/ 1000 > 7``
    branches go both ways), with some whole rows of large values."""
    shapes = [(0, 0), (0, 3), (3, 0), (1, 1), (1, 2), (2, 1), (2, 3), (3, 2), (4, 4), (5, 3)]
    out: list[dict[str, Any]] = []
    for k in range(count):
        m, n = shapes[k % len(shapes)] if k < 2 * len(shapes) else tuple(int(v) for v in rng.integers(0, 7, 2))
        inputs: dict[str, Any] = {"m": m, "n": n}
        for p in fn.params:
            if p.name in inputs:
                continue
            if isinstance(p.type, PointerType):
                size = m * n + m + n + 2
                if p.type.elem.is_float:
                    inputs[p.name] = np.round(rng.uniform(-20, 20, size), 2)
                else:
                    vals = rng.integers(-20000, 20001, size)
                    vals[rng.random(size) < 0.3] = 0
                    inputs[p.name] = vals.astype(np.int64)
            else:
                inputs[p.name] = int(rng.integers(-3, 4))
        if k == 0 and "A" in inputs and m * n >= 2:
            inputs["A"][:2] = [8000, 0]
        out.append(inputs)
    return out


@pytest.mark.parametrize("name", sorted(LIFTED))
def test_legal_per_iteration_values_lift_and_match_cc(name: str, tmp_path: Path) -> None:
    src, roles = LIFTED[name]
    fn = parse_c_source(src.lstrip(), f"{name}.c")
    k = analyze_kernel(fn)
    assert isinstance(k, NestKernel)
    got = dict(k.roles)
    assert set(got) == k.assigned  # every scalar the nest writes has a role
    assert {x: got[x] for x in roles} == roles
    syn = synthesize(k)
    assert all(r.answer == "unsat" for _, r in syn.proof.results)
    code = get_backend("numpy").generate(fn, syn.summary)
    inputs = _adversarial_inputs(fn, np.random.default_rng(7))
    r = differential_check(fn, syn.summary, code, inputs, tmp_path)
    assert r.ok, r.first_failure
    assert r.n_passed == len(inputs)
    # and the pipeline says so too
    res = lift_file(_write(tmp_path, name, src), ["numpy"], out_dir=tmp_path / "out", check=True)
    assert res.status == "verified", res.message


def test_a_per_row_value_is_not_read_through_its_pre_nest_value() -> None:
    """``w`` is 1 before the nest and ``c > 0 ? 2 : 1`` in every row: the VCs must prove
    the summary with the per-row value and refuse the one with the pre-nest value."""
    fn = parse_c_source(LIFTED["weight_per_row"][0].lstrip(), "weight_per_row.c")
    k = analyze_kernel(fn)
    a = Take(TensorVar("A", INT), ScalarVar(BOUND, INT))
    w_row = ScalarSelect(Cmp(">", ScalarVar("c", INT), Lit(0, INT)), Lit(2, INT), Lit(1, INT), INT)
    right = Candidate((), (("B", TensorScalar("*", a, w_row, False, INT)),))
    stale = Candidate((), (("B", TensorScalar("*", a, Lit(1, INT), False, INT)),))
    prove(k, right)
    with pytest.raises(VerificationError):
        prove(k, stale)


def test_a_row_value_reaches_the_row_output_not_its_pre_nest_value() -> None:
    fn = parse_c_source(LIFTED["scaled_row_sums"][0].lstrip(), "scaled_row_sums.c")
    k = analyze_kernel(fn)
    (row,) = k.rows
    assert "scale" in repr(row.value) and "Var(name='w'" not in repr(row.value)


# ---------------------------------------------------------------- every nest kernel: roles


NESTS = sorted(p.name for p in KERNELS.iterdir() if p.suffix in (".c", ".cc"))


@pytest.mark.parametrize("name", NESTS)
def test_every_scalar_a_nest_writes_has_a_role(name: str) -> None:
    from tenspiler.pipeline import parse_source_file

    fn = parse_source_file(KERNELS / name)
    try:
        k = analyze_kernel(fn)
    except NotLiftable:
        return
    if not isinstance(k, NestKernel):
        return
    roles = dict(k.roles)
    assert set(roles) == k.assigned
    assert set(roles.values()) <= set(ROLES)
    assert roles[k.i] == roles[k.j] == "counter"
    carried = {s.name for s in k.scalars} | {t.name for t in k.totals} | {d.name for d in k.inductions}
    assert {x for x, r in roles.items() if r in ("row reduction", "total", "induction")} == carried

