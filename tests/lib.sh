# Shared helpers for the end-to-end scripts.

# expect_grep PATTERN FILE: the file has a line matching the extended regex.
expect_grep() {
    if ! grep -Eq -- "$1" "$2"; then
        echo "expected /$1/ in $2; it holds:" >&2
        head -n 40 "$2" >&2
        exit 1
    fi
}

# expect_fail CODE PATTERN CMD...: CMD exits with CODE and prints exactly one line on
# stderr, matching PATTERN.
expect_fail() {
    local code=$1 pattern=$2
    shift 2
    local err rc=0
    err=$("$@" 2>&1 >/dev/null) || rc=$?
    if [ "$rc" != "$code" ]; then
        echo "expected exit $code from: $*; got $rc; stderr: $err" >&2
        exit 1
    fi
    if ! grep -Eq -- "$pattern" <<<"$err"; then
        echo "expected /$pattern/ on stderr of: $*; got: $err" >&2
        exit 1
    fi
    if [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
        echo "expected one line on stderr of: $*; got: $err" >&2
        exit 1
    fi
}
