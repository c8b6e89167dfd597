# a matrix product as comprehensions: len(b[0]) is read in the loop over the rows of a, so
# Python raises IndexError when a has rows and b has none
def product_rows(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(a[i][p] * b[p][j] for p in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]
