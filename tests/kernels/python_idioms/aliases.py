# ruff: noqa: UP007, B905  (the alias forms people write are the input under test)
# Module-level type aliases used as annotations; a union with np.ndarray whose list arms
# are 1-D lists of floats.
import typing
from collections.abc import Iterable

import numpy as np

Vec = typing.Union[Iterable[float], Iterable[int], np.ndarray]
Num = typing.Union[int, float]


def dist2(a: Vec, b: Vec) -> Num:
    return sum((x - y) ** 2 for x, y in zip(a, b)) ** (1 / 2)


def scaled_total(a: Vec, k: Num) -> float:
    t = 0.0
    for x in a:
        t += k * x
    return t
