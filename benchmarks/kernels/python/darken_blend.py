"""blend darken_blend: per-pixel minimum of two 8-bit images (lists of rows of ints)."""


def darken_blend(base: list[list[int]], active: list[list[int]]):
    out = []
    for i in range(len(base)):
        row = []
        for j in range(len(base[0])):
            row.append(min(base[i][j], active[i][j]))
        out.append(row)
    return out
