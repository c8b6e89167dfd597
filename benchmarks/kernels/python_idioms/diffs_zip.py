def diffs_zip(a: list[int], b: list[int]) -> list[int]:
    """Pairwise differences up to the shorter list, built with append."""
    out = []
    for x, y in zip(a, b):  # noqa: B905 - zip's shortest-list semantics is the point
        out.append(x - y)
    return out
