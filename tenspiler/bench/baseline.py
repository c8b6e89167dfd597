"""Compare a run with an earlier ``report.json`` (``lift bench --baseline``).

Kernels are matched by ``id`` (``suite/file name``). A **regression** is a kernel that was
verified in the baseline and is not now, or one verified in both runs whose wall time
(``wall_seconds``: the ``lift_file`` call — lift, verify, generate, check) grew more than
:data:`SLOWDOWN` ×; kernels under :data:`NOISE_SECONDS` in both runs are never compared by
time (noise). Improvements are the converse. Kernels only in one of the runs are listed,
never regressions (a corpus may be absent on some machine).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SLOWDOWN = 2.0
#: Below this, wall times are noise: a lift includes the translation validation (two C
#: builds, one with UBSan, and forked runs), which alone takes ~0.3-1 s on a loaded machine.
NOISE_SECONDS = 2.0


@dataclass(frozen=True)
class Change:
    """One kernel's change: ``kind`` is ``no_longer_verified``, ``slower``, ``now_verified``
    or ``faster``; ``before``/``after`` the outcomes or seconds."""

    id: str
    kind: str
    before: str
    after: str

    def line(self) -> str:
        return f"{self.id}: {self.kind.replace('_', ' ')} ({self.before} -> {self.after})"


@dataclass
class Comparison:
    baseline: str
    regressions: list[Change] = field(default_factory=list)
    improvements: list[Change] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def load_baseline(path: str | Path) -> dict[str, Any]:
    """The parsed report.

    Raises:
        ValueError: not a ``lift bench`` report.json (or unreadable).
    """
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read baseline {path}: {err}") from None
    if not isinstance(data, dict) or not isinstance(data.get("kernels"), list) or not all(
        isinstance(k, dict) and "id" in k and "outcome" in k for k in data["kernels"]
    ):
        raise ValueError(f"{path} is not a lift bench report.json (no 'kernels' list with id/outcome)")
    return data


def _secs(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0


def compare(baseline: dict[str, Any], records: list[dict[str, Any]], name: str = "baseline") -> Comparison:
    old = {k["id"]: k for k in baseline["kernels"]}
    new = {k["id"]: k for k in records}
    cmp = Comparison(baseline=name)
    for kid in sorted(new):
        a = new[kid]
        if kid not in old:
            cmp.new.append(kid)
            continue
        b = old[kid]
        was, now = b["outcome"] == "verified", a["outcome"] == "verified"
        if was and not now:
            cmp.regressions.append(Change(kid, "no_longer_verified", b["outcome"], a["outcome"]))
        elif now and not was:
            cmp.improvements.append(Change(kid, "now_verified", b["outcome"], a["outcome"]))
        elif was and now:
            tb, ta = _secs(b.get("wall_seconds")), _secs(a.get("wall_seconds"))
            if max(tb, ta) < NOISE_SECONDS:
                continue
            if ta > SLOWDOWN * tb:
                cmp.regressions.append(Change(kid, "slower", f"{tb:.2f} s", f"{ta:.2f} s"))
            elif tb > SLOWDOWN * ta:
                cmp.improvements.append(Change(kid, "faster", f"{tb:.2f} s", f"{ta:.2f} s"))
    cmp.missing = sorted(set(old) - set(new))
    return cmp
