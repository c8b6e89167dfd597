"""The report folder of ``lift bench --report DIR``.

``report.json`` (run metadata + one record per kernel: every field of
``LiftResult.to_json()`` plus suite, path, outcome, reason, wall seconds and the
certificate re-check), ``report.md`` (a table per suite, a row per kernel),
``report.html`` (the same tables and the plots, self-contained: the plots are PNG data
URIs), ``lift-times.png`` and ``status.png`` (matplotlib, Agg), ``junit.xml`` (one
testcase per kernel, classname = suite, a ``failure`` for every kernel not verified), and
``kernels/<suite>/<file>/``: what each lift wrote (generated code, certificate).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tenspiler.bench.task import OUTCOMES

LABELS = {
    "verified": "verified",
    "not_lifted": "not lifted",
    "error": "error",
    "recheck_failed": "re-check failed",
    "timeout": "timed out",
    "crashed": "crashed",
}
COLORS = {
    "verified": "#2e7d32",
    "not_lifted": "#f9a825",
    "error": "#c62828",
    "recheck_failed": "#6a1b9a",
    "timeout": "#1565c0",
    "crashed": "#212121",
}
REPORT_FILES = ("report.json", "report.md", "report.html", "junit.xml", "lift-times.png", "status.png")
KERNEL_DIR = "kernels"


def kernel_dir(rec: dict[str, Any]) -> str:
    """Folder (relative to the report) for one kernel's generated files."""
    p = Path(rec["file"])
    leaf = f"{p.stem}-{p.suffix[1:]}" if p.suffix else p.name
    return f"{KERNEL_DIR}/{rec['suite']}/{leaf}"


def store_files(report: Path | None, rec: dict[str, Any]) -> None:
    """Move ``rec['files']`` into the report folder and point ``certificate`` / ``outputs``
    at the stored copies (paths relative to the report folder); without a report the
    temporary paths are dropped."""
    files: dict[str, str] = rec.pop("files", {}) or {}
    if report is None:
        rec["certificate"] = None
        rec["outputs"] = {}
        return
    rel = kernel_dir(rec)
    if files:
        d = report / rel
        d.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (d / Path(name).name).write_text(text)
    if rec.get("certificate"):
        rec["certificate"] = f"{rel}/{Path(rec['certificate']).name}"
    rec["outputs"] = {b: f"{rel}/{Path(p).name}" for b, p in (rec.get("outputs") or {}).items()}


