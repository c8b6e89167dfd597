# Observation (not a campaign class; the campaign oracle passes 3-D inputs as arrays of the exact shape):
# the generated NumPy entry point rejects nested lists with an empty level although its docstring accepts
# "a 3-D array (planes x rows x cols) or nested lists" and the original function is defined there.
#   original kern([[], []]) == []      (two planes without rows)
#   generated kern([[], []]) -> ValueError: x: expected a 3-D array (planes of rows of one length), got shape (2, 0)
# (np.asarray([[], []]) has shape (2, 0); the adapter special-cases only ndim == 1 and size 0.)
# The same holds for the C++ entry point (vector of two empty planes). Tool at c04ec39.
# input: {"x": [[], []]}
def kern(x: list[list[list[int]]]) -> list[int]:
    out = []
    for p in range(len(x)):
        for r in range(len(x[p])):
            for c in range(len(x[p][r])):
                out.append(x[p][r][c] - 3)
    return out
