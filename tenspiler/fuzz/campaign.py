"""Run many generated kernels through lift + the oracle, classify and summarise.

Classes: ``agrees`` (verified, and the generated code agrees with the reference on every
valid input), ``VERIFIED-BUT-WRONG`` (a bug: the kernel and counterexample are saved),
``VERIFIED-INVALID-C`` (verified although gcc rejects the C: a bug), ``caught-by-check``
(with the tool's own check on: proved, then rejected by its differential check -- a
verification or codegen bug that the check caught),
``PRECONDITION-NOT-CHECKED`` (an input violates an assumption the result states, the
generated code does not raise ``ValueError`` as promised, and its result is wrong: a bug), ``no-valid-input``
(verified, but every input was discarded), ``refused`` (a clean BadInput or NotLiftable; its category is
the first words of the reason), ``CRASH`` (any other exception, an ``internal error``, or
the lifting worker died: a bug) and ``timeout`` (the tool's own time-out, or the worker
exceeded the hard wall limit).

Each lift runs in a forked worker process that is killed and restarted when it exceeds the
hard wall limit, so one hung kernel cannot stall a campaign.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import random
import re
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenspiler.fuzz.generate import KernelSpec, random_kernel
from tenspiler.fuzz.oracle import judge, lift_spec, refusal_category

BUGS = ("VERIFIED-BUT-WRONG", "PRECONDITION-NOT-CHECKED", "VERIFIED-INVALID-C", "CRASH")


def _worker(conn: Any) -> None:  # pragma: no cover - runs in the child
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        spec_json, timeout, check = msg
        try:
            out = lift_spec(KernelSpec.from_json(spec_json), timeout=timeout, check=check)
        except BaseException as e:
            out = {"status": "crash", "message": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        conn.send(out)


class Lifter:
    """Lifts kernels in a persistent forked worker with a hard wall limit per kernel."""

    def __init__(self, timeout: float = 20.0, hard_limit: float | None = None, check: bool = False) -> None:
        self.timeout = timeout
        self.check = check
        self.hard_limit = hard_limit or 3 * timeout + 30
        self._ctx = mp.get_context("fork")
        self._proc: Any = None
        self._conn: Any = None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_worker, args=(child,), daemon=False)
        self._proc.start()
        child.close()
        self._conn = parent

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        self._proc = self._conn = None

    def lift(self, spec: KernelSpec) -> dict[str, Any]:
        if self._proc is None or not self._proc.is_alive():
            self._start()
        self._conn.send((spec.to_json(), self.timeout, self.check))
        if not self._conn.poll(self.hard_limit):
            self._kill()
            return {"status": "timeout", "message": f"no answer within the hard limit of {self.hard_limit:.0f} s"}
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            code = self._proc.exitcode if self._proc is not None else None
            self._kill()
            return {"status": "crash", "message": f"the lifting worker died (exit code {code})"}

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
        if self._proc is not None:
            self._proc.join(5)
            if self._proc.is_alive():
                self._proc.kill()
        self._proc = self._conn = None

    def __enter__(self) -> Lifter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_TIMEOUT_WORDS = ("timed out", "timeout", "time limit", "budget")


def run_kernel(spec: KernelSpec, lifter: Lifter | None = None, seed: int = 0, cases: int = 48,
               timeout: float = 20.0, extra_cases: list[Any] | None = None) -> dict[str, Any]:
    """Lift and judge one kernel; a plain-data record with ``cls`` and the details.
    ``extra_cases``: inputs judged first (e.g. a regression's counterexample)."""
    t0 = time.perf_counter()
    lifted = lifter.lift(spec) if lifter is not None else lift_spec(spec, timeout=timeout)
    rec: dict[str, Any] = {"name": spec.name, "language": spec.language, "features": spec.features,
                           "shape": spec.shape, "status": lifted["status"], "message": lifted.get("message", "")}
    st = lifted["status"]
    if st == "verified":
        rec["summary"] = lifted.get("summary", "")
        rec["assumptions"] = lifted.get("assumptions", [])
        try:
            v = judge(spec, lifted, seed=seed, count=cases, extra_cases=extra_cases)
        except Exception as e:
            rec.update(cls="oracle-error", detail=f"{type(e).__name__}: {e}", traceback=traceback.format_exc())
        else:
            rec.update(cls=v.cls, detail=v.detail, counterexample=v.counterexample, c_output=v.c_output,
                       numpy_output=v.numpy_output, tested=v.tested, discarded_ub=v.discarded_ub,
                       discarded_pre=v.discarded_pre, inexact_float=v.inexact_float,
                       float_width_mismatch=v.float_width_mismatch, notes=v.notes, raised_agree=v.raised_agree)
            if v.also:
                rec["also"] = v.also
    elif st == "refused":
        msg = rec["message"]
        if "differential check failed" in msg:
            rec["cls"] = "caught-by-check"  # proved, then rejected by the tool's own check
        elif any(w in msg.lower() for w in _TIMEOUT_WORDS):
            rec["cls"] = "timeout"
        else:
            rec["cls"] = "refused"
        rec["category"] = refusal_category(msg)
    elif st == "timeout":
        rec["cls"] = "timeout"
    else:
        rec["cls"] = "CRASH"
        rec["traceback"] = lifted.get("traceback", "")
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


@dataclass
class Summary:
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    seed: int = 0

    @property
    def counts(self) -> Counter[str]:
        return Counter(r["cls"] for r in self.records)

    def bugs(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r["cls"] in BUGS or r["cls"] == "oracle-error"]

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "kernels": len(self.records), "seconds": round(self.seconds, 1),
                "counts": dict(self.counts), "refusal_categories": dict(self.categories()),
                "refusal_examples": self.examples(),
                "by_language": self.by_language(), "bugs": self.bugs(),
                "float_inexact_agreeing": sum(1 for r in self.records if r.get("inexact_float") and r["cls"] == "agrees"),
                "float_width_mismatch": sum(1 for r in self.records if r.get("float_width_mismatch"))}

    def categories(self) -> Counter[str]:
        return Counter(r.get("category", "?") for r in self.records if r["cls"] == "refused")

    def examples(self) -> dict[str, str]:
        """One full message per refusal category."""
        out: dict[str, str] = {}
        for r in self.records:
            if r["cls"] in ("refused", "timeout"):
                out.setdefault(r.get("category", "?"), r["message"][:400])
        return out

    def by_language(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in self.records:
            out.setdefault(r["language"], Counter())[r["cls"]] += 1
        return {k: dict(v) for k, v in out.items()}

    def markdown(self, command: str = "") -> str:
        n = len(self.records) or 1
        c = self.counts
        lines = ["# Kernel fuzzing campaign", ""]
        if command:
            lines += [f"Command: `{command}`", ""]
        lines += [f"{len(self.records)} generated kernels (seed {self.seed}) in {self.seconds:.0f} s.", "",
                  "| class | kernels | share |", "|---|---:|---:|"]
        for k, v in sorted(c.items(), key=lambda kv: -kv[1]):
            lines.append(f"| {k} | {v} | {100 * v / n:.1f}% |")
        lines += ["", "By language:", "", "| language | " + " | ".join(sorted(c)) + " |",
                  "|---|" + "---:|" * len(c)]
        for lang, cnt in sorted(self.by_language().items()):
            lines.append(f"| {lang} | " + " | ".join(str(cnt.get(k, 0)) for k in sorted(c)) + " |")
        ref = self.categories()
        total_ref = sum(ref.values()) or 1
        lines += ["", "Refusals by reason (first words):", "", "| reason | kernels | share of refusals | example message |", "|---|---:|---:|---|"]
        examples = self.examples()
        for k, v in ref.most_common(40):
            ex = examples.get(k, "").replace("|", "/").replace("\n", " ")[:160]
            lines.append(f"| {k.replace('|', '/')} | {v} | {100 * v / total_ref:.1f}% | {ex} |")
        feats: Counter[str] = Counter()
        ver: Counter[str] = Counter()
        for r in self.records:
            for f in r["features"]:
                feats[f] += 1
                if r["status"] == "verified":
                    ver[f] += 1
        lines += ["", "Verified share by generated feature:", "", "| feature | kernels | verified |", "|---|---:|---:|"]
        for f, v in feats.most_common():
            lines.append(f"| {f} | {v} | {ver[f]} |")
        pre = [r for r in self.records if r.get("discarded_pre")]
        lines += ["", f"Verified kernels whose generated code refused (ValueError: precondition) inputs on which "
                  f"the reference is defined: {len(pre)} (such inputs are discarded, not counted as wrong; "
                  f"a refusal is sound but may be stronger than the stated assumptions). Messages:", ""]
        msgs: Counter[str] = Counter()
        for r in pre:
            for note in r.get("notes", []):
                if note.startswith("precondition refused"):
                    msgs[re.sub(r"\d+", "N", note.split(": ", 1)[1])[:120]] += 1
        for text, count in msgs.most_common(10):
            lines.append(f"- {count} x `{text}`")
        d = self.to_json()
        lines += ["", f"Float kernels that agree only within tolerance: {d['float_inexact_agreeing']}; "
                  f"float32 outputs returned in another dtype: {d['float_width_mismatch']}.", ""]
        bugs = self.bugs()
        lines += [f"## Bugs ({len(bugs)})", ""]
        for r in bugs:
            lines += [f"### {r['name']}: {r['cls']}", "", f"- {r.get('detail') or r.get('message')}"]
            if r.get("summary"):
                lines.append(f"- summary: `{r['summary']}`")
            if r.get("counterexample") is not None:
                lines.append(f"- input: `{json.dumps(r['counterexample'])}`")
                lines.append(f"- reference: `{json.dumps(r['c_output'])}`; generated: `{json.dumps(r['numpy_output'])}`")
            if r.get("also"):
                a = r["also"]
                lines.append(f"- also ({a['cls']}): {a['detail']}; input `{json.dumps(a['counterexample'])}`, "
                             f"reference `{json.dumps(a['reference'])}`, generated `{json.dumps(a['generated'])}`")
            if r.get("file"):
                lines.append(f"- kernel: `{r['file']}`")
            lines.append("")
        return "\n".join(lines) + "\n"


def save_failure(rec: dict[str, Any], spec: KernelSpec, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ext = {"python": ".py", "cxx": ".cc"}.get(spec.language, ".c")
    path = folder / f"{spec.name}{ext}"
    cmt = "#" if spec.language == "python" else "//"
    head = [f"{cmt} fuzz failure: {rec['cls']}", f"{cmt} {rec.get('detail') or rec.get('message')}"]
    if rec.get("summary"):
        head += [f"{cmt} summary: {line}" for line in rec["summary"].splitlines()]
    if rec.get("counterexample") is not None:
        head += [f"{cmt} input: {json.dumps(rec['counterexample'])}",
                 f"{cmt} reference output: {json.dumps(rec['c_output'])}",
                 f"{cmt} generated output: {json.dumps(rec['numpy_output'])}"]
    if rec.get("also"):
        a = rec["also"]
        head += [f"{cmt} also: {a['detail']}", f"{cmt} input: {json.dumps(a['counterexample'])}",
                 f"{cmt} reference output: {json.dumps(a['reference'])}",
                 f"{cmt} generated output: {json.dumps(a['generated'])}"]
    path.write_text("\n".join(head) + "\n" + spec.source, encoding="utf-8")
    (folder / f"{spec.name}.json").write_text(json.dumps({"spec": spec.to_json(), "record": rec}, indent=1, default=str),
                                               encoding="utf-8")
    return path


def run_campaign(budget: int, seed: int = 0, timeout: float = 20.0, python_share: int = 25,
                 failures: Path | None = None, cases: int = 48,
                 progress: Callable[[int, dict[str, Any], Summary], None] | None = None,
                 specs: Iterable[KernelSpec] | None = None, check: bool = False) -> Summary:
    rng = random.Random(seed)
    summary = Summary(seed=seed)
    t0 = time.perf_counter()
    source = specs if specs is not None else (random_kernel(rng, python_share, name=f"k{seed}_{i}") for i in range(budget))
    with Lifter(timeout, check=check) as lifter:
        for i, spec in enumerate(source):
            rec = run_kernel(spec, lifter, seed=seed, cases=cases)
            if rec["cls"] in BUGS and failures is not None:
                rec["file"] = str(save_failure(rec, spec, failures))
            if rec["cls"] in BUGS:
                rec["source"] = spec.source
            summary.records.append(rec)
            summary.seconds = time.perf_counter() - t0
            if progress is not None:
                progress(i, rec, summary)
    return summary


def check_file(path: Path, timeout: float = 20.0, cases: int = 48, seed: int = 0) -> dict[str, Any]:
    """Lift and judge a hand-written kernel file (see :func:`~tenspiler.fuzz.oracle.spec_from_file`):
    the record of :func:`run_kernel`, its ``input:`` comments tried first."""
    from tenspiler.fuzz.oracle import spec_from_file

    spec, given = spec_from_file(Path(path))
    return run_kernel(spec, seed=seed, cases=cases, timeout=timeout, extra_cases=given)


if __name__ == "__main__":  # python -m tenspiler.fuzz.campaign FILE...: judge kernel files
    import sys

    for arg in sys.argv[1:]:
        r = check_file(Path(arg))
        print(f"{arg}: {r['cls']}: {r.get('detail') or r.get('message')}")
        if r.get("counterexample") is not None:
            print(f"  input {json.dumps(r['counterexample'])}\n  reference {json.dumps(r['c_output'])}\n  generated {json.dumps(r['numpy_output'])}")
