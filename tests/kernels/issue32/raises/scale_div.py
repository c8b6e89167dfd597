# issue 32, class 4: x / d with d == 0.0 raises ZeroDivisionError in Python.
def scale_div(x: list[float], d: float) -> list[float]:
    out = []
    for i in range(len(x)):
        out.append(x[i] / d)
    return out
