import os
from typing import Optional, cast
x = 1
class A:
    a = x
    def m(self, y: "Optional[A]" = a) -> "B":
        return [i for i in range(a) if i] + __class__
def f(*args, **kw):
    global g
    g = lambda q, r=kw: q + r + undefined
    return cast("A", args)
class B(A): pass
