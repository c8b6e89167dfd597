def rev_sum(xs: list[int]) -> int:
    s = 0
    for i in reversed(range(len(xs))):
        s += xs[i] * 3
    return s
