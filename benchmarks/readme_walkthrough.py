"""Run the README's code blocks in order, as a new user would, and report each one's exit
code and seconds (issue 33's acceptance: every command exits as the README says).

    python benchmarks/readme_walkthrough.py [--all] [--json FILE]

Shell blocks run with ``bash`` in a fresh temporary folder holding links to the project's
``examples/`` and ``benchmarks/``, one command per line (comment lines and trailing
``# ...`` comments dropped; lines that start with ``#`` inside a block are printed output,
not commands). Python blocks run as a script (``python script.py``) in the same folder, with
one marker line first, so the report can say how many times the module's top-level code ran
(once: the reference run of the translation validation never re-enters the program). The
set-up command and the test command are skipped unless ``--all`` (they take minutes); so is
``lift bench`` over a whole corpus. Every command is expected to exit 0. Exit status: 0 when
every block ran as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LONG = ("pip install", "pytest", "lift bench")
MARKER = "README_WALKTHROUGH_TOP_LEVEL"


def blocks(text: str) -> list[tuple[int, str, str]]:
    """``(line, language, body)`` of every fenced block (the language may be empty)."""
    out = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        out.append((text[: m.start()].count("\n") + 1, m.group(1), m.group(2)))
    return out


def commands(body: str) -> list[str]:
    cmds = []
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or line.strip() == "...":
            continue
        cmds.append(re.sub(r"\s+#.*$", "", line).strip())
    return cmds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--all", action="store_true", help="also the set-up, test and lift bench commands")
    ap.add_argument("--json", type=Path, help="write the rows as JSON")
    args = ap.parse_args()
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="tenspiler-readme-") as tmp:
        work = Path(tmp)
        for name in ("examples", "benchmarks"):
            (work / name).symlink_to(ROOT / name)
        env = {**os.environ, "TENSPILER_CACHE_DIR": str(work / "cache")}
        for line, lang, body in blocks((ROOT / "README.md").read_text(encoding="utf-8")):
            if lang == "python":
                script = work / f"readme_{line}.py"
                script.write_text(f"print({MARKER!r})\n" + body, encoding="utf-8")
                t0 = time.perf_counter()
                p = subprocess.run([sys.executable, str(script)], cwd=work, env=env, capture_output=True, text=True)
                secs = time.perf_counter() - t0
                runs = p.stdout.count(MARKER)
                good = p.returncode == 0 and runs == 1
                rows.append({"line": line, "block": "python script", "exit": p.returncode, "seconds": round(secs, 2),
                             "top_level_runs": runs, "ok": good, "stderr": p.stderr[-2000:]})
                ok &= good
                continue
            for cmd in commands(body):
                if cmd.split()[0] not in ("lift", "python", "python3", "pip"):
                    continue  # printed output or a non-command block
                if any(w in cmd for w in LONG) and not args.all:
                    rows.append({"line": line, "block": cmd, "exit": None, "seconds": 0.0, "ok": True,
                                 "stderr": "skipped (--all runs it)"})
                    continue
                t0 = time.perf_counter()
                cwd = ROOT if any(w in cmd for w in LONG) else work
                p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True)
                secs = time.perf_counter() - t0
                good = p.returncode == 0
                rows.append({"line": line, "block": cmd, "exit": p.returncode, "seconds": round(secs, 2), "ok": good,
                             "stderr": p.stderr[-2000:]})
                ok &= good
    for r in rows:
        extra = f", top-level code ran {r['top_level_runs']}x" if "top_level_runs" in r else ""
        status = "skipped" if r["exit"] is None else f"exit {r['exit']}"
        print(f"README:{r['line']:<4} {'ok ' if r['ok'] else 'BAD'} {status:8} {r['seconds']:7.2f} s{extra}  {r['block']}")
        if not r["ok"]:
            print("    " + r["stderr"].strip().replace("\n", "\n    "))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
