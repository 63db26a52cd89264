#!/usr/bin/env bash
# Runs every libFuzzer target tests/fuzz/fuzz_<name>.c (picked up by wildcard).
#
#   tests/fuzz/run.sh fuzz-smoke   each target a few seconds (~5 s; all within a
#                                  minute however many there are), from a fixed
#                                  seed (FUZZ_SEED, default 1): part of make test,
#                                  so a red run means a change broke something, not
#                                  that this run's dice found something old
#   tests/fuzz/run.sh fuzz         each target FUZZ_SECONDS seconds (default 300),
#                                  from a random seed: the search for new bugs
#   FUZZ_TARGETS="toml py"         only these targets
#   FUZZ_JOBS=2                    parallel compile jobs for the fuzz build
#
# Seeds: tests/fuzz/corpus/<name>/ or tests/fuzz/seeds/<name>/ (committed, small,
# hand-written) plus the files
# that tests/fuzz/fuzz_<name>.seeds names, one glob per line relative to the
# repository root (fixtures, mostly), copied at run time into
# $BUILD/fuzz/corpus/<name>/, where libFuzzer also keeps what it finds. A dictionary
# tests/fuzz/fuzz_<name>.dict is used when present. A crash leaves its input in
# $BUILD/fuzz/artifacts/ and fails the run.
#
# If clang or libFuzzer is missing this fails loudly: a fuzz run that silently
# does nothing would be a test that cannot fail.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-fuzz-smoke}
BUILD=${PGCI_BUILD:-build}
FUZZ_CC=${FUZZ_CC:-clang}
out=$BUILD/fuzz

die() {
    echo "fuzz: FAIL: $*" >&2
    exit 1
}

case $mode in
fuzz-smoke) ;;
fuzz) ;;
*) die "unknown mode '$mode' (fuzz-smoke or fuzz)" ;;
esac

# libFuzzer present? Build a trivial target with the same flags.
probe=$(mktemp -d "${TMPDIR:-/tmp}/pgci-fuzz-probe.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
command -v "$FUZZ_CC" >/dev/null 2>&1 ||
    die "$FUZZ_CC not found; install clang and libclang-rt-14-dev (Debian) to fuzz"
"$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>"$probe/err" ||
    die "$FUZZ_CC cannot link -fsanitize=fuzzer (libFuzzer missing; install libclang-rt-14-dev): $(head -c 300 "$probe/err")"
"$probe/p" -runs=1 >/dev/null 2>&1 || die "a trivial libFuzzer binary does not run"

targets=()
for src in tests/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=${src#tests/fuzz/fuzz_}
    name=${name%.c}
    if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then
        continue
    fi
    targets+=("$name")
done
[ ${#targets[@]} -gt 0 ] || die "no fuzz targets (tests/fuzz/fuzz_*.c)"

make -s -j"${FUZZ_JOBS:-2}" fuzz-build BUILD="$BUILD" FUZZ_CC="$FUZZ_CC" >"$probe/build.log" 2>&1 || {
    tail -n 40 "$probe/build.log" >&2
    die "building the fuzz targets failed"
}

n=${#targets[@]}
seed=()
if [ "$mode" = fuzz-smoke ]; then
    # ~5 s each, but all of them within a minute
    secs=$((50 / n))
    [ "$secs" -gt 5 ] && secs=5
    [ "$secs" -lt 1 ] && secs=1
    seed=(-seed="${FUZZ_SEED:-1}")
else
    secs=${FUZZ_SECONDS:-300}
fi

failed=()
for name in "${targets[@]}"; do
    bin=$out/bin/fuzz_$name
    [ -x "$bin" ] || die "$bin was not built"
    corpus=$out/corpus/$name
    mkdir -p "$corpus" "$out/artifacts"
    for d in "tests/fuzz/corpus/$name" "tests/fuzz/seeds/$name"; do
        if [ -d "$d" ]; then
            cp -f "$d"/* "$corpus"/ 2>/dev/null || true
        fi
    done
    if [ -f "tests/fuzz/fuzz_$name.seeds" ]; then
        i=0
        while IFS= read -r glob; do
            case $glob in '' | '#'*) continue ;; esac
            shopt -s globstar nullglob
            for f in $glob; do
                [ -f "$f" ] || continue
                i=$((i + 1))
                cp -f "$f" "$corpus/seed-$i-$(basename "$f")"
            done
            shopt -u globstar nullglob
        done <"tests/fuzz/fuzz_$name.seeds"
    fi
    [ -n "$(ls -A "$corpus")" ] ||
        echo "fuzz_$name: no seeds (tests/fuzz/corpus/$name/, seeds/$name/ or fuzz_$name.seeds); starting empty" >&2
    dict=()
    [ -f "tests/fuzz/fuzz_$name.dict" ] && dict=(-dict="tests/fuzz/fuzz_$name.dict")
    log=$out/fuzz_$name.log
    t0=$SECONDS
    if "$bin" "${dict[@]}" "${seed[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$out/artifacts/${name}-" -print_final_stats=1 "$corpus" >"$log" 2>&1; then
        runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
        printf 'fuzz_%-16s ok   %3ds  %s runs  corpus %s\n' "$name" $((SECONDS - t0)) "$runs" \
            "$(ls "$corpus" | wc -l)"
        [ "$runs" != "?" ] && [ "$runs" -gt 0 ] || {
            failed+=("$name")
            echo "fuzz_$name executed no inputs" >&2
        }
    else
        failed+=("$name")
        printf 'fuzz_%-16s FAIL %3ds (log: %s)\n' "$name" $((SECONDS - t0)) "$log"
        grep -E 'ERROR|SUMMARY|artifact|Test unit written' "$log" | head -n 10 | sed 's/^/    /'
    fi
done
[ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]}"
echo "fuzz: ${#targets[@]} target(s) ok ($mode, ${secs}s each)"
