# len(m[0]) in a loop that does not run over the rows of m: Python raises IndexError when
# the loop runs (xs not empty) and m is empty, which the argument check states
def len_in_other_loop(xs: list[float], m: list[list[float]]) -> list[float]:
    out = []
    for v in xs:
        out.append(v * len(m[0]))
    return out
