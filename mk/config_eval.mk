# The config evaluator: its JSON dump tool for the differential test against the real
# patchgen (tests/oracle/config_eval.sh) and the corpus test (20-config-eval). A test
# tool, never installed or shown in pgci's help.
CONFIG_DUMP := $(BUILD)/tests/tools/config_dump

test unit corpus-test: $(CONFIG_DUMP)
# tests/e2e/config_errors.sh evaluates configs Python compiles with it
e2e: $(CONFIG_DUMP)
