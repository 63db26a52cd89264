"""The oracle for the survey's errors on calls through `self`: the real classes.

A patch body that calls `self.m(...)` breaks at run time when the class it lands
in no longer has `m`. Python itself answers whether it does: import the model's
module from the real transformers release and ask `hasattr(cls, m)` (the whole
MRO: PreTrainedModel's mixins, torch.nn.Module), or whether an `__init__` of the
MRO sets `self.m` (a submodule). Used by tests/corpus/releases_oracle.py for
tests/corpus/72-releases-oracle.sh; it reads the configs with Python's ast,
independently of pgci.

  scan(WS)                    the calls through self of every override body
                              (decorated or registered with replacement=, the
                              sibling config an NPU config imports included),
                              less what the config provides itself
  probe(QUERIES)              run under one release: each (module, class, name)
                              "has", "lacks", "no class" or "unimportable"
  compare(QUERIES, A, B, RUN)
                              the calls that bound at A and do not at B, against
                              pgci's run.json: each reported as an error
                              (callee-vanished, or the same fact as the attribute
                              `__init__` stopped setting or the override whose
                              target went), and every callee-vanished error one
                              of them; False otherwise
"""
import ast, glob, importlib, inspect, os, re


def config_resolver(path, ws, tree, kinds=(ast.FunctionDef, ast.AsyncFunctionDef)):
    """resolve(name): the definition (of kinds) a config file's module-level name
    stands for, in the file or in the module it imports it from; None otherwise."""
    defs = {n.name: n for n in tree.body if isinstance(n, kinds)}
    imported = {}
    for n in tree.body:
        if isinstance(n, ast.ImportFrom) and n.module:
            base = ws
            if n.level:
                base = os.path.dirname(path)
                for _ in range(n.level - 1):
                    base = os.path.dirname(base)
            f = os.path.join(base, *n.module.split(".")) + ".py"
            for a in n.names:
                imported[a.asname or a.name] = (f, a.name)

    def resolve(name):
        if name in defs:
            return defs[name]
        if name in imported and os.path.exists(imported[name][0]):
            for n in ast.parse(open(imported[name][0]).read()).body:
                if isinstance(n, kinds) and n.name == imported[name][1]:
                    return n
        return None
    return resolve


def config_overrides(path, ws):
    """(target, body FunctionDef) of every override, and what the config provides."""
    src = open(path).read()
    tree = ast.parse(src)
    resolve = config_resolver(path, ws, tree)

    out, provided, replaced = [], set(), set()
    for node in ast.walk(tree):
        # @config.override_method("T") def f
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and \
                        isinstance(d.func.value, ast.Name) and d.func.value.id == "config" and \
                        d.args and isinstance(d.args[0], ast.Constant):
                    if d.func.attr == "override_method":
                        out.append((d.args[0].value, node))
                    elif d.func.attr == "replace_class":
                        replaced.add(d.args[0].value)
        # config.override_method("T", replacement=f)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "config" and \
                node.func.attr in ("override_method", "replace_class") and node.args and \
                isinstance(node.args[0], ast.Constant):
            rep = [k.value for k in node.keywords if k.arg == "replacement"] + node.args[1:2]
            if node.func.attr == "replace_class":
                replaced.add(node.args[0].value)
            else:
                provided.add(node.args[0].value)
                if rep and isinstance(rep[0], ast.Name) and resolve(rep[0].id) is not None:
                    out.append((node.args[0].value, resolve(rep[0].id)))
    for t, _ in out:
        provided.add(t)
    return out, provided, replaced


def self_sets(fn):
    names = set()
    for n in ast.walk(fn):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                names.add(t.attr)
    return names


def config_chain(path, ws, depth=0):
    """The config file's overrides and those of the config it imports its `config`
    object from (an NPU config that adds to its GPU sibling's), and its source module."""
    src = open(path).read()
    overrides, provided, replaced = config_overrides(path, ws)
    m = re.search(r'source_module\s*=\s*"([^"]+)"', src)
    source = m.group(1) if m else None
    for n in ast.parse(src).body:
        if depth < 4 and isinstance(n, ast.ImportFrom) and n.module and not n.level and \
                any(a.name == "config" for a in n.names):
            f = os.path.join(ws, *n.module.split(".")) + ".py"
            if os.path.exists(f):
                o2, p2, r2, s2 = config_chain(f, ws, depth + 1)
                overrides, provided, replaced = o2 + overrides, p2 | provided, r2 | replaced
                source = source or s2
    return overrides, provided, replaced, source


