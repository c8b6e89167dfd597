"""Gemmini table: every kernel lifted with ``--to gemmini --check``, plus the matmul utilisation
point and the oracle's speed.

    python benchmarks/gemmini.py [DIR|FILE ...] [--config auto|int8|fp32] [--json FILE]
    python benchmarks/gemmini.py --matmul 12544x64x256 [--dim 16]
    python benchmarks/gemmini.py --oracle-speed
    python benchmarks/gemmini.py --markdown TABLE.md --from-json FILE   (render a saved run)
    python benchmarks/gemmini.py --timing 16 [--seed 17] [DIR|FILE ...]

Kernels (default: ``benchmarks/kernels`` and ``$TENSPILER_CORPORA/c2taco``): for each verified
kernel, the ops on Gemmini (device calls: matrix products, elementwise add/sub/scale) and what
the host computes, the check result (the generic differential check against the original and
the device check against the TensIR interpreter, integers bit-exact, with C == assembly), and
the modelled cycles / utilisation of the largest check input (``tenspiler.act.cost``).
``--config auto`` (default) lets the backend choose per kernel (the configuration that puts
more of it on Gemmini); ``int8`` / ``fp32`` force one (and so refuse kernels it cannot hold).
Exit code 0 always (a measurement).

``--matmul MxNxK``: the instruction stream the code generator's tiled product emits for an int8
``M×K · K×N`` product, its modelled cycles and utilisation (MACs / (DIM² · cycles)), next to
published points for 12544×64×256 on a 16×16 Gemmini (Autocomp, §4.4 / App. D).

``--timing N``: the per-kernel compile time a user sees: ``N`` kernels drawn with
``random.Random(seed)`` from the paths, each timed as a fresh ``python -m tenspiler.cli F --to
gemmini --check -q`` process with an empty cache folder (``XDG_CACHE_HOME``), one at a time;
prints each time, the median and the slowest. Run it on an idle machine.

``--oracle-speed``: wall time of one 16×16 tile (config, mvin ×2, preload, compute, mvout) on
the oracle, best of 200.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import DEFAULT, collect

from tenspiler.act.cost import estimate
from tenspiler.act.gemm_search import choose_variant, gemm_schedule_proc, schedule_name
from tenspiler.act.isa import Inst
from tenspiler.act.isa.gemmini import ACC_BIT, GARBAGE, RAW_BIT, gemmini_isa
from tenspiler.act.oracle import HbmBuffer, Oracle
from tenspiler.act.schedule import run_proc
from tenspiler.pipeline import lift_file

PUBLISHED = [("Gemmini software library", 0.16), ("Exo, unoptimised", 0.28), ("Exo, hand-scheduled", 0.43), ("Autocomp", 0.93)]


def matmul(shape: str, dim: int) -> None:
    m, n, k = (int(x) for x in shape.lower().split("x"))
    isa = gemmini_isa(dim, "int8")
    t = time.perf_counter()
    s = choose_variant(m, n, k, dim, isa.params["spad_rows"])   # what the generated C picks at run time
    mb, nb, kc = -(-m // (s.tm * dim)), -(-n // (s.tn * dim)), -(-k // (s.tk * dim))
    mp, np_, kp = mb * s.tm * dim, nb * s.tn * dim, kc * s.tk * dim
    prog = run_proc(gemm_schedule_proc(s, dim), {"A": 0x1000, "B": 0x1000 + mp * kp, "C": 0x1000 + mp * kp + kp * np_,
                                                 "MB": mb, "NB": nb, "KC": kc, "sa": kp, "sb": np_, "sc": np_})
    gen = time.perf_counter() - t
    t = time.perf_counter()
    r = estimate(isa, prog)
    est = time.perf_counter() - t
    print(f"int8 {m}x{k} . {k}x{n} on a {dim}x{dim} Gemmini, run-time variant {schedule_name(s)} ({s.describe()}): "
          f"{len(prog)} instructions (generated in {gen:.2f} s)")
    print(f"modelled: {r.cycles} cycles, {r.macs} MACs, utilisation {r.utilization:.1%} (model run {est:.2f} s)")
    print("counts: " + ", ".join(f"{k} {v}" for k, v in sorted(r.counts.items())))
    print("published (Autocomp §4.4, 12544x64x256, 16x16 int8):")
    for name, u in PUBLISHED:
        print(f"  {name}: {u:.0%}")


def oracle_speed() -> None:
    isa = gemmini_isa(16, "int8")
    o = Oracle(isa)
    hbm = HbmBuffer(1 << 14)
    rng = np.random.default_rng(0)
    hbm.place(0x1000, rng.integers(-128, 128, 256, dtype=np.int8))
    hbm.place(0x1100, rng.integers(-128, 128, 256, dtype=np.int8))
    prog = [Inst("config_ex", (1, 0, 0, 1.0, 0, 1, 0, 0)), Inst("config_ld", (16, 1.0, 0, 0)), Inst("config_st", (64,)),
            Inst("mvin", (0x1000, 0, 16, 16)), Inst("mvin", (0x1100, 16, 16, 16)),
            Inst("preload", (16, ACC_BIT, 16, 16, 16, 16)), Inst("compute_preloaded", (0, GARBAGE, 16, 16, 16, 16)),
            Inst("mvout", (0x1200, ACC_BIT | RAW_BIT, 16, 16))]
    best = min(_timed(lambda: o.run(prog, hbm)) for _ in range(200))
    print(f"one 16x16 int8 tile (8 instructions) on the oracle: {best * 1e3:.3f} ms (best of 200)")


def _timed(f) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def kernels(paths: list[Path], config: str, json_out: str | None) -> list[dict]:  # type: ignore[type-arg]
    rows = []
    for suite, f in collect(paths):
        t = time.perf_counter()
        r = lift_file(f, ["gemmini"], check=True, backend_options=None if config == "auto" else {"gemmini": {"config": config}})
        secs = time.perf_counter() - t
        used = (r.placement.get("gemmini") or {}).get("config", {}).get("config", config)
        row = {"suite": suite, "kernel": f.stem, "config": used, "status": r.status, "seconds": round(secs, 2),
               "c_lines": (r.code.get("gemmini") or "").count("\n")}
        if r.status == "verified":
            pl = r.placement["gemmini"]
            chk = r.check["gemmini"]
            dev = chk.get("device", {})
            row.update({
                "device_calls": [f"{k['name']}: {k['kind']}" for k in pl["kernels"]],
                "where": [o["where"] for o in pl["outputs"]],
                "host": [o["host"] for o in pl["outputs"] if o["where"] != "device"],
                "check": f"{chk['passed']}/{chk['inputs']} vs {chk['reference']}",
                "device_check": f"{dev.get('passed')}/{dev.get('inputs')}" if dev else "-",
                "fallbacks": dev.get("fallbacks"),
                "modelled": dev.get("modelled"),
            })
        else:
            row["message"] = (r.message or "").splitlines()[0][:160]
        rows.append(row)
        print(_line(row), flush=True)
    verified = [r for r in rows if r["status"] == "verified"]
    with_device = [r for r in verified if r["device_calls"]]
    full = [r for r in verified if r["where"] and all(w == "device" for w in r["where"])]
    print(f"\n{len(rows)} kernels; {len(verified)} verified and checked; {len(with_device)} run part on Gemmini; "
          f"{len(full)} entirely on Gemmini; not lifted / refused: {len(rows) - len(verified)}")
    print(_sizes(rows))
    if json_out:
        Path(json_out).write_text(json.dumps(rows, indent=1))
    return rows


def timing(paths: list[Path], count: int, seed: int) -> None:
    """See the module docstring (``--timing``)."""
    found = collect(paths)
    picked = sorted(random.Random(seed).sample(found, min(count, len(found))), key=lambda sf: str(sf[1]))
    times = []
    for suite, f in picked:
        with tempfile.TemporaryDirectory() as cache:
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "tenspiler.cli", str(f), "--to", "gemmini", "--check", "-q"],
                               capture_output=True, text=True, env={**os.environ, "XDG_CACHE_HOME": cache}, check=False)
            times.append(time.perf_counter() - t)
        print(f"{times[-1]:7.2f} s  exit {r.returncode}  {suite}/{f.name}", flush=True)
    print(f"\n{len(times)} kernels (seed {seed}): median {statistics.median(times):.2f} s, slowest {max(times):.2f} s")


def _sizes(rows: list[dict]) -> str:  # type: ignore[type-arg]
    """Median seconds per kernel and the generated C files' median and largest size."""
    import statistics

    secs = [r["seconds"] for r in rows]
    lines = sorted((r.get("c_lines", 0), r["kernel"]) for r in rows if r.get("c_lines"))
    if not lines:
        return f"median {statistics.median(secs) if secs else 0:.2f} s per kernel"
    return (f"median {statistics.median(secs):.2f} s per kernel; generated C: median {statistics.median(n for n, _ in lines):.0f} "
            f"lines, largest {lines[-1][0]} ({lines[-1][1]})")


