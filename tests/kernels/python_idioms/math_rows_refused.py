import math


def pow_var(xs: list[float], p: float) -> float:
    return sum(math.pow(x, p) for x in xs)


def pow_half(xs: list[float]) -> float:
    return sum(math.pow(x, 0.5) for x in xs)


def rows_written(m: list[list[float]]) -> float:
    s = 0.0
    for row in m:
        m[0][0] = 1.0
        s += row[0]
    return s


def bool_operand(xs: list[float]) -> int:
    c = 0
    for x in xs:
        c += int(x > 0 and x)
    return c


def start_at_inf(xs: list[float]) -> float:
    m = float("-inf")
    for x in xs:
        m = max(m, x)
    return m


def math_inf(xs: list[float]) -> float:
    m = -math.inf
    for x in xs:
        m = max(m, x)
    return m
