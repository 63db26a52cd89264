def body(self, x):
    return Out(x=x)
class Out:
    x: int = 0
class Model:
    def forward(self, x) -> Out:
        h = self.norm(x)
        return Out(x=h)
#--
from .outputs import BaseOut, MultiOut
def body(self, x):
    return MultiOut(x=x)
class Model:
    def forward(self, x) -> BaseOut:
        h = self.norm(x)
        return MultiOut(x=h)
