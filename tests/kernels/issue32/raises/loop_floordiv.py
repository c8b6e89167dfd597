# 1 // c inside the loop raises only if the loop runs (an empty list returns []).
def loop_floordiv(xs: list[int], c: int) -> list[int]:
    out = []
    for i in range(len(xs)):
        out.append(xs[i] + 100 // c)
    return out
