# ruff: noqa: B905  (zip as people write it is the input under test)
# Methods: an instance method's attributes read are parameters; static / class methods are
# plain functions.
import math


class Vec:
    scale: float

    def __init__(self, data: list[float], scale: float) -> None:
        self.data = data
        self.scale = scale

    def norm(self) -> float:
        s = 0.0
        for x in self.data:
            s += x * x
        return math.sqrt(s) * self.scale

    def add_into(self, out: list[float]) -> None:
        for i in range(len(out)):
            out[i] += self.data[i] * self.scale

    @staticmethod
    def dot(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b))

    @classmethod
    def total(cls, a: list[float]) -> float:
        return sum(a)


class Matrix:
    def __init__(self, rows: list[list[float]]) -> None:
        self.rows = rows

    def scale_into(self, out: list[list[float]], k: float) -> None:
        for i in range(len(out)):
            for j in range(len(out[0])):
                out[i][j] = self.rows[i][j] * k
