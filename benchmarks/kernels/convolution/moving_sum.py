def moving_sum(xs: list[float], width: int, n: int) -> list[float]:
    """Sums of the windows xs[i:i+width] for the first n positions."""
    return [sum(xs[i + j] for j in range(width)) for i in range(n)]
