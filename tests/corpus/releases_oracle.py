"""The survey against the real transformers releases, imported: the driver of
tests/corpus/72-releases-oracle.sh over its five oracles, callees_oracle.py (a
call or read through `self` that the class no longer answers), signatures_oracle.py
(a target's parameters; a call that no longer binds), names_oracle.py (a
module-level name a patch body reads that the module no longer has),
fields_oracle.py (a dataclass a body builds that no longer takes a keyword it
passes) and ws_imports_oracle.py (an import the workspace's modules run when a
generated module is imported that the release no longer satisfies).

  scan WS > SCAN.json             the oracles' questions, read from the configs
  probe SCAN.json > AT.json       all answered under one release (its modules
                                  imported once)
  compare SCAN.json A.json B.json RUN.json
                                  each against pgci's run.json; exit 1 when one
                                  finds a fact pgci missed or a finding that is not so
"""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callees_oracle, fields_oracle, names_oracle, signatures_oracle  # noqa: E402
import ws_imports_oracle  # noqa: E402

ORACLES = {"callees": callees_oracle, "signatures": signatures_oracle, "names": names_oracle,
           "fields": fields_oracle, "ws_imports": ws_imports_oracle}

if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "scan":
        json.dump({k: o.scan(args[0]) for k, o in ORACLES.items()}, sys.stdout)
    elif cmd == "probe":
        q = json.load(open(args[0]))
        json.dump({k: o.probe(q[k]) for k, o in ORACLES.items()}, sys.stdout)
    else:
        q, a, b, run = (json.load(open(p)) for p in args[:4])
        ok = True
        for k, o in ORACLES.items():
            ok = o.compare(q[k], a[k], b[k], run) and ok
        sys.exit(0 if ok else 1)
