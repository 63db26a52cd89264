#!/usr/bin/env python3
"""Differential testing of pgci against the real patchgen (issue 16), for
tests/corpus/57-differential.sh.

    diffgen.py gen --veomni DIR --tf DIR --tf-version V --seed S --count N --out OUT
    diffgen.py patchgen --patchgen DIR --out OUT

`gen` writes N cases under OUT/NNNN/, each a legal config workspace derived from
the real VeOmni configs (the `veomni` distribution's
veomni/models/transformers/*/*_patch_gen_config.py) and the real transformers
modules they patch (the wheel unpacked at --tf), with one to three seeded
mutations applied to one config, or to its upstream module:

  config side: line breaks (CRLF, CR only, a lone CR in comments), coding lines
  (UTF-8, latin-1), NFKC identifiers, new patches of every kind on real upstream
  targets (override_method, replace_function, replace_class, modify_init,
  add_helper, add_helper_after; by decorator or direct call; with name_map and
  descriptions in every string form), decorators around them (known, unknown,
  descriptors, above or below the patch decorator, comments and blank lines
  between), add_import / drop_import_names / exclude_from_output forms, a filter
  with `not in` over a sibling's helpers, a change to an imported sibling config,
  `__name__` assignment;
  upstream side: top-level `if` blocks, `if TYPE_CHECKING:` imports, `try`
  imports, imports nested in functions, extra decorators, CRLF line breaks.

Each case holds ws/ (pyproject.toml and every config: siblings import each
other), up/ (the source module of every config: the mutated one a file, the
others links into --tf) and case.json (config, module, mutations, `must_match`:
whether pgci models every mutation applied, so that a refusal is a failure too).

`patchgen` imports each case's config with the real patchgen (a release's
veomni/patchgen, everything else stubbed as tests/oracle/config_dump.py does), in
a fresh module namespace per case, and writes OUT/NNNN/py/: raw.py (generate()),
norm.py (ruff check --fix, ruff format: check_patchgen's normalisation) and
diff (check_patchgen's .diff), or raw.err / norm.err when patchgen fails.
"""

import argparse
import ast
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import types

SEARCH = "veomni/models/transformers"
PREFIX = "veomni.models.transformers"

FULLWIDTH = {c: chr(0xFF41 + i) for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}

DESCRIPTIONS = [
    '"tab\\tand newline\\n"',
    "'single \"double\" inside'",
    '"""triple\nquoted"""',
    'r"raw \\d+"',
    '"unicode é ü ß"',
    "(\"implicit \" 'concatenation')",
    '"\\u00e9scaped"',
    '""',
    "None",
    "'a # not a comment'",
]

IMPORTS = [
    'config.add_import("os.path", names=["join", "dirname"])',
    'config.add_import("numpy", alias="np", is_from_import=False)',
    'config.add_import("typing")',
    'config.add_import("collections", names=["OrderedDict"], alias=None)',
    'config.add_import(module="math", is_from_import=False)',
    'config.add_post_import_block("PGCI_CONSTANT = 1\\n")',
]


