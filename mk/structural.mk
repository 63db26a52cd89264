# The structural comparison by pieces (src/py/pytop.c, src/py/structural.c): the
# corpus test tests/corpus/58-pieces.sh holds the statement scan against
# tree-sitter on every real module (tests/tools/pytop_cmp.c).
PYTOP_CMP := $(BUILD)/tests/tools/pytop_cmp

test unit corpus-test: $(PYTOP_CMP)
