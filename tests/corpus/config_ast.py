#!/usr/bin/env python3
"""The patches of the real VeOmni configs as Python's own parser sees them, without
importing anything: for each config, in registration order, (type, target,
replacement name, description), read from the syntax tree of the patchgen DSL calls
(decorators applied bottom-up, direct calls with replacement=, decorators called by
hand, create_patch_from_external appends, and a sibling's PatchConfig imported as
`config`). Compared with pgci's evaluation (tests/tools/config_dump JSON lines):

    config_ast.py SEARCH_ROOT PREFIX PGCI.jsonl
"""
import ast
import json
import os
import sys

TYPES = {
    "replace_class": "class_replacement",
    "override_method": "method_override",
    "replace_function": "function_replacement",
    "modify_init": "init_modification",
}


class Config:
    def __init__(self, search_root, prefix):
        self.search_root = search_root
        self.prefix = prefix.rstrip(".") + "."
        self.cache = {}

    def file_of(self, module):
        rel = module[len(self.prefix):].replace(".", "/") + ".py"
        return os.path.join(self.search_root, rel)

    def patches(self, path):
        if path in self.cache:
            return self.cache[path]
        tree = ast.parse(open(path, encoding="utf-8").read())
        consts, out = {}, []

        def literal(node):
            if isinstance(node, ast.Name) and node.id in consts:
                return consts[node.id]
            try:
                return ast.literal_eval(node)
            except ValueError:
                raise SystemExit(f"{path}:{node.lineno}: not a literal: {ast.unparse(node)}")

        def register(call, kind, replacement_name):
            args = {k.arg: k.value for k in call.keywords}
            params = ["target", "replacement", "name_map", "description"]
            if kind == "modify_init":
                params = ["target", "description"]
            for i, a in enumerate(call.args):
                args[params[i]] = a
            target = literal(args["target"])
            desc = literal(args["description"]) if "description" in args else None
            if "replacement" in args:
                replacement_name = args["replacement"].id
            if not desc:
                desc = {
                    "method_override": f"Override {target}",
                    "init_modification": f"Modify {target}.__init__",
                }.get(TYPES[kind], f"Replace {target} with {replacement_name}")
            out.append([TYPES[kind], target, replacement_name, desc])

        def is_config_call(node):
            return (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "config"
                and node.func.attr in TYPES
            )

        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                try:
                    consts[stmt.targets[0].id] = ast.literal_eval(stmt.value)
                except ValueError:
                    pass
            elif isinstance(stmt, ast.ImportFrom) and (stmt.module or "").endswith("_patch_gen_config"):
                for alias in stmt.names:
                    if alias.name == "config" and (alias.asname or "config") == "config":
                        out.extend(list(p) for p in self.patches(self.file_of(stmt.module)))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for d in reversed(stmt.decorator_list):
                    if is_config_call(d):
                        register(d, d.func.attr, stmt.name)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                if is_config_call(call):
                    if any(k.arg == "replacement" for k in call.keywords) or len(call.args) > 1:
                        register(call, call.func.attr, None)
                elif is_config_call(call.func):  # config.replace_function(...)(obj)
                    register(call.func, call.func.func.attr, call.args[0].id)
                elif ast.unparse(call.func) == "config.patches.append":
                    ext = call.args[0]
                    kw = {k.arg: literal(k.value) for k in ext.keywords}
                    desc = kw.get("description") or (
                        f"Replace {kw['target']} with {kw['replacement_name']} from {kw['replacement_module']}"
                    )
                    out.append(["class_replacement", kw["target"], None, desc])
        self.cache[path] = out
        return out


def main():
    search_root, prefix, pgci = sys.argv[1:4]
    cfg = Config(search_root, prefix)
    bad = total = n = 0
    for line in open(pgci):
        rec = json.loads(line)
        n += 1
        if "error" in rec:
            print(f"FAIL {rec['file']}: pgci: {rec['error']}")
            bad += 1
            continue
        want = cfg.patches(rec["file"])
        got = [
            [p["type"], p["target"], p["replacement"]["name"] if p["replacement"] else None, p["description"]]
            for p in rec["config"]["patches"]
        ]
        total += len(got)
        if want != got:
            bad += 1
            print(f"FAIL {rec['file']}: ast finds {len(want)} patches, pgci {len(got)}")
            for i, (w, g) in enumerate(zip(want, got)):
                if w != g:
                    print(f"     [{i}] ast {w}\n         pgci {g}")
                    break
    print(f"{n - bad}/{n} configs: pgci's patches (type, target, replacement, description) "
          f"match the syntax tree; {total} patches in all")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
