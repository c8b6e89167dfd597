# elementwise |v| ** 1.5: OverflowError where a result leaves the doubles
def pow_elems(xs: list[float]) -> list[float]:
    out = []
    for v in xs:
        out.append(abs(v) ** 1.5)
    return out
