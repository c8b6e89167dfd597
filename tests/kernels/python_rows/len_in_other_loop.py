# refused: len(m[0]) in a loop that does not run over the rows of m (Python raises when m
# is empty and n > 0)
def len_in_other_loop(m: list[list[float]], n: int) -> int:
    t = 0
    for k in range(n):
        t += len(m[0])
    return t
