def conv2d_list(img: list[list[float]], ker: list[list[float]], oh: int, ow: int) -> list[float]:
    """valid 2-D correlation, the output flattened row by row"""
    k = len(ker)
    out = []
    for i in range(oh):
        for j in range(ow):
            acc = 0.0
            for a in range(k):
                for b in range(k):
                    acc += img[i + a][j + b] * ker[a][b]
            out.append(acc)
    return out
