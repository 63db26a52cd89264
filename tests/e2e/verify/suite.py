#!/usr/bin/env python3
"""A hand-written verification suite for tests/e2e/verify.sh: each MODE behaves
like one way a real suite ends, and writes (or does not write) JUnit XML the way
pytest --junitxml does.

usage: suite.py MODE JUNIT_PATH
"""
import os
import signal
import subprocess
import sys
import time
from xml.sax.saxutils import quoteattr, escape

mode, junit = sys.argv[1], sys.argv[2]


def case(name, body="", cls="tests.test_models", t="0.125"):
    return f'<testcase classname="{cls}" name="{name}" time="{t}">{body}</testcase>'


def write(cases, extra=""):
    with open(junit, "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?><testsuites>'
                f'<testsuite name="pytest" tests="{len(cases)}">{"".join(cases)}</testsuite>'
                f"{extra}</testsuites>")


def based_on(rel):
    with open(rel) as f:
        for line in f:
            if "Based on: transformers==" in line:
                return line.split("==", 1)[1].strip()
    return "?"


if mode == "pass":
    write([case("test_llama_logits"), case("test_qwen3_logits", t="1.5"),
           case("test_qwen3_npu", '<skipped type="pytest.skip" message="needs an NPU">'
                'tests/test_models.py:40: needs an NPU</skipped>')])
elif mode == "fail":
    trace = "\n".join(f"tests/test_models.py:{i}: in frame_{i}" for i in range(1, 31))
    trace += "\nE   AssertionError: logits differ: max |diff| = 0.5 <> 0"
    write([case("test_llama_logits"),
           case("test_qwen3_logits", f'<failure message="AssertionError: logits differ '
                f'(max |diff| 0.5)">{escape(trace)}</failure>'),
           case("test_moe_logits", '<error message="failed on setup with &quot;OSError&quot;">'
                "fixture 'moe' raised OSError</error>", cls="tests.test_moe")])
    sys.exit(1)
elif mode == "crash":
    write([case("test_llama_logits")])  # written, then the process dies: not a pass
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "timeout":
    # a grandchild in the same process group: the timeout must kill it too
    child = subprocess.Popen(["sleep", "300"])
    with open(os.environ["PGCI_TEST_PIDFILE"], "w") as f:
        f.write(str(child.pid))
    time.sleep(300)
elif mode == "daemon":
    # passes, but leaves a process behind that holds the output pipes: the suite is
    # done when it exits (not at its timeout), and what it left is killed
    child = subprocess.Popen(["sleep", "300"])
    with open(os.environ["PGCI_TEST_PIDFILE"], "w") as f:
        f.write(str(child.pid))
    write([case("test_llama_logits")])
elif mode == "noxml":
    print("collected 0 items; no XML written")
elif mode == "malformed":
    with open(junit, "w") as f:
        f.write('<testsuites><testsuite name="pytest"><testcase name="a" time="1">')
elif mode == "empty":
    write([])
elif mode == "exit-nonzero":
    write([case("test_llama_logits")])
    sys.exit(3)
elif mode == "env":
    # cwd and env from [tool.pgci.verify]: runs in suites/, sees PGCI_SUITE_ENV
    ok = os.path.basename(os.getcwd()) == "suites" and \
        os.environ.get("PGCI_SUITE_ENV") == "x-" + junit
    write([case("test_env", "" if ok else '<failure message="wrong cwd or env">'
                f"cwd={escape(os.getcwd())} env={escape(os.environ.get('PGCI_SUITE_ENV', ''))}"
                "</failure>")])
elif mode == "based-on":
    # which generated files the suite sees: named in the cases
    cases = []
    for model, rel in (("llama", "demo/models/llama/generated/patched_modeling_llama_gpu.py"),
                       ("qwen3", "demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py")):
        cases.append(case(f"test_{model}[{based_on(rel)}]"))
    if os.path.exists("UNTRACKED_MARKER"):
        cases.append(case("test_untracked_marker_seen"))
    write(cases)
else:
    sys.exit(f"unknown mode {mode}")
