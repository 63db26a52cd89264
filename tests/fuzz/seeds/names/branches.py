try:
    import json
except ImportError:
    json = None
if json:
    def h(): pass
else:
    def h(): pass
def h(): pass
match json:
    case [a, *rest] if a:
        del a
    case {"k": v, **kw} | Point(x=0, y=v) as z:
        pass
try:
    pass
except* ValueError as e:
    print(e)
print(e)  # noqa: F821
