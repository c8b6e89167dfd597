# ruff: noqa: B905  (zip as people write it is the input under test)
# math functions with exact counterparts, rows of lists of lists iterated, bools as numbers.
import math
from math import floor, pow


def powers(xs: list[float]) -> float:
    s = 0.0
    for x in xs:
        s += math.pow(x, 2) + pow(x, 3.0)
    return s


def floors(xs: list[float]) -> list[int]:
    return [floor(x) + math.ceil(x) - math.trunc(x) for x in xs]


def norm(xs: list[float]) -> float:
    return math.sqrt(sum(math.fabs(x) for x in xs))


def scalar_multiply(matrix: list[list[int]], n: float) -> list[list[float]]:
    return [[x * n for x in row] for row in matrix]


def row_totals(m: list[list[float]]) -> list[float]:
    out = []
    for row in m:
        out.append(sum(row))
    return out


def count_positive(xs: list[float]) -> int:
    c = 0
    for x in xs:
        c += int(x > 0)
    return c


def zipped_rows(a: list[list[float]], b: list[list[float]]) -> float:
    s = 0.0
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            s += x * y
    return s
