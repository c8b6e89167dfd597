def matmul_comprehension(A: list[list[int]], B: list[list[int]]) -> list[list[int]]:
    return [[sum(A[i][p] * B[p][j] for p in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]
