# issue 32, class 3: tot[i] / cnt[i] on ints is rounded once (2**53 + 1) / 3.
def mean_ratio(tot: list[int], cnt: list[int]) -> list[float]:
    out = []
    for i in range(len(tot)):
        out.append(tot[i] / cnt[i])
    return out
