"""blend screen_blend: 8-bit screen, base + active - base * active // 255 per pixel."""


def screen(b, a):
    return b + a - b * a // 255


def screen_blend(base: list[list[int]], active: list[list[int]]):
    out = []
    for i in range(len(base)):
        row = []
        for j in range(len(base[0])):
            row.append(screen(base[i][j], active[i][j]))
        out.append(row)
    return out
