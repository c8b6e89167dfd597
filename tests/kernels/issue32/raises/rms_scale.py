# Straight-line code with two exception classes, raised in evaluation order:
# ss / n (ZeroDivisionError), math.sqrt (ValueError), 1.0 / ... (ZeroDivisionError).
import math


def rms_scale(x: list[float], ss: float) -> list[float]:
    n = len(x)
    inv = 1.0 / math.sqrt(ss / n + 1e-5)
    out = []
    for j in range(n):
        out.append(x[j] * inv)
    return out
