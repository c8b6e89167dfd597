# fuzz (smoke campaign, found with the idiom shapes' change of the default mix; the tool at
# c89689b and main 7ee1024): len(x[0]) of a tensor without planes raises IndexError in
# Python; the generated code returns [] (VERIFIED-BUT-WRONG, no stated precondition).
# fuzz-spec: {"shape": "3d"}
# input: {"x": [], "k": 1.0}
# Python: raises IndexError: list index out of range
def kern(x: list[list[list[float]]], k: float):
    P = len(x)
    R = len(x[0])
    C = len(x[0][0])
    out = []
    for b in range(P):
        out.append(sum(x[b][i][j] for i in range(R) for j in range(C)))
    return out