def counts(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    c = dict.fromkeys(OUTCOMES, 0)
    for r in records:
        c[r["outcome"]] = c.get(r["outcome"], 0) + 1
    return c


def by_suite(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(records, key=lambda r: (r["suite"], r["file"])):
        out.setdefault(r["suite"], []).append(r)
    return out


def summary_line(records: list[dict[str, Any]], seconds: float) -> str:
    """``N kernels: V verified, F failed (…) in T s``."""
    c = counts(records)
    failed = len(records) - c["verified"]
    parts = [f"{c[o]} {LABELS[o]}" for o in OUTCOMES[1:] if c[o]]
    detail = f" ({', '.join(parts)})" if parts else ""
    return f"{len(records)} kernels: {c['verified']} verified, {failed} failed{detail} in {seconds:.1f} s"


def one_line(text: str | None, limit: int = 0) -> str:
    s = " ; ".join(x.strip() for x in (text or "").splitlines() if x.strip())
    return s if not limit or len(s) <= limit else s[: limit - 1] + "…"


def _detail(r: dict[str, Any]) -> str:
    return one_line(r.get("summary")) if r["outcome"] == "verified" else one_line(r.get("reason"))


def _check_text(r: dict[str, Any]) -> str:
    checks = r.get("check") or {}
    return ", ".join(f"{b} {c.get('passed')}/{c.get('inputs')}" for b, c in checks.items()) or "-"


def _recheck_text(r: dict[str, Any]) -> str:
    rc = r.get("recheck")
    if not rc:
        return "-"
    return "valid" if rc.get("ok") else "FAILED"


def suite_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    groups = by_suite(records)
    for suite, rs in [*groups.items(), ("all", sorted(records, key=lambda r: r["id"]))]:
        ts = [float(r.get("wall_seconds") or 0) for r in rs]
        rows.append({
            "suite": suite, "kernels": len(rs), **counts(rs),
            "median_s": round(statistics.median(ts), 3) if ts else 0.0,
            "max_s": round(max(ts), 3) if ts else 0.0,
        })
    return rows


# ---------------------------------------------------------------- report.json


def write_json(path: Path, meta: dict[str, Any], records: list[dict[str, Any]]) -> None:
    data = {**meta, "suites": suite_rows(records), "kernels": sorted(records, key=lambda r: r["id"])}
    path.write_text(json.dumps(data, indent=2, default=str) + "\n")


# ---------------------------------------------------------------- report.md


def _md(text: Any) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return out


def _suite_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    header = ["suite", "kernels", *(LABELS[o] for o in OUTCOMES), "median s", "max s"]
    rows = [[r["suite"], r["kernels"], *(r[o] for o in OUTCOMES), f"{r['median_s']:.3f}", f"{r['max_s']:.3f}"]
            for r in suite_rows(records)]
    return header, rows


def _kernel_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    header = ["suite", "kernel", "outcome", "wall s", "check", "re-check", "summary / reason"]
    rows = [[r["suite"], r["file"], LABELS.get(r["outcome"], r["outcome"]), f"{float(r.get('wall_seconds') or 0):.3f}",
             _check_text(r), _recheck_text(r), one_line(_detail(r), 300)]
            for r in sorted(records, key=lambda r: (r["suite"], r["file"]))]
    return header, rows


def _plain(v: Any) -> str:
    return " ".join(map(str, v)) if isinstance(v, list | tuple) else str(v)


def _meta_lines(meta: dict[str, Any]) -> list[tuple[str, str]]:
    m = meta.get("machine", {})
    return [
        ("date", str(meta.get("date", ""))),
        ("tool", f"tenspiler {meta.get('version', '')}"),
        ("command", str(meta.get("command", ""))),
        ("machine", f"{m.get('node', '')} — {m.get('platform', '')}, {m.get('cpus', '')} CPUs, Python {m.get('python', '')}"),
        ("options", ", ".join(f"{k}={_plain(v)}" for k, v in (meta.get("options") or {}).items() if v is not None)),
        ("result", str(meta.get("summary", ""))),
    ]


def _baseline_lines(meta: dict[str, Any]) -> list[str]:
    b = meta.get("baseline")
    if not b:
        return []
    out = [f"Baseline: `{b['baseline']}` — {len(b['regressions'])} regression(s), "
           f"{len(b['improvements'])} improvement(s), {len(b['new'])} new, {len(b['missing'])} missing."]
    for title, key in (("Regressions", "regressions"), ("Improvements", "improvements")):
        if b[key]:
            out += ["", f"{title}:", ""]
            out += [f"- {c['id']}: {c['kind'].replace('_', ' ')} ({c['before']} -> {c['after']})" for c in b[key]]
    return out


def _failures(records: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(r["id"], LABELS.get(r["outcome"], r["outcome"]), one_line(r.get("reason"), 400))
            for r in sorted(records, key=lambda r: r["id"]) if r["outcome"] != "verified"]


def write_markdown(path: Path, meta: dict[str, Any], records: list[dict[str, Any]]) -> None:
    lines = ["# tenspiler verification run", ""]
    lines += [f"- **{k}**: {_md(v)}" for k, v in _meta_lines(meta)]
    lines.append("")
    if _failures(records):
        lines += ["## Failures", ""]
        lines += [f"- **{_md(i)}** ({o}): {_md(why)}" for i, o, why in _failures(records)]
        lines.append("")
    if meta.get("baseline"):
        lines += [*_baseline_lines(meta), ""]
    lines += ["## Suites", "", *_md_table(*_suite_table(records)), ""]
    lines += ["![lift time per suite](lift-times.png)", "", "![status per suite](status.png)", ""]
    lines += ["## Kernels", "", *_md_table(*_kernel_table(records)), ""]
    path.write_text("\n".join(lines))


# ---------------------------------------------------------------- plots


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def plot_lift_times(records: list[dict[str, Any]]) -> bytes:
    """Wall seconds per kernel, one row per suite: a box plot with every kernel as a dot
    (coloured by outcome), log scale."""
    import numpy as np

    groups = by_suite(records)
    suites = list(groups)[::-1]  # first suite at the top
    fig = _figure(9, 1.2 + 0.42 * max(1, len(suites)))
    ax = fig.add_subplot(1, 1, 1)
    data = [[max(float(r.get("wall_seconds") or 0), 1e-3) for r in groups[s]] for s in suites]
    if suites:
        ax.boxplot(data, vert=False, widths=0.6, showfliers=False, tick_labels=suites,
                   medianprops={"color": "#555555"}, boxprops={"color": "#999999"},
                   whiskerprops={"color": "#999999"}, capprops={"color": "#999999"})
    rng = np.random.default_rng(0)
    seen: set[str] = set()
    for o in OUTCOMES:  # one scatter per outcome: the legend follows OUTCOMES' order
        xs, ys = [], []
        for i, s in enumerate(suites, start=1):
            for r, t in zip(groups[s], data[i - 1], strict=True):
                if r["outcome"] == o:
                    xs.append(t)
                    ys.append(i + rng.uniform(-0.18, 0.18))
        if xs:
            seen.add(o)
            ax.scatter(xs, ys, s=18, color=COLORS[o], alpha=0.85, zorder=3, edgecolors="none", label=LABELS[o])
    ax.set_xscale("log")
    ax.set_xlabel("wall seconds per kernel (lift + verify + generate + check; log scale)")
    ax.set_title("Lift time per suite")
    ax.grid(axis="x", which="both", alpha=0.3)
    if seen:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    return _png(fig)


def plot_status(records: list[dict[str, Any]]) -> bytes:
    """Kernels per suite, stacked by outcome (horizontal bars)."""
    from matplotlib.ticker import MaxNLocator

    groups = by_suite(records)
    suites = list(groups)[::-1]
    fig = _figure(9, 1.2 + 0.42 * max(1, len(suites)))
    ax = fig.add_subplot(1, 1, 1)
    left = [0] * len(suites)
    for o in OUTCOMES:
        vals = [sum(r["outcome"] == o for r in groups[s]) for s in suites]
        if not any(vals):
            continue
        bars = ax.barh(suites, vals, left=left, color=COLORS[o], label=LABELS[o], height=0.65)
        ax.bar_label(bars, labels=[str(v) if v else "" for v in vals], label_type="center",
                     color="black" if o == "not_lifted" else "white", fontsize=8)
        left = [a + b for a, b in zip(left, vals, strict=True)]
    for y, s in enumerate(suites):
        ok = sum(r["outcome"] == "verified" for r in groups[s])
        ax.annotate(f" {ok}/{len(groups[s])}", (left[y], y), va="center", fontsize=8, color="#333333")
    ax.set_xlim(0, max(left, default=1) * 1.12 + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("kernels (verified / total at the end of each bar)")
    ax.set_title("Status per suite")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


# ---------------------------------------------------------------- report.html

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tr.total td { font-weight: bold; border-top: 2px solid #888; }
td.nowrap { white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.detail { font-family: ui-monospace, monospace; font-size: 0.85em; max-width: 60em; }
.o-verified { color: #2e7d32; font-weight: bold; }
.o-fail { color: #c62828; font-weight: bold; }
img { max-width: 100%; display: block; margin: 1em 0; }
dt { font-weight: bold; } dd { margin: 0 0 0.4em 1.5em; }
"""


def _html_table(header: list[str], rows: list[list[Any]], classes: list[str] | None = None) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for i, c in enumerate(row):
            cls = (classes or [""] * len(row))[i]
            if cls == "outcome":
                cls = "o-verified" if c == "verified" else "o-fail"
            cells.append(f'<td class="{cls}">{html.escape(str(c))}</td>' if cls else f"<td>{html.escape(str(c))}</td>")
        body.append(("<tr class=\"total\">" if row and row[0] == "all" else "<tr>") + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def write_html(path: Path, meta: dict[str, Any], records: list[dict[str, Any]], plots: dict[str, bytes]) -> None:
    sh, srows = _suite_table(records)
    kh, krows = _kernel_table(records)
    meta_html = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in _meta_lines(meta))
    base = ""
    if meta.get("baseline"):
        lines = _baseline_lines(meta)
        items = "".join(f"<li>{html.escape(x[2:])}</li>" for x in lines if x.startswith("- "))
        base = f"<h2>Baseline</h2><p>{html.escape(lines[0].replace('`', ''))}</p><ul>{items}</ul>"
    fails = _failures(records)
    fail_html = ""
    if fails:
        items = "".join(f"<li><b>{html.escape(i)}</b> ({html.escape(o)}): <code>{html.escape(why)}</code></li>"
                        for i, o, why in fails)
        fail_html = f"<h2>Failures</h2><ul>{items}</ul>"
    imgs = "".join(
        f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        for alt, png in plots.items()
    )
    doc = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>tenspiler verification run — {html.escape(str(meta.get("date", "")))}</title>
<style>{_CSS}</style></head>
<body>
<h1>tenspiler verification run</h1>
<dl>{meta_html}</dl>
{fail_html}
{base}
<h2>Suites</h2>
{_html_table(sh, srows, ["", *["num"] * (len(sh) - 1)])}
{imgs}
<h2>Kernels</h2>
{_html_table(kh, krows, ["nowrap", "nowrap", "outcome", "num", "nowrap", "nowrap", "detail"])}
</body></html>
"""
    path.write_text(doc)


# ---------------------------------------------------------------- junit.xml

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(s: str) -> str:
    return _XML_BAD.sub("?", s)


def write_junit(path: Path, meta: dict[str, Any], records: list[dict[str, Any]]) -> None:
    from junitparser import Failure, JUnitXml, TestCase, TestSuite

    xml = JUnitXml("tenspiler bench")
    for suite, rs in by_suite(records).items():
        ts = TestSuite(suite)
        for r in rs:
            tc = TestCase(r["file"], classname=suite, time=round(float(r.get("wall_seconds") or 0), 3))
            if r["outcome"] != "verified":
                f = Failure(_xml_text(f"{LABELS.get(r['outcome'], r['outcome'])}: {one_line(r.get('reason'), 500)}"),
                            r["outcome"])
                f.text = _xml_text(r.get("reason") or "")
                tc.result = [f]
            else:
                tc.system_out = _xml_text(r.get("summary") or "")
            ts.add_testcase(tc)
        ts.update_statistics()
        xml.add_testsuite(ts)
    xml.update_statistics()
    xml.write(str(path), pretty=True)


# ---------------------------------------------------------------- everything


def write_report(report: Path, meta: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Write every report file into ``report`` (which exists)."""
    plots = {
        "lift time per suite": plot_lift_times(records),
        "status per suite": plot_status(records),
    }
    (report / "lift-times.png").write_bytes(plots["lift time per suite"])
    (report / "status.png").write_bytes(plots["status per suite"])
    write_json(report / "report.json", meta, records)
    write_markdown(report / "report.md", meta, records)
    write_html(report / "report.html", meta, records, plots)
    write_junit(report / "junit.xml", meta, records)
