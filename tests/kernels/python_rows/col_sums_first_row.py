# len(m[0]) at the top: Python raises IndexError when m has no rows
def col_sums_first_row(m: list[list[float]]) -> list[float]:
    cols = len(m[0])
    out = []
    for j in range(cols):
        s = 0.0
        for i in range(len(m)):
            s += m[i][j]
        out.append(s)
    return out
