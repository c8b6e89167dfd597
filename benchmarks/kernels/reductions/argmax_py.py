def argmax_py(xs: list[int]) -> int:
    """Index of the first largest element, -1 for an empty list."""
    best = -1
    m = -2147483648
    for i in range(len(xs)):
        if xs[i] > m:
            m = xs[i]
            best = i
    return best
