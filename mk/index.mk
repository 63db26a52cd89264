# The index area: the oracle helper that exposes pgci's string-literal decoder to
# tests/oracle/pystr.sh (a test tool, never installed or shown in pgci's help).
PYSTR_ORACLE := $(BUILD)/tools/pystr_decode

test unit: $(PYSTR_ORACLE)

# The corpus test tests/corpus/11-near-miss.sh: names-only indexes against full ones
# (tests/tools/names_cmp.c).
NAMES_CMP := $(BUILD)/tests/tools/names_cmp

test unit corpus-test: $(NAMES_CMP)
