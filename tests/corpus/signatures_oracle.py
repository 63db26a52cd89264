"""The oracle for the survey's signature findings: the real functions' signatures.

A patch written against a target's parameters keeps applying when upstream changes
them, and a call a patch body makes breaks when it no longer binds. Python itself
says what the parameters are: import the model's module from the real
transformers release and ask `inspect.signature` (through the decorators'
`__wrapped__`, as the function is defined), and whether a call binds
(`Signature.bind`, after the `@deprecate_kwarg` shims in front of the function
have renamed its keywords, as they do at run time). Used by
tests/corpus/releases_oracle.py for tests/corpus/72-releases-oracle.sh; it reads
the configs with Python's ast, independently of pgci.

  scan(WS)                    every patch target of the real configs (the sibling
                              config an NPU config imports its `config` from
                              included): an override's method, a replaced
                              function, each method of a replaced class, where
                              an `add_helper_after` helper goes; and
                              every call `f(...)` and `self.m(...)` of the
                              override bodies, but those the config answers
  probe(SCANNED)              run under one release: each target's parameters
                              (name, kind, default's repr), "absent" or
                              "unimportable"; what each call reaches (a function,
                              a method, a submodule's forward) and its shims
  compare(SCANNED, A, B, RUN) what pgci says of an override behind a renaming
                              `@deprecate_kwarg` at B (the argument goes into a
                              TypeError, into `**kwargs`, keeps working), against
                              the override's def called through B's real shims;
                              the targets present at A and not at B, each a
                              `vanished` or `missing-target` error of that config
                              and every such error one of them, but a method
                              another override of its class still calls through
                              `self` (appended by patchgen, it still runs): a
                              `vanished-called` warning; the parameter
                              changes of each target present at
                              both releases, against pgci's run.json: every one
                              reported (param-removed, -added-required,
                              -added-optional, -renamed, -kind-changed,
                              -default-changed, -reordered) on that config and
                              target, and every such finding one of them; the
                              calls that bind at A and not at B, each an error
                              of pgci that the call no longer binds, and every
                              such error one of them; False otherwise
"""
import ast, glob, importlib, inspect, os, re, symtable, textwrap, types, warnings

import callees_oracle  # its reading of the overrides

KINDS = ("override_method", "replace_function", "replace_class")


def config_targets(path, ws, depth=0):
    """(kind, target) of every registration of the config and of the config it
    imports its `config` object from, and its source module."""
    src = open(path).read()
    tree = ast.parse(src)
    out = []
    for node in ast.walk(tree):
        calls = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            calls = [d for d in node.decorator_list if isinstance(d, ast.Call)]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            calls = [node.value]
        for d in calls:
            if isinstance(d.func, ast.Attribute) and isinstance(d.func.value, ast.Name) and \
                    d.func.value.id == "config" and d.func.attr in KINDS + ("add_helper_after",) \
                    and d.args and isinstance(d.args[0], ast.Constant):
                out.append((d.func.attr, d.args[0].value))
    m = re.search(r'source_module\s*=\s*"([^"]+)"', src)
    source = m.group(1) if m else None
    for n in tree.body:
        if depth < 4 and isinstance(n, ast.ImportFrom) and n.module and not n.level and \
                any(a.name == "config" for a in n.names):
            f = os.path.join(ws, *n.module.split(".")) + ".py"
            if os.path.exists(f):
                o2, s2 = config_targets(f, ws, depth + 1)
                out = o2 + out
                source = source or s2
    return out, source


def block_binds(text):
    """The names a post-import block binds in the module (CPython's scoping); a
    block that does not parse, every identifier it mentions."""
    try:
        top = symtable.symtable(textwrap.dedent(text).strip() + "\n", "<block>", "exec")
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    return {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}


