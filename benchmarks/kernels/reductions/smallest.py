def smallest(xs: list[float]) -> float:
    """The smallest element (Python's min of a non-empty list)."""
    return min(xs)
