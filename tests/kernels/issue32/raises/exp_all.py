# math.exp above 709.78 raises OverflowError.
import math


def exp_all(x: list[float]) -> list[float]:
    out = []
    for i in range(len(x)):
        out.append(math.exp(x[i]))
    return out
