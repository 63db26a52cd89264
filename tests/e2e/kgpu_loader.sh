#!/usr/bin/env bash
# End-to-end: the CUDA plugin loader (kernels/kgpu_load.c) when the plugin cannot
# be used. PGCI_CUDA_PLUGIN pointing at a missing file, at a file that is not a
# shared object, at a shared object without the entry point, at one whose
# dependency (as libcudart would be) is missing, at one with another ABI version
# and at one built against another struct layout: each gives one line naming
# what failed, the file and why; the GPU rows are skipped (never passed), the CPU
# rows still pass, `--device auto` exits 0 and `--device cuda` exits 2, as on a
# machine without a GPU; nothing crashes. Also: where the plugin is looked for
# without PGCI_CUDA_PLUGIN (next to the executable in the installed layout), and
# that pgci itself links no CUDA library.
set -u
cd "$(dirname "$0")/../.."
BUILD=${PGCI_BUILD:-build}
PGCI=${PGCI:-$PWD/bin/pgci}
[ -x "$PGCI" ] || { echo "FAIL: $PGCI not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
toy=fixtures/toy_config/llama_tiny

# --- the plugins ------------------------------------------------------------------
for i in 1 2 3 4 5 6 7 8; do echo "line $i of a text file, not a shared object"; done >"$tmp/text.so"
cat >"$tmp/noentry.c" <<'C'
int pgci_cuda_plugin_other(void);
int pgci_cuda_plugin_other(void) { return 1; }
C
# A plugin table with another ABI version, and one whose struct sizes differ.
cat >"$tmp/table.c" <<'C'
#include "kernels/kgpu_plugin.h"
static int probe(char *why, size_t why_len, char *name, size_t name_len)
{
    (void)why, (void)why_len, (void)name, (void)name_len;
    return 1; /* would claim a device: the loader must not get this far */
}
static kgpu_plugin table = {ABI, sizeof(kgpu_plugin), sizeof(model) + MODEL_DELTA,
                            sizeof(model_layer), sizeof(model_tensor), sizeof(toy_config),
                            sizeof(kfwd_out), sizeof(kgpu_bench_row), probe, 0, 0};
const kgpu_plugin *pgci_cuda_plugin_entry(void);
const kgpu_plugin *pgci_cuda_plugin_entry(void) { return &table; }
C
# A plugin that needs a library that is not there (as when libcudart is missing):
# linked against a stand-in that is removed afterwards.
printf 'int pgci_fake_cudart(void);\nint pgci_fake_cudart(void) { return 0; }\n' >"$tmp/fake.c"
printf 'int pgci_fake_cudart(void);\nint pgci_cuda_plugin_entry(void);\nint pgci_cuda_plugin_entry(void) { return pgci_fake_cudart(); }\n' >"$tmp/needs.c"
cc -std=c11 -shared -fPIC -o "$tmp/noentry.so" "$tmp/noentry.c" &&
    cc -std=c11 -shared -fPIC -I. -DABI=999 -DMODEL_DELTA=0 -o "$tmp/abi.so" "$tmp/table.c" &&
    cc -std=c11 -shared -fPIC -I. -DABI=KGPU_PLUGIN_ABI -DMODEL_DELTA=8 -o "$tmp/layout.so" "$tmp/table.c" &&
    cc -std=c11 -shared -fPIC -o "$tmp/libpgcifakecudart.so" "$tmp/fake.c" &&
    cc -std=c11 -shared -fPIC -o "$tmp/needs.so" "$tmp/needs.c" -L"$tmp" -lpgcifakecudart ||
    { echo "FAIL: cannot build the test plugins"; exit 1; }
rm -f "$tmp/libpgcifakecudart.so"

# case PLUGIN PATTERN: the reason each GPU row gives must match PATTERN (an ERE).
case_() {
    local plugin=$1 want=$2 rc n line before=$fails
    PGCI_CUDA_PLUGIN=$plugin "$PGCI" logits --toy "$toy" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "$plugin: --device auto exited $rc (want 0): $(cat "$tmp/err")"; return; }
    grep -q -i -E "asan|sanitizer|runtime error" "$tmp/err" && fail "$plugin: sanitizer report: $(cat "$tmp/err")"
    n=$(grep -Ec " cpu +pass " "$tmp/out")
    [ "$n" -eq 2 ] || fail "$plugin: $n passing CPU rows (want 2)"
    grep -Eq " cuda +pass " "$tmp/out" && fail "$plugin: a GPU row passed"
    n=$(grep -Ec " cuda +skipped +\(.*\)$" "$tmp/out")
    [ "$n" -eq 2 ] || fail "$plugin: $n skipped GPU rows (want 2): $(cat "$tmp/out")"
    line=$(grep -m1 -E " cuda +skipped" "$tmp/out" | sed -E 's/.* skipped +\((.*)\)$/\1/')
    echo "$line" | grep -Eq -- "$want" || fail "$plugin: reason '$line' does not match /$want/"
    echo "$line" | grep -qF -- "$plugin" || fail "$plugin: reason '$line' does not name the file"
    # --device cuda: an error (exit 2), one line, as on a machine without a GPU
    PGCI_CUDA_PLUGIN=$plugin "$PGCI" logits --toy "$toy" --device cuda >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "$plugin: --device cuda exited $rc (want 2)"
    [ -s "$tmp/out" ] && fail "$plugin: --device cuda printed rows: $(cat "$tmp/out")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$plugin: --device cuda: not one line: $(cat "$tmp/err")"
    [ "$(cat "$tmp/err")" = "pgci: error: --device cuda: no usable CUDA device: $line" ] ||
        fail "$plugin: --device cuda message: $(cat "$tmp/err")"
    [ $fails -eq "$before" ] && echo "ok    $(basename "$plugin"): $line"
}
case_ "$tmp/missing.so" "^cannot load the CUDA plugin .*missing\.so \(PGCI_CUDA_PLUGIN\): cannot open shared object file: No such file or directory$"
case_ "$tmp/text.so" "^cannot load the CUDA plugin .*text\.so \(PGCI_CUDA_PLUGIN\): invalid ELF header$"
case_ "$tmp/noentry.so" "noentry\.so \(PGCI_CUDA_PLUGIN\) is not a pgci CUDA plugin: it has no pgci_cuda_plugin_entry\(\) entry point$"
case_ "$tmp/needs.so" "^cannot load the CUDA plugin .*needs\.so \(PGCI_CUDA_PLUGIN\): libpgcifakecudart\.so: cannot open shared object file"
case_ "$tmp/abi.so" "^CUDA plugin .*abi\.so \(PGCI_CUDA_PLUGIN\) has ABI version 999, this pgci needs [0-9]+: rebuild the plugin"
case_ "$tmp/layout.so" "^CUDA plugin .*layout\.so \(PGCI_CUDA_PLUGIN\) was built against another layout of struct model \(([0-9]+) bytes there, [0-9]+ here\)"
# a relative path without a slash is a file in the current directory, not a
# library-path search
(cd "$tmp" && PGCI_CUDA_PLUGIN=abi.so "$PGCI" logits --toy "$OLDPWD/$toy" >out2 2>&1)
grep -q "CUDA plugin ./abi.so (PGCI_CUDA_PLUGIN) has ABI version 999" "$tmp/out2" ||
    fail "relative PGCI_CUDA_PLUGIN: $(cat "$tmp/out2")"

