"""The real patchgen on a workspace, for tests/oracle/patchgen.sh.

Usage: patchgen_driver.py PATCHGEN_ROOT WORKSPACE UPSTREAM_DIR OUT_DIR

PATCHGEN_ROOT holds a `veomni` package whose __init__.py is empty and whose
`patchgen/` is veomni 0.1.11's implementation (so nothing else of veomni, and no
torch, is imported). For every *_patch_gen_config.py under the workspace's
search_root (sorted, as patchgen discovers them) this writes into OUT_DIR/<stem>/:

  raw.py    ModelingCodeGenerator(config).generate()           (no ruff)
  py        the normalised file check_patchgen writes with --fix (ruff on a temp file)
  diff      the .diff check_patchgen writes with --fix
  rc.py     what 0.1.11's run_codegen writes with --diff (raw: 0.1.11 does not run
  rc.diff   ruff there, and leaves trailing whitespace in the .diff)
  target    the workspace-relative paths of the .py and the .diff, one per line

The working directory must be the workspace root and `ruff` must be on PATH, as
when patchgen's drift check runs in a repository. The upstream module is read from
UPSTREAM_DIR exactly as patchgen reads it (inspect.getsource of the module file);
it is registered as a module object so that 0.1.11 does not execute its code.
"""

import importlib
import os
import shutil
import sys
import tomllib
import types


def main():
    patchgen_root, workspace, upstream, out = sys.argv[1:5]
    sys.path[:0] = [patchgen_root, workspace, upstream]
    from pathlib import Path

    from veomni.patchgen import check_patchgen, run_codegen
    from veomni.patchgen.codegen import ModelingCodeGenerator

    with open(os.path.join(workspace, "pyproject.toml"), "rb") as fp:
        section = tomllib.load(fp)["tool"]["patchgen"]
    root = os.path.join(workspace, section["search_root"])
    names = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith("_patch_gen_config.py"):
                rel = os.path.relpath(os.path.join(d, f), root)[: -len(".py")]
                names.append(".".join([section["package_prefix"], *rel.split(os.sep)]))
    names.sort()
    for name in names:
        config = importlib.import_module(name).config
        src = os.path.join(upstream, *config.source_module.split(".")) + ".py"
        if config.source_module not in sys.modules:
            stub = types.ModuleType(config.source_module)
            stub.__file__ = src
            sys.modules[config.source_module] = stub
        stem = name.rsplit(".", 1)[1]
        dest = os.path.join(out, stem)
        os.makedirs(dest, exist_ok=True)
        raw = ModelingCodeGenerator(config).generate()
        with open(os.path.join(dest, "raw.py"), "w", encoding="utf-8", newline="") as fp:
            fp.write(raw)
        ok = check_patchgen.check_config(name, fix=True)
        gen = os.path.join(os.path.dirname(sys.modules[name].__file__), "generated")
        target = config.target_file
        shutil.copyfile(os.path.join(gen, target), os.path.join(dest, "py"))
        diff_name = os.path.splitext(os.path.basename(target))[0] + ".diff"
        shutil.copyfile(os.path.join(gen, diff_name), os.path.join(dest, "diff"))
        rel = os.path.relpath(gen, workspace)
        with open(os.path.join(dest, "target"), "w") as fp:
            fp.write(f"{rel}/{target}\n{rel}/{diff_name}\n")
        rc_dir = os.path.join(dest, "rc")
        run_codegen.run_codegen(name, Path(rc_dir), save_diff=True)
        shutil.copyfile(os.path.join(rc_dir, target), os.path.join(dest, "rc.py"))
        shutil.copyfile(os.path.join(rc_dir, diff_name), os.path.join(dest, "rc.diff"))
        print(f"{name}: generated ({'fixed' if not ok else 'unchanged'})", file=sys.stderr)


if __name__ == "__main__":
    main()
