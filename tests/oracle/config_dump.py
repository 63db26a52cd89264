#!/usr/bin/env python3
"""The real patchgen's view of patch configs, as JSON lines in the shape of pgci's
tests/tools/config_dump (see src/patchgen/config_dump.h).

The configs are imported by the real interpreter with the real PatchConfig from a
patchgen release (`--patchgen DIR`: a directory holding `veomni/patchgen/`, e.g. the
unpacked veomni 0.1.11 wheel), loaded without the rest of its package: `veomni` and
every package on the way to the configs are empty namespace modules here, so no
`__init__.py` with heavy imports runs. Anything else a config imports that is not in
the standard library (torch, transformers, liger_kernel, veomni.utils...) is a
permissive stub: attribute access gives stub classes, calling a stub with one def or
class returns it unchanged (a decorator that keeps its object, as functools.wraps
does), any other call gives a stub, and stubs can be subclassed, subscripted and
combined with `|`. That is enough to import the real VeOmni configs without torch.

Each config is imported in a fresh module namespace (the workspace's modules are
dropped from sys.modules in between), as a fresh `patchgen MODULE` process would.

    config_dump.py --patchgen DIR --root WS --search-root REL --prefix P [-c VAR] FILE...
"""
import argparse
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import os
import sys
import types


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub(name)

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and (inspect.isfunction(args[0]) or inspect.isclass(args[0])):
            return args[0]
        return _stub(cls.__name__ + "()")

    def __getitem__(cls, item):
        return cls

    def __or__(cls, other):
        return cls

    def __ror__(cls, other):
        return cls

    def __add__(cls, other):
        return cls

    def __radd__(cls, other):
        return cls

    def __mul__(cls, other):
        return cls

    def __iter__(cls):
        return iter(())

    def __bool__(cls):
        return True


def _stub(name):
    return _StubMeta(str(name), (), {})


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stub(name)
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


class _EmptyPackageLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        pass


class Finder(importlib.abc.MetaPathFinder):
    """patchgen from the release; the packages on the way to the configs empty;
    modules under the configs' package from their files; the standard library as
    usual; everything else stubbed."""

    def __init__(self, search_root, prefix, patchgen_dir):
        self.search_root = search_root
        self.prefix = prefix.split(".") if prefix else []
        self.patchgen_dir = patchgen_dir

    @staticmethod
    def _package(fullname, path):
        spec = importlib.machinery.ModuleSpec(fullname, _EmptyPackageLoader(), is_package=True)
        spec.submodule_search_locations = [path]
        return spec

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if fullname.startswith("veomni.patchgen") or parts[0] == "patchgen":
            rest = parts[1:] if parts[0] == "patchgen" else parts[2:]
            base = os.path.join(self.patchgen_dir, "veomni", "patchgen", *rest)
            if not rest:
                return importlib.util.spec_from_file_location(
                    fullname, os.path.join(base, "__init__.py"), submodule_search_locations=[base]
                )
            return importlib.util.spec_from_file_location(fullname, base + ".py")
        n = len(self.prefix)
        if parts == self.prefix[: len(parts)]:
            # a package on the way to search_root: empty, no __init__.py runs
            up = self.search_root
            for _ in range(n - len(parts)):
                up = os.path.dirname(up)
            return self._package(fullname, up)
        if parts[:n] == self.prefix:
            base = os.path.join(self.search_root, *parts[n:])
            if os.path.isdir(base):
                return self._package(fullname, base)
            if os.path.isfile(base + ".py"):
                return importlib.util.spec_from_file_location(fullname, base + ".py")
            return None  # a workspace module that does not exist
        if parts[0] in sys.stdlib_module_names:
            return None
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


def _unwrap(obj):
    while hasattr(obj, "__wrapped__"):
        obj = obj.__wrapped__
    return obj


def obj_json(obj, root):
    if obj is None:
        return None
    inner = _unwrap(obj)
    lines, first = inspect.getsourcelines(inner)
    path = os.path.realpath(inspect.getsourcefile(inner))
    if path.startswith(root + os.sep):
        path = path[len(root) + 1 :]
    return {
        "name": obj.__name__,
        "module": obj.__module__,
        "file": path,
        "first_line": first,
        "last_line": first + len(lines) - 1,
        "is_class": inspect.isclass(inner),
    }


def config_json(cfg, root):
    return {
        "source_module": cfg.source_module,
        "target_file": cfg.target_file,
        "description": cfg.description,
        "transformers_version": cfg.transformers_version,
        "patches": [
            {
                "type": p.patch_type.value,
                "target": p.target,
                "replacement": obj_json(p.replacement, root),
                "replacement_source": p.replacement_source,
                "source_module": p.source_module,
                "description": p.description,
                "name_map": [list(kv) for kv in p.name_map.items()] if p.name_map else None,
            }
            for p in cfg.patches
        ],
        "additional_imports": [
            {
                "module": i.module,
                "names": list(i.names) if i.names is not None else None,
                "alias": i.alias,
                "is_from_import": bool(i.is_from_import),
            }
            for i in cfg.additional_imports
        ],
        "post_import_blocks": list(cfg.post_import_blocks),
        "helpers": [obj_json(h, root) for h in cfg.helpers],
        "positioned_helpers": [
            {"target": h.target, "placement": h.placement, "helper": obj_json(h.helper, root)}
            for h in cfg.positioned_helpers
        ],
        "drop_imported_names": sorted(cfg.drop_imported_names),
        "exclude": list(cfg.exclude),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--patchgen", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--search-root", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("-c", dest="var", default="config")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    root = os.path.realpath(a.root)
    search = os.path.realpath(os.path.join(root, a.search_root))
    prefix = a.prefix.rstrip(".")
    sys.meta_path.insert(0, Finder(search, prefix, os.path.realpath(a.patchgen)))
    sys.dont_write_bytecode = True
    from veomni.patchgen.patch_spec import PatchConfig

    keep = set(sys.modules)
    rc = 0
    for f in a.files:
        rel = os.path.relpath(os.path.realpath(f), search)
        name = ".".join(filter(None, [prefix] + rel[: -len(".py")].split(os.sep)))
        out = {"file": f}
        try:
            module = importlib.import_module(name)
            cfg = getattr(module, a.var)
            if not isinstance(cfg, PatchConfig):
                raise TypeError(f"{a.var} in {name} is not a PatchConfig")
            out["config"] = config_json(cfg, root)
        except BaseException as e:  # noqa: BLE001 - every failure is a verdict
            out["error"] = f"{type(e).__name__}: {e}"
            rc = 1
        print(json.dumps(out, sort_keys=True, ensure_ascii=True, separators=(",", ":")))
        for m in set(sys.modules) - keep:
            del sys.modules[m]
    return rc


if __name__ == "__main__":
    sys.exit(main())
