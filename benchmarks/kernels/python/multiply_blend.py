"""blend multiply_blend: 8-bit multiply, base * active // 255 per pixel."""


def multiply_blend(base: list[list[int]], active: list[list[int]]):
    out = []
    m = len(base)
    n = len(base[0])
    for i in range(m):
        row = []
        for j in range(n):
            row.append(base[i][j] * active[i][j] // 255)
        out.append(row)
    return out
