"""blend linear_burn: 8-bit linear burn, base + active - 255 clamped at 0 (if/else)."""


def linear_burn(base: list[list[int]], active: list[list[int]]):
    out = []
    for i in range(len(base)):
        row = []
        for j in range(len(base[0])):
            total = base[i][j] + active[i][j]
            if total < 255:  # noqa: SIM108 (legacy style on purpose: an if statement)
                pixel = 0
            else:
                pixel = total - 255
            row.append(pixel)
        out.append(row)
    return out
