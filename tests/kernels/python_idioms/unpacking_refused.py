def too_many(xs: list[float]) -> float:
    a, b = 1.0, 2.0, 3.0
    return a + b


def enumerate_reversed(xs: list[float]) -> float:
    s = 0.0
    for i, v in enumerate(reversed(xs)):
        s += i * v
    return s


def max_reversed(xs: list[float]) -> float:
    return max(v for v in reversed(xs))


def twice(xs: list[float]) -> float:
    a, a = 1.0, 2.0
    return a
