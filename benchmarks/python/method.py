"""method: method calls on a class instance."""


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def move(self, dx, dy):
        self.x = self.x + dx
        self.y = self.y + dy

    def sum(self):
        return self.x + self.y


def bench(n):
    p = Point(0, 0)
    for i in range(n):
        p.move(1, 2)
    return p.sum()
