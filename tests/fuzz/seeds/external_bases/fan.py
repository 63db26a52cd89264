class A0(A1, A1, A1, A1, A1, A1):
    pass
class A1(A2, A2, A2, A2, A2, A2):
    pass
class A2(A3, A3, A3, A3, A3, A3):
    pass
class A3(A4, A4, A4, A4, A4, A4):
    pass
class A4(A5, A5, A5, A5, A5, A5):
    pass
class A5(A6, A6, A6, A6, A6, A6):
    pass
class A6(A7, A7, A7, A7, A7, A7):
    pass
class A7(A8, A8, A8, A8, A8, A8):
    pass
class A8(A9, A9, A9, A9, A9, A9):
    pass
class A9(A10, A10, A10, A10, A10, A10):
    pass
class A10(PreTrainedModel, X, X, X, X, X):
    pass
from ...modeling_utils import PreTrainedModel
from ..x import X
#--
from .a import B0
class B0(B1, B1, B1, B1, B1):
    pass
class B1(B2, B2, B2, B2, B2):
    pass
class B2(B3, B3, B3, B3, B3):
    pass
class B3(B4, B4, B4, B4, B4):
    pass
class B4(B5, B5, B5, B5, B5):
    pass
class B5(B6, B6, B6, B6, B6):
    pass
class B6(B7, B7, B7, B7, B7):
    pass
class B7(B8, B8, B8, B8, B8):
    pass
class B8(Ext, Ext, Ext, Ext, Ext):
    pass
class PreTrainedModel(B0, B0, B0):
    pass
class X(B0, B0, B0):
    pass
from .other import Ext
