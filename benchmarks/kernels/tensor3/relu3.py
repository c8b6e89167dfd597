def relu3(x: list[list[list[float]]]) -> list[list[float]]:
    """ReLU of a batch of feature maps; one output row per map."""
    out = []
    for b in range(len(x)):
        row = []
        for i in range(len(x[b])):
            for j in range(len(x[b][i])):
                row.append(max(x[b][i][j], 0.0))
        out.append(row)
    return out
