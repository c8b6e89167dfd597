# math.sqrt of a negative number raises ValueError.
import math


def sqrt_all(x: list[float]) -> list[float]:
    out = []
    for i in range(len(x)):
        out.append(math.sqrt(x[i]))
    return out
