"""One kernel of a ``lift bench`` run, isolated in child processes.

:func:`run_kernel` is the task every executor runs (a thread of the local executor, or a
Ray task): it starts ``python -m tenspiler.bench.task SPEC RESULT`` — a fresh process, in
its own session, that calls :func:`tenspiler.pipeline.lift_file` (lift, verify, generate,
differential check) and writes the :class:`~tenspiler.pipeline.LiftResult` as JSON — and
kills the whole process group at the hard wall limit (:func:`run_child`, on
:func:`tenspiler.runner.run_command`). A child that dies (signal, non-zero
exit without a result) is recorded as ``crashed`` and one over the limit as ``timeout``:
neither can take the run down or hang it. A verified certificate is then re-checked by
``python -m tenspiler.cli recheck CERT`` — another fresh process with a fresh cvc5 — and a
certificate that does not re-check makes the kernel fail (``recheck_failed``).

The task returns a JSON-able record (see :func:`run_kernel`) with the generated files'
text, so it works the same on a Ray node that does not share the driver's file system.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tenspiler.runner import ChildRegistry, CommandResult, run_command

#: Outcomes of a kernel; only ``verified`` passes.
OUTCOMES = ("verified", "not_lifted", "error", "recheck_failed", "timeout", "crashed")

#: The children of this process's ``lift bench`` run (killed together by :func:`stop_all`).
_CHILDREN = ChildRegistry()


def default_hard_limit(timeout: float) -> float:
    """The per-kernel wall limit: 3 × the synthesis budget + 60 s (process start, proofs
    of the last candidate, code generation, the differential check)."""
    return 3 * timeout + 60


def run_child(cmd: list[str], limit: float, cwd: str | Path | None = None, dump_stack: bool = False) -> CommandResult:
    """Run ``cmd`` in a new session; after ``limit`` seconds kill its whole process group
    (the solver's own worker processes included). Never raises for what the child does
    (:func:`tenspiler.runner.run_command`; the child is registered for :func:`stop_all`).

    With ``dump_stack`` the child is first sent ``SIGUSR1`` and given 2 s to print its
    Python stack to stderr (``faulthandler``, registered by this module's child entry)."""
    return run_command(cmd, limit, cwd=cwd, warn_signal=signal.SIGUSR1 if dump_stack else None,
                       grace=2.0, registry=_CHILDREN)


def stop_all() -> None:
    """Kill every running child and refuse to start new ones (Ctrl-C, early exit)."""
    _CHILDREN.stop_all()


def allow_start() -> None:
    """Undo :func:`stop_all` (at the start of a run)."""
    _CHILDREN.allow_start()


def kernel_spec(
    kid: str, suite: str, path: Path, backends: list[str], timeout: float, hard_limit: float,
    cache_dir: Path | None = None,
) -> dict[str, Any]:
    """The JSON-able input of :func:`run_kernel`. The source text travels along so that a
    node without the driver's files (a Ray cluster) can still lift the kernel.
    ``cache_dir``: the result cache (:mod:`tenspiler.cache`) to serve and store
    verified, checked and re-checked kernels from; ``None`` disables it."""
    try:
        source: str | None = path.read_text(errors="replace")
    except OSError:
        source = None
    return {
        "id": kid, "suite": suite, "path": str(path), "cwd": os.getcwd(), "source": source,
        "backends": list(backends), "timeout": timeout, "hard_limit": hard_limit,
        "cache_dir": None if cache_dir is None else str(cache_dir),
    }


#: Cache namespace of ``lift bench`` records (a lift with ``--check`` and the standalone
#: certificate re-check, both passed).
_CACHE_LANGUAGE = "bench:{suffix}"


def _cache_key(spec: dict[str, Any]) -> str | None:
    from tenspiler.cache import cache_key

    if spec.get("source") is None:
        return None
    suffix = Path(spec["path"]).suffix.lower()
    return cache_key(spec["source"], _CACHE_LANGUAGE.format(suffix=suffix), None, spec["backends"], check=True)


def _from_cache(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The stored record of an identical kernel that verified, passed the check and
    re-checked (``None``: a miss, a corrupted entry, or no cache)."""
    from tenspiler.cache import ResultCache

    key = _cache_key(spec) if spec.get("cache_dir") else None
    if key is None:
        return None
    hit = ResultCache(Path(spec["cache_dir"])).get(key)
    if hit is None or not isinstance(hit.get("bench"), dict):
        return None
    rec = _base(spec)
    rec.update({k: v for k, v in hit.items() if k not in ("bench", "certificate_text")})
    rec.update(hit["bench"])
    rec.update(id=spec["id"], suite=spec["suite"], path=spec["path"], file=Path(spec["path"]).name,
               outcome="verified", reason="", from_cache=True)
    return rec


def _store(spec: dict[str, Any], rec: dict[str, Any], res: dict[str, Any]) -> None:
    """Cache a verified, checked and re-checked record (best effort)."""
    from tenspiler.cache import ResultCache

    key = _cache_key(spec) if spec.get("cache_dir") else None
    cert = res.get("certificate")
    if key is None or not cert:
        return
    cert_text = rec["files"].get(Path(cert).name)
    if cert_text is None:
        return
    payload = dict(res)
    payload["certificate_text"] = cert_text
    payload["bench"] = {"files": rec["files"], "recheck": rec["recheck"], "wall_seconds": rec["wall_seconds"]}
    with contextlib.suppress(OSError, ValueError):  # a read-only cache must not fail the run
        ResultCache(Path(spec["cache_dir"])).put(key, payload)


def failed_record(spec: dict[str, Any], outcome: str, reason: str, seconds: float = 0.0) -> dict[str, Any]:
    """A record for a kernel that produced no :class:`LiftResult` (crash, time-out)."""
    from tenspiler.pipeline import LiftResult

    rec = _base(spec)
    rec.update(LiftResult(status="not_lifted", message=reason).to_json())
    rec.update(outcome=outcome, reason=reason, wall_seconds=round(seconds, 4), task_seconds=round(seconds, 4))
    return rec


def _base(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": spec["id"], "suite": spec["suite"], "path": spec["path"],
        "file": Path(spec["path"]).name, "outcome": "crashed", "reason": "",
        "wall_seconds": 0.0, "task_seconds": 0.0, "recheck": None, "files": {},
    }


def _tail(text: str, lines: int = 3) -> str:
    kept = [x for x in text.strip().splitlines() if x.strip()][-lines:]
    return " | ".join(kept)


def stuck_at(stderr: str) -> str:
    """The innermost frame of the main thread in a ``faulthandler`` dump, or ``""``."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Current thread"):
            for frame in lines[i + 1:]:
                if frame.strip().startswith("File "):
                    return frame.strip()
    return ""


def run_kernel(spec: dict[str, Any]) -> dict[str, Any]:
    """Lift, verify, generate, check and re-check one kernel; never raises for anything the
    kernel does.

    Returns:
        ``id``, ``suite``, ``path``, ``file``; ``outcome`` (one of :data:`OUTCOMES`) and
        ``reason`` (why it is not ``verified``, else ``""``); ``wall_seconds`` (``lift_file``
        in the child, or the child's life if it crashed / timed out); ``task_seconds``
        (everything, re-check included); ``recheck`` (``ok``, ``answers``, ``seconds``,
        ``detail``, or ``None`` without a certificate); every field of
        ``LiftResult.to_json()``; ``files``: name → text of what ``lift_file`` wrote
        (generated code, certificate), for the driver to store; for a time-out or a crash,
        ``diagnostics``: the child's stderr (for a time-out its Python stack).
    """
    t0 = time.perf_counter()
    cached = _from_cache(spec)
    if cached is not None:
        cached["task_seconds"] = round(time.perf_counter() - t0, 4)
        return cached
    rec = _base(spec)
    limit = float(spec["hard_limit"])
    with tempfile.TemporaryDirectory(prefix="tenspiler-bench-") as tmp_s:
        tmp = Path(tmp_s)
        cwd, path = spec["cwd"], spec["path"]
        if not (Path(cwd) / path).is_file():  # another machine: lift the text sent along
            if spec.get("source") is None:
                return failed_record(spec, "error", f"{path}: cannot be read", time.perf_counter() - t0)
            local = tmp / "src" / Path(path).name
            local.parent.mkdir()
            local.write_text(spec["source"])
            cwd, path = str(tmp), str(local)
        child_spec = {
            "path": path, "backends": spec["backends"], "timeout": spec["timeout"],
            "out_dir": str(tmp / "out"),
        }
        (tmp / "spec.json").write_text(json.dumps(child_spec))
        result_file = tmp / "result.json"
        run = run_child(
            [sys.executable, "-m", "tenspiler.bench.task", str(tmp / "spec.json"), str(result_file)],
            limit, cwd=cwd, dump_stack=True,
        )
        if run.timed_out:
            where = stuck_at(run.stderr)
            rec = failed_record(
                spec, "timeout", f"exceeded the per-kernel wall limit of {limit:g} s (killed)"
                + (f"; it was at {where}" if where else ""), time.perf_counter() - t0,
            )
            rec["diagnostics"] = run.stderr[-20000:]
            return rec
        try:
            data = json.loads(result_file.read_text())
        except (OSError, ValueError):
            detail = _tail(run.stderr)
            rec = failed_record(
                spec, "crashed", f"worker crashed ({run.describe()})" + (f": {detail}" if detail else ""),
                time.perf_counter() - t0,
            )
            rec["diagnostics"] = run.stderr[-20000:]
            return rec
        res: dict[str, Any] = data["result"]
        rec.update(res)
        rec["wall_seconds"] = round(float(data["wall_seconds"]), 4)
        status = res.get("status")
        if status == "verified":
            rec["outcome"], rec["reason"] = "verified", ""
            checks = res.get("check") or {}
            bad = [b for b, c in checks.items() if not c.get("ok")]
            if bad or not checks:
                rec["outcome"] = "not_lifted"
                rec["reason"] = "differential check " + (f"failed for {', '.join(bad)}" if bad else "missing")
            cert = res.get("certificate")
            if cert:
                rec["recheck"] = recheck_certificate(cert, limit)
                if not rec["recheck"]["ok"] and rec["outcome"] == "verified":
                    rec["outcome"] = "recheck_failed"
                    rec["reason"] = f"certificate re-check: {rec['recheck']['detail']}"
            elif rec["outcome"] == "verified":
                rec["outcome"], rec["reason"] = "recheck_failed", "no certificate written"
        else:
            rec["outcome"] = "error" if status == "error" else "not_lifted"
            rec["reason"] = res.get("message") or status or "unknown"
        out = tmp / "out"
        if out.is_dir():
            rec["files"] = {f.name: f.read_text(errors="replace") for f in sorted(out.iterdir())
                            if f.is_file() and not f.name.startswith(".")}
        if rec["outcome"] == "verified":
            _store(spec, rec, res)
    rec["task_seconds"] = round(time.perf_counter() - t0, 4)
    rec.setdefault("from_cache", False)
    return rec


def recheck_certificate(cert: str, limit: float) -> dict[str, Any]:
    """``python -m tenspiler.cli recheck CERT`` in a fresh process: ``ok`` iff it exits 0
    and prints ``-> valid`` for the certificate; ``answers`` are cvc5's answers."""
    run = run_child([sys.executable, "-m", "tenspiler.cli", "recheck", cert], limit)
    answers: list[str] = []
    verdict = ""
    for line in run.stdout.splitlines():
        if line.startswith(f"{cert}: ") and " -> " in line:
            body = line[len(cert) + 2:]
            ans, _, verdict = body.rpartition(" -> ")
            answers = ans.split()
    ok = not run.timed_out and run.returncode == 0 and verdict == "valid"
    if ok:
        detail = "valid"
    elif run.timed_out:
        detail = f"timed out after {limit:g} s"
    elif verdict:
        detail = f"{' '.join(answers)} -> {verdict}"
    else:
        detail = f"lift recheck failed ({run.describe()}): {_tail(run.stderr + run.stdout)}"
    return {"ok": ok, "answers": answers, "seconds": round(run.seconds, 4), "detail": detail}


def _child_main(argv: list[str]) -> int:
    """``python -m tenspiler.bench.task SPEC.json RESULT.json``: one ``lift_file`` call.
    ``SIGUSR1`` prints every thread's Python stack to stderr (sent before a time-out kill)."""
    import faulthandler

    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    spec = json.loads(Path(argv[0]).read_text())
    from tenspiler.pipeline import lift_file

    t0 = time.perf_counter()
    res = lift_file(
        spec["path"], spec["backends"], out_dir=spec["out_dir"], timeout=spec["timeout"],
        check=True, force=True,
    )
    wall = time.perf_counter() - t0
    out = Path(argv[1])
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps({"result": res.to_json(), "wall_seconds": wall}))
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
