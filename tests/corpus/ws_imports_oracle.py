"""The oracle for the survey's errors on imports of the workspace's own modules: the
real workspace, imported under the real release.

A generated module imports modules of the workspace (`from veomni.utils.model_outputs
import ...`), and importing it runs them, their packages' `__init__`s and what they
import; a `from transformers.<module> import NAME` there that the release no longer
satisfies raises ImportError, and the whole model is dead. Python itself answers:
under each release, in a process of its own (veomni patches transformers when it is
imported), each config's generated module's imports of the workspace are run for
real (the checked-in generated file's own statements, veomni's modules cleared
before each config), the modules of the workspace that loads are its closure, and
each `from transformers.<module> import NAME` statement at the top level of those
modules (outside `if`, `try`, functions and classes, the survey's scope) is run on
its own: "ok", "cannot import" (the module has no such name), or "skip" (the module
itself does not import). Used by tests/corpus/releases_oracle.py for
tests/corpus/72-releases-oracle.sh; it reads the workspace with Python's ast and
runs it, independently of pgci.

  scan(WS)                    each config's generated file's top-level imports of
                              the workspace, and the workspace files with such
                              transformers imports
  probe(SCANNED)              run under one release: per config whether its imports
                              ran, what loaded; per statement its answer
  compare(SCANNED, A, B, RUN) the statements of the modules a config's generated
                              module loaded at A (its imports ran there) that ran
                              at A and cannot import at B, against pgci's
                              `ws-import-removed` errors: every one reported, every
                              such error one of them
"""
import ast, glob, json, os, re, subprocess, sys, tempfile


def config_target(path, ws, depth=0):
    """The generated file of a config: its PatchConfig's target_file, in the
    config's generated/ folder."""
    src = open(path).read()
    m = re.search(r'target_file\s*=\s*"([^"]+)"', src)
    if m:
        return os.path.join(os.path.dirname(path), "generated", m.group(1))
    return None


def top_package(ws):
    return sorted(d for d in os.listdir(ws) if os.path.isfile(os.path.join(ws, d, "__init__.py")))


def scan(ws):
    pkgs = top_package(ws)
    configs = {}
    for path in sorted(glob.glob(os.path.join(ws, "*/models/transformers/*/*_patch_gen_config.py"))):
        cfg = os.path.relpath(path, ws)[:-3].replace("/", ".")
        gen = config_target(path, ws)
        if not gen or not os.path.exists(gen):
            continue
        stmts = []
        for n in ast.parse(open(gen).read()).body:
            if isinstance(n, ast.ImportFrom) and not n.level and n.module and \
                    n.module.split(".")[0] in pkgs:
                stmts.append(ast.unparse(n))
            elif isinstance(n, ast.Import) and any(a.name.split(".")[0] in pkgs for a in n.names):
                stmts.append(ast.unparse(n))
        configs[cfg] = stmts
    files = {}
    for pkg in pkgs:
        for p in sorted(glob.glob(os.path.join(ws, pkg, "**", "*.py"), recursive=True)):
            try:
                tree = ast.parse(open(p).read())
            except (SyntaxError, UnicodeDecodeError):
                continue
            imps = [[n.lineno, n.module, a.name] for n in tree.body
                    if isinstance(n, ast.ImportFrom) and not n.level and n.module and
                    n.module.startswith("transformers.") for a in n.names if a.name != "*"]
            if imps:
                files[os.path.relpath(p, ws)] = imps
    return {"ws": ws, "packages": pkgs, "configs": configs, "files": files}


def _probe_here(scanned):
    """In a process of its own: what each config's imports load, and each statement."""
    import importlib, warnings
    warnings.simplefilter("ignore")
    ws = os.path.realpath(scanned["ws"])
    sys.path.insert(0, ws)
    pkgs = tuple(scanned["packages"])
    res = {"configs": {}, "stmts": {}}

    def clear():
        for m in [m for m in sys.modules if m.split(".")[0] in pkgs]:
            del sys.modules[m]
        importlib.invalidate_caches()

    for cfg, stmts in scanned["configs"].items():
        clear()
        err = None
        for s in stmts:
            try:
                exec(compile(s, "<generated>", "exec"), {})
            except BaseException as e:  # noqa: BLE001 (what the import raises)
                err = f"{type(e).__name__}: {e}"
                break
        loaded = sorted(os.path.relpath(os.path.realpath(m.__file__), ws)
                        for name, m in list(sys.modules.items())
                        if name.split(".")[0] in pkgs and getattr(m, "__file__", None) and
                        os.path.realpath(m.__file__).startswith(ws + os.sep))
        res["configs"][cfg] = {"error": err, "loaded": loaded}
    clear()
    for rel, imps in scanned["files"].items():
        for line, module, name in imps:
            try:
                importlib.import_module(module)
            except BaseException:  # noqa: BLE001 (the module itself does not import here)
                res["stmts"][f"{rel}|{line}|{name}"] = "skip"
                continue
            ns = {}
            try:
                exec(f"from {module} import {name}", ns)
                res["stmts"][f"{rel}|{line}|{name}"] = "ok"
            except ImportError:
                res["stmts"][f"{rel}|{line}|{name}"] = "cannot import"
            except BaseException:  # noqa: BLE001
                res["stmts"][f"{rel}|{line}|{name}"] = "skip"
    return res


def probe(scanned):
    with tempfile.TemporaryDirectory() as d:
        q, a = os.path.join(d, "q.json"), os.path.join(d, "a.json")
        json.dump(scanned, open(q, "w"))
        r = subprocess.run([sys.executable, os.path.abspath(__file__), q, a],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            raise RuntimeError("ws_imports_oracle probe failed: " + r.stderr[-2000:])
        return json.load(open(a))


def compare(scanned, at_a, at_b, run):
    want, decided = {}, 0
    for cfg in scanned["configs"]:
        ca = at_a["configs"].get(cfg)
        if not ca or ca["error"]:
            continue  # the generated module's imports fail at A already
        for rel in ca["loaded"]:
            for line, module, name in scanned["files"].get(rel, []):
                key = f"{rel}|{line}|{name}"
                ra, rb = at_a["stmts"].get(key), at_b["stmts"].get(key)
                if ra == "skip" or rb == "skip" or ra is None or rb is None:
                    continue
                decided += 1
                if ra == "ok" and rb == "cannot import":
                    want[(cfg, rel, line, name)] = at_b["configs"].get(cfg, {}).get("error")
    got = {(f["config"], f["path"], f["line"], f["data"].get("name")): f["title"]
           for f in run["findings"]
           if f["severity"] == "error" and f["data"].get("kind") == "ws-import-removed"}
    missed, false = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    # a config the oracle wants an error of does fail to import at B, for real
    unfailed = sorted({k[0] for k in want if not want[k]})
    print(f"  the real workspace: {decided} transformers imports decided in the modules the "
          f"generated modules load at A, {len(want)} run at A and not at B "
          f"({len({k[0] for k in want})} configs); pgci: {len(got)} ws-import-removed errors, "
          f"{len(missed)} missed, {len(false)} not so")
    for k in missed:
        print("  missed:", k, want[k])
    for k in false:
        print("  false: ", k, got[k])
    for c in unfailed:
        print("  imports at B although a statement it loads fails:", c)
    return not missed and not false and not unfailed


if __name__ == "__main__":
    json.dump(_probe_here(json.load(open(sys.argv[1]))), open(sys.argv[2], "w"))
