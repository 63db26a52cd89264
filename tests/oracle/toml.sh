#!/usr/bin/env bash
# Differential test of pgci's TOML reader against Python's tomllib (the reader
# patchgen uses): on hand-written edge cases, the repository's .toml files, and
# 3000 deterministic character mutations and 400 byte mutations of them, pgci must accept exactly what tomllib
# accepts, with the same values, and reject what it rejects. Three deliberate
# differences, each refused by pgci with its own message: dates and times,
# integers beyond 64 bits (TOML only requires 64), and NUL in strings.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${PGCI_BUILD:-build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgci-oracle-toml.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

python3 -c 'import tomllib' || { echo "FAIL: python3 with tomllib (3.11+) is required" >&2; exit 1; }
[ -f "$BUILD/libpgci.a" ] || { echo "FAIL: $BUILD/libpgci.a missing (make build first)" >&2; exit 1; }
# the library's own sanitizer flags (make asan, make tsan) are needed to link it
# (grep -c reads all of nm's output: grep -q would end the pipe early and pipefail
# would then see nm die of SIGPIPE and link without the sanitizers)
san=
if [ "$(nm "$BUILD/libpgci.a" 2>/dev/null | grep -c __asan_)" != 0 ]; then
    san="-fsanitize=address,undefined"
elif [ "$(nm "$BUILD/libpgci.a" 2>/dev/null | grep -c __tsan_)" != 0 ]; then
    san="-fsanitize=thread"
