# The names e2e test (tests/e2e/names.sh) dumps the unit test's ruff-derived snippet
# table with `test_names --dump`, so `make e2e` needs that binary too.
e2e: $(BUILD)/tests/test_names
