# soundness regression (VERIFIED-BUT-WRONG with --no-check at 5d21005, found while fixing
# python_dead_division_raises.py): Python computes t = x / y in every iteration, but the
# value is read only in one branch of a conditional expression, so the summary had
# select(x > 0, x / y, 0.0) and the generated code raised only where x > 0
# (xs = [-1.0], ys = [0.0]: Python raises ZeroDivisionError, the generated code gave [0.0]).
def kern(xs: list[float], ys: list[float]):
    out = []
    for x, y in zip(xs, ys):  # noqa: B905
        t = x / y
        out.append(t if x > 0.0 else 0.0)
    return out
