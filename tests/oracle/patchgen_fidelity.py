"""Constructs where reading a config without Python could differ from patchgen,
for tests/oracle/patchgen_fidelity.sh (issue 16: never silently different).

Usage: patchgen_fidelity.py PATCHGEN_ROOT WORKDIR

Writes a workspace into WORKDIR (pyproject.toml, one config per case under
fid/models/<case>/ written as raw bytes, the upstream modules under upstream/up/),
then imports every config with the real patchgen (veomni 0.1.11) in a fresh module
namespace and writes WORKDIR/expected/<case>.py (ModelingCodeGenerator's raw
output) or WORKDIR/expected/<case>.err (patchgen failed: the exception), and
WORKDIR/cases.tsv: `case<TAB>expect`, where expect is `same` (pgci must write the
same bytes) or the text pgci's one-line refusal must contain (`file:line:col:` is
checked by the shell script).

Each case is one construct of issue 16 (or of the gate's nesting limit): modelled
(NFKC identifiers, `\\r` and `\\r\\n` line breaks, PEP 263 coding lines, `not in`)
or refused (decorators pgci does not know, descriptors, a mutated sibling config,
`__name__` assignment, a non-UTF-8 byte, `Patch(...)`, nesting CPython refuses).
"""

import functools
import importlib
import os
import sys
import traceback
import types

HDR = (
    b"from veomni.patchgen.patch_spec import PatchConfig, PatchType, create_patch_from_external\n\n"
    b"config = PatchConfig(source_module='up.{name}', target_file='{name}.py')\n"
)

UP = (
    b"import os\n\n\nclass A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\n"
    b"def rotate_half(x):\n    return x\n\n\nclass MyMLP:\n    pass\n"
)

