"""The real patchgen's drift verdict on one config, for tests/oracle/patchgen_check.sh.

Usage: patchgen_check_driver.py PATCHGEN_ROOT WORKSPACE UPSTREAM_DIR CONFIG_MODULE

PATCHGEN_ROOT holds a `veomni` package whose __init__.py is empty and whose
`patchgen/` is veomni 0.1.11's implementation (as in patchgen_driver.py). Runs
check_patchgen.check_config(CONFIG_MODULE, fix=False) from the workspace root, the
upstream module registered as a module object read from UPSTREAM_DIR (its code is
not run), and prints "ok" or "drift": how patchgen compares the checked-in .py and
.diff with a fresh regeneration (ruff must be on PATH).
"""

import contextlib
import importlib
import io
import os
import sys
import types


def main():
    patchgen_root, workspace, upstream, name = sys.argv[1:5]
    sys.path[:0] = [patchgen_root, workspace, upstream]
    os.chdir(workspace)
    from veomni.patchgen import check_patchgen

    config = importlib.import_module(name).config
    src = os.path.join(upstream, *config.source_module.split(".")) + ".py"
    stub = types.ModuleType(config.source_module)
    stub.__file__ = src
    sys.modules[config.source_module] = stub
    with contextlib.redirect_stdout(io.StringIO()):
        ok = check_patchgen.check_config(name, fix=False)
    print("ok" if ok else "drift")


if __name__ == "__main__":
    main()
