# issue 32, class 3: Python's int / int is the exact quotient rounded once.
def ratio_gt(a: list[int], b: list[int]) -> list[int]:
    out = []
    for i in range(len(a)):
        out.append(1 if a[i] / b[i] > 1.0 else 0)
    return out
