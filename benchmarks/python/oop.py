"""oop: classes with inheritance, operator methods and sorting objects
(the same work as oop.lua)."""


class Base:
    def describe(self):
        return "%s#%d" % (self.kind, self.id)

    def weight(self):
        return self.area() + self.perimeter()


class Shape(Base):
    kind = "shape"

    def perimeter(self):
        return 0


class Rect(Shape):
    kind = "rect"

    def __init__(self, id, w, h):
        self.id, self.w, self.h = id, w, h

    def area(self):
        return self.w * self.h

    def perimeter(self):
        return 2 * (self.w + self.h)


class Square(Rect):
    kind = "square"

    def __init__(self, id, s):
        self.id, self.w, self.h = id, s, s


class Money:
    __slots__ = ("cents",)

    def __init__(self, cents):
        self.cents = cents

    def __add__(self, other):
        return Money(self.cents + other.cents)

    def __eq__(self, other):
        return self.cents == other.cents

    def __lt__(self, other):
        return self.cents < other.cents

    def __le__(self, other):
        return self.cents <= other.cents

    def __str__(self):
        return "$%d.%02d" % (self.cents // 100, self.cents % 100)


def bench(n):
    shapes, seed = [], 11
    for i in range(1, n + 1):
        seed = (seed * 1103515245 + 12345) % 2147483648
        if seed % 3 == 0:
            shapes.append(Square(i, seed % 17 + 1))
        else:
            shapes.append(Rect(i, seed % 13 + 1, seed % 19 + 1))
    total = names = 0
    for s in shapes:
        total += s.weight()
        names += len(s.describe())
    total_money, equal, less = Money(0), 0, 0
    prices = []
    for i, s in enumerate(shapes):
        m = Money(s.area() * 25)
        prices.append(m)
        total_money = total_money + m
        if i > 0:
            if m == prices[i - 1]:
                equal += 1
            if m < prices[i - 1]:
                less += 1
            if m <= prices[i - 1]:
                less += 1
    ordered = sorted(prices[: n // 4])
    text = str(total_money) + str(ordered[0]) + str(ordered[-1])
    return total + names + equal + less + total_money.cents % 1000003 + len(text)
