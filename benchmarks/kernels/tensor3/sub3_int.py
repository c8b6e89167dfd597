def sub3_int(x, y):
    out = []
    for p in range(len(x)):
        for r in range(len(x[p])):
            for c in range(len(x[p][r])):
                out.append(x[p][r][c] - 3 * y[p][r][c])
    return out
