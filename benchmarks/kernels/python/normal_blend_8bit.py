"""blend normal_blend_8bit: 8-bit normal blend of two images (lists of rows of ints)
with an integer opacity in 0..255, (opacity * active + (255 - opacity) * base) // 255."""


def normal_blend_8bit(base: list[list[int]], active: list[list[int]], opacity: int):
    result = []
    rows = len(base)
    cols = len(base[0])
    for r in range(rows):
        line = []
        for c in range(cols):
            line.append((opacity * active[r][c] + (255 - opacity) * base[r][c]) // 255)
        result.append(line)
    return result