def provided_names(path):
    """What a config binds in the generated module under a bare name: its
    `add_import` names (or alias, or package), what its post-import blocks bind,
    its helpers, and the functions and classes it replaces."""
    tree = ast.parse(open(path).read())
    strings = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
               for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)
               and isinstance(n.value.value, str)}
    defs = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                        ast.ClassDef))}
    origin = {a.asname or a.name: a.name for n in tree.body if isinstance(n, ast.ImportFrom)
              for a in n.names}

    def const(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return strings.get(node.id) if isinstance(node, ast.Name) else None

    def helper(node):  # a helper keeps the name its definition has
        if isinstance(node, ast.Name):
            return node.id if node.id in defs else origin.get(node.id, node.id)
        return None

    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in n.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                        f.value.id == "config" and f.attr in ("add_helper", "add_helper_after"):
                    out.add(n.name)
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        attr, args = n.func.attr, list(n.args)
        kw = {k.arg: k.value for k in n.keywords if k.arg}
        if attr == "create_patch_from_external" and const(kw.get("target")):
            out.add(const(kw["target"]))
        if not (isinstance(n.func.value, ast.Name) and n.func.value.id == "config"):
            continue
        if attr == "add_import" and args and const(args[0]):
            names = kw.get("names", args[1] if len(args) > 1 else None)
            if isinstance(names, (ast.List, ast.Tuple)):
                out.update(const(e) for e in names.elts if const(e))
            elif const(kw.get("alias")):
                out.add(const(kw["alias"]))
            else:
                out.add(const(args[0]).split(".")[0])
        elif attr == "add_post_import_block" and args and const(args[0]) is not None:
            out |= block_binds(const(args[0]))
        elif attr in ("add_helper", "add_helper_after") and args:
            out.add(helper(args[-1]))
        elif attr in ("replace_function", "replace_class") and args and const(args[0]):
            out.add(const(args[0]))
    out.discard(None)
    return out


def dict_locals(fn):
    """The keys of each local a body binds to a dict it spells out: a literal with
    string keys, `dict(k=...)`, `other.copy()`, then `x["k"] = ...`; None for one
    bound or filled any other way (its keys are not known)."""
    keys = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            t, v = n.targets[0], n.value
            if isinstance(t, ast.Name):
                if isinstance(v, ast.Dict) and all(isinstance(k, ast.Constant) and
                                                   isinstance(k.value, str) for k in v.keys):
                    ks = {k.value for k in v.keys}
                elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and \
                        v.func.id == "dict" and not v.args and all(k.arg for k in v.keywords):
                    ks = {k.arg for k in v.keywords}
                elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and \
                        v.func.attr == "copy" and isinstance(v.func.value, ast.Name) and \
                        not v.args and keys.get(v.func.value.id) is not None:
                    ks = set(keys[v.func.value.id])
                else:
                    ks = None
                keys[t.id] = None if t.id in keys else ks  # bound twice: not known
            elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                    t.value.id in keys and keys[t.value.id] is not None:
                if isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                    keys[t.value.id].add(t.slice.value)
                else:
                    keys[t.value.id] = None
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name) and n.func.attr in ("update", "setdefault", "pop"):
            keys[n.func.value.id] = None
    return keys


def body_calls(fn):
    """(how, name, positional, *args, keywords, **kwargs) of each call `f(...)` and
    `self.m(...)` in a body; a `**d` of a dict the body spells out passes its keys."""
    out = []
    dicts = dict_locals(fn)
    aliases = {}  # `f = a if c else b`: a call of f is a call of a or of b
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = n.value
            names = [v] if isinstance(v, ast.Name) else [v.body, v.orelse] \
                if isinstance(v, ast.IfExp) else []
            if names and all(isinstance(x, ast.Name) for x in names):
                aliases[n.targets[0].id] = [x.id for x in names]
    for n in ast.walk(fn):
        if not isinstance(n, ast.Call):
            continue
        if isinstance(n.func, ast.Name):
            how, names = "f", aliases.get(n.func.id, [n.func.id])
        elif isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and \
                n.func.value.id == "self":
            how, names = "self", [n.func.attr]
        else:
            continue
        star = any(isinstance(a, ast.Starred) for a in n.args)
        kws = [k.arg for k in n.keywords if k.arg]
        dstar = False
        for k in n.keywords:
            if k.arg is None:
                known = dicts.get(k.value.id) if isinstance(k.value, ast.Name) else None
                if known is None:
                    dstar = True
                else:
                    kws += sorted(known)
        for name in names:
            out.append([how, name, sum(not isinstance(a, ast.Starred) for a in n.args), star,
                        sorted(kws), dstar])
    return out


