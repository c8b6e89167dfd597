# Slices of list parameters iterated (step 1), with Python's bounds: missing, negative, beyond the end.
def head_sum(xs: list[float], k: int) -> float:
    return sum(xs[:k])


def tail_max(xs: list[float]) -> float:
    m = xs[0]
    for x in xs[1:]:
        m = max(m, x)
    return m


def window_sum(xs: list[float], a: int, b: int) -> float:
    s = 0.0
    for x in xs[a:b]:
        s += x
    return s
