# The structural comparison by pieces (src/py/pytop.c, src/py/structural.c): the
# corpus test tests/corpus/58-pieces.sh holds the statement scan against
# tree-sitter on every real module (tests/tools/pytop_cmp.c).
PYTOP_CMP := $(BUILD)/tests/tools/pytop_cmp

test unit corpus-test: $(PYTOP_CMP)

# The regenerated file read as a forest (src/py/forest.c): tests/corpus/59-forest.sh
# holds the names check on it against the whole tree (tests/tools/forest_cmp.c).
FOREST_CMP := $(BUILD)/tests/tools/forest_cmp

test unit corpus-test: $(FOREST_CMP)

# One-use temporaries written in place (checks/inlined.c), the survey's reading of a
# body that only folded a temporary: tests/corpus/73-inlined.sh holds its folds
# against CPython's ast on every function of the real modeling modules
# (tests/tools/inlined_cmp.c, tests/corpus/inlined_oracle.py).
INLINED_CMP := $(BUILD)/tests/tools/inlined_cmp

test unit corpus-test: $(INLINED_CMP)
