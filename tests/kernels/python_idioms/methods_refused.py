class Base:
    pass


class Derived(Base):
    def total(self) -> float:
        return sum(self.data)


class Counter:
    def bump(self, xs: list[float]) -> float:
        self.count = 0.0
        return sum(xs)

    def helper(self) -> float:
        return 1.0

    def calls(self, xs: list[float]) -> float:
        return sum(xs) * self.helper()

    @property
    def scale(self) -> float:
        return 2.0

    def uses_property(self, xs: list[float]) -> float:
        return sum(xs) * self.scale

    def passes_self(self, xs: list[float]) -> float:
        return helper_of(self)

    @classmethod
    def uses_cls(cls, xs: list[float]) -> float:
        return sum(xs) * cls.factor


def helper_of(obj: object) -> float:
    return 1.0
