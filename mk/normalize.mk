# ruff's verdicts without its fix loop where the fixes are certain
# (src/patchgen/normalize_prelint.c): tests/corpus/56-ruff-verdicts.sh holds them
# against the fix loop on every real config at eleven tags (tests/tools/ruff_verdicts.c).
RUFF_VERDICTS := $(BUILD)/tests/tools/ruff_verdicts

test unit corpus-test: $(RUFF_VERDICTS)