# --- where the plugin is looked for without PGCI_CUDA_PLUGIN ------------------------
# The installed layout: <prefix>/bin/pgci finds <prefix>/lib/pgci/pgci-cuda.so
# (here the ABI-999 plugin, recognisable by its message) - in a build with nvcc.
# A build without nvcc says the GPU path was compiled out and looks nowhere.
mkdir -p "$tmp/inst/bin" "$tmp/inst/lib/pgci"
cp "$PGCI" "$tmp/inst/bin/pgci"
cp "$tmp/abi.so" "$tmp/inst/lib/pgci/pgci-cuda.so"
env -u PGCI_CUDA_PLUGIN "$tmp/inst/bin/pgci" logits --toy "$toy" >"$tmp/out" 2>&1
if grep -q -- "-DPGCI_CUDA_PLUGIN_PATH=" "$BUILD/.flags" 2>/dev/null; then
    grep -q "CUDA plugin $tmp/inst/bin/../lib/pgci/pgci-cuda.so has ABI version 999" "$tmp/out" ||
        fail "installed layout: the plugin next to the binary was not used: $(cat "$tmp/out")"
else
    grep -q "pgci was built without CUDA (no nvcc at build time)" "$tmp/out" ||
        fail "build without nvcc: $(cat "$tmp/out")"
fi

# --- pgci itself links no CUDA library --------------------------------------------------
if ldd "$PGCI" | grep -Eq "libcuda|libcublas"; then
    fail "pgci links CUDA libraries: $(ldd "$PGCI" | grep -E 'libcuda|libcublas')"
fi
[ $fails -eq 0 ] && echo "CUDA plugin loader: ok"
exit $((fails > 0))
