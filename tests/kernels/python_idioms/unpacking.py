# ruff: noqa: B905  (zip as people write it is the input under test)
# Tuple unpacking, chained assignment, reversed(), range() used as a value.
def swap_sums(xs: list[float], ys: list[float]) -> float:
    s, t = 0.0, 0.0
    for i, (x, y) in enumerate(zip(xs, ys)):
        s, t = s + x * i, t + y
    return s - t


def chained(xs: list[float]) -> float:
    s = t = 0.0
    for x in xs:
        s += x
        t += x * x
    return s + t


def reversed_sum(xs: list[float]) -> float:
    total = 0.0
    for x in reversed(xs):
        total += 2.0 * x
    return total + sum(v for v in reversed(xs))


def reversed_indices(xs: list[float]) -> float:
    m = xs[len(xs) - 1]
    for i in reversed(range(len(xs))):
        m = max(m, xs[i])
    return m


def range_values(xs: list[float], a: int, b: int) -> float:
    s = 0.0
    for i in list(range(len(xs))):
        s += xs[i]
    return s * len(range(a, b))
