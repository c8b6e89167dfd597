"""Matrix-vector product: one sum() of a generator per row of a list comprehension."""


def matvec_sum(m: list[list[float]], v: list[float], rows: int, cols: int):
    return [sum(m[i][j] * v[j] for j in range(cols)) for i in range(rows)]
