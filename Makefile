# pgci — build, dependencies, tests, run, bench, sanitizers, install.
#
# Sources are found by wildcard: a new module in src/<area>/, checks/ or reports/, a
# new unit test tests/unit/test_*.c, or a new end-to-end script tests/e2e/*.sh is
# picked up without editing this file.

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
OPT     ?= -O2
SAN     ?=
# make run: the workspace to run on (default: the bundled demo workspace).
WORKSPACE ?=

TS_PY   := $(BUILD)/deps/tree-sitter-python
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-unused-parameter
# libxml2 (JUnit XML, src/verify/junit.c) keeps its headers under include/libxml2.
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -g $(OPT) $(SAN) $(WARN) -Isrc -I. $(XML_CFLAGS) $(CFLAGS) \
              -DPGCI_DEMO_DIR='"$(abspath fixtures/workspace)"'
# pgci itself does not link libcurl, libgit2 or libxml2: it dlopen()s each on first
# use (src/core/lazylib.h says why), by the SONAME of the library whose headers it
# compiles against: scripts/sonames.sh writes them into $(SONAMES_H) once the
# -dev packages are installed. Test programs link the three as before (dlopen
# then finds the library already loaded).
SONAMES_H  := $(BUILD)/gen/pgci_sonames.h
CFLAGS_ALL += -I$(BUILD)/gen
LDLIBS_BIN := -lcmark -ljansson -ltree-sitter -lutf8proc -lcrypto -lpthread -ldl -lm $(LDLIBS)
LDLIBS_ALL := -lcurl -lgit2 -lxml2 $(LDLIBS_BIN)

