"""Dot product of two lists walked together with zip (stops at the shorter one)."""


def dot_zip(a: list[float], b: list[float]):
    return sum(x * y for x, y in zip(a, b))  # noqa: B905 (the idiom: no strict=)
