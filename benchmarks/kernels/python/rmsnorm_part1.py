"""llama rmsnorm_part1: sum of squares of the activation (for x in xs)."""


def rmsnorm_part1(x, weight):
    ss = 0.0
    for v in x:
        ss += v ** 2
    return ss
