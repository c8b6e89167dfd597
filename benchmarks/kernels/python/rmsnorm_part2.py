"""llama rmsnorm_part2: weight[j] * (inv * x[j]) with inv = 1 / sqrt(ss / size + 1e-5)."""
import math

EPS = 1e-5


def rmsnorm_part2(x, weight, ss):
    size = len(x)
    inv = 1.0 / math.sqrt(ss / size + EPS)
    out = []
    for j in range(size):
        out.append(weight[j] * (inv * x[j]))
    return out
