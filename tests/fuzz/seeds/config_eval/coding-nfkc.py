# -*- coding: latin-1 -*-
from veomni.patchgen.patch_spec import PatchConfig
config = PatchConfig(source_module="m.x")
ｆ = 1

@config.replace_function("rotate_half")
def ｒotate_half(x):
    return x
