def col_block_sum(a: list[float], m: int, n: int, ld: int) -> float:
    """the sum of an m x n block of a flat row-major matrix with row stride ld"""
    s = 0.0
    for i in range(m):
        for j in range(n):
            s += a[i * ld + j]
    return s
