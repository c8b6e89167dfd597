"""llama softmax_part2: exp(x[i] - max_val) for the first max_pos entries."""
from math import exp


def softmax_part2(x, max_pos, max_val):
    out = []
    for i in range(max_pos):
        out.append(exp(x[i] - max_val))
    return out
