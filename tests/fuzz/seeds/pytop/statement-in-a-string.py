import os


class A:
    x = f"{d['k']:>{w}}"


@dec
# c
def f():
    return 1
#--
import os
s = """
class A:
    x = f"{d['k']:>{w}}"
"""

@dec
# c
def f():
    return 2