fi
${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 $san -Isrc -I. -o "$tmp/toml_dump" tests/oracle/toml_dump.c \
    "$BUILD/libpgci.a" -ljansson -ltree-sitter -lutf8proc -lcrypto -lcurl -lgit2 -lcmark -lpthread -lm

python3 - "$tmp" <<'PY'
import datetime, glob, json, math, os, random, subprocess, sys, tomllib

tmp = sys.argv[1]
cases = [
    'a = 1', 'a = 1\na = 2', '[t]\n[t]', '[a]\nb.c = 1\n[a.b]', 'a.b = 1\n[a]',
    '[fruit]\napple.color = "red"\n[fruit.apple.texture]\nsmooth = true',
    's = "a\\tb\\u00e9\\U0001F600"', "s = 'C:\\\\x'", 's = """\nx\\\n   y"""', "s = '''\nr''q'''",
    's = """a"""""', "s = '''a'''''", 's = """a""""""', 's = "\\e"', 's = "\\x41"',
    'a = 01', 'a = 0', 'a = -0', 'a = +1', 'a = 1_000', 'a = 1__0', 'a = _1', 'a = 1_',
    'a = 0xff', 'a = 0XFF', 'a = 0o17', 'a = 0b101', 'a = -0x1', 'a = 0x_1',
    'a = 9223372036854775807', 'a = -9223372036854775808',
    'a = 1.5', 'a = 1.', 'a = .5', 'a = 1e5', 'a = 1E-5', 'a = 1e+05', 'a = 01.5', 'a = 1.5e',
    'a = inf', 'a = -inf', 'a = +nan', 'a = infinity', 'a = 1_0.0_1', 'a = 0.0_1e1_0', 'a = 1e_1',
    'a = true', 'a = True', 'a = truex', 'a = [1,2,]', 'a = [,]', 'a = [1,,2]', 'a = [\n1,\n# c\n2\n]',
    'a = {}', 'a = {b=1,}', 'a = {b=1\n}', 'a = {b.c=1, b.d=2}', 'a = {b=1}\na.c=2', 'a = {b=1}\n[a.c]',
    '[[a]]\nx=1\n[[a]]\nx=2\n[a.sub]\ny=1', 'a = []\n[[a]]', '[[a]]\n[a]', '[a]\n[[a]]',
    '"quoted key" = 1', "'lit key' = 2", '"" = 3', 'a . b . c = 1', '[ a . "b.c" ]\nx=1',
    'a = 1 # c', '# c\x07', 'a = "x\x01"', 'a = "\x7f"', 'a=1\r\nb=2', 'a=1\rb=2', '\ufeffa=1',
    'a = 1979-05-27', 'a = 1979-05-27T07:32:00Z', 'a = 07:32:00', 'a = 1979-05-27 07:32:00',
    '[a]b=1', 'a = 1 2', 'a =', '= 1', '[a', '[[a]', '[a]]', 'a = "x', "a = 'x\ny'",
    'a.b = 1\na.b.c = 2', 'a = [[1], ["x"], [], [{}]]', 'k = """\\\n\n  \n  x"""',
    's = "\\u0000"', 's = "\\uD800"', 's = "\\U00110000"', 'a = """"""', "a = ''''''",
    '[x.y]\n[x]\n[x.z]', '[x]\ny.z = 1\n[x.y.w]', 'a = {x = {y = 1}}\n[a.x.q]',
    '[a.b.c]\n[a]\nb.d = 1', '[a.b.c]\n[a]\nb.d = 1\n[a.b]', '[a.b.c]\n[a.b]\nd=1',
    '[a]\nb.c=1\n[a.b.x]\n[a]', '[[a.b]]\n[a]\nc=1', '[[a]]\nb.c=1\n[a.b.d]', 'a = [{b=1}]\n[a.c]',
    '[a.b]\nc=1\n[a]\nb.d=1', '[[t]]\na.b=1\n[[t]]\na.c=1', '[[t]]\na.b=1\n[t.a]',
]

def mutate(rng, s):
    alphabet = list('[]{}=,."\'#\n \t_-+0123456789abcdefinxobtru\\') + ['"""', "'''", '\r\n', '[[', ']]']
    chars = list(s)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(3)
        pos = rng.randrange(len(chars) + 1)
        if op == 0 or not chars:
            chars.insert(pos, rng.choice(alphabet))
        elif op == 1:
            del chars[min(pos, len(chars) - 1)]
        else:
            chars[min(pos, len(chars) - 1)] = rng.choice(alphabet)
    return ''.join(chars)

seeds = [open(f, encoding='utf-8').read() for f in sorted(glob.glob('**/*.toml', recursive=True))
         if not f.startswith(('build', 'bin')) and os.path.getsize(f) < 100_000]
rng = random.Random(20261129)
docs = list(cases) + seeds
for i in range(3000):
    docs.append(mutate(rng, rng.choice(seeds + cases)))

# and byte-level mutations: stray bytes, control characters, broken UTF-8
raw = [d.encode('utf-8', 'surrogatepass') for d in docs]
for i in range(400):
    b = bytearray(rng.choice(raw[:len(cases) + len(seeds)]))
    pos = rng.randrange(len(b) + 1)
    b[pos:pos] = bytes([rng.choice([0x00, 0x01, 0x0b, 0x0d, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xc3,
                                    0xe2, 0xed, 0xf0, 0xf4, 0xf5, 0xff])])
    raw.append(bytes(b))

paths = []
for i, d in enumerate(raw):
    p = os.path.join(tmp, f'doc{i}.toml')
    with open(p, 'wb') as f:
        f.write(d)
    paths.append(p)

out = []
for k in range(0, len(paths), 500):
    r = subprocess.run([os.path.join(tmp, 'toml_dump')] + paths[k:k + 500], capture_output=True, check=True)
    out += r.stdout.decode().splitlines()
assert len(out) == len(raw), (len(out), len(raw))

def canon(v):
    if isinstance(v, bool): return v
    if isinstance(v, int): return {'int': str(v)}
    if isinstance(v, float): return {'float': 'nan' if math.isnan(v) else '%.17g' % v}
    if isinstance(v, str): return v
    if isinstance(v, list): return [canon(x) for x in v]
    if isinstance(v, dict): return {k: canon(x) for k, x in v.items()}
    raise TypeError(type(v))

def walk(v):
    yield v
    if isinstance(v, list):
        for x in v: yield from walk(x)
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from walk(x)

def refused(v):
    """The message pgci gives for a document tomllib accepts, or None."""
    for x in walk(v):
        if isinstance(x, (datetime.date, datetime.time, datetime.datetime)):
            return 'dates and times are not supported'
        if isinstance(x, int) and not isinstance(x, bool) and not -2**63 <= x < 2**63:
            return 'does not fit in 64 bits'
        if isinstance(x, str) and '\0' in x:
            return '(NUL) is not supported'
    return None

bad = []
stats = {'accepted': 0, 'rejected': 0, 'refused': 0}
for d, line in zip(raw, out):
    try:
        want, err = tomllib.loads(d.decode('utf-8')), None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        want, err = None, str(e)
    why = refused(want) if err is None else None
    if why:
        stats['refused'] += 1
        if not (line.startswith('ERR') and why in line):
            bad.append((d, f'pgci should refuse with "{why}"; pgci: ' + line))
        continue
    if err is None:
        stats['accepted'] += 1
        if not line.startswith('OK '):
            bad.append((d, 'tomllib accepts; pgci: ' + line))
        elif json.loads(line[3:]) != canon(want):
            bad.append((d, 'values differ: pgci ' + line[3:] + ' tomllib ' + json.dumps(canon(want))))
    else:
        stats['rejected'] += 1
        if not line.startswith('ERR'):
            bad.append((d, 'tomllib rejects (' + err + '); pgci accepts'))
for d, why in bad[:15]:
    print('DIFF', repr(d)[:200], '\n    ', why[:300])
print(f"toml oracle: {len(raw)} documents, {stats['accepted']} accepted, {stats['rejected']} rejected, "
      f"{stats['refused']} refused on purpose (dates, big integers, NUL); {len(bad)} disagreements")
sys.exit(1 if bad else 0)
PY