class Upstream:
    """Top-level names of a real transformers module."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as fp:
            self.text = fp.read()
        self.tree = ast.parse(self.text)
        body = self.tree.body
        self.classes = [n for n in body if isinstance(n, ast.ClassDef)]
        self.functions = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        self.methods = [
            f"{c.name}.{m.name}"
            for c in self.classes
            for m in c.body
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name != "__init__"
        ]
        self.imported = []
        for n in body:
            if isinstance(n, ast.ImportFrom):
                self.imported += [a.asname or a.name for a in n.names if a.name != "*"]


class Case:
    def __init__(self, rng, text, up, k):
        self.rng = rng
        self.text = text
        self.up = up
        self.k = k
        self.tail = []
        self.up_text = None
        self.must_match = True
        self.mutations = []

    def block(self, s):
        self.tail.append("\n\n" + s)

    # --- config side -----------------------------------------------------------------------

    def m_none(self):
        """The real config as it is (upstream shapes alone, or a release it was not pinned to)."""

    def m_crlf(self):
        self.text = self.text.replace("\n", "\r\n")

    def m_cr(self):
        self.text = self.text.replace("\n", "\r")

    def m_cr_comment(self):
        lines = self.text.split("\n")
        idx = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("#")]
        for i in self.rng.sample(idx, min(3, len(idx))):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            lines[i] += "\r" + indent + "# (a lone CR ended the line above)"
        self.text = "\n".join(lines)

    def m_coding_utf8(self):
        self.text = "# -*- coding: utf-8 -*-\n" + self.text

    def m_coding_latin1(self):
        self.text = "# -*- coding: latin-1 -*-\n" + self.text
        if not self.text.isascii():
            self.must_match = False  # pgci refuses the mix (the rule allows it)

    def m_nfkc(self):
        defs = re.findall(r"^def ([a-z_][a-z0-9_]*)\(", self.text, re.M)
        defs = [d for d in defs if len(re.findall(rf"^def {d}\(", self.text, re.M)) == 1]
        if not defs:
            return self.m_helper()
        name = self.rng.choice(defs)
        wide = "".join(FULLWIDTH.get(c, c) for c in name)
        self.text = re.sub(rf"^def {name}\(", f"def {wide}(", self.text, count=1, flags=re.M)

    def m_exclude(self):
        names = [n.name for n in self.up.classes + self.up.functions]
        if names:
            self.block(f"config.exclude_from_output({self.rng.choice(names)!r})\n")

    def m_import(self):
        self.block(self.rng.choice(IMPORTS) + "\n")

    def m_drop_import(self):
        if self.up.imported:
            self.block(f"config.drop_import_names({self.rng.choice(self.up.imported)!r})\n")

    def decorators(self, under):
        """Decorators between the patch decorator and the def (under) or above it."""
        r = self.rng.random()
        if r < 0.5:
            return ""
        if r < 0.7:
            return "import torch\n" if not under else "@torch.no_grad()\n"
        if r < 0.8:
            return "@lru_cache(maxsize=4)\n" if under else ""
        if r < 0.9:
            if under:
                self.must_match = False
            return "@_pgci_wrap\n"
        if under:
            self.must_match = False
            return "@property\n"
        return ""

    def patch(self, deco, head, body):
        k = self.k
        above = self.decorators(False)
        under = self.decorators(True)
        pre = "from functools import lru_cache\nimport torch\n\n\ndef _pgci_wrap(f):\n    return f\n\n\n"
        if above.startswith("import"):
            above = ""
        between = self.rng.choice(["", "# a comment between decorators\n"])
        self.block(f"{pre}# pgci mutation {k}\n{above}{deco}\n{between}{under}{head}\n{body}")

    def describe(self):
        if self.rng.random() < 0.5:
            return ""
        return f", description={self.rng.choice(DESCRIPTIONS)}"

    def name_map(self):
        if self.rng.random() < 0.7:
            return ""
        return ', name_map={"hidden_states": "hs", "self": "self"}'

    def m_override(self):
        if not self.up.methods:
            return self.m_helper()
        t = self.rng.choice(self.up.methods)
        self.patch(
            f"@config.override_method({t!r}{self.name_map()}{self.describe()})",
            f"def _pgci_override_{self.k}(self, hidden_states, *args, **kwargs):",
            "    # keeps its comment\n    return hidden_states\n",
        )

    def m_replace_function(self):
        if not self.up.functions:
            return self.m_helper()
        t = self.rng.choice(self.up.functions).name
        self.patch(
            f"@config.replace_function({t!r}{self.describe()})",
            f"def _pgci_fn_{self.k}(*args, **kwargs):",
            "    return None\n",
        )

    def m_replace_class(self):
        if not self.up.classes:
            return self.m_helper()
        t = self.rng.choice(self.up.classes).name
        self.patch(
            f"@config.replace_class({t!r}{self.name_map()}{self.describe()})",
            f"class PgciClass{self.k}:",
            '    """A replacement."""\n\n    x = 1\n\n    def forward(self, hidden_states):\n'
            "        return hidden_states\n",
        )

    def m_modify_init(self):
        if not self.up.classes:
            return self.m_helper()
        t = self.rng.choice(self.up.classes).name
        self.patch(
            f"@config.modify_init({t!r}{self.describe()})",
            f"def _pgci_init_{self.k}(original_init, self, *args, **kwargs):",
            "    original_init(self, *args, **kwargs)\n    self.pgci = True\n",
        )

    def m_helper(self):
        if self.rng.random() < 0.5 or not self.up.classes:
            self.patch("@config.add_helper", f"def _pgci_helper_{self.k}():", f"    return {self.k}\n")
        else:
            t = self.rng.choice(self.up.classes).name
            self.patch(f"@config.add_helper_after({t!r})", f"class PgciAfter{self.k}:", "    pass\n")

    def m_direct(self):
        if not self.up.methods:
            return self.m_helper()
        t = self.rng.choice(self.up.methods)
        self.block(
            f"def _pgci_direct_{self.k}(self, *args, **kwargs):\n    return None\n\n\n"
            f"config.override_method({t!r}, replacement=_pgci_direct_{self.k}{self.describe()})\n"
        )

    def sibling(self):
        m = re.search(r"\bconfig as (\w+)", self.text)
        return m.group(1) if m else None

    def m_not_in(self):
        s = self.sibling()
        if not s:
            return self.m_exclude()
        self.block(f"config.helpers.extend(h for h in {s}.helpers if h.__name__ not in ('pgci_none',))\n")

    def m_sibling_import(self):
        """Another config's PatchConfig, imported and read (an import cycle is refused by
        both: Python cannot import a partly initialised module's config)."""
        mod = self.rng.choice(self.others)
        field = self.rng.choice(["exclude", "additional_imports", "post_import_blocks", "helpers"])
        self.block(
            f"from {mod} import config as _pgci_sibling_{self.k}  # noqa: E402\n\n"
            f"config.{field}.extend(_pgci_sibling_{self.k}.{field})\n"
        )

    def m_sibling_change(self):
        s = self.sibling()
        if not s:
            return self.m_import()
        self.block(f"{s}.exclude_from_output('PgciNothing')\n")

    def m_name_assign(self):
        defs = re.findall(r"^def ([a-z_][a-z0-9_]*)\(", self.text, re.M)
        if not defs:
            return self.m_helper()
        self.block(f"{self.rng.choice(defs)}.__name__ = 'pgci_renamed'\n")
        self.must_match = False

    # --- upstream side ---------------------------------------------------------------------

    def up_lines(self):
        if self.up_text is None:
            self.up_text = self.up.text
        return self.up_text.split("\n")

    def after_imports(self):
        last = 0
        for n in ast.parse(self.up_lines() and self.up_text).body:
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                last = n.end_lineno
        return last

    def insert_up(self, line, text):
        lines = self.up_lines()
        lines[line:line] = text.split("\n")
        self.up_text = "\n".join(lines)

    def u_type_checking(self):
        self.insert_up(
            self.after_imports(),
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from collections import OrderedDict\n",
        )

    def u_try_import(self):
        self.insert_up(self.after_imports(), "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n")

    def u_if_block(self):
        self.up_lines()
        tree = ast.parse(self.up_text)
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        if not defs:
            return self.u_try_import()
        f = self.rng.choice(defs)
        start = (f.decorator_list[0].lineno if f.decorator_list else f.lineno) - 1
        lines = self.up_text.split("\n")
        body = ["    " + ln if ln else ln for ln in lines[start : f.end_lineno]]
        head = self.rng.choice(["if True:", "if TYPE_CHECKING:", "if is_torch_available():"])
        tail = self.rng.choice([[], ["else:", "    pass"]])
        lines[start : f.end_lineno] = [head] + body + tail
        self.up_text = "\n".join(lines)

    def u_nested_import(self):
        self.up_lines()
        tree = ast.parse(self.up_text)
        fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.body[0].lineno > n.lineno]
        if not fns:
            return self.u_try_import()
        f = self.rng.choice(fns)
        first = f.body[0]
        line = first.lineno - 1
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(f.body) > 1:
            line = f.body[1].lineno - 1
            first = f.body[1]
        self.insert_up(line, " " * first.col_offset + "import math  # pgci: a nested import")

    def u_decorator(self):
        self.up_lines()
        tree = ast.parse(self.up_text)
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        if not nodes:
            return self.u_try_import()
        n = self.rng.choice(nodes)
        line = (n.decorator_list[0].lineno if n.decorator_list else n.lineno) - 1
        self.insert_up(line, " " * n.col_offset + "@pgci_decorator(1)")

    def u_crlf(self):
        self.up_lines()
        self.up_text = self.up_text.replace("\n", "\r\n")


