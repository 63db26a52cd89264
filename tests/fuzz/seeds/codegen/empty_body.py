class A:
    ...

class LlamaMLP:
    def forward(self): pass
