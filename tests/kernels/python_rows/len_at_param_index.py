# refused: len(m[r]) at an index that is a parameter
def len_at_param_index(m: list[list[float]], r: int) -> int:
    return len(m[r])
