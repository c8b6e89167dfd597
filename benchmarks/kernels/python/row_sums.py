"""darknet-style row sums of an int matrix (a list of rows)."""


def row_sums(m: list[list[int]]):
    sums = []
    for r in range(len(m)):
        acc = 0
        for c in range(len(m[0])):
            acc += m[r][c]
        sums.append(acc)
    return sums
