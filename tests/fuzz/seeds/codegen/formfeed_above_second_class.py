# c d
class Z:
    pass
class A:
    def f(self):
        pass