def scan(ws):
    targets, calls, provided_by, sources = [], [], {}, []
    for path in sorted(glob.glob(os.path.join(ws, "veomni/models/transformers/*/*_patch_gen_config.py"))):
        cfg = os.path.relpath(path, ws)[:-3].replace("/", ".")
        regs, source = config_targets(path, ws)
        if not source:
            continue
        seen = set()
        for kind, target in regs:
            if (kind, target) not in seen:
                seen.add((kind, target))
                targets.append([cfg, source, kind, target])
        # the calls of every override body, but those the config answers itself
        overrides, provided, replaced, _ = callees_oracle.config_chain(path, ws)
        provided_by[cfg] = sorted(provided)
        names = set()
        chain = [path] + [os.path.join(ws, *n.module.split(".")) + ".py" for n in ast.parse(
            open(path).read()).body if isinstance(n, ast.ImportFrom) and n.module and not n.level
            and any(a.name == "config" for a in n.names)]
        for f in chain:
            if os.path.exists(f):
                names |= provided_names(f)
        for t, fn in overrides:
            cls = t.split(".")[0] if "." in t else None
            if cls in replaced:
                continue
            if cls:
                sources.append([cfg, source, t, ast.unparse(fn)])
            for how, name, npos, star, kws, dstar in body_calls(fn):
                if (how == "f" and name in names) or \
                        (how == "self" and (cls is None or f"{cls}.{name}" in provided)):
                    continue
                calls.append([cfg, source, t, cls, how, name, npos, star, kws, dstar])
    return {"targets": targets, "calls": calls, "provided": provided_by, "overrides": sources}


def params(fn, name):
    """[name, kind, repr of the default or None] of each parameter, as a caller
    binds them (decorators that keep `__wrapped__` followed)."""
    if isinstance(fn, (staticmethod, classmethod)):
        fn = fn.__func__
    if isinstance(fn, property):
        fn = fn.fget
    sig = inspect.signature(as_defined(fn, name))
    out = []
    for p in sig.parameters.values():
        d = None if p.default is inspect.Parameter.empty else \
            re.sub(r" at 0x[0-9a-f]+", "", repr(p.default))
        out.append([p.name, p.kind.name, d])
    return out


def as_defined(fn, name):
    """Function `name` as its module defines it: through `__wrapped__`, and through
    a wrapper that keeps no `__wrapped__` to the function it closes over (5.14.1's
    `@force_accelerate_hooks` returns `wrapped(self, *args, **kwargs)`, which passes
    everything on)."""
    fn = inspect.unwrap(fn)
    for _ in range(4):
        if fn.__name__ == name:
            break
        inner = [c.cell_contents for c in (fn.__closure__ or ())
                 if inspect.isfunction(c.cell_contents)]
        named = [f for f in inner if inspect.unwrap(f).__name__ == name]
        if not (named or len(inner) == 1):
            break
        fn = inspect.unwrap((named or inner)[0])
    return fn


def defined_here(obj, module):
    fn = obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj
    fn = inspect.unwrap(fn) if callable(fn) else fn
    return getattr(fn, "__module__", None) == module.__name__


def probe_targets(targets, res):
    for cfg, mod, kind, target in targets:
        try:
            module = importlib.import_module(mod)
        except Exception:
            res[f"{mod}|{target}"] = "unimportable"
            continue
        parts = target.split(".")
        if kind == "add_helper_after":  # where a helper goes: a module-level definition
            obj = getattr(module, target, None)
            res[f"{mod}|{target}"] = "has" if obj is not None and \
                (inspect.isclass(obj) or inspect.isfunction(obj)) and \
                defined_here(obj, module) else "absent"
            continue
        if kind == "replace_class":
            cls = getattr(module, parts[0], None)
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                res[f"{mod}|{target}"] = "absent"
                continue
            res[f"{mod}|{target}"] = "class"
            for name, obj in vars(cls).items():
                if isinstance(obj, (staticmethod, classmethod, property)) or inspect.isfunction(obj):
                    res[f"{mod}|{target}.{name}"] = params(obj, name)
            continue
        if len(parts) == 2:
            cls = getattr(module, parts[0], None)
            obj = vars(cls).get(parts[1]) if inspect.isclass(cls) and \
                cls.__module__ == module.__name__ else None
        else:
            obj = getattr(module, parts[0], None)
            if obj is not None and not defined_here(obj, module):
                obj = None
        if obj is None or not (callable(obj) or isinstance(obj, (staticmethod, classmethod, property))):
            res[f"{mod}|{target}"] = "absent"
        elif inspect.isclass(obj):
            res[f"{mod}|{target}"] = "class"
        else:
            res[f"{mod}|{target}"] = params(obj, parts[-1])


