# The index area: the oracle helper that exposes pgci's string-literal decoder to
# tests/oracle/pystr.sh (a test tool, never installed or shown in pgci's help).
PYSTR_ORACLE := $(BUILD)/tools/pystr_decode

$(PYSTR_ORACLE): tests/oracle/pystr_decode.c $(LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

test unit: $(PYSTR_ORACLE)
