"""A matrix plus a constant, as a nested list comprehension (a list of lists)."""


def add2d_comp(m: list[list[int]], rows: int, cols: int):
    return [[m[i][j] + 1 for j in range(cols)] for i in range(rows)]
