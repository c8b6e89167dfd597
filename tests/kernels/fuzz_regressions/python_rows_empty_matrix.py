# fuzz (the 2-D analogue of python_tensor3_empty_planes.py; the oracle's generated inputs
# skip Python matrices without rows, this given input does not): len(x[0]) of [] raises
# IndexError in Python; the generated code returns [] (VERIFIED-BUT-WRONG).
# fuzz-spec: {"shape": "2d"}
# input: {"x": []}
# Python: raises IndexError: list index out of range
def kern(x: list[list[float]]):
    R = len(x)
    C = len(x[0])
    out = []
    for i in range(R):
        out.append(sum(x[i][j] for j in range(C)))
    return out
