def batch_totals(x: list[list[list[int]]]) -> list[int]:
    """The total of each matrix of a batch."""
    out = []
    for b in range(len(x)):
        s = 0
        for i in range(len(x[0])):
            for j in range(len(x[0][0])):
                s += x[b][i][j]
        out.append(s)
    return out
