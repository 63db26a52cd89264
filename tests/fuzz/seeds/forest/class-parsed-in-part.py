import os


@dec
class A(B):
    x = 1

    def f(self):
        return os

    def g(self):
        return 2


class C:
    class D:
        y = 1

    z = 2

#--
import os


@dec
class A(B):  # noqa: F821
    x = 1
    # noqa

    def f(self):
        return os

    def h(self):
        return q  # noqa: F821

    def g(self):
        return r


class C:
    class D:
        y = 1

    z = 2
