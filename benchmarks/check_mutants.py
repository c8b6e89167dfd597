"""Would ``--check`` alone catch the issue-32 classes? Mutants of verified generated code.

For each kernel of the fuzzer's red-team shapes (``conversion``, ``pyraise``: random, seeded)
that verifies, the generated NumPy code is mutated back into each wrong form the issue
found, one operator at a time:

* ``double-rounding``: an integer converted to float32 through float64
  (``np.float32(np.int64(x))`` → ``np.float32(x)``, ``a.astype(np.float32)`` of an int array
  → ``a.astype(np.float64).astype(np.float32)``);
* ``int-division``: Python's ``int / int`` as float64 division of the converted operands;
* ``no-raise``: the checks that raise Python's exception deleted (ZeroDivisionError,
  ValueError and OverflowError of ``math``, IndexError of a list read beyond its end).

(C++ ``size()`` arithmetic that may wrap is refused by the frontend before any code exists:
no mutant.) A mutant that the fuzzer's independent oracle (``tenspiler.fuzz.oracle.judge``)
shows wrong is then given to the tool's own translation validation (``lift --check``, the
generated code replaced by the mutant): it must be refused. The report counts, per
operator, the wrong mutants and those ``--check`` rejected; a wrong mutant it accepts is
listed with its kernel.

    python benchmarks/check_mutants.py --budget 200 --seed 1
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tenspiler.fuzz.generate import Draw, KernelSpec, focus_kernel  # noqa: E402
from tenspiler.fuzz.oracle import judge, lift_spec  # noqa: E402

_DOUBLE = "\ndef _float_true_divide(x, y):\n    return np.asarray(x, dtype=np.float64) / np.asarray(y, dtype=np.float64)\n"


def _double_rounding(text: str) -> str:
    text = re.sub(r"np\.float32\(np\.int64\(", "np.float32((", text)
    return re.sub(r"\.astype\(np\.float32\)", ".astype(np.float64).astype(np.float32)", text)


def _int_division(text: str) -> str:
    if "_int_true_divide(" not in text:
        return text
    out = re.sub(r"\b_int_true_divide\((?!x, y\))", "_float_true_divide(", text)
    return out + _DOUBLE


def _no_raise(text: str) -> str:
    return re.sub(r"raise (ZeroDivisionError|OverflowError|IndexError)\(", "_unused = (", re.sub(
        r"raise ValueError\('math", "_unused = ('math", text))


MUTATIONS: dict[str, Callable[[str], str]] = {
    "double-rounding": _double_rounding,
    "int-division": _int_division,
    "no-raise": _no_raise,
}


def _check_rejects(spec: KernelSpec, mutant: str) -> tuple[bool, str]:
    """Whether ``lift --check`` refuses ``spec`` when its NumPy code is ``mutant``."""
    import tenspiler
    from tenspiler.codegen.numpy_backend import NumpyBackend

    real = NumpyBackend.generate

    def generate(self: Any, fn: Any, ps: Any) -> Any:
        from dataclasses import replace

        return replace(real(self, fn, ps), text=mutant)

    with mock.patch.object(NumpyBackend, "generate", generate):
        try:
            tenspiler.lift(spec.source, to="numpy", language=spec.language, function=spec.function,
                           timeout=20, proof_timeout=5, cache=False, check=True)
        except tenspiler.NotLiftable as err:
            return True, str(err)[:200]
        except tenspiler.TenspilerError as err:
            return False, f"other outcome: {type(err).__name__}: {str(err)[:160]}"
    return False, "verified"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=200, help="kernels drawn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shapes", default="conversion,pyraise")
    ap.add_argument("--out", type=Path, default=None, help="write the report (Markdown) here too")
    args = ap.parse_args(argv)
    shapes = args.shapes.split(",")
    rng = random.Random(args.seed)
    wrong: Counter[str] = Counter()
    killed: Counter[str] = Counter()
    survivors: list[str] = []
    verified = 0
    start = time.monotonic()
    for i in range(args.budget):
        spec = focus_kernel(Draw.from_random(rng), shapes[i % len(shapes)], name=f"m{args.seed}_{i}")
        lifted = lift_spec(spec)
        if lifted["status"] != "verified":
            continue
        verified += 1
        for op, mutate in MUTATIONS.items():
            text = mutate(lifted["code"])
            if text == lifted["code"]:
                continue
            v = judge(spec, dict(lifted, code=text))
            if v.cls != "VERIFIED-BUT-WRONG":
                continue
            wrong[op] += 1
            rejected, why = _check_rejects(spec, text)
            if rejected:
                killed[op] += 1
            else:
                survivors.append(f"- {op} of {spec.name} ({why}); oracle: {v.detail[:160]}\n\n```\n{spec.source}```")
        print(f"[{i + 1}/{args.budget} {time.monotonic() - start:6.0f}s] verified {verified}, wrong mutants "
              f"{sum(wrong.values())}, rejected by --check {sum(killed.values())}", flush=True)
    lines = [f"# --check against wrong mutants (seed {args.seed}, {args.budget} kernels of {args.shapes})", "",
             f"{verified} kernels verified; {time.monotonic() - start:.0f} s.", "",
             "| mutation | wrong mutants (oracle) | rejected by --check |", "|---|---:|---:|"]
    lines += [f"| {op} | {wrong[op]} | {killed[op]} |" for op in MUTATIONS]
    lines += ["", "Wrong mutants --check accepted:" if survivors else "Every wrong mutant was rejected by --check.", ""]
    lines += survivors
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out is not None:
        args.out.write_text(report)
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
