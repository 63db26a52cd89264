# Fuzzing: every tests/fuzz/fuzz_<name>.c is a libFuzzer target, built with clang
# and -fsanitize=fuzzer,address,undefined against the whole library (and the
# tree-sitter-python grammar) compiled with clang into $(BUILD)/fuzz/.
#
#   make fuzz-build            builds $(BUILD)/fuzz/bin/fuzz_<name> for every target
#   make fuzz-smoke            a few seconds per target (part of make test)
#   make fuzz FUZZ_SECONDS=600 longer runs (tests/fuzz/run.sh)
#
# Needs clang and its compiler-rt (Debian: clang, libclang-rt-14-dev).

FUZZ_CC     ?= clang
FUZZ_DIR    := $(BUILD)/fuzz
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# Library objects get coverage instrumentation but no main(); warnings are shown,
# not fatal: the gcc build is the -Werror gate, this one looks for memory bugs.
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
               -Wall -Wextra -Wno-unused-parameter -Isrc -I. -I$(BUILD)/gen $(XML_CFLAGS) $(CFLAGS)
FUZZ_LIB_SRCS := $(sort $(wildcard src/*/*.c) $(wildcard checks/*.c) $(wildcard reports/*.c) \
                        $(wildcard kernels/*.c))
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) \
                 $(FUZZ_DIR)/obj/ts/parser.o $(FUZZ_DIR)/obj/ts/scanner.o
FUZZ_BINS     := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_DIR)/bin/%)
FUZZ_LDLIBS   := -lcurl -lgit2 -lcmark -ljansson -lxml2 -ltree-sitter -lutf8proc -lcrypto -lpthread -lm $(LDLIBS)

.PHONY: fuzz-build
fuzz-build: deps $(FUZZ_BINS)

$(FUZZ_DIR)/obj/ts/%.o: $(BUILD)/deps/.stamp
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $@"
	@$(FUZZ_CC) -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -w -I$(TS_PY)/src \
		-c $(TS_PY)/src/$*.c -o $@

$(FUZZ_DIR)/obj/%.o: %.c $(BUILD)/deps/.stamp
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/obj/src/upstream/curl_api.o $(FUZZ_DIR)/obj/src/upstream/git_api.o \
$(FUZZ_DIR)/obj/src/verify/xml_api.o: $(SONAMES_H)

$(FUZZ_DIR)/lib.a: $(FUZZ_LIB_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(FUZZ_DIR)/bin/%: tests/fuzz/%.c $(FUZZ_DIR)/lib.a
	@mkdir -p $(dir $@)
	@echo "  FUZZLD  $@"
	@$(FUZZ_CC) $(filter-out -fsanitize=fuzzer-no-link,$(FUZZ_CFLAGS)) -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_DIR)/lib.a $(FUZZ_LDLIBS)

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)

# make fuzz also runs the differential test against the real patchgen
# (tests/corpus/57-differential.sh, issue 16) with many more generated cases than
# corpus-test: FUZZ_DIFF_COUNT per release and seed, FUZZ_DIFF_SEEDS (default: a
# seed from the clock, printed so a failure can be replayed), FUZZ_DIFF_TF (the
# releases: every transformers release from VeOmni's pin to the newest checked).
FUZZ_DIFF_COUNT ?= 25
FUZZ_DIFF_SEEDS ?= $(shell date +%s)
FUZZ_DIFF_TF    ?= 5.9.0 5.10.4 5.11.0 5.12.1 5.13.1 5.14.1 5.15.1 5.16.1 5.17.0 5.18.0 \
                   5.19.0 5.20.2 5.21.1 5.22.2 5.23.0 5.24.0

.PHONY: fuzz-diff
fuzz-diff: build
	@echo "fuzz-diff: seeds $(FUZZ_DIFF_SEEDS), $(FUZZ_DIFF_COUNT) cases per release and seed"
	@PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) PGCI_DIFF_COUNT=$(FUZZ_DIFF_COUNT) \
		PGCI_DIFF_SEEDS="$(FUZZ_DIFF_SEEDS)" PGCI_DIFF_TF="$(FUZZ_DIFF_TF)" \
		bash tests/corpus/57-differential.sh

fuzz: fuzz-diff
