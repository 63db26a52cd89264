"""Edge cases of the generator, for tests/oracle/patchgen_edges.sh.

Usage: patchgen_edges.py PATCHGEN_ROOT WORKDIR

Writes a workspace into WORKDIR (pyproject.toml, one config per case under
edges/models/<case>/, the upstream modules under upstream/up/<case>.py), then runs
the real patchgen's ModelingCodeGenerator on every config and writes its raw output
to WORKDIR/expected/<target_file>. The cases are hand-written: each one aims at a
corner where Python's semantics leak into the output (semicolons, chained and
parenthesised statements, f-strings and bytes at top level, __all__ as a tuple or
with comments, relative imports deeper than the module, drop_import_names on dotted
names and aliases, form feeds and CRLF line ends, tabs, async overrides, decorators
with comments between them, strings whose lines look like comments, inline `...`
and `pass` bodies, renames, external function replacements, odd post-import
blocks and blank-line runs).
"""

import importlib
import os
import sys
import types


HDR = (
    "from veomni.patchgen.patch_spec import PatchConfig, PatchType, create_patch_from_external\n\n"
    "config = PatchConfig(source_module='up.{name}', target_file='{name}.py')\n"
)

CASES = {
    "semis": (
        "import os; import sys\na = 1; b = 2\nx = y = 3\n(\"doc\")\nf'fs'\nb'bytes'\n'''tail'''\n"
        "c: int = 4\nd += 1\nprint(a)\n",
        "",
    ),
    "all_tuple": (
        "__all__ = ('A',  # c\n    'B', \"C\"\n)\nclass A: pass\nclass B: pass\nclass C: pass\n",
        "config.exclude_from_output('B')\n",
    ),
    "all_paren_list": ("__all__ = (['A', 'B'])\nclass A: pass\nclass B: pass\n", "config.exclude_from_output('B')\n"),
    "all_nonstr": ("__all__ = ['A', x]\nclass A: pass\n", "config.exclude_from_output('B')\n"),
    "all_empty": ("__all__ = []\n", "config.exclude_from_output('B')\n"),
    "pass_with_doc": (
        "class A:\n    '''doc'''\n    pass\n\n\nclass B(A):\n    x = 1\n    # trailing\n",
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 1\n\n\n"
        "@config.override_method('B.g')\ndef gg(self):\n    # comment\n    return 2\n",
    ),
    "async_and_nested": (
        "class A:\n    class Inner:\n        def f(self): pass\n    async def f(self):\n        return 0\n",
        "\n\n@config.override_method('A.f')\nasync def new_f(self):\n    return 1\n",
    ),
    "decorated_comments": (
        "class A:\n    # lead\n    @dec1\n    # between\n    @dec2(\n        x=1)\n    def f(self):\n"
        "        return 0\n    # after\n\n    def g(self): return 1\n",
        "\n\n# header comment\n# second\n@config.override_method('A.f', description='d')\ndef f2(self):\n"
        "    return 1\n",
    ),
    "formfeed": (
        "# a\x0c b\nclass A:\n    def f(self):\n        return 1  # x\x0cy\n\x0c\ndef g():\n    pass\n",
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 2\n",
    ),
    "crlf": (
        "import os\r\nclass A:\r\n    def f(self):\r\n        return 1\r\n",
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 2\n",
    ),
    "tabs": (
        "class A:\n\tdef f(self):\n\t\treturn 1\n\n\tdef h(self):\n\t\tpass\n",
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 2\n\n\n"
        "@config.override_method('A.z')\ndef z(self):\n    return 3\n",
    ),
    "imports": (
        "from __future__ import annotations\nimport a.b.c as d, e\nfrom . import (x as y, z,)\nfrom .. import w\n"
        "from ...q import r\nfrom ....deep import s\nfrom .....toodeep import t\ntry:\n    import u\n"
        "except ImportError:\n    u = None\nif T:\n    from v import *\ndef fn():\n    import inner\n    return inner\n",
        "config.drop_import_names('e', 'z', 'c', 'd')\n",
    ),
    "string_lines": ("x = '''\n# looks like comment\n@ looks like decorator\n'''\n\nclass A:\n    pass\n", ""),
    "ellipsis_inline": (
        "class A(B): ...  # placeholder\nclass C(B): pass\nclass D:\n    (...)\n",
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 1\n\n\n"
        "@config.override_method('C.f')\ndef f2(self):\n    return 1\n\n\n"
        "@config.override_method('D.f')\ndef f3(self):\n    return 1\n",
    ),
    "renames": (
        "class Old:\n    pass\ndef fn(a):\n    return a\ndef fnb(a): return a\n",
        "\n\n# leading\n@config.replace_class('Old', description='r')\nclass New:\n"
        "    '''New is new; class New again'''\n    pass\n\n\ndef fn_new(a):\n    # fn_new body\n"
        "    return fn_new\n\n\nconfig.replace_function('fn', replacement=fn_new)\n"
        "config.patches.append(create_patch_from_external(target='fnb', replacement_module='m.sub', "
        "replacement_name='Impl', patch_type=PatchType.FUNCTION_REPLACEMENT))\n",
    ),
    "trailing_comment_end": (
        "class A:\n    def f(self):\n        return 1\n        # deeper trailing comment\n    # class trailing\n"
        "# top comment\nx = 1\n",
        "\n\n@config.override_method('A.f')\ndef f(self):\n    return 2\n",
    ),
    "blocks_and_blanks": (
        "class A:\n    pass\n\n\n\n\n\ndef b():\n    pass\n",
        "config.add_post_import_block('''\n    if X:\n        y = 1\n      # odd\n''')\n"
        "config.add_post_import_block('   ')\nconfig.add_import('m', names=['a', 'b'])\n"
        "config.add_import('n', is_from_import=False, alias='nn')\n\n\n@config.add_helper\ndef h():\n\n\n\n"
        "    return 1\n\n\n@config.add_helper_after('b')\nclass H:\n    pass\n",
    ),
    # what stands above a class with overrides: the generator takes the blank,
    # comment and decorator-looking lines above it along with the class text (a
    # continuation line starting with '@' makes that text fail to parse, and the
    # class stays as it is); a string whose last lines look like comments; a
    # decorated class with comments between its decorators and two overrides
    # a form feed above a class moves every later class's text a line up (line
    # numbers count "\n", lines come from splitlines): the class text the
    # generator gets is the line above it and its body less the last line
    "formfeed_second_class": (
        "# c\x0c d\nclass Z:\n    pass\nclass A:\n    def f(self):\n        pass\n\n\n"
        "# e\x0c\x0c f\nclass B:\n    def f(self):\n        return 1\n    # tail\n\n\nx = 1\n",
        "\n\n@config.override_method('A.f')\n@config.override_method('B.f')\ndef f(self):\n"
        "    return 2\n",
    ),
    # the same separators in a config: above and inside an override, and in the
    # comment patchgen takes along with it
    "formfeed_in_config": (
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n",
        "\n\n# a\x0c b\x1c c\u2028 d\n@config.override_method('A.f')\ndef f(self):\n"
        "    # in\x0c side\x1d\n    return 2\n\n\n\x0c\n@config.override_method('A.g')\n"
        "def g(self):\n    return 3\n",
    ),
    "above_class": (
        "y = (2\n@ 3)\nclass A:\n    def f(self):\n        return 1\n\n\n"
        "x = \"\"\"\n# a\n# b \"\"\"\n\n# lead\nclass B:\n    def f(self):\n        return 1\n\n\n"
        "# c1\n@d1\n# c2\n@d2(\n  1)\nclass C:\n    def f(self):\n        return 1\n\n"
        "    def g(self):\n        pass\n",
        "\n\n@config.override_method('A.f')\n@config.override_method('B.f')\n"
        "@config.override_method('C.f')\ndef f(self):\n    return 2\n\n\n"
        "@config.override_method('C.g')\n@config.override_method('C.h')\ndef g(self):\n    return 3\n",
    ),
}