CONFIG_MUTATIONS = [
    "none", "crlf", "cr", "cr_comment", "coding_utf8", "coding_latin1", "nfkc", "exclude", "import",
    "drop_import", "override", "replace_function", "replace_class", "modify_init", "helper",
    "direct", "not_in", "sibling_import", "sibling_change", "name_assign",
]
UPSTREAM_MUTATIONS = ["type_checking", "try_import", "if_block", "nested_import", "decorator", "crlf"]
# applied last, to the whole text
WHOLE_TEXT = {"crlf", "cr", "cr_comment", "coding_utf8", "coding_latin1", "nfkc"}


def source_module(text):
    m = re.search(r"source_module\s*=\s*\"([\w.]+)\"", text)
    return m.group(1) if m else None


def gen(a):
    rng = random.Random(a.seed)
    configs = sorted(glob.glob(os.path.join(a.veomni, SEARCH, "*", "*_patch_gen_config.py")))
    texts = {c: open(c, encoding="utf-8").read() for c in configs}
    modules = {}
    for c, t in texts.items():
        sm = source_module(t)
        if sm:
            modules[c] = sm
    # an NPU config that imports its GPU config's PatchConfig has no source_module literal
    for c in configs:
        if c not in modules:
            gpu = c.replace("_npu_", "_gpu_")
            if gpu in modules:
                modules[c] = modules[gpu]
    for i in range(a.count):
        cfg = rng.choice(configs)
        sm = modules.get(cfg)
        up_path = os.path.join(a.tf, *sm.split(".")) + ".py" if sm else None
        if not up_path or not os.path.isfile(up_path):
            up = Upstream.__new__(Upstream)
            up.text, up.classes, up.functions, up.methods, up.imported = "", [], [], [], []
        else:
            up = Upstream(up_path)
        case = Case(rng, texts[cfg], up, i)
        case.others = [
            os.path.relpath(c, a.veomni)[: -len(".py")].replace("/", ".") for c in configs if c != cfg
        ]
        n = rng.choice([1, 1, 2, 3])
        picks = [rng.choice(CONFIG_MUTATIONS) for _ in range(n)]
        if up.text and rng.random() < a.up_rate:
            picks.append("up_" + rng.choice(UPSTREAM_MUTATIONS))
        picks.sort(key=lambda m: m in WHOLE_TEXT)
        for m in picks:
            if m.startswith("up_"):
                getattr(case, "u_" + m[3:])()
            elif m in WHOLE_TEXT:
                if m != "cr_comment" and m != "nfkc":
                    case.text += "".join(case.tail)
                    case.tail = []
                getattr(case, "m_" + m)()
            else:
                getattr(case, "m_" + m)()
            case.mutations.append(m)
        case.text += "".join(case.tail)
        write_case(a, i, cfg, case, configs, texts, modules)


