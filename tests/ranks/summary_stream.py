#!/usr/bin/env python3
"""tests/ranks/summary_stream.py: a summary is read as a stream, keeping only what its reader
reads (ranks/summary_stream.c, docs/robustness.md).

- What no reader reads is dropped as it passes: a 60 MiB string and a million values under keys
  no reader knows (in line 1, in a collective, in the analyze report) cost no memory, and
  `analyze`, `ranks` and `report` print the bytes they print for the honest summary; a bomb that
  is not a summary is refused within the same memory. Peak RSS (wait4) is compared with the honest
  summary's run: reading the file whole cost 280 MB.
- The bytes of a dropped string are still checked as the JSON parser checks them (control
  characters, escapes, UTF-8), refused with the byte, line and column; numbers are bounded.
- Strings kept across many reads (a CSV of megabytes, with escapes and UTF-8 across the reads)
  arrive whole; comments (allowed in summaries), long ones included, change nothing.
- Nesting: 128 levels under an unused key read, 129 refused naming the byte, line and column.
Run under ASan+UBSan too."""
import atexit, gzip, json, os, shutil, subprocess, sys, tempfile, zlib

KS = os.environ["KINESIFT"]
FIX = os.environ.get("KS_FIXTURES") or os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
TRACE = os.path.join(FIX, "real", "hta", "nccl_parser_config", "nccl_data.json.gz")
MiB = 1 << 20
SKIPPED = 4096  # KS_LIMIT_SUMMARY_SKIPPED_STRING
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    """(returncode, stdout, stderr, peak RSS in bytes) of one kinesift run"""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([KS, *args], stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), out.read(), err.read(), ru.ru_maxrss * 1024


def gz(parts):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([c.compress(p) for p in parts] + [c.flush()])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def position(data, at):
    """'at byte N (line L, column C)' of data[at]"""
    line = data.count(b"\n", 0, at) + 1
    col = at - (data.rfind(b"\n", 0, at) + 1) + 1
    return f"at byte {at} (line {line}, column {col})".encode()


def one_line(err):
    return err.count(b"\n") == 1 and err.startswith(b"kinesift")


tmp = tempfile.mkdtemp(prefix="ks_summary_stream_")
atexit.register(shutil.rmtree, tmp, True)  # removed however the test ends
honest = os.path.join(tmp, "honest.kss.json")
rc, _, err, _ = run("summarize", "--quiet", TRACE, "-o", honest)
check(rc == 0, f"summarize: {err!r}")
raw = open(honest, "rb").read()
line1, line2 = raw.split(b"\n")[:2]
d1 = json.loads(line1)
check(len(d1["collectives"]) > 2, "the trace has collectives")

COMMANDS = (["analyze"], ["analyze", "--format", "json"], ["analyze", "--format", "csv"], ["ranks"],
            ["ranks", "--format", "json"])


def outputs(path):
    res = []
    for cmd in COMMANDS:
        rc, out, err, rss = run(*cmd, path)
        res.append((rc, out.replace(path.encode(), b"S"), err.replace(path.encode(), b"S")))
    page = os.path.join(tmp, "page.html")
    rc, out, err, _ = run("report", path, "-o", page, "--force")
    res.append((rc, open(page, "rb").read() if rc == 0 else b"", err.replace(path.encode(), b"S")))
    return res


base = outputs(honest)
check(base[0][0] == 0 and base[3][0] in (0, 3), f"the honest summary reads: {base[0][0]} {base[3][0]}")
_, _, _, rss_honest = run("analyze", honest)

# ---- what no reader reads costs no memory, and changes no output -------------------------------
def values(v):
    """the values of a JSON value as the limit counts them (a key is one)"""
    if isinstance(v, dict):
        return 1 + sum(1 + values(x) for x in v.values())
    if isinstance(v, list):
        return 1 + sum(values(x) for x in v)
    return 1


NV = (1 << 20) - values(json.loads(line2)) - 16  # values under unused keys (the limit counts them)
big = b" " * MiB
cut = line1.index(b'"collectives":[{') + len(b'"collectives":[{')
l1 = (line1[:cut] + b'"x_unused":[' + b"[1,2]," * 1000 + b'{"a":"b"}],' + line1[cut:-1] +
      b',"y_unused":"')
l2 = line2[:-2] + b',"x_unused":"'
bomb = os.path.join(tmp, "bomb.kss.json.gz")
write(bomb, gz([l1] + [big] * 20 + [b'"}\n', l2] + [big] * 40 +
               [b'","y_unused":[' + b"0," * NV + b'0],"z":{"k":"' + b"v" * 70000 + b'"}}}\n']))
check(os.path.getsize(bomb) < 200_000, f"a small file: {os.path.getsize(bomb)} bytes")
got = outputs(bomb)
for cmd, a, b in zip(COMMANDS + (["report"],), base, got):
    check(a == b, f"{' '.join(cmd)} of the bomb prints what it prints for the honest summary: "
                  f"{b[0]} {b[2][-300:]!r}")
for cmd in (["analyze"], ["ranks"]):
    rc, _, err, rss = run(*cmd, bomb)
    check(rss < rss_honest + 24 * MiB,
          f"{cmd[0]} of a bomb of 62 MiB under unused keys: peak RSS {rss / MiB:.0f} MiB, the honest "
          f"summary's {rss_honest / MiB:.0f} MiB")

# not a summary: refused within the same memory
notsum = write(os.path.join(tmp, "notsum.kss.json.gz"),
               gz([b'{"x":"'] + [big] * 60 + [b'","y":[' + b"0," * ((1 << 20) - 10) + b"0]}\n"]))
