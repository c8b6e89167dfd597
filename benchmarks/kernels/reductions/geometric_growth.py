def geometric_growth(rates: list[float]) -> float:
    """Compound growth factor of a sequence of rates."""
    g = 1.0
    for r in rates:
        g *= 1.0 + r
    return g