def shared_upstream(a, modules):
    """OUT/up: the source module of every config, copied once for the cases that
    leave the upstream as it is (pgci refuses symlinks out of a tree)."""
    base = os.path.join(a.out, "up")
    for sm in sorted(set(modules.values())):
        src = os.path.join(a.tf, *sm.split(".")) + ".py"
        dst = os.path.join(base, *sm.split(".")) + ".py"
        if os.path.isfile(src) and not os.path.exists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
    return base


def write_case(a, i, cfg, case, configs, texts, modules):
    d = os.path.join(a.out, f"{i:04d}")
    ws = os.path.join(d, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "pyproject.toml"), "w") as fp:
        fp.write(
            f'[project]\nname = "pgci-diff"\ndependencies = ["transformers=={a.tf_version}"]\n\n'
            f'[tool.patchgen]\nsearch_root = "{SEARCH}"\npackage_prefix = "{PREFIX}"\n'
        )
    # every module of the package (configs import helpers such as attention_utils)
    others = glob.glob(os.path.join(a.veomni, SEARCH, "**", "*.py"), recursive=True)
    for c in sorted(set(configs) | {o for o in others if "/generated/" not in o}):
        dst = os.path.join(ws, os.path.relpath(c, a.veomni))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if c == cfg:
            latin = "coding_latin1" in case.mutations and case.text.isascii()
            with open(dst, "wb") as fp:
                fp.write(case.text.encode("latin-1" if latin else "utf-8"))
        else:
            shutil.copyfile(c, dst)
    up = shared_upstream(a, modules)
    if case.up_text is not None:
        up = os.path.join(d, "up")
        shutil.copytree(os.path.join(a.out, "up"), up)
        dst = os.path.join(up, *modules[cfg].split(".")) + ".py"
        with open(dst, "w", encoding="utf-8", newline="") as fp:
            fp.write(case.up_text)
    rel = os.path.relpath(cfg, a.veomni)
    with open(os.path.join(d, "case.json"), "w") as fp:
        json.dump(
            {
                "config": rel,
                "module": rel[: -len(".py")].replace("/", "."),
                "mutations": case.mutations,
                "must_match": case.must_match,
                "seed": a.seed,
                "tf": a.tf_version,
                "up": os.path.realpath(up),
            },
            fp,
        )


