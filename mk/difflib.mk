# difflib: the batch driver the difflib oracle test, corpus test and bench run
# (tests/tools/difftool.c, linked against libpgci). `make test` builds it first.
DIFFTOOL := $(BUILD)/tests/tools/difftool

.PHONY: difftool
difftool: build $(DIFFTOOL)

test unit bench corpus-test: $(DIFFTOOL)
