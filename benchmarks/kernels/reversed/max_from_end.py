def max_from_end(xs: list[float], n: int) -> float:
    m = xs[n - 1]
    for i in range(n - 2, -1, -1):
        if xs[i] > m:
            m = xs[i]
    return m
