"""The oracle for the survey's errors on module-level names: the real modules.

A patch body put in a generated module reads the module's names (`ACT2FN`,
`apply_rotary_pos_emb`, `Optional`); one upstream stops defining or importing
breaks it (a NameError, or the module fails to import). Python answers both
halves: which names a body reads from its module (`symtable`, CPython's own
scoping: a name a function, a nested function, a comprehension or a class body
reads that none of them binds, the decorators' and annotations' and defaults'
included) and whether the real module at a release has it (`hasattr` after
importing it). Used by tests/corpus/releases_oracle.py for
tests/corpus/72-releases-oracle.sh; it reads the configs with Python's ast and
symtable, independently of pgci.

  scan(WS)                    the module-level names every patch body reads (an
                              override's, a replaced function's, a replaced
                              class's, a helper's; the sibling config an NPU
                              config imports its `config` from included), less
                              builtins and what the config puts in the module
  probe(QUERIES)              run under one release: each (module, name) "has" or
                              "lacks", each patch's target "has" or "lacks",
                              "unimportable"
  compare(QUERIES, A, B, RUN) the names read that the module had at A and not at
                              B (the patch's target still there), each an error of
                              pgci on that config (`name-removed`,
                              `import-removed`), and every such error one of
                              them; False otherwise
"""
import ast, builtins, glob, importlib, os, symtable

import callees_oracle  # its reading of a config's replacement objects
import signatures_oracle  # its reading of the configs' registrations and what they provide

BUILTINS = set(dir(builtins)) | {"__class__", "__name__", "__file__", "__doc__"}


def registrations(path, ws, depth=0):
    """(kind, target, node) of every registration whose body the config gives: the
    decorated def or class, or the one `replacement=` names in the config or in
    the module it imports it from; and ("helper", name, node) of every helper; the
    config's `config` sibling's included."""
    src = open(path).read()
    tree = ast.parse(src)
    resolve = callees_oracle.config_resolver(
        path, ws, tree, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))

    out = []
    for node in ast.walk(tree):
        calls = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            calls = [(d, node) for d in node.decorator_list if isinstance(d, ast.Call)]
            # a helper: `@config.add_helper`, `@config.add_helper_after("T")`
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                        f.value.id == "config" and f.attr in ("add_helper", "add_helper_after"):
                    out.append(("helper", node.name, node))
        elif isinstance(node, ast.Call):
            calls = [(node, None)]
            # config.add_helper(obj), config.add_helper_after("T", obj)
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    f.value.id == "config" and f.attr in ("add_helper", "add_helper_after") and \
                    node.args and isinstance(node.args[-1], ast.Name):
                body = resolve(node.args[-1].id)
                if body is not None:
                    out.append(("helper", body.name, body))
        for d, body in calls:
            if not (isinstance(d.func, ast.Attribute) and isinstance(d.func.value, ast.Name) and
                    d.func.value.id == "config" and d.func.attr in signatures_oracle.KINDS and
                    d.args and isinstance(d.args[0], ast.Constant)):
                continue
            if body is None:
                rep = [k.value for k in d.keywords if k.arg == "replacement"] + d.args[1:2]
                body = resolve(rep[0].id) if rep and isinstance(rep[0], ast.Name) else None
            if body is not None:
                out.append((d.func.attr, d.args[0].value, body))
    for n in tree.body:
        if depth < 4 and isinstance(n, ast.ImportFrom) and n.module and not n.level and \
                any(a.name == "config" for a in n.names):
            f = os.path.join(ws, *n.module.split(".")) + ".py"
            if os.path.exists(f):
                out = registrations(f, ws, depth + 1) + out
    return out


def module_names(kind, node):
    """The names the body reads from its module, as CPython scopes them. An
    override keeps upstream's decorators, a replacement or a helper its own but
    the registration's."""
    node = ast.parse(ast.unparse(node)).body[0]  # a copy
    node.decorator_list = [] if kind == "override_method" else [
        d for d in node.decorator_list
        if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and
                isinstance(d.func.value, ast.Name) and d.func.value.id == "config")]
    top = symtable.symtable(ast.unparse(node), "<patch>", "exec")
    out = set()

    def walk(t):
        for s in t.get_symbols():
            if s.is_referenced() and s.is_global() and not (t is top and s.is_assigned()):
                out.add(s.get_name())
        for c in t.get_children():
            walk(c)
    walk(top)
    return out - BUILTINS


def scan(ws):
    queries = []
    for path in sorted(glob.glob(os.path.join(ws, "veomni/models/transformers/*/*_patch_gen_config.py"))):
        cfg = os.path.relpath(path, ws)[:-3].replace("/", ".")
        src = open(path).read()
        _, source = signatures_oracle.config_targets(path, ws)
        if not source:
            continue
        provided = set()
        for f in [path] + [os.path.join(ws, *n.module.split(".")) + ".py" for n in ast.parse(src).body
                           if isinstance(n, ast.ImportFrom) and n.module and not n.level and
                           any(a.name == "config" for a in n.names)]:
            if os.path.exists(f):
                provided |= signatures_oracle.provided_names(f)
        for kind, target, node in registrations(path, ws):
            for name in sorted(module_names(kind, node) - provided):
                queries.append([cfg, source, kind, target, name])
    return queries


def probe(queries):
    res = {}
    for cfg, mod, kind, target, name in queries:
        try:
            module = importlib.import_module(mod)
        except Exception:
            res[f"{mod}|{name}"] = res[f"{mod}|target|{target}"] = "unimportable"
            continue
        res[f"{mod}|{name}"] = "has" if hasattr(module, name) else "lacks"
        res[f"{mod}|target|{target}"] = "has" if kind == "helper" or \
            hasattr(module, target.split(".")[0]) else "lacks"
    return res


def compare(queries, at_a, at_b, run):
    want, read = {}, set()
    for cfg, mod, kind, target, name in queries:
        read.add((cfg, name))
        if at_a.get(f"{mod}|{name}") == "has" and at_b.get(f"{mod}|{name}") == "lacks" and \
                at_b.get(f"{mod}|target|{target}") == "has":
            want.setdefault((cfg, name), set()).add(target)
    got = {}
    for f in run["findings"]:
        d = f["data"]
        if f["severity"] == "error" and d.get("kind") in ("name-removed", "import-removed"):
            got.setdefault((f["config"], d.get("name")), set()).add(d.get("used_by") or d.get("target"))
    missed = sorted(set(want) - set(got))
    false = sorted(k for k in set(got) - set(want) if k in read)
    unread = sorted(k for k in set(got) - set(want) if k not in read)
    print(f"  the real modules: {len(read)} names the patch bodies read, {len(want)} the module had "
          f"at A and not at B; pgci: {len(got)} errors that a name is gone, {len(missed)} missed, "
          f"{len(false)} not so, {len(unread)} on names the oracle did not read")
    for k in missed:
        print("  missed:", k, sorted(want[k]))
    for k in false + unread:
        print("  false: " if k in false else "  unread:", k, sorted(got[k]))
    return not missed and not false and not unread
