# fuzz regression (CRASH at 65f3a7a): the Python version of nest_select_crash.c:
# "internal error (TypeError: not a 2-D TensIR term: TensorSelect(...))".
# Found by benchmarks/fuzz.py (seed 7, k7_141, k7_250).
# input: {"m": [[1, 7], [3, 9]]}


def f(m: list[list[int]]):
    out = []
    for i in range(len(m)):
        s = 0
        for j in range(len(m[0])):
            s += m[i][j] if m[i][j] > 2 else 0
        out.append(s)
    return out
