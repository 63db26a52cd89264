import os

y = (2
@ 3)
# c d
@dec
# between
class A(B):
    def f(self):
        return 1

    @property
    def g(self):
        pass
    # trailing


class B:
    x = 1


def fn():
    pass
