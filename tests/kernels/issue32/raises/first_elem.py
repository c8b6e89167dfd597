# xs[0] of an empty list raises IndexError in Python (not a ValueError).
def first_elem(xs: list[int]) -> float:
    m = xs[0]
    s = 0.0
    for i in range(len(xs)):
        s += xs[i] - m
    return s