# name -> (config body after the header (bytes), expect, header override or None)
CASES = {
    # 1. NFKC identifiers: Python's names are normalised, the copied source is not
    "nfkc_def": (
        "\n\n@config.replace_function('rotate_half')\ndef ｒｏｔａｔｅ_half(x):\n    return x + 1\n".encode(),
        "same",
    ),
    "nfkc_rename": (
        "\n\n@config.replace_function('rotate_half')\ndef ｎｅｗ_rot(x):\n    return x + 2\n\n\n"
        "@config.override_method('A.f')\ndef ｆ(self):\n    return 3\n".encode(),
        "same",
    ),
    "nfkc_names": (
        "ＤＥＳＣ = 'fullwidth constant'\n\n\n@config.replace_class('MyMLP', description=DESC)\n"
        "class Ｍｙ(object):\n    pass\n\n\nｃｏｎｆｉｇ.exclude_from_output('rotate_half')\n".encode(),
        "same",
    ),
    "nfkc_keyword": ("ｉｆ = 1\n".encode(), "is the keyword 'if' once NFKC-normalised"),
    # 2. a config-side decorator pgci does not know may return a wrapper
    "deco_unknown": (
        b"\n\ndef wrap(f):\n    def inner(*a):\n        return f(*a)\n    return inner\n\n\n"
        b"@config.override_method('A.f')\n@wrap\ndef f(self):\n    return 5\n",
        "@wrap (a decorator pgci does not know",
    ),
    "deco_unknown_helper": (
        b"import mylib\n\n\n@config.add_helper\n@mylib.cached\ndef h():\n    return 1\n",
        "@mylib.cached (a decorator pgci does not know",
    ),
    "deco_known": (
        b"from functools import lru_cache\nimport torch\n\n\n@config.add_helper\n@lru_cache(maxsize=8)\n"
        b"def h(x):\n    return x\n\n\n@config.override_method('A.f')\n@torch.no_grad()\ndef f(self):\n"
        b"    return 6\n",
        "same",
    ),
    "deco_above": (
        b"\n\ndef wrap(f):\n    return f\n\n\n@wrap\n@config.override_method('A.f')\ndef f(self):\n    return 7\n",
        "same",
    ),
    "deco_above_then_helper": (
        b"\n\ndef wrap(f):\n    return f\n\n\n@wrap\n@config.override_method('A.f')\ndef f(self):\n    return 7\n\n\n"
        b"config.add_helper(f)\n",
        "f (f is wrapped by @wrap (line 10), a decorator pgci does not know",
    ),
    # 3. descriptor decorators between the patch decorator and the def
    "deco_property": (
        b"\n\n@config.override_method('A.g', description='prop')\n@property\ndef g(self):\n    return 8\n",
        "@property (a decorator pgci does not know",
    ),
    "deco_staticmethod": (
        b"\n\n@config.override_method('A.g', description='s')\n@staticmethod\ndef g():\n    return 9\n",
        "@staticmethod (a decorator pgci does not know",
    ),
    # 5. __name__ assignment
    "name_assign": (
        b"\n\n@config.replace_class('MyMLP')\nclass MyMLP2:\n    pass\n\n\nMyMLP2.__name__ = 'Renamed'\n",
        "MyMLP2.__name__ = 'Renamed' (patchgen reads __name__",
    ),
    "qualname_assign": (
        b"\n\n@config.replace_class('MyMLP')\nclass MyMLP2:\n    pass\n\n\nsetattr(MyMLP2, '__name__', 'R')\n",
        "setattr(",
    ),
    # 6. a lone \r inside a comment ends the line for Python
    "cr_in_comment": (
        b"\n\n@config.override_method('A.f')\ndef f(self):\n    # note\r    x = 1\n    return 10\n\n\n"
        b"# between\r\n@config.override_method('A.g')\ndef g(self):\n    y = 2  # tail\r    return y\n",
        "same",
    ),
    # 7. \r-only and mixed line endings
    "cr_only": (
        b"\r\r@config.override_method('A.f')\rdef f(self):\r    # c\r    return 11\r\r\r"
        b"@config.replace_function('rotate_half')\rdef rot(x):\r    return x\r",
        "same",
    ),
    "cr_mixed_string": (
        b"\r\n\r\n@config.override_method('A.f', description='d')\r\ndef f(self):\r    s = '''a\rb\r\nc'''\n"
        b"    return s\r\n\nconfig.add_post_import_block('''X = 1\rY = 2''')\n",
        "same",
    ),
    # 8. PEP 263 coding lines
    "coding_latin1_ascii": (
        b"\n\n@config.override_method('A.f')\ndef f(self):\n    return 12\n",
        "same",
        b"# -*- coding: latin-1 -*-\n",
    ),
    "coding_latin1_byte": (
        b"\n\n@config.override_method('A.f')\ndef f(self):\n    return '\xe9'\n",
        "non-UTF-8 byte",
        b"# -*- coding: latin-1 -*-\n",
    ),
    "coding_utf8": (
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 'é'  # ü\n".encode(),
        "same",
        b"#!/usr/bin/env python\n# vim: set fileencoding=utf-8 :\n",
    ),
    "coding_latin1_utf8_text": (
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 'é'\n".encode(),
        "coding line",
        b"# coding=latin-1\n",
    ),
    "no_coding_bad_byte": (
        b"\n\n@config.override_method('A.f')\ndef f(self):\n    return '\xff'\n",
        "non-UTF-8 byte",
    ),
    # `not in` in a filter
    "filter_not_in": (
        b"\n\nother = PatchConfig(source_module='up.x')\n\n\n@other.add_helper\ndef h1():\n    return 1\n\n\n"
        b"@other.add_helper\ndef h2():\n    return 2\n\n\n"
        b"config.helpers.extend(h for h in other.helpers if h.__name__ not  in ('h1',))\n"
        b"config.helpers.extend(h for h in other.helpers if not h.__name__ not in ['h1'] and True)\n",
        "same",
    ),
    # Patch(...) objects
    "patch_object": (
        b"from veomni.patchgen.patch_spec import Patch\n\n\ndef f(self):\n    return 13\n\n\n"
        b"config.patches.append(Patch(patch_type=PatchType.METHOD_OVERRIDE, target='A.f', replacement=f))\n",
        "Patch(...) objects are not supported",
    ),
    # nesting CPython refuses (more than 200 parentheses)
    "nesting_201": (
        b"\n\n@config.add_helper\ndef h():\n    return [" + b"(" * 200 + b"1" + b")" * 200 + b"]\n",
        "nested more than 200",
    ),
    "nesting_200": (
        b"\n\n@config.add_helper\ndef h():\n    return [" + b"(" * 199 + b"1" + b")" * 199 + b"]\n",
        "same",
    ),
    # and indentation CPython refuses (100 levels; 99 compile), and indentation wider
    # than tree-sitter-python's scanner keeps (one byte): refused, not a bogus syntax error
    "indent_wide": (b"\n\n@config.add_helper\ndef h():\n" + b"".join(b"    " * i + b"if True:\n" for i in range(1, 70)) + b"    " * 70 + b"return 1\n", "indentation wider than 255 columns"),
    "indent_99": (b"\n\n@config.add_helper\n" + b"".join(b" " * i + (b"if True:\n" if i else b"def h():\n") for i in range(99)) + b" " * 99 + b"return 1\n", "same"),
    "indent_100": (b"\n\n@config.add_helper\n" + b"".join(b" " * i + (b"if True:\n" if i else b"def h():\n") for i in range(100)) + b" " * 100 + b"return 1\n", "indented blocks nested more than 99 deep"),
}

