def weighted_zip(xs: list[float], ws: list[float]) -> list[float]:
    """Elementwise products of two lists of possibly different lengths (zip stops at the shorter)."""
    return [x * w for x, w in zip(xs, ws)]  # noqa: B905 - zip's shortest-list semantics is the point
