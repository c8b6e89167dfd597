# 1.0 / s before the loop raises even when the loop runs no iteration.
def hoisted_div(xs: list[float], s: float) -> list[float]:
    inv = 1.0 / s
    out = []
    for i in range(len(xs)):
        out.append(xs[i] * inv)
    return out
