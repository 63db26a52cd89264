import os


class A:
    x = 1

    def f(self):
        return os

#--
# ruff: noqa: F821
import os
import sys


class A:
    global G
    x = 1

    def f(self):
        return os


G = G + w
