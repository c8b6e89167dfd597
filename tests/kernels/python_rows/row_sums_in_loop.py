# len(m[i]) inside the loop over the rows of m: the row exists whenever it is read
def row_sums_in_loop(m: list[list[float]]) -> list[float]:
    out = []
    for i in range(len(m)):
        s = 0.0
        for j in range(len(m[i])):
            s += m[i][j]
        out.append(s)
    return out