def shims(fn):
    """The `@deprecate_kwarg` wrappers around fn, outermost first: [old, new or None]
    read off each wrapper's closure, which renames the keyword before the call."""
    out = []
    for _ in range(8):
        code = getattr(fn, "__code__", None)
        if code and "old_name" in code.co_freevars and fn.__closure__:
            cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__)))
            out.append([cells["old_name"], cells.get("new_name")])
        if not hasattr(fn, "__wrapped__"):
            break
        fn = fn.__wrapped__
    return out


def submodule_class(cls, attr, module):
    """The class of module's that the first `__init__` of cls's MRO makes
    `self.<attr>` an instance of (`self.rotary_pos_emb = Rope(dim)`), read from that
    `__init__`'s source; None when it is not one such call."""
    for k in cls.__mro__:
        init = vars(k).get("__init__")
        if init is None or not k.__module__.startswith("transformers"):
            continue
        try:
            tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(init)))
        except (OSError, TypeError, SyntaxError):
            return None
        made = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and
                any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and
                    t.value.id == "self" and t.attr == attr for t in n.targets)]
        if not made:
            continue
        if len(made) == 1 and isinstance(made[0], ast.Call) and isinstance(made[0].func, ast.Name):
            c = getattr(module, made[0].func.id, None)
            return c if inspect.isclass(c) and c.__module__ == module.__name__ else None
        return None
    return None


def probe_calls(calls, res):
    """What each call reaches in the module at this release: the parameters it
    binds (a method's first one left out but for a staticmethod's) and the keyword
    shims in front of them, or "skip" (not a function: a class, a submodule, a
    builtin, nothing)."""
    for cfg, mod, used_by, cls_name, how, name, *_ in calls:
        key = f"{mod}|{cls_name}|{how}|{name}"
        if key in res:
            continue
        res[key] = "skip"
        try:
            module = importlib.import_module(mod)
        except Exception:
            res[key] = "unimportable"
            continue
        if how == "f":
            obj = getattr(module, name, None)
            if inspect.isfunction(inspect.unwrap(obj)) if callable(obj) else False:
                res[key] = {"params": params(obj, name), "shims": shims(obj)}
            continue
        cls = getattr(module, cls_name, None)
        if not inspect.isclass(cls):
            continue
        try:
            obj = inspect.getattr_static(cls, name)
        except AttributeError:
            sub = submodule_class(cls, name, module)
            if sub is not None and inspect.isfunction(vars(sub).get("forward")):
                f = vars(sub)["forward"]
                res[key] = {"params": params(f, "forward")[1:], "shims": shims(f),
                            "class": sub.__name__}
            continue
        if isinstance(obj, staticmethod):
            res[key] = {"params": params(obj, name), "shims": shims(obj.__func__)}
        elif isinstance(obj, classmethod) or inspect.isfunction(obj):
            f = obj.__func__ if isinstance(obj, classmethod) else obj
            res[key] = {"params": params(obj, name)[1:], "shims": shims(f)}


def cells(fn):
    code = getattr(fn, "__code__", None)
    return dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ()))) \
        if code else {}


def shim_layers(fn, name):
    """The `@deprecate_kwarg` wrappers in front of method `name`, outermost first
    (through `__wrapped__`, and through a wrapper that keeps none)."""
    out = []
    for _ in range(8):
        c = cells(fn)
        if "old_name" in c and "func" in c:
            out.append(fn)
        if getattr(fn, "__name__", None) == name and "old_name" not in c and \
                not hasattr(fn, "__wrapped__"):
            break
        inner = getattr(fn, "__wrapped__", None) or next(
            (v for v in c.values() if inspect.isfunction(v)), None)
        if inner is None:
            break
        fn = inner
    return out


def rewrap(layer, func):
    """The real shim `layer` (its code and closure) in front of func instead."""
    closure = tuple(types.CellType(func) if n == "func" else c
                    for n, c in zip(layer.__code__.co_freevars, layer.__closure__))
    return types.FunctionType(layer.__code__, layer.__globals__, layer.__name__,
                              layer.__defaults__, closure)


class Reached(Exception):
    """The override's body was entered: the call bound."""


