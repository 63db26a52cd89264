"""The survey against the real transformers releases, imported: the driver of
tests/corpus/72-releases-oracle.sh over its two oracles, callees_oracle.py (a call
or read through `self` that the class no longer answers) and signatures_oracle.py
(a target's parameters; a call that no longer binds).

  scan WS > SCAN.json             both oracles' questions, read from the configs
  probe SCAN.json > AT.json       both answered under one release (its modules
                                  imported once)
  compare SCAN.json A.json B.json RUN.json
                                  both against pgci's run.json; exit 1 when either
                                  finds a fact pgci missed or a finding that is not so
"""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callees_oracle, signatures_oracle  # noqa: E402

if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "scan":
        json.dump({"callees": callees_oracle.scan(args[0]),
                   "signatures": signatures_oracle.scan(args[0])}, sys.stdout)
    elif cmd == "probe":
        q = json.load(open(args[0]))
        json.dump({"callees": callees_oracle.probe(q["callees"]),
                   "signatures": signatures_oracle.probe(q["signatures"])}, sys.stdout)
    else:
        q, a, b, run = (json.load(open(p)) for p in args[:4])
        ok = callees_oracle.compare(q["callees"], a["callees"], b["callees"], run)
        ok = signatures_oracle.compare(q["signatures"], a["signatures"], b["signatures"], run) and ok
        sys.exit(0 if ok else 1)
