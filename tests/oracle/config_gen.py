#!/usr/bin/env python3
"""Random patch configs for the differential test of pgci's config evaluator.

    config_gen.py COUNT SEED OUTDIR

Writes OUTDIR/pyproject.toml and OUTDIR/cfggen/gen_<i>_patch_gen_config.py (plus a
sibling base config they import from). Each config mixes, at random, every construct
the evaluator models: string constants with every prefix, escapes and adjacent
literals, name maps, PatchConfig built with keywords or positions, stacks of patch
and ordinary decorators with comments between them, defs and classes whose bodies
end in blank lines and comment lines at every indentation (what inspect's block
finder includes or not), one-line bodies, tabs, CRLF files, classes defined twice,
direct registrations by keyword and by position, decorators applied by hand,
imports in every form, post-import blocks, dropped and excluded names with `*`
splats, list extends and the `__name__` filter over the sibling's helpers, external
patches with every PatchType, TYPE_CHECKING blocks, placeholders that rebind a name.
Everything it writes is valid Python that the real patchgen imports; pgci must agree
with it on every field.
"""
import os
import random
import sys

PATCH_TYPES = ["CLASS_REPLACEMENT", "METHOD_OVERRIDE", "FUNCTION_REPLACEMENT", "ADDITIONAL_IMPORT", "INIT_MODIFICATION"]
PLAIN_DECORATORS = ["@functools.lru_cache", "@functools.lru_cache(maxsize=8)", "@typing.no_type_check",
                    "@contextlib.contextmanager", "@functools.cache"]
