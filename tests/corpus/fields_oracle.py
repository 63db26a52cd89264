"""The oracle for the survey's errors on dataclasses a patch body builds by name:
the real classes, built and called.

A body that returns `Out(loss=..., rope_deltas=...)` breaks at run time when the
class's fields (over its whole chain of bases, transformers' `ModelOutput` and its
metaclass included) no longer take a keyword it passes. Python itself answers:
import the model's module from the real release, bind the names the config adds
(its `add_import`s and the imports of its post-import blocks, a module of the
workspace executed statement by statement so that an import the release no longer
satisfies leaves the rest standing), execute the config's helper and replacement
classes in that namespace, and call the class with the call's arguments (None for
each) when it is a dataclass. Used by tests/corpus/releases_oracle.py for
tests/corpus/72-releases-oracle.sh; it reads the configs with Python's ast,
independently of pgci.

  scan(WS)                    every call `Name(...)` of a CapWords name in the
                              override and helper bodies of the real configs (the
                              sibling config an NPU config imports its `config`
                              from included; a body reused through name_map
                              left out), with what the config binds in the
                              generated module
  probe(SCANNED)              run under one release: each call "binds", Python's
                              TypeError or ValueError, or "skip" (no class, not a
                              dataclass, a `*args`/`**kwargs` of the call)
  compare(SCANNED, A, B, RUN) the calls that bind at A and raise at B, against
                              pgci's `dataclass-field-removed` errors: every one
                              reported, every such error one of them
"""
import ast, dataclasses, glob, importlib, inspect, os, re, sys, textwrap, types, warnings

import callees_oracle  # its reading of the overrides

REGISTER = ("add_helper", "add_helper_after", "replace_class")


def const(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def config_files(path, ws, depth=0):
    """The config file and those it takes its `config` object from, deepest first."""
    out = []
    for n in ast.parse(open(path).read()).body:
        if depth < 4 and isinstance(n, ast.ImportFrom) and n.module and not n.level and \
                any(a.name == "config" for a in n.names):
            f = os.path.join(ws, *n.module.split(".")) + ".py"
            if os.path.exists(f):
                out += config_files(f, ws, depth + 1)
    return out + [path]


def strip_registering(src):
    """A class's source without patchgen's registering decorators."""
    return "\n".join(l for l in src.splitlines()
                     if not re.match(r"\s*@(config\.)?(%s)\b" % "|".join(REGISTER), l))


def source_of(src, node):
    """A definition's lines, its decorators included, dedented."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return textwrap.dedent("\n".join(src.splitlines()[first - 1:node.end_lineno]))


def read_config(path, ws):
    """What one config file adds to the generated module: classes (helpers and
    replacements, their source), imports (name -> module), the targets of bodies
    registered with a name_map, and the helper functions' bodies."""
    src = open(path).read()
    tree = ast.parse(src)
    resolve = callees_oracle.config_resolver(path, ws, tree,
                                             (ast.ClassDef, ast.FunctionDef))
    classes, imports, mapped, helpers = {}, {}, set(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                        f.value.id == "config" and f.attr in REGISTER:
                    if isinstance(node, ast.ClassDef):
                        classes[node.name] = strip_registering(source_of(src, node))
                    if f.attr != "replace_class":
                        helpers.append((node.name, node))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                isinstance(node.func.value, ast.Name) and node.func.value.id == "config"):
            continue
        attr, args = node.func.attr, list(node.args)
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if "name_map" in kw and args and const(args[0]):
            mapped.add(const(args[0]))
        if attr == "add_import" and args and const(args[0]):
            names = kw.get("names", args[1] if len(args) > 1 else None)
            if isinstance(names, (ast.List, ast.Tuple)) and "alias" not in kw:
                for e in names.elts:
                    if const(e):
                        imports[const(e)] = const(args[0])
        elif attr == "add_post_import_block" and args and const(args[0]) is not None:
            try:
                block = ast.parse(textwrap.dedent(const(args[0])))
            except SyntaxError:
                continue
            for n in block.body:
                if isinstance(n, ast.ImportFrom) and n.module and not n.level:
                    for a in n.names:
                        if not a.asname:
                            imports[a.name] = n.module
        elif attr in ("add_helper", "add_helper_after") and args and \
                isinstance(args[-1], ast.Name):
            d = resolve(args[-1].id)
            if isinstance(d, ast.ClassDef):
                classes[d.name] = strip_registering(ast.unparse(d))  # its decorators included
            elif d is not None:
                helpers.append((d.name, d))
    return classes, imports, mapped, helpers


def built(fn):
    """(name, positional, keywords, splat) of each call `Name(...)` of a CapWords
    name the body does not bind itself."""
    bound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and
             isinstance(n.ctx, ast.Store)}
    out = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id[:1].isupper() and n.func.id not in bound:
            splat = any(isinstance(a, ast.Starred) for a in n.args) or \
                any(k.arg is None for k in n.keywords)
            out.append([n.func.id, len(n.args), sorted(k.arg for k in n.keywords if k.arg), splat])
    return out