def markdown(rows: list[dict], config: str) -> str:  # type: ignore[type-arg]
    """The table as Markdown: one row per kernel, then the totals."""
    out = [
        "| suite | kernel | config | where | on Gemmini | on the host | check vs original | device check vs TensIR | fallbacks | modelled cycles | utilisation |",
        "|---|---|---|---|---|---|---|---|---:|---:|---:|",
    ]
    for r in rows:
        if r["status"] != "verified":
            out.append(f"| {r['suite']} | {r['kernel']} | {r['config']} | — | — | — | {r['status']}: {r.get('message', '')[:90].replace('|', '/')} | | | | |")
            continue
        mod = r.get("modelled") or {}
        where = "device" if all(w == "device" for w in r["where"]) else ("host" if not r["device_calls"] else "mixed")
        host = "; ".join(h for h in r["host"] if h)[:80].replace("|", "/") or "—"
        out.append(
            f"| {r['suite']} | {r['kernel']} | {r['config']} | {where} | {', '.join(r['device_calls']) or '—'} | {host} | "
            f"{r['check']} | {r['device_check']} | {r['fallbacks']} | {mod.get('cycles', 0)} | {mod.get('utilization', 0):.1%} |"
        )
    verified = [r for r in rows if r["status"] == "verified"]
    with_device = [r for r in verified if r["device_calls"]]
    full = [r for r in verified if r["where"] and all(w == "device" for w in r["where"])]
    out += ["", f"{len(rows)} kernels (`--config {config}`); {len(verified)} verified and checked; {len(with_device)} run part "
                f"on Gemmini; {len(full)} entirely on Gemmini; not lifted or refused: {len(rows) - len(verified)}.",
            "", _sizes(rows) + "."]
    return "\n".join(out) + "\n"


