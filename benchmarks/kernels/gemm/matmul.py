def matmul(A: list[list[float]], B: list[list[float]]) -> list[list[float]]:
    """Three nested loops over lists of lists, the result built by appends."""
    n = len(A)
    m = len(B[0])
    k = len(B)
    C = []
    for i in range(n):
        row = []
        for j in range(m):
            s = 0.0
            for p in range(k):
                s += A[i][p] * B[p][j]
            row.append(s)
        C.append(row)
    return C