def scan(ws):
    calls, configs = [], {}
    for path in sorted(glob.glob(os.path.join(ws, "veomni/models/transformers/*/*_patch_gen_config.py"))):
        cfg = os.path.relpath(path, ws)[:-3].replace("/", ".")
        overrides, _, _, source = callees_oracle.config_chain(path, ws)
        if not source:
            continue
        classes, imports, mapped, helpers = {}, {}, set(), []
        for f in config_files(path, ws):
            c, i, m, h = read_config(f, ws)
            classes.update(c)
            imports.update(i)
            mapped |= m
            helpers += h
        configs[cfg] = {"source": source, "classes": classes, "imports": imports}
        for used_by, fn in [(t, fn) for t, fn in overrides if t not in mapped] + helpers:
            for name, npos, kws, splat in built(fn):
                calls.append([cfg, used_by, name, npos, kws, splat])
    return {"ws": ws, "configs": configs, "calls": calls}


def tolerant(module, ws, cache):
    """A module of the workspace executed statement by statement (an import of a
    name the release no longer has, and what needs it, left out)."""
    if module in cache:
        return cache[module]
    path = os.path.join(ws, *module.split(".")) + ".py"
    if not os.path.exists(path):
        path = os.path.join(ws, *module.split("."), "__init__.py")
    mod = types.ModuleType(module)
    mod.__file__ = path
    cache[module] = mod
    if not os.path.exists(path):
        return mod
    sys.modules[module] = mod  # @dataclass looks the class's module up
    try:
        for stmt in ast.parse(open(path).read()).body:
            parts = [stmt]
            if isinstance(stmt, ast.ImportFrom):  # each name on its own
                parts = [ast.ImportFrom(stmt.module, [a], stmt.level) for a in stmt.names]
            for part in parts:
                code = ast.Module([part], [])
                try:
                    exec(compile(ast.fix_missing_locations(code), path, "exec"), mod.__dict__)
                except Exception:
                    pass
    finally:
        del sys.modules[module]
    return mod


def namespace(c, ws, cache, called):
    """The generated module's names at this release, as far as the classes the
    bodies build need them: a module of the workspace is executed only for a
    CapWords name a body calls or a config class reads."""
    ns = dict(vars(importlib.import_module(c["source"])))
    needed = set(called)
    for src in c["classes"].values():
        needed |= set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", src))
    for name, module in c["imports"].items():
        if name not in needed or not name[:1].isupper():
            continue
        if module.startswith("transformers"):
            try:
                obj = getattr(importlib.import_module(module), name)
            except Exception:
                obj = None
        else:
            obj = getattr(tolerant(module, ws, cache), name, None)
        if obj is None:
            ns.pop(name, None)
        else:
            ns[name] = obj
    for name, src in c["classes"].items():
        ns.pop(name, None)
        try:
            exec(compile(src, f"<{name}>", "exec"), ns)
        except Exception:
            ns.pop(name, None)
    return ns


def probe(scanned):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return probe_calls(scanned)


def probe_calls(scanned):
    res, spaces, cache = {}, {}, {}
    called = {}
    for cfg, used_by, name, *_ in scanned["calls"]:
        called.setdefault(cfg, set()).add(name)
    for cfg, used_by, name, npos, kws, splat in scanned["calls"]:
        key = f"{cfg}|{name}|{npos}|{','.join(kws)}|{splat}"
        if key in res:
            continue
        res[key] = "skip"
        try:
            if cfg not in spaces:
                spaces[cfg] = namespace(scanned["configs"][cfg], scanned["ws"], cache, called[cfg])
        except Exception:
            spaces[cfg] = {}
        cls = spaces[cfg].get(name)
        if splat or not inspect.isclass(cls) or not dataclasses.is_dataclass(cls):
            continue
        try:
            cls(*[None] * npos, **{k: None for k in kws})
            res[key] = "binds"
        except (TypeError, ValueError) as e:
            res[key] = f"{type(e).__name__}: {e}"
    return res


def compare(scanned, at_a, at_b, run):
    want, decided = {}, set()
    for cfg, used_by, name, npos, kws, splat in scanned["calls"]:
        key = f"{cfg}|{name}|{npos}|{','.join(kws)}|{splat}"
        ra, rb = at_a.get(key, "skip"), at_b.get(key, "skip")
        if ra == "skip" or rb == "skip":
            continue
        decided.add((cfg, used_by, name))
        if ra == "binds" and rb != "binds":
            want[(cfg, used_by, name)] = rb
    got = {(f["config"], f["data"].get("used_by"), f["data"].get("dataclass")): f["title"]
           for f in run["findings"]
           if f["severity"] == "error" and f["data"].get("kind") == "dataclass-field-removed"}
    missed, false = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    print(f"  the real dataclasses: {len(decided)} calls built at both releases, {len(want)} bind "
          f"at A and not at B; pgci: {len(got)} dataclass-field-removed errors, {len(missed)} "
          f"missed, {len(false)} not so")
    for k in missed:
        print("  missed:", k, want[k])
    for k in false:
        print("  false: ", k, got[k])
    return not missed and not false
