"""mean of an int list (true division: a float)."""


def mean(xs: list[int]):
    s = 0
    n = len(xs)
    for k in range(n):
        s += xs[k]
    return s / n
