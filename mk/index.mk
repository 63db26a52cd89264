# The index area: the oracle helper that exposes pgci's string-literal decoder to
# tests/oracle/pystr.sh (a test tool, never installed or shown in pgci's help).
PYSTR_ORACLE := $(BUILD)/tools/pystr_decode

test unit: $(PYSTR_ORACLE)
