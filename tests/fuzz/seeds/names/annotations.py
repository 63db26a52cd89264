from __future__ import annotations
from typing import Literal, Annotated, TypeVar
T = TypeVar("T", bound="Later")
def f[U: Later](a: Later, b: Literal["x"], c: Annotated["Later", "meta"]) -> "list['Later']":
    w: "Later" "[int]" = (n := 1)
    return [n for n in a]
type Alias[V] = list[V] | Later
class Later:
    __all__ = ["nothing"]