def _line(r: dict) -> str:  # type: ignore[type-arg]
    if r["status"] != "verified":
        return f"{r['suite']}/{r['kernel']} [{r['config']}]: {r['status']}: {r.get('message', '')}"
    mod = r.get("modelled") or {}
    util = f"{mod.get('cycles')} cycles, util {mod.get('utilization', 0):.1%}" if mod.get("instructions") else "no device work"
    where = "device" if all(w == "device" for w in r["where"]) else ("host" if not r["device_calls"] else "mixed")
    return (f"{r['suite']}/{r['kernel']} [{r['config']}]: {where}; gemmini: {', '.join(r['device_calls']) or '-'}; "
            f"check {r['check']}, device {r['device_check']} (fallbacks {r['fallbacks']}); {util}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", type=Path, default=DEFAULT)
    ap.add_argument("--config", choices=["auto", "int8", "fp32"], default="auto")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--matmul", metavar="MxNxK")
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--oracle-speed", action="store_true")
    ap.add_argument("--timing", type=int, metavar="N", help="time N kernels, each in a fresh process (see above)")
    ap.add_argument("--seed", type=int, default=17, help="--timing: the sample's seed")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    ap.add_argument("--from-json", metavar="FILE", help="render --markdown from a saved --json run instead of running")
    a = ap.parse_args()
    if a.from_json:
        Path(a.markdown or "/dev/stdout").write_text(markdown(json.loads(Path(a.from_json).read_text()), a.config))
        return 0
    if a.matmul:
        matmul(a.matmul, a.dim)
    elif a.oracle_speed:
        oracle_speed()
    elif a.timing:
        timing(a.paths, a.timing, a.seed)
    else:
        rows = kernels(a.paths, a.config, a.json)
        if a.markdown:
            Path(a.markdown).write_text(markdown(rows, a.config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
