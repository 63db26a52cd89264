def g(a, b=1, c):
    nonlocal q
    f(x=1, 2, x=3)
    yield
async def h():
    [await z for z in y]