def run_patchgen(a):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "oracle"))
    from config_dump import Finder  # the stubbing importer of the config oracle

    sys.dont_write_bytecode = True
    patchgen = os.path.realpath(a.patchgen)
    keep = None
    for d in sorted(glob.glob(os.path.join(a.out, "[0-9][0-9][0-9][0-9]"))):
        case = json.load(open(os.path.join(d, "case.json")))
        ws = os.path.realpath(os.path.join(d, "ws"))
        finder = Finder(os.path.join(ws, SEARCH), PREFIX, patchgen)
        sys.meta_path.insert(0, finder)
        if keep is None:
            from veomni.patchgen import check_patchgen  # noqa: F401
            from veomni.patchgen.codegen import ModelingCodeGenerator  # noqa: F401

            keep = set(sys.modules)
        out = os.path.join(d, "py")
        os.makedirs(out, exist_ok=True)
        one_case(case, d, out)
        sys.meta_path.remove(finder)
        for m in set(sys.modules) - keep:
            del sys.modules[m]


def one_case(case, d, out):
    import importlib

    from veomni.patchgen import check_patchgen
    from veomni.patchgen.codegen import ModelingCodeGenerator

    try:
        cfg = importlib.import_module(case["module"]).config
        fake = types.ModuleType("transformers")
        fake.__version__ = case["tf"]
        sys.modules["transformers"] = fake
        stub = types.ModuleType(cfg.source_module)
        stub.__file__ = os.path.join(case["up"], *cfg.source_module.split(".")) + ".py"
        sys.modules[cfg.source_module] = stub
        gen = ModelingCodeGenerator(cfg)
        gen.load_source()
        raw = gen.generate()
    except BaseException:  # noqa: BLE001 - patchgen's failure is a verdict
        with open(os.path.join(out, "raw.err"), "w") as fp:
            fp.write(traceback.format_exc(limit=-3))
        return
    with open(os.path.join(out, "raw.py"), "w", encoding="utf-8", newline="") as fp:
        fp.write(raw)
    fd, tmp = tempfile.mkstemp(suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fp:
            fp.write(raw)
        from pathlib import Path

        check_patchgen._ruff_fix_and_format(Path(tmp))
        norm = Path(tmp).read_text()
        diff = check_patchgen._strip_trailing_ws(
            check_patchgen.build_unified_diff(
                original_source=gen.source_code,
                generated_source=norm,
                source_module=cfg.source_module,
                target_file=cfg.target_file,
            )
        )
    except subprocess.CalledProcessError as e:
        with open(os.path.join(out, "norm.err"), "w") as fp:
            fp.write(f"ruff failed: {e}\n{e.stdout!r}\n")
        return
    finally:
        os.unlink(tmp)
    with open(os.path.join(out, "norm.py"), "w", encoding="utf-8", newline="") as fp:
        fp.write(norm)
    with open(os.path.join(out, "diff"), "w", encoding="utf-8", newline="") as fp:
        fp.write(diff)
    with open(os.path.join(out, "target"), "w") as fp:
        fp.write(cfg.target_file + "\n")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--veomni", required=True)
    g.add_argument("--tf", required=True)
    g.add_argument("--tf-version", required=True)
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--up-rate", type=float, default=0.3, help="share of cases that change the upstream too")
    p = sub.add_parser("patchgen")
    p.add_argument("--patchgen", required=True)
    p.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "gen":
        shutil.rmtree(a.out, ignore_errors=True)
        os.makedirs(a.out)
        gen(a)
    else:
        run_patchgen(a)


if __name__ == "__main__":
    main()