def main():
    patchgen_root, work = sys.argv[1:3]
    up = os.path.join(work, "upstream", "up")
    os.makedirs(up, exist_ok=True)
    open(os.path.join(up, "__init__.py"), "w").close()
    with open(os.path.join(work, "pyproject.toml"), "w") as fp:
        fp.write(
            '[project]\ndependencies = ["transformers==9.9.9"]\n'
            '[tool.patchgen]\nsearch_root = "edges/models"\npackage_prefix = "edges.models"\n'
        )
    for pkg in ("edges", "edges/models"):
        os.makedirs(os.path.join(work, pkg), exist_ok=True)
        open(os.path.join(work, pkg, "__init__.py"), "w").close()
    for name, (upstream, config) in CASES.items():
        with open(os.path.join(up, name + ".py"), "w", newline="") as fp:
            fp.write(upstream)
        d = os.path.join(work, "edges", "models", name)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "__init__.py"), "w").close()
        with open(os.path.join(d, f"{name}_patch_gen_config.py"), "w") as fp:
            fp.write(HDR.format(name=name) + config)

    sys.path[:0] = [patchgen_root, work]
    from veomni.patchgen.codegen import ModelingCodeGenerator

    fake = types.ModuleType("transformers")
    fake.__version__ = "9.9.9"
    sys.modules["transformers"] = fake
    out = os.path.join(work, "expected")
    os.makedirs(out, exist_ok=True)
    for name in CASES:
        stub = types.ModuleType("up." + name)
        stub.__file__ = os.path.join(up, name + ".py")
        sys.modules["up." + name] = stub
        config = importlib.import_module(f"edges.models.{name}.{name}_patch_gen_config").config
        with open(os.path.join(out, name + ".py"), "w", encoding="utf-8", newline="") as fp:
            fp.write(ModelingCodeGenerator(config).generate())


if __name__ == "__main__":
    main()