def scan(ws):
    queries = []
    for path in sorted(glob.glob(os.path.join(ws, "veomni/models/transformers/*/*_patch_gen_config.py"))):
        cfg = os.path.relpath(path, ws)[:-3].replace("/", ".")
        overrides, provided, replaced, source = config_chain(path, ws)
        if not source:
            continue
        m = [None, source]
        init_sets = {}
        for t, fn in overrides:
            if t.endswith(".__init__"):
                init_sets.setdefault(t.split(".")[0], set()).update(self_sets(fn))
        # what any override of a class assigns to self, the config's own
        body_sets = {}
        for t, fn in overrides:
            body_sets.setdefault(t.split(".")[0], set()).update(self_sets(fn))
        for t, fn in overrides:
            cls = t.split(".")[0]
            if cls in replaced:
                continue
            calls = {n.func.attr for n in ast.walk(fn) if isinstance(n, ast.Call) and
                     isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and
                     n.func.value.id == "self"}
            reads = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and
                     isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and
                     n.value.id == "self"} - calls
            for how, names in (("call", calls), ("read", reads)):
                for name in sorted(names):
                    if f"{cls}.{name}" in provided or name in init_sets.get(cls, set()) or \
                            (how == "read" and name in body_sets.get(cls, set())):
                        continue
                    queries.append([cfg, m[1], t, cls, name, how])
    return queries


def class_source(k, cache={}):
    """The source of class k when transformers defines it (inspect parses the whole
    module for each class: once per class)."""
    if k not in cache:
        try:
            cache[k] = inspect.getsource(k) if k.__module__.startswith("transformers") else ""
        except (OSError, TypeError):
            cache[k] = ""
    return cache[k]


def probe(queries):
    res = {}
    for cfg, mod, target, cls_name, name, how in queries:
        key = f"{mod}|{cls_name}|{name}"
        if key in res:
            continue
        try:
            cls = getattr(importlib.import_module(mod), cls_name, None)
        except Exception:
            res[key] = "unimportable"
            continue
        if cls is None:
            res[key] = "no class"
            continue
        ok = hasattr(cls, name)
        for k in cls.__mro__:
            # what a method of the class assigns to self (an __init__'s submodules, a
            # forward's cached value)
            ok = ok or bool(re.search(rf"self\.{re.escape(name)}\s*(:[^=\n]*)?=(?!=)",
                                      class_source(k)))
        res[key] = "has" if ok else "lacks"
    return res


def compare(queries, at_a, at_b, run):
    want, want_reads = set(), set()
    for cfg, mod, target, cls_name, name, how in queries:
        key = f"{mod}|{cls_name}|{name}"
        if at_a.get(key) == "has" and at_b.get(key) == "lacks":
            (want if how == "call" else want_reads).add((cfg, target, name))
    got, other = set(), set()
    for f in run["findings"]:
        if f["severity"] != "error":
            continue
        d = f["data"]
        if d.get("kind") == "callee-vanished":
            m = re.search(r"calls `self\.([A-Za-z_0-9]+)\(\)`", f["title"])
            got.add((f["config"], d.get("used_by"), m.group(1) if m else "?"))
        # the same fact as another kind: the attribute __init__ stopped setting, the
        # override of the method that vanished (its patch is dropped)
        for a in [d.get("attribute")] + list(d.get("attributes") or []):
            if a:
                other.add((f["config"], (d.get("target") or "").split(".")[0], a))
        if d.get("kind") == "vanished" and "." in (d.get("target") or ""):
            other.add((f["config"], *d["target"].split(".", 1)))
    covered = {w for w in want if w in got or (w[0], w[1].split(".")[0], w[2]) in other}
    print(f"  the real classes: {len(want)} calls through self that bound at A and do not at B; "
          f"pgci: {len(got)} callee-vanished errors, {len(want & got)} of them the same, "
          f"{len(covered - got)} more reported as the attribute or the override that went")
    for x in sorted(want - covered):
        print("  missed:", x)
    for x in sorted(got - want):
        print("  false: ", x)
    # attributes read through self (not called): an error of the config that names it
    reads_covered = {w for w in want_reads if (w[0], w[1].split(".")[0], w[2]) in other or
                     any(w[0] == f["config"] and f["severity"] == "error" and
                         f"self.{w[2]}`" in f["title"] for f in run["findings"])}
    print(f"  and {len(want_reads)} attributes read through self that the class had at A and "
          f"not at B; pgci names {len(reads_covered)} of them in an error")
    for x in sorted(want_reads - reads_covered):
        print("  missed read:", x)
    return covered == want and got <= want and reads_covered == want_reads
