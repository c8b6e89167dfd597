# ruff: noqa: UP006, UP045  (the annotation forms people write are the input under test)
# Annotations of common forms: unions, Optional, typing.List, Sequence, bool, defaults.
import typing
from collections.abc import Sequence
from typing import Optional


def weighted(xs: list[int | float], ws: Optional[Sequence[float]], scale: "float | None" = 1.0) -> float | int:
    t = 0.0
    for i in range(len(xs)):
        t += xs[i] * ws[i] * scale
    return t


def pick(xs: typing.List[float], twice: bool = False) -> float:
    t = 0.0
    for i in range(len(xs)):
        t += 2 * xs[i] if twice else xs[i]
    return t
