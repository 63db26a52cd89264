s = """abc

def f():
    pass
