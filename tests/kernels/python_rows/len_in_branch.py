# refused: len(m[0]) under a condition on the data
def len_in_branch(m: list[list[float]], a: float) -> int:
    t = 0
    if a > 0:
        t = len(m[0])
    return t