# 4. a config mutating an imported sibling's config that a third config reads
SIBLINGS = {
    "mut_base": b"\n\n@config.add_helper\ndef base_helper():\n    return 1\n",
    "mut_changer": (
        b"from fid.models.mut_base.mut_base_patch_gen_config import config as base\n\n"
        b"base.exclude_from_output('A')\n"
    ),
}
SIB_CASES = {
    "mut_reader": (
        b"from fid.models.mut_changer import mut_changer_patch_gen_config  # noqa: F401\n"
        b"from fid.models.mut_base.mut_base_patch_gen_config import config as base\n\n"
        b"config.exclude.extend(base.exclude)\nconfig.helpers.extend(base.helpers)\n",
        "changed by",
    ),
    "mut_reader_first": (
        b"from fid.models.mut_base.mut_base_patch_gen_config import config as base\n"
        b"from fid.models.mut_changer import mut_changer_patch_gen_config\n\n"
        b"config.exclude.extend(base.exclude)\n",
        "changed by",
    ),
    # found by tests/corpus/57-differential.sh (deepseek_v4's NPU config reading the
    # qwen3_omni_moe NPU config, which changed the GPU one's): a copy of the changed
    # copy holds the change, as Python's shared object does - not refused
    "mut_chain_reader": (
        b"from fid.models.mut_changer.mut_changer_patch_gen_config import base as changed\n\n"
        b"config.exclude.extend(changed.exclude)\nconfig.helpers.extend(changed.helpers)\n",
        "same",
    ),
    "mut_own_copy": (
        b"from fid.models.mut_base.mut_base_patch_gen_config import config\n\n"
        b"config.target_file = 'mut_own_copy.py'\nconfig.source_module = 'up.mut_own_copy'\n"
        b"config.exclude_from_output('MyMLP')\n",
        "same",
    ),
}


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fp:
        fp.write(data)


def main():
    patchgen_root, work = sys.argv[1:3]
    up = os.path.join(work, "upstream", "up")
    write(os.path.join(up, "__init__.py"), b"")
    write(
        os.path.join(work, "pyproject.toml"),
        b'[project]\ndependencies = ["transformers==9.9.9"]\n'
        b'[tool.patchgen]\nsearch_root = "fid/models"\npackage_prefix = "fid.models"\n',
    )
    for pkg in ("fid", "fid/models"):
        write(os.path.join(work, pkg, "__init__.py"), b"")
    cases = {}
    for name, spec in CASES.items():
        body, expect = spec[0], spec[1]
        head = spec[2] if len(spec) > 2 else b""
        cases[name] = (head + HDR.replace(b"{name}", name.encode()) + body, expect)
    for name, body in SIBLINGS.items():
        cases[name] = (HDR.replace(b"{name}", name.encode()) + body, "same")
    for name, (body, expect) in SIB_CASES.items():
        cases[name] = (HDR.replace(b"{name}", name.encode()) + body, expect)
    for name, (text, _) in cases.items():
        write(os.path.join(up, name + ".py"), UP)
        d = os.path.join(work, "fid", "models", name)
        write(os.path.join(d, "__init__.py"), b"")
        write(os.path.join(d, f"{name}_patch_gen_config.py"), text)

    sys.path[:0] = [patchgen_root, work]
    from veomni.patchgen.codegen import ModelingCodeGenerator

    torch = types.ModuleType("torch")  # torch.no_grad() wraps as the real one does
    torch.no_grad = lambda: (lambda f: functools.wraps(f)(lambda *a, **k: f(*a, **k)))
    sys.modules["torch"] = torch
    fake = types.ModuleType("transformers")
    fake.__version__ = "9.9.9"
    sys.modules["transformers"] = fake
    for name in cases:
        stub = types.ModuleType("up." + name)
        stub.__file__ = os.path.join(up, name + ".py")
        sys.modules["up." + name] = stub
    out = os.path.join(work, "expected")
    os.makedirs(out, exist_ok=True)
    keep = set(sys.modules)
    with open(os.path.join(work, "cases.tsv"), "w") as tsv:
        for name, (_, expect) in cases.items():
            tsv.write(f"{name}\t{expect}\n")
            try:
                config = importlib.import_module(f"fid.models.{name}.{name}_patch_gen_config").config
                text = ModelingCodeGenerator(config).generate()
                with open(os.path.join(out, name + ".py"), "w", encoding="utf-8", newline="") as fp:
                    fp.write(text)
            except BaseException:  # noqa: BLE001 - a failure is patchgen's verdict
                with open(os.path.join(out, name + ".err"), "w") as fp:
                    fp.write(traceback.format_exc(limit=-1))
            for m in set(sys.modules) - keep:
                del sys.modules[m]


if __name__ == "__main__":
    main()