BASE = '''# The sibling every generated config may import from.
from veomni.patchgen.patch_spec import PatchConfig

config = PatchConfig(source_module="transformers.models.base.modeling_base", target_file="base.py")
config.add_import("functools", names=["partial"])
config.add_post_import_block("BASE = 1")
config.drop_import_names("BaseUnused")
config.exclude_from_output("BaseExcluded")


@config.add_helper
def base_helper_a():
    return 1


@config.add_helper
def base_helper_b():
    return 2


@config.override_method("Base.forward", description="base")
def base_forward(self, x):
    return x
    # trailing
'''


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.lines = []
        self.defs = []  # names of defs/classes usable as replacements
        self.n = 0

    def name(self, stem):
        self.n += 1
        return f"{stem}{self.n}"

    def ident(self):
        return self.r.choice(["Toy", "Llama", "Qwen3", "Mlp", "Attn", "Norm"]) + str(self.r.randint(0, 9))

    def target(self, dotted=None):
        t = self.ident()
        if dotted or (dotted is None and self.r.random() < 0.5):
            t += "." + self.r.choice(["forward", "__init__", "helper", "fn"])
        return t

    def strlit(self, value_words=2):
        """A str literal whose value is plain enough to be any field."""
        words = [self.r.choice(["fast", "fused", "kernel", "path", "café", "x\ty", "a\\b", "q\"t"]) for _ in range(value_words)]
        value = " ".join(words)
        kind = self.r.randrange(6)
        if kind == 0:
            return repr(value)
        if kind == 1:  # adjacent literals, mixed quotes and prefixes
            cut = self.r.randint(0, len(value))
            return f"{self.r.choice(['', 'u', 'U'])}{repr(value[:cut])} {repr(value[cut:])}"
        if kind == 2 and "\\" not in value and "\t" not in value:
            return f"{self.r.choice(['r', 'R'])}{repr(value)}"
        if kind == 3 and '"""' not in value and not value.endswith('"') and "\\" not in value:
            return '"""' + value.replace("\t", "\\t") + '"""'
        if kind == 4:
            return "(\n    " + repr(value) + "\n    " + repr("!") + "\n)"
        if kind == 5 and "{" not in value and "}" not in value:
            return "f" + repr(value)
        return repr(value)

    def comment_block(self):
        out = []
        for _ in range(self.r.randint(0, 3)):
            out.append(self.r.choice(["# a note", "", "#", "# Patch.1: why", "    # indented note"]))
        return out

    def body(self, indent, allow_oneline=True, is_class=False):
        """A def/class body, then trailing blank and comment lines at any indent."""
        pad = "\t" if indent == "\t" else " " * indent
        if allow_oneline and self.r.random() < 0.15:
            return None  # caller writes `def f(): return 1`
        out = []
        for _ in range(self.r.randint(1, 4)):
            k = self.r.randrange(6)
            if k == 0:
                out.append(f"{pad}x = 1  # same-line comment")
            elif k == 1:
                out.append(f'{pad}"""doc\n# not a comment, a string line\n{pad}"""')
            elif k == 2:
                out += [f"{pad}if True:", f"{pad}{pad}y = 2", f"{pad}{pad}# nested comment"]
            elif k == 3:
                out.append("")
            elif k == 4:
                out.append(f"{pad}# comment inside")
            else:
                out.append(f"{pad}z = 3" if is_class else f"{pad}return None")
        if out and out[-1] == "":
            out.append(f"{pad}pass")
        if all(not l.strip() or l.strip().startswith("#") for l in out):
            out.append(f"{pad}pass")
        for _ in range(self.r.randint(0, 4)):
            out.append(self.r.choice(["", "# col0", f"{pad}# body indent", f"{pad}{pad}# deeper", "  # shallow", "\t# tab"]))
        return out

    def patch_decorator(self, is_class):
        k = self.r.randrange(8)
        desc = f", description={self.strlit()}" if self.r.random() < 0.4 else ""
        if self.r.random() < 0.1:
            desc = ', description=""'
        nm = ""
        if self.r.random() < 0.3:
            nm = ", name_map=" + self.r.choice(["NAME_MAP", '{"Toy": "ToyMoe"}', "{}", '{"a": ""}'])
        if k == 0:
            return f"@config.replace_class({self.target(False)!r}{nm}{desc})"
        if k == 1:
            return f"@config.override_method({self.target(True)!r}{nm}{desc})"
        if k == 2:
            return f"@config.replace_function({self.target(False)!r}{nm}{desc})"
        if k == 3:
            return f"@config.modify_init({self.target(False)!r}{desc})"
        if k == 4:
            return "@config.add_helper"
        if k == 5:
            return "@config.add_helper()"
        if k == 6:
            return f"@config.add_helper_after({self.target(False)!r})"
        return f"@config.override_method(\n    {self.target(True)!r},\n    description={self.strlit()},\n)"

    def definition(self):
        is_class = self.r.random() < 0.3
        name = self.name("Cls" if is_class else "fn")
        self.lines += [""] + self.comment_block()
        decos = []
        for _ in range(self.r.randint(0, 3)):
            decos.append(self.patch_decorator(is_class))
        if not is_class and self.r.random() < 0.3:
            decos.insert(self.r.randint(0, len(decos)), self.r.choice(PLAIN_DECORATORS))
        if is_class and self.r.random() < 0.3:
            decos.append("@dataclasses.dataclass")
        for d in decos:
            self.lines.append(d)
            if self.r.random() < 0.15:
                self.lines.append("# between decorators")
        indent = "\t" if self.r.random() < 0.1 else self.r.choice([4, 2, 8])
        head = f"class {name}:" if is_class else f"{'async ' if self.r.random() < 0.1 else ''}def {name}(self, x=1):"
        body = self.body(indent, allow_oneline=not is_class, is_class=is_class)
        if body is None:
            self.lines.append(head + " return 1" if not is_class else head + " pass")
        else:
            self.lines.append(head)
            self.lines += body
        self.defs.append(name)
        if is_class and self.r.random() < 0.2:
            # defined again: inspect reports the first definition's lines
            self.lines += ["", f"class {name}:  # noqa: F811", "    y = 2"]

    def direct_call(self):
        if not self.defs:
            return
        obj = self.r.choice(self.defs)
        k = self.r.randrange(6)
        desc = f", description={self.strlit()}" if self.r.random() < 0.5 else ""
        if k == 0:
            self.lines.append(f"config.override_method({self.target(True)!r}, replacement={obj}{desc})")
        elif k == 1:
            self.lines.append(f"config.replace_class({self.target(False)!r}, {obj}, NAME_MAP)")
        elif k == 2:
            self.lines.append(f"config.replace_function(target_func={self.target(False)!r}, replacement={obj}{desc})")
        elif k == 3:
            self.lines.append(f"config.replace_function({self.target(False)!r}{desc})({obj})")
        elif k == 4:
            self.lines.append(f"config.add_helper({obj})")
        else:
            self.lines.append(f"config.add_helper_after({self.target(False)!r}, {obj})")

    def misc(self):
        k = self.r.randrange(11)
        if k == 0:
            self.lines.append(self.r.choice([
                'config.add_import("os", is_from_import=False)',
                'config.add_import("numpy", alias="np", is_from_import=False)',
                'config.add_import("typing", names=["Any", "Optional"])',
                'config.add_import("collections", ("OrderedDict",), None, True)',
                'config.add_import(module="math", names=None)',
            ]))
        elif k == 1:
            self.lines.append(f"config.add_post_import_block({self.strlit(3)})")
        elif k == 2:
            self.lines.append(f"config.drop_import_names({self.ident()!r}, *NAMES)")
        elif k == 3:
            self.lines.append(f"config.exclude_from_output(*NAMES, {self.ident()!r})")
        elif k == 4:
            self.lines.append("config.exclude.extend(NAMES)")
        elif k == 5:
            self.lines.append(self.r.choice([
                "config.helpers.extend(base.helpers)",
                'config.helpers.extend(h for h in base.helpers if h.__name__ != "base_helper_a")',
                'config.helpers.extend([h for h in base.helpers if h.__name__ in ("base_helper_b", "zz")])',
                "config.additional_imports.extend(base.additional_imports)",
                "config.post_import_blocks.extend(base.post_import_blocks)",
                "config.drop_imported_names.update(base.drop_imported_names)",
                "config.patches.extend(base.patches)",
                "config.positioned_helpers.extend(base.positioned_helpers)",
            ]))
        elif k == 6:
            pt = self.r.choice(PATCH_TYPES)
            desc = f", description={self.strlit()}" if self.r.random() < 0.5 else ""
            self.lines += [
                "config.patches.append(",
                "    create_patch_from_external(",
                f"        target={self.target()!r},",
                '        replacement_module="liger_kernel.ops",',
                f"        replacement_name={self.ident()!r},",
                f"        patch_type=PatchType.{pt}{desc}",
                "    )",
                ")",
            ]
        elif k == 7:
            self.lines += ["", "if TYPE_CHECKING:", f"    config.exclude_from_output({self.ident()!r})",
                           "", f"    @config.replace_class({self.ident()!r})", "    class Hidden:", "        pass"]
            if self.r.random() < 0.5:
                self.lines += ["else:", f"    config.exclude_from_output({self.ident()!r})"]
        elif k == 8 and self.defs:
            victim = self.r.choice(self.defs)
            self.defs.remove(victim)
            self.lines.append(f"{victim} = None  # placeholder")
        elif k == 9:
            self.lines.append(f"config.description = {self.strlit()}")
        else:
            self.lines.append(f"CONST_{self.n} = {self.strlit()}")


