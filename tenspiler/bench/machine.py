"""What a measurement depends on outside the code: the machine and the package versions
(recorded by ``lift bench`` and ``benchmarks/speed.py``)."""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; ``platform.processor()`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def machine() -> dict[str, Any]:
    """Node, platform, CPU model, CPUs present (``cpus``) and usable by this process
    (``usable_cpus``: its affinity mask), Python version."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "node": platform.node(), "platform": platform.platform(), "machine": platform.machine(),
        "processor": platform.processor(), "cpu_model": cpu_model(), "cpus": os.cpu_count(),
        "usable_cpus": usable, "python": platform.python_version(),
    }


def packages(names: Iterable[str]) -> dict[str, str | None]:
    """The installed version of each distribution in ``names`` (``None``: not installed)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out
