# len(m[1]): IndexError unless m has two rows
def second_row_len(m: list[list[float]], k: float) -> list[float]:
    n = len(m)
    c = len(m[1])
    out = []
    for i in range(n):
        for j in range(c):
            out.append(m[i][j] * k)
    return out
