"""The real patchgen's raw codegen over a real VeOmni tree (tests/corpus/57-patchgen-raw.sh, make bench).

usage: patchgen_stubbed.py PATCHGEN_PARENT WORKSPACE TRANSFORMERS_DIR OUT_DIR [FAILED]

VeOmni's configs import torch, transformers and VeOmni's runtime, none of which a
benchmark machine needs to have: those imports resolve to stubs (any attribute,
call, subscript or base class works; a stub called on a function returns the
function, so decorators stack as they would). The generator is patchgen's own
(PATCHGEN_PARENT holds a bare `veomni` package with only its `patchgen`), each
config module is imported from the workspace as patchgen would, and each upstream
module is registered with its file so that patchgen reads the real source. Only
generate() is patchgen; this script is the harness. Writes each raw output to
OUT_DIR/<target_file> (so a caller can compare them with pgci's); prints the count.
With FAILED, a config patchgen refuses (it raises) is one line there - the config
and patchgen's error - and the others go on; without it the first refusal stops.
"""
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types

pg_parent, ws, tf, out = sys.argv[1:5]
failed = sys.argv[5] if len(sys.argv) > 5 else None


class Stub:
    def __init__(self, name="stub"):
        self._name = name

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return Stub(self._name + "." + k)

    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]) and not isinstance(a[0], Stub):
            return a[0]
        return Stub(self._name + "()")

    def __getitem__(self, k):
        return Stub(self._name + "[]")

    classes = {}

    def __mro_entries__(self, bases):
        # a distinct class per stubbed name, so two stub bases do not collide
        if self._name not in Stub.classes:
            Stub.classes[self._name] = type(self._name.rsplit(".", 1)[-1], (), {})
        return (Stub.classes[self._name],)

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __iter__(self):
        return iter(())


class StubModule(types.ModuleType):
    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return Stub(self.__name__ + "." + k)


REAL = ("veomni.patchgen",)
PKG_DIRS = {"veomni": os.path.join(ws, "veomni")}


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.startswith(REAL) or name.endswith("_patch_gen_config"):
            return None
        top = name.split(".")[0]
        if top in ("torch", "transformers", "numpy", "veomni", "einops", "triton",
                   "flash_attn", "torch_npu", "liger_kernel", "diffusers", "safetensors"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = StubModule(spec.name)
        m.__path__ = []
        src = os.path.join(tf, *spec.name.split(".")) + ".py"
        if spec.name.startswith("transformers.") and os.path.isfile(src):
            m.__file__ = src  # patchgen reads the upstream source through it
        if spec.name == "transformers":
            import glob
            info = glob.glob(os.path.join(tf, "transformers-*.dist-info"))
            m.__version__ = os.path.basename(info[0])[len("transformers-"):-len(".dist-info")]
        if spec.name == "veomni":
            m.__path__ = [os.path.join(pg_parent, "veomni"), os.path.join(ws, "veomni")]
        elif spec.name.startswith("veomni.models"):
            m.__path__ = [os.path.join(ws, *spec.name.split("."))]
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, Finder())
sys.path.insert(0, ws)
from veomni.patchgen.codegen import ModelingCodeGenerator  # noqa: E402

root = os.path.join(ws, "veomni", "models", "transformers")
n = 0
os.makedirs(out, exist_ok=True)
for d, _, files in sorted(os.walk(root)):
    for f in sorted(files):
        if not f.endswith("_patch_gen_config.py"):
            continue
        rel = os.path.relpath(os.path.join(d, f), ws)[:-3]
        try:
            c = importlib.import_module(rel.replace(os.sep, ".")).config
            importlib.import_module(c.source_module)
            text = ModelingCodeGenerator(c).generate()
        except Exception as e:
            if failed is None:
                raise
            with open(failed, "a") as g:
                g.write(f"{rel}.py\t{type(e).__name__}: {e}\n")
            continue
        with open(os.path.join(out, os.path.basename(c.target_file)), "w") as g:
            g.write(text)
        n += 1
print(n)
