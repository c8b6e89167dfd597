"""``lift bench``: verification runs over whole corpora (nightly CI).

Modules: ``discover`` (kernels below the given paths and their suites), ``task`` (one
kernel in an isolated, hard-killed child process: lift + verify + generate + check, then
the certificate re-check by ``lift recheck`` in another process), ``executors`` (local
worker processes or Ray), ``report`` (report.json / .md / .html, plots, junit.xml),
``baseline`` (regressions against an earlier report.json), ``cli`` (the subcommand).

Importing this package is cheap: rich, matplotlib, junitparser and ray are imported by
the modules that need them, when they need them.
"""

from __future__ import annotations

__all__: list[str] = []