def probe_shims(overrides, res):
    """Each override whose upstream method at this release sits behind
    `@deprecate_kwarg`: the override (its def, body replaced by `raise Reached`,
    annotations left unevaluated) wrapped in the same shims by this release's own
    deprecate_kwarg, as patchgen's generated method is, then called with each
    keyword the shims rename: "TypeError", "binds: PARAM" (the parameter the value
    reached, "" for none of the named ones), or "undecided"."""
    import __future__
    for cfg, mod, target, src in overrides:
        try:
            module = importlib.import_module(mod)
        except Exception:
            continue
        cls_name, _, meth = target.partition(".")
        cls = getattr(module, cls_name, None)
        obj = vars(cls).get(meth) if inspect.isclass(cls) else None
        if not inspect.isfunction(obj):
            continue
        layers = shim_layers(obj, meth)
        if not layers:
            continue
        fn = ast.parse(src).body[0]
        fn.decorator_list = []
        fn.body = [ast.parse("raise Reached(locals())").body[0]]
        ns = {"Reached": Reached}
        try:
            exec(compile(ast.fix_missing_locations(ast.Module([fn], [])), "<override>", "exec",
                         __future__.annotations.compiler_flag), ns)
        except Exception:
            continue
        stub = ns[fn.name]
        params = list(inspect.signature(stub).parameters.values())[1:]
        wrapped = stub
        for layer in reversed(layers):
            wrapped = rewrap(layer, wrapped)
        for layer in layers:
            names = (cells(layer)["old_name"], cells(layer).get("new_name"))
            for kw in names:
                if not kw:
                    continue
                sentinel = object()
                others = {p.name: 0 for p in params if p.default is inspect.Parameter.empty and
                          p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and
                          p.name not in names}
                key = f"{mod}|shimcall|{target}|{kw}"
                try:
                    with warnings.catch_warnings():  # the shim's FutureWarning
                        warnings.simplefilter("ignore")
                        wrapped(object(), **others, **{kw: sentinel})
                    res[key] = "undecided"
                except Reached as r:
                    got = [n for n, v in r.args[0].items() if v is sentinel]
                    res[key] = "binds: " + (got[0] if got else "")
                except TypeError:
                    res[key] = "TypeError"
                except Exception:
                    res[key] = "undecided"


def compare_shims(overrides, at_b, run):
    """pgci's word on an override behind a renaming shim, against the call made
    through the real shim: "does not take" means a TypeError for both names,
    "goes into the override's `**kwargs`" that both bind and reach neither named
    parameter, "keeps `old` working" that `old=` binds."""
    checked, wrong = 0, []
    mods = {(cfg, t): mod for cfg, mod, t, _ in overrides}
    for f in run["findings"]:
        d = f["data"]
        if d.get("kind") != "param-renamed" or not d.get("shim"):
            continue
        key = (f["config"], d.get("target"))
        if key not in mods:
            continue
        old, new = d["parameter"], d["new_parameter"]
        got = [at_b.get(f"{mods[key]}|shimcall|{key[1]}|{kw}") for kw in (old, new)]
        if None in got or "undecided" in got:
            continue
        title = f["title"]
        if "which the override does not take" in title:
            ok = got == ["TypeError", "TypeError"]
        elif "goes into the override's `**kwargs`" in title:
            ok = all(g.startswith("binds: ") and old not in g for g in got)
        else:
            ok = got[0].startswith("binds")
        checked += 1
        if not ok:
            wrong.append((key, title.split("; ", 1)[-1], got))
    print(f"  the real shims: {checked} overrides behind a renaming `@deprecate_kwarg` called "
          f"through it; pgci's word on them wrong for {len(wrong)}")
    for x in wrong:
        print("  not so:", x)
    return not wrong


def probe(scanned):
    res = {}
    probe_targets(scanned["targets"], res)
    probe_calls(scanned["calls"], res)
    probe_shims(scanned["overrides"], res)
    return res


