# fuzz regression (CRASH at b1282cd): a row sum of a select whose else-branch is a module
# constant: "internal error (TypeError: not a tensor TensIR term: Matrix(...))".
# Found by benchmarks/fuzz.py (seed 1, k1_1026), minimised by hand.
# input: {"m": [[1, 7], [3, 9]]}
K = -3


def f(m: list[list[int]]):
    out = []
    for i in range(len(m)):
        s = 0
        for j in range(len(m[0])):
            s += (K * m[i][j]) + (255 if m[i][j] <= 3 else K)
        out.append(s)
    return out
