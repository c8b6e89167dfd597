def scale3_py(x: list[list[list[float]]], a: float) -> list[float]:
    """Every element of a 3-D tensor scaled, flattened."""
    out = []
    for p in range(len(x)):
        for r in range(len(x[0])):
            for c in range(len(x[0][0])):
                out.append(a * x[p][r][c])
    return out
