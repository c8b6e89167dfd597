"""blend lighten_blend: per-pixel maximum of two 8-bit images, through a helper with an
early return."""


def lighter(b, a):
    if b > a:
        return b
    return a


def lighten_blend(base: list[list[int]], active: list[list[int]]):
    out = []
    for i in range(len(base)):
        row = []
        for j in range(len(base[0])):
            row.append(lighter(base[i][j], active[i][j]))
        out.append(row)
    return out
