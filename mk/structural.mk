# The structural comparison by pieces (src/py/pytop.c, src/py/structural.c): the
# corpus test tests/corpus/58-pieces.sh holds the statement scan against
# tree-sitter on every real module (tests/tools/pytop_cmp.c).
PYTOP_CMP := $(BUILD)/tests/tools/pytop_cmp

test unit corpus-test: $(PYTOP_CMP)

# The regenerated file read as a forest (src/py/forest.c): tests/corpus/59-forest.sh
# holds the names check on it against the whole tree (tests/tools/forest_cmp.c).
FOREST_CMP := $(BUILD)/tests/tools/forest_cmp

test unit corpus-test: $(FOREST_CMP)
