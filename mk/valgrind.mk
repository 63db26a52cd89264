# make valgrind: the main commands under memcheck (tests/valgrind.sh).
.PHONY: valgrind
valgrind: build
	@PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) bash tests/valgrind.sh
