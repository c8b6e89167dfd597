# A guarded division never raises: the guard is the select's condition.
def guarded_div(x: list[float], d: list[float]) -> list[float]:
    out = []
    for i in range(len(x)):
        out.append(x[i] / d[i] if d[i] != 0.0 else 0.0)
    return out