def config_text(rng, i):
    g = Gen(rng)
    g.lines += [
        f'"""Generated config {i}."""',
        "import contextlib",
        "import dataclasses",
        "import functools",
        "import typing",
        "from typing import TYPE_CHECKING",
        "",
        "from cfggen.base_patch_gen_config import config as base",
        "from veomni.patchgen.patch_spec import PatchConfig, PatchType, create_patch_from_external",
        "",
        'NAME_MAP = {"Toy": "ToyMoe", "toy_": "toy_moe_"}',
        f"NAMES = [{g.ident()!r}, {g.ident()!r}]",
        "",
    ]
    if rng.random() < 0.5:
        g.lines.append(f'config = PatchConfig(source_module="transformers.models.toy.modeling_toy", '
                       f"target_file={'gen_%d.py' % i!r}, description={g.strlit()})")
    else:
        g.lines.append(f'config = PatchConfig("transformers.models.toy.modeling_toy", "gen_{i}.py")')
    for _ in range(rng.randint(5, 25)):
        r = rng.random()
        if r < 0.45:
            g.definition()
        elif r < 0.65:
            g.direct_call()
        else:
            g.misc()
    text = "\n".join(g.lines) + "\n"
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text


def main():
    count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "cfggen"), exist_ok=True)
    with open(os.path.join(out, "pyproject.toml"), "w") as f:
        f.write('[tool.patchgen]\nsearch_root = "cfggen"\npackage_prefix = "cfggen"\n')
    with open(os.path.join(out, "cfggen", "base_patch_gen_config.py"), "w") as f:
        f.write(BASE)
    for i in range(count):
        with open(os.path.join(out, "cfggen", f"gen_{i}_patch_gen_config.py"), "w", newline="") as f:
            f.write(config_text(rng, i))


if __name__ == "__main__":
    main()