def facts(a, b):
    """The parameter changes from a to b, as the facts the survey states: a name
    removed, a name added (required or optional), a kind or a default changed, the
    shared names reordered."""
    na, nb = [p[0] for p in a], [p[0] for p in b]
    pa, pb = {p[0]: p for p in a}, {p[0]: p for p in b}
    out = set()
    for n in na:
        if n not in pb:
            out.add(("removed", n))
    for n in nb:
        if n not in pa:
            p = pb[n]
            req = p[2] is None and p[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")
            out.add(("added-required" if req else "added-optional", n))
    for n in na:
        if n in pb:
            if pa[n][1] != pb[n][1]:
                out.add(("kind", n))
            if pa[n][2] != pb[n][2]:
                out.add(("default", n))
    if [n for n in na if n in pb] != [n for n in nb if n in pa]:
        out.add(("reordered", ""))
    return out


def reported(run):
    """(config, target) -> the facts pgci's findings state."""
    got = {}
    for f in run["findings"]:
        d = f["data"]
        k, t = d.get("kind") or "", d.get("target")
        if not k.startswith("param-") or k == "param-annotation-changed":
            continue
        s = got.setdefault((f["config"], t), set())
        p = d.get("parameter")
        if k == "param-renamed":
            s.add(("removed", p))
            s.add(("added", d.get("new_parameter")))
        elif k == "param-removed":
            s.add(("removed", p))
        elif k in ("param-added-required", "param-added-optional"):
            s.add((k[len("param-"):], p))
        elif k == "param-reordered":
            s.add(("reordered", ""))
        else:
            m = re.search(r"(?:parameter|default of) `([A-Za-z_0-9]+)`", f["title"])
            s.add(("kind" if k == "param-kind-changed" else "default", m.group(1) if m else "?"))
    return got


def still_called(overrides, at_b):
    """(config, class) -> the methods an override of that class in the config calls
    through `self` (`self.m(...)`, Python's ast: no comment or string), where the
    override's own target is present at B: patchgen appends an override whose method
    upstream dropped to its class, and such a call still runs it."""
    out = {}
    for cfg, mod, t, src in overrides:
        if at_b.get(f"{mod}|{t}") in (None, "absent", "unimportable"):
            continue
        for n in ast.walk(ast.parse(src)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    isinstance(n.func.value, ast.Name) and n.func.value.id == "self":
                out.setdefault((cfg, t.split(".")[0]), set()).add((n.func.attr, t))
    return out


def compare_gone(targets, overrides, at_a, at_b, run):
    """The targets present at A and absent at B (a class, a method in its class, a
    function, where a helper goes), against pgci's `vanished` and `missing-target`
    errors; those a method override another override of its class still calls
    (still_called), against its `vanished-called` warnings."""
    want = {(cfg, t) for cfg, mod, kind, t in targets
            if at_a.get(f"{mod}|{t}") not in (None, "absent", "unimportable") and
            at_b.get(f"{mod}|{t}") == "absent"}
    kinds = {(cfg, t): kind for cfg, mod, kind, t in targets}
    calls = still_called(overrides, at_b)
    called = {(cfg, t) for cfg, t in want if kinds.get((cfg, t)) == "override_method" and "." in t
              and any(m == t.split(".", 1)[1] and t2 != t
                      for m, t2 in calls.get((cfg, t.split(".")[0]), ()))}
    got = {(f["config"], f["data"].get("target")) for f in run["findings"]
           if f["severity"] == "error" and f["data"].get("kind") in ("vanished", "missing-target")}
    got_called = {(f["config"], f["data"].get("target")) for f in run["findings"]
                  if f["severity"] == "warning" and f["data"].get("kind") == "vanished-called"}
    print(f"  the real targets: {len(want)} present at A and not at B ({len(called)} still "
          f"called by the config's own overrides); pgci: {len(got)} vanished, "
          f"{len(got_called)} vanished and still called, "
          f"{len((want - called) - got) + len(called - got_called)} missed, "
          f"{len(got - (want - called)) + len(got_called - called)} not so")
    for x in sorted((want - called) - got):
        print("  missed:", x)
    for x in sorted(called - got_called):
        print("  missed (still called):", x)
    for x in sorted(got - (want - called)):
        print("  false: ", x)
    for x in sorted(got_called - called):
        print("  false (still called): ", x)
    return want - called == got and called == got_called


def compare_targets(targets, at_a, at_b, run):
    targets = [t for t in targets if t[2] != "add_helper_after"]
    got = reported(run)
    want = {}
    compared = 0
    for cfg, mod, kind, target in targets:
        keys = [target]
        if kind == "replace_class":
            keys = [k.split("|", 1)[1] for k in at_a if k.startswith(f"{mod}|{target}.")]
        for t in keys:
            sa, sb = at_a.get(f"{mod}|{t}"), at_b.get(f"{mod}|{t}")
            if not isinstance(sa, list) or not isinstance(sb, list):
                continue
            compared += 1
            fs = facts(sa, sb)
            if fs:
                want.setdefault((cfg, t), set()).update(fs)
    # a rename is a removal and an addition; pgci says which it believes added
    # without saying whether the new one is required: match by name
    def loose(s):
        return {("added", p) if k.startswith("added") else (k, p) for k, p in s}
    missed, false = [], []
    n_want = sum(len(s) for s in want.values())
    for key in sorted(set(want) | set(got)):
        w, g = want.get(key, set()), got.get(key, set())
        for x in sorted(loose(w) - loose(g)):
            missed.append((key, x))
        for x in sorted(loose(g) - loose(w)):
            false.append((key, x))
        # an addition pgci names as such: required or not as Python says
        for x in sorted(g - w):
            if x[0].startswith("added-") and ("added", x[1]) in loose(w):
                false.append((key, x))
    print(f"  the real signatures: {compared} targets present at both releases, "
          f"{n_want} parameter changes on {len(want)} of them; pgci: "
          f"{sum(len(s) for s in got.values())} stated, {len(missed)} missed, {len(false)} not so")
    for x in missed:
        print("  missed:", x)
    for x in false:
        print("  false: ", x)
    return not missed and not false


def binds(callee, npos, star, kws, dstar):
    """None when a call with npos positional arguments and keywords kws binds the
    callee (its `@deprecate_kwarg` shims renaming keywords first, as they do), Python's
    TypeError otherwise; "?" when the call's own splats leave it open (a `*args`; a
    `**kwargs` may supply what is missing)."""
    if star:
        return "?"
    empty = inspect.Parameter.empty
    sig = inspect.Signature([inspect.Parameter(n, getattr(inspect.Parameter, k),
                                               default=empty if d is None else d)
                             for n, k, d in callee["params"]])
    kw = {k: 0 for k in kws}
    for old, new in callee["shims"]:
        if old in kw and new in kw:
            kw.pop(old)
        elif old in kw and new:
            kw[new] = kw.pop(old)
    try:
        (sig.bind_partial if dstar else sig.bind)(*range(npos), **kw)
        return None
    except TypeError as e:
        return str(e)


BINDS = ("it passes `", "it does not pass `", "it passes ")


def compare_calls(calls, provided, at_a, at_b, run):
    """The calls that bound at A and do not at B, against pgci's errors that say a
    call no longer binds; every such error one of them."""
    want, decided = {}, set()
    for cfg, mod, used_by, cls, how, name, npos, star, kws, dstar in calls:
        pa, pb = at_a.get(f"{mod}|{cls}|{how}|{name}"), at_b.get(f"{mod}|{cls}|{how}|{name}")
        if not isinstance(pa, dict) or not isinstance(pb, dict):
            continue
        # a submodule's forward the config overrides runs the config's code
        if pb.get("class") and f"{pb['class']}.forward" in provided[cfg]:
            continue
        ba, bb = binds(pa, npos, star, kws, dstar), binds(pb, npos, star, kws, dstar)
        key = (cfg, used_by, f"self.{name}()" if how == "self" else f"{name}()")
        if "?" in (ba, bb):
            continue
        decided.add(key)
        if ba is None and bb is not None:
            want[key] = bb
    got = {}
    for f in run["findings"]:
        d = f["data"]
        if f["severity"] == "error" and d.get("kind") == "callee-signature-changed" and \
                (d.get("because") or "").startswith(BINDS):
            got[(f["config"], d.get("used_by"), d.get("call"))] = d["because"]
    missed = sorted(set(want) - set(got))
    false = sorted(k for k in set(got) - set(want) if k in decided)
    open_ = sorted(k for k in set(got) - set(want) if k not in decided)
    print(f"  the real calls: {len(decided)} calls of the override bodies decided, {len(want)} bound "
          f"at A and not at B; pgci: {len(got)} errors that a call no longer binds, "
          f"{len(missed)} missed, {len(false)} not so, {len(open_)} the oracle cannot decide")
    for k in missed:
        print("  missed:", k, want[k])
    for k in false:
        print("  false: ", k, got[k])
    return not missed and not false


def compare(scanned, at_a, at_b, run):
    ok = compare_targets(scanned["targets"], at_a, at_b, run)
    ok = compare_gone(scanned["targets"], scanned["overrides"], at_a, at_b, run) and ok
    ok = compare_shims(scanned["overrides"], at_b, run) and ok
    return compare_calls(scanned["calls"], scanned["provided"], at_a, at_b, run) and ok
