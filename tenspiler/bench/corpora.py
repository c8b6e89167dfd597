"""Where the third-party corpora are: ``$TENSPILER_CORPORA`` (default
``~/.cache/tenspiler-corpora``).

Third-party code is never kept in the project. To get the corpora, fetch the public
repositories that ``../shared/README.md`` lists, then run ``python ../shared/corpora.py
--mirrors <folder of the mirrors>``: it writes ``c2taco/`` (the C2TACO kernels),
``realcode/`` (unedited files of real projects with their build flags) and ``polybench/``
(PolyBench/C 4.2.1 as it ships) below that folder. Tests that need a corpus skip with
:data:`HOW_TO_GET` as their reason; benchmarks print it.
"""

from __future__ import annotations

import os
from pathlib import Path

#: How to get the corpora (a skip reason, a warning).
HOW_TO_GET = (
    "fetch the repositories ../shared/README.md lists, then run "
    "`python ../shared/corpora.py --mirrors <folder of the mirrors>` "
    "(writes $TENSPILER_CORPORA, default ~/.cache/tenspiler-corpora)"
)

__all__ = ["HOW_TO_GET", "corpora_root", "corpus_dir"]


def corpora_root() -> Path:
    """``$TENSPILER_CORPORA``, else ``~/.cache/tenspiler-corpora``."""
    env = os.environ.get("TENSPILER_CORPORA")
    return Path(env) if env else Path.home() / ".cache" / "tenspiler-corpora"


def corpus_dir(name: str) -> Path:
    """The folder of the corpus ``name`` (``c2taco``, ``realcode``, ``polybench``); it may
    not exist (see :data:`HOW_TO_GET`)."""
    return corpora_root() / name
