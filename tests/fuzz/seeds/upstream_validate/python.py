import torch


class A:
    def f(self, x: int = 1) -> "A":
        return "é€😀"