for cmd in (["analyze"], ["ranks"]):
    rc, _, err, rss = run(*cmd, notsum)
    check(rc == 2 and one_line(err) and b"missing or mistyped field" in err,
          f"{cmd[0]} of a bomb that is no summary: {rc} {err[-300:]!r}")
    check(rss < rss_honest + 24 * MiB, f"{cmd[0]} of a bomb that is no summary: peak RSS {rss / MiB:.0f} MiB")

# ---- a dropped string is still checked; numbers are bounded -------------------------------------
for what, bad, words in (("control", b"\x01", b"invalid character inside string"),
                         ("utf8", b"\xc3(", b"invalid bytes in UTF8 string"),
                         ("escape", b"\\q", b"which it may not"),
                         ("hex", b"\\u12g4", b"non-hex")):
    for far in (0, 1):  # before the cut (the parser sees it) and after it (checked here)
        pre = b"a" * (10 if not far else SKIPPED + 100)
        text = line1 + b"\n" + line2[:-2] + b',"unused":"' + pre + bad + b'b"}}\n'
        p = write(os.path.join(tmp, f"bad-{what}{far}.kss.json"), text)
        rc, _, err, _ = run("analyze", p)
        check(rc == 2 and one_line(err) and words in err and b"line 2" in err,
              f"a dropped string with a bad byte ({what}, far={far}): {rc} {err[-300:]!r}")
        if far:
            at = text.index(bad) + (1 if what in ("utf8", "escape") else 0) + (4 if what == "hex" else 0)
            check(position(text, at) in err, f"{what}: the byte named ({position(text, at)!r}): {err!r}")
good = line1 + b"\n" + line2[:-2] + b',"unused":"' + b"a" * SKIPPED + "é\\u00e9\\n\\\"€𝄞".encode() * 3000 + b'"}}\n'
p = write(os.path.join(tmp, "good.kss.json"), good)
rc, out, err, _ = run("analyze", p)
check(rc == 0 and out == base[0][1], f"a long dropped string of escapes and UTF-8 reads: {rc} {err[-300:]!r}")
text = line1[:-1] + b',"n":' + b"1" * 5000 + b"}\n" + line2 + b"\n"
p = write(os.path.join(tmp, "number.kss.json"), text)
rc, _, err, _ = run("ranks", p)
check(rc == 2 and one_line(err) and b"a number longer than 4096 bytes" in err and
      position(text, text.index(b"1" * 4097) + 4096) in err, f"a number of 5000 digits: {rc} {err!r}")

# ---- a string kept across many reads arrives whole; comments change nothing --------------------
d2 = json.loads(line2)
csv = "".join(f"row,{i},é€𝄞\"q\",\\b\n" for i in range(60000))  # ~1.6 MB, escapes and UTF-8
d2["analyze"]["csv"] = csv
for ascii in (True, False):  # UTF-8 as \u escapes (surrogate pairs too), and as it is
    p = write(os.path.join(tmp, "longcsv.kss.json"), line1 + b"\n" + json.dumps(d2, ensure_ascii=ascii).encode() + b"\n")
    rc, out, err, _ = run("analyze", "--format", "csv", p)
    check(rc == 0 and out.endswith(csv.encode()), f"a kept CSV of 1.6 MB read whole: {rc} {err[-200:]!r}")
    p = write(os.path.join(tmp, "longcsv.kss.json.gz"), gzip.compress(open(p, "rb").read()))
    rc, out2, err, _ = run("analyze", "--format", "csv", p)
    check(rc == 0 and out2 == out, f"the same gzipped: {rc} {err[-200:]!r}")

note = b"/* a comment \" with a quote */"
long_note = b"/*" + b'"*' * 40000 + b"**/"
text = (line1[:-1] + b"," + note + b'"x":1}\n' + b"//\x01 a line comment\n" + line2[:1] + long_note +
        line2[1:-2] + b"," + long_note + b'"x":2' + long_note + b"}} // the end\n")
p = write(os.path.join(tmp, "comments.kss.json"), text)
got = outputs(p)
check(got == base, f"comments, long ones too, change nothing: {[g[0] for g in got]} {got[0][2][-300:]!r}")

# ---- nesting ------------------------------------------------------------------------------------
for depth, ok in ((127, True), (128, False)):
    # line 1 is a level: its unused key's value nests depth levels more
    text = line1[:-1] + b',"x":' + b"[" * depth + b"]" * depth + b"}\n" + line2 + b"\n"
    p = write(os.path.join(tmp, f"deep{depth}.kss.json"), text)
    rc, out, err, _ = run("analyze", p)
    if ok:
        check(rc == 0 and out == base[0][1], f"{depth + 1} levels read: {rc} {err!r}")
    else:
        at = text.index(b"[" * depth) + depth - 1
        check(rc == 2 and one_line(err) and b"nested deeper than 128 levels " + position(text, at) in err,
              f"{depth + 1} levels refused, the byte named ({position(text, at)!r}): {rc} {err!r}")
text = line1 + b"\n" + line2[:-2] + b',"x":' + b"{\"a\":" * 200 + b"1" + b"}" * 200 + b"}}\n"
p = write(os.path.join(tmp, "deep2.kss.json"), text)
rc, _, err, _ = run("analyze", p)
at = text.index(b'{"a":' * 126) + 5 * 126
check(rc == 2 and one_line(err) and b"its analyze report: nested deeper than 128 levels " + position(text, at) in err,
      f"line 2 nested too deep: {rc} {err!r}")

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("summary streaming: all checks passed")
