# The config evaluator: its JSON dump tool for the differential test against the real
# patchgen (tests/oracle/config_eval.sh) and the corpus test (20-config-eval). A test
# tool, never installed or shown in pgci's help.
CONFIG_DUMP := $(BUILD)/tests/tools/config_dump

# compile_check: the evaluator's syntax checks of any Python file, for the oracle
# against CPython's compile() (tests/oracle/compile.sh).
COMPILE_CHECK := $(BUILD)/tests/tools/compile_check

test unit corpus-test: $(CONFIG_DUMP) $(COMPILE_CHECK)
# tests/e2e/config_errors.sh evaluates configs Python compiles with it
e2e: $(CONFIG_DUMP)