# CUDA kernels: when nvcc exists (and no sanitizer is on), nvcc builds them (sm_90)
# into a plugin, $(CUDA_PLUGIN), which pgci dlopen()s only when the GPU path is
# used (kernels/kgpu_load.c): pgci itself links no CUDA library, so no other
# command pays for loading them. Without nvcc the GPU path is compiled out.
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_SRCS := $(wildcard kernels/*.cu)
CUDA_PLUGIN :=
NVCC_FLAGS :=
ifneq ($(strip $(NVCC)),)
ifneq ($(strip $(CUDA_SRCS)),)
ifeq ($(strip $(SAN)),)
CUDA_HOME   := $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_PLUGIN := $(BUILD)/lib/pgci/pgci-cuda.so
NVCC_FLAGS  := -O2 -std=c++17 -arch=sm_90 -shared -cudart shared \
               -Xcompiler -fPIC,-fvisibility=hidden,-Wall -I. \
               -L$(CUDA_HOME)/lib64 -Xlinker -rpath,$(CUDA_HOME)/lib64 -Xlinker -z,defs -lcublas \
               -Xlinker --version-script=kernels/pgci-cuda.map
CFLAGS_ALL  += -DPGCI_CUDA_PLUGIN_PATH='"$(abspath $(CUDA_PLUGIN))"'
endif
endif
endif

LIB_SRCS  := $(sort $(wildcard src/*/*.c) $(wildcard checks/*.c) $(wildcard reports/*.c) \
                    $(wildcard kernels/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ  := $(BUILD)/obj/src/main.o
TS_OBJS   := $(BUILD)/obj/ts/parser.o $(BUILD)/obj/ts/scanner.o
LIB       := $(BUILD)/libpgci.a
BIN       := bin/pgci
ifneq ($(BUILD),build)
BIN       := $(BUILD)/bin/pgci
endif

# The flags stamp: everything compiled or linked depends on $(FLAGS_STAMP), which
# is rewritten (while the Makefile is read) only when the compile and link lines
# differ from the ones it holds, so changing CFLAGS, OPT, SAN, the libraries or
# nvcc rebuilds, and an unchanged line rebuilds nothing.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_LINE  := $(strip CC=$(CC) CFLAGS=$(CFLAGS_ALL) LDLIBS=$(LDLIBS_ALL) LDLIBS_BIN=$(LDLIBS_BIN) SAN=$(SAN) \
               NVCC=$(if $(CUDA_PLUGIN),$(NVCC) $(NVCC_FLAGS)))
ifneq ($(filter-out clean format check-format asan tsan,$(or $(MAKECMDGOALS),all)),)
ifneq ($(FLAGS_LINE),$(file <$(FLAGS_STAMP)))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(FLAGS_LINE))
endif
endif

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
E2E       := $(sort $(wildcard tests/e2e/*.sh))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all deps build fixtures FORCE test unit e2e oracle run corpus-test bench asan tsan install format clean \
        fuzz fuzz-smoke check-format report-demo gpu-check gpu-bundle

all: build

$(BUILD)/deps/.stamp: scripts/deps.sh
	@bash scripts/deps.sh $(BUILD)

deps: $(BUILD)/deps/.stamp

build: deps $(BIN) $(CUDA_PLUGIN) fixtures

# The fixture tag v1.1.0 is v1.0.0 plus a hand-written patch (fixtures/upstream/
# DRIFT.md); built here, not tracked. Rebuilt when either changes or it is gone.
FIXTURE_STAMP := fixtures/upstream/.v1.1.0.stamp
fixtures: $(FIXTURE_STAMP)
$(FIXTURE_STAMP): scripts/fixture-tags.sh fixtures/upstream/v1.0.0-to-v1.1.0.patch \
                  $(shell find fixtures/upstream/v1.0.0 -type f -not -path '*/__pycache__/*') \
                  $(if $(wildcard fixtures/upstream/v1.1.0),,FORCE)
	@echo "  PATCH   fixtures/upstream/v1.1.0"
	@bash scripts/fixture-tags.sh
	@touch $@
FORCE:

$(SONAMES_H): scripts/sonames.sh $(BUILD)/deps/.stamp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@CC="$(CC)" bash scripts/sonames.sh >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/src/upstream/curl_api.o $(BUILD)/obj/src/upstream/git_api.o \
$(BUILD)/obj/src/verify/xml_api.o: $(SONAMES_H)

$(BUILD)/obj/ts/%.o: $(BUILD)/deps/.stamp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) -std=c11 -O2 -g $(SAN) -w -I$(TS_PY)/src -c $(TS_PY)/src/$*.c -o $@

$(BUILD)/obj/%.o: %.c $(BUILD)/deps/.stamp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# The plugin uses only header-only code of pgci (kmath.h, kbreak.h, the shared
# structs of kgpu_plugin.h), never a symbol of the executable.
$(CUDA_PLUGIN): $(CUDA_SRCS) $(wildcard kernels/*.h) kernels/pgci-cuda.map $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  NVCC    $@"
	@$(NVCC) $(NVCC_FLAGS) -o $@ $(CUDA_SRCS)

$(LIB): $(LIB_OBJS) $(TS_OBJS) $(FLAGS_STAMP)
	@rm -f $@
	@ar rcs $@ $(filter-out $(FLAGS_STAMP),$^)

$(BIN): $(MAIN_OBJ) $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(SAN) -o $@ $(MAIN_OBJ) $(LIB) $(LDLIBS_BIN)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL) -lcmocka

# Test tools, linked against libpgci; never installed or shown in pgci's help. One
# rule for all: tests/tools/<name>.c -> $(BUILD)/tests/tools/<name>, and the oracle
# helpers tests/oracle/<name>.c -> $(BUILD)/tools/<name>. The mk/<area>.mk that uses
# one names it and hangs it on the test targets.
$(BUILD)/tests/tools/%: tests/tools/%.c $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

$(BUILD)/tools/%: tests/oracle/%.c $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# --- tests ---------------------------------------------------------------------------
# Unit tests (cmocka), then end-to-end scenarios driving the built binary, then the
# oracle tests (Python's difflib, the real patchgen, real ruff), then the fuzz smoke.
test: build $(UNIT_BINS)
	@PGCI_BUILD=$(BUILD) PGCI=$(abspath $(BIN)) bash tests/run_all.sh $(UNIT_BINS)

unit: build $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do $$t; done

e2e: build
	@set -e; for t in $(E2E); do PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) bash $$t; done

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

# The whole suite under ThreadSanitizer: the worker threads of regen, check,
# survey, index and logits (no fuzzing: libFuzzer needs ASan).
tsan:
	PGCI_NO_FUZZ=1 $(MAKE) BUILD=build-tsan OPT=-O1 SAN="-fsanitize=thread" test

fuzz-smoke fuzz:
	@PGCI_BUILD=$(BUILD) bash tests/fuzz/run.sh $@

# --- the main job ----------------------------------------------------------------------
run: build
	@$(BIN) run --ruff $(abspath $(BUILD)/deps/ruff) -o out/run $(if $(WORKSPACE),-C $(WORKSPACE),)

corpus-test: build
	@PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) bash tests/corpus/run.sh

bench: build
	@PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) bash bench/run.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/pgci
ifneq ($(CUDA_PLUGIN),)
	install -d $(DESTDIR)$(PREFIX)/lib/pgci
	install -m 0755 $(CUDA_PLUGIN) $(DESTDIR)$(PREFIX)/lib/pgci/pgci-cuda.so
endif

# format: the tracked files and the new ones git does not ignore (a file not yet
# added is formatted too); check-format: what is committed.
format:
	clang-format -i $(shell git ls-files --cached --others --exclude-standard '*.c' '*.h')

check-format:
	clang-format --dry-run -Werror $(shell git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) build-asan bin

# Areas may add their own targets in mk/<area>.mk (kernels, fuzzing, reports).
-include $(sort $(wildcard mk/*.mk))
