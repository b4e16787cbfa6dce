#!/usr/bin/env python3
"""tests/redact/failclosed.py: redaction fails closed. Each section plants values of one
class that once survived and checks that redact removes every one of them and that `--check` on
the raw input finds them: a deny file of 2000 terms, 2000 distinct home directories (once past
what one PCRE2 alternation could compile), names right after JSON escapes, names learned late in
one rank and present in another, a trace truncated inside a number with gzip output (once a
segfault leaving a temporary file behind), SIGTERM during a run, distinct replacements for two
secret keys of one object, --force with outputs that are also later inputs, out of memory inside
yajl (once a segfault)."""
import gzip
import json
import os
import random
import resource
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdlib  # noqa: E402
from rdlib import fail, run  # noqa: E402


def leftovers(d):
    return [n for n in os.listdir(d) if n.startswith(".kinesift-redact")]


def words(n, seed):
    """n distinct made-up words of 6-12 lowercase letters (no real word, no rule matches them)"""
    rnd = random.Random(seed)
    out = set()
    while len(out) < n:
        out.add("q" + "".join(rnd.choice("bcdfghjklmnpqrstvwxz") for _ in range(rnd.randint(5, 11))))
    return sorted(out)


def trace(events, **top):
    t = {"schemaVersion": 1, "traceEvents": events}
    t.update(top)
    return t


def ev(name, i, args=None):
    e = {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": i, "dur": 1}
    if args is not None:
        e["args"] = args
    return e


def write(path, obj, gz=False):
    data = json.dumps(obj).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if gz else data)


def redact_ok(tmp, key, src, out, extra=()):
    run(["redact", "--quiet", "--key-file", key, "-o", out] + list(extra) + [src], check_rc=0)
    return rdlib.read_bytes(out)


def check_rc(path, extra=()):
    return run(["redact", "--check", "--format", "json"] + list(extra) + [path]).returncode


def absent(data, values, what):
    low = data.lower()
    left = [v for v in values if v.lower().encode() in low]
    if left:
        fail("%s: %d of %d survived, e.g. %r" % (what, len(left), len(values), left[:3]))


def test_many_deny_terms(tmp, key):
    terms = words(2000, 1)
    deny = os.path.join(tmp, "deny.txt")
    with open(deny, "w") as f:
        f.write("\n".join(terms) + "\n")
    # every term once, in event names and args, the last ones at the end of the trace
    evs = [ev("label %s done" % t, i, {"note": "x " + t}) for i, t in enumerate(terms)]
    src = os.path.join(tmp, "deny.json")
    write(src, trace(evs))
    data = redact_ok(tmp, key, src, os.path.join(tmp, "deny.out.json"), ["--deny-file", deny])
    absent(data, terms, "2000 deny terms")
    if data.count(b"[REDACTED:deny]") != 4000:
        fail("deny: %d replacements, want 4000" % data.count(b"[REDACTED:deny]"))
    if check_rc(src, ["--deny-file", deny]) != 1:
        fail("--check with 2000 deny terms misses them")


def test_many_homes(tmp, key):
    users = words(2000, 2)
    evs = [ev("/home/%s/proj/m.py(1): f" % u, i) for i, u in enumerate(users)]
    # and each user once more, bare, in a later label: found only as a learned literal
    evs += [ev("owner %s" % u, 5000 + i) for i, u in enumerate(users)]
    src = os.path.join(tmp, "homes.json")
    write(src, trace(evs))
    data = redact_ok(tmp, key, src, os.path.join(tmp, "homes.out.json"))
    absent(data, users, "2000 home directories")
    if check_rc(src) != 1:
        fail("--check on 2000 home directories: not 1")


def test_truncated_number_gz(tmp, key):
    for body in (b'{"":2', b'{"traceEvents":[{"ph":"i","name":"[memory]","ts":1,"args":{"Addr":1234',
                 b'{"x":12'):
        d = tempfile.mkdtemp(dir=tmp)
        src = os.path.join(d, "t.json.gz")
        with open(src, "wb") as f:
            f.write(gzip.compress(body))
        out = os.path.join(d, "o.json.gz")
        p = run(["redact", "--key-file", key, "-o", out, src])
        if p.returncode != 2 or b"truncated" not in p.stderr:
            fail("truncated %r: exit %d, %s" % (body, p.returncode, p.stderr))
        if os.path.exists(out) or leftovers(d):
            fail("truncated %r: left %s" % (body, os.listdir(d)))


def test_signal_no_temp(tmp, key):
    """a run stopped by SIGTERM or SIGINT while writing leaves no temporary file: a named one
    (KINESIFT_NO_O_TMPFILE=1) is removed by the signal handler; by default (O_TMPFILE where the
    file system has it) none is ever visible"""
    for named in (True, False):
        for sig in (signal.SIGTERM, signal.SIGINT):
            d = tempfile.mkdtemp(dir=tmp)
            out = os.path.join(d, "o.json")
            env = dict(os.environ)
            env["KINESIFT_NO_O_TMPFILE"] = "1" if named else "0"
            p = subprocess.Popen([rdlib.KINESIFT, "redact", "--key-file", key, "-o", out, "-"],
                                 stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            head = b'{"traceEvents":[' + b",".join(
                json.dumps(ev("/home/sigu/x.py(1): f", i)).encode() for i in range(20000)) + b","
            p.stdin.write(head)
            p.stdin.flush()
            seen = False
            for _ in range(25 if not named else 200):  # a named temporary exists once it started
                seen = seen or bool(leftovers(d))
                if seen and named:
                    break
                time.sleep(0.02)
            if named and not seen:
                fail("no temporary file while running (the test is void)")
            if p.poll() is not None:
                fail("kinesift ended before the signal: %s" % p.stderr.read())
            p.send_signal(sig)
            p.wait(timeout=30)
            p.stdin.close()
            if p.returncode != -sig:
                fail("signal %d: exit %d" % (sig, p.returncode))
            if leftovers(d) or os.path.exists(out):
                fail("signal %d left %s" % (sig, os.listdir(d)))


def test_multi_all_or_nothing(tmp, key):
    """several traces: one that fails leaves no output at all, and an output that is also an
    input of the run is refused even with --force (before anything is written)"""
    d = tempfile.mkdtemp(dir=tmp)
    good = os.path.join(d, "a.json")
    write(good, trace([ev("x", 1)]))
    bad = os.path.join(d, "b.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents":[{"ph":"X"')
    odir = os.path.join(d, "out")
    p = run(["redact", "--quiet", "--key-file", key, "-o", odir, good, bad], check_rc=2)
    if os.path.exists(odir):
        fail("a failed multi-trace run left %s" % os.listdir(odir))
    # -o DIR where the first output's name is the second input: never replaced
    e = tempfile.mkdtemp(dir=tmp)
    sub = os.path.join(e, "in")
    os.mkdir(sub)
    first = os.path.join(sub, "r0.json")
    write(first, trace([ev("first", 1)]))
    second = os.path.join(e, "r0.json")  # the first's output name in -o e
    write(second, trace([ev("second", 1)]))
    before = open(second, "rb").read()
    p = run(["redact", "--quiet", "--force", "--key-file", key, "-o", e, first, second])
    if p.returncode != 2 or b"input" not in p.stderr:
        fail("an output that is a later input: exit %d %s" % (p.returncode, p.stderr))
    if open(second, "rb").read() != before:
        fail("--force replaced a later input")
    # --report-json over the input or the output: refused, nothing written
    src = os.path.join(d, "a.json")
    out = os.path.join(d, "a.out.json")
    for target in (src, out):
        p = run(["redact", "--quiet", "--key-file", key, "-o", out, "--report-json", target, src])
        if p.returncode != 2 or b"report-json" not in p.stderr:
            fail("--report-json %s: exit %d %s" % (target, p.returncode, p.stderr))
        if os.path.exists(out):
            fail("--report-json over %s: the output was written" % target)
    if open(src, "rb").read() != json.dumps(trace([ev("x", 1)])).encode():
        fail("--report-json changed the input")


def test_escape_adjacent(tmp, key):
    """a name learned at the end of the trace, met before right after a JSON escape"""
    names = {"\n": "qescn", "\t": "qesct", "\r": "qescr", "\b": "qescb", "\f": "qescf",
             "\u0001": "qescu"}
    evs = [ev("x%sqwhoami%s y" % (esc, tag), i) for i, (esc, tag) in enumerate(names.items())]
    for i, (esc, tag) in enumerate(names.items()):
        evs.append(ev("pad", 100 + i, {"a": "/home/qwhoami%s/p.py" % tag}))
    # metadata last (Kineto writes traceName last): the user is learned late
    src = os.path.join(tmp, "esc.json")
    write(src, trace(evs, username="qwhoamiqescn"))
    data = redact_ok(tmp, key, src, os.path.join(tmp, "esc.out.json"))
    absent(data, ["qwhoami" + t for t in names.values()], "names after escapes")
    if check_rc(os.path.join(tmp, "esc.out.json")) != 0:
        fail("--check on the escaped-name output is not clean")


def test_cross_rank(tmp, key):
    """names learned late in one rank are gone from every output of the invocation, also when
    the other rank's strings were answered from the string cache"""
    d = tempfile.mkdtemp(dir=tmp)
    shared = "worker started on qxhostzz by qxuserzz, step ok"  # >= 16 bytes: cached
    r0 = trace([ev(shared, 1)] + [ev("op%d" % i, 2 + i) for i in range(50)])
    r1 = trace([ev(shared, 1)] + [ev("op%d" % i, 2 + i) for i in range(50)],
               metadata={"env": {"SLURMD_NODENAME": "qxhostzz.cluster.example.com"}},
               username="qxuserzz")
    r2 = trace([ev("pad", 1), ev("done by qxhost2 on node qxfqdnsh", 2)],
               hostname="qxfqdnsh.example.org", distributedInfo={"master_addr": "qxhost2"})
    ins = []
    for i, t in enumerate((r0, r1, r2)):
        ins.append(os.path.join(d, "rank%d.json" % i))
        write(ins[-1], t)
    odir = os.path.join(d, "out")
    run(["redact", "--quiet", "--key-file", key, "-o", odir] + ins, check_rc=0)
    for n in sorted(os.listdir(odir)):
        data = open(os.path.join(odir, n), "rb").read()
        absent(data, ["qxhostzz", "qxuserzz", "qxhost2", "qxfqdnsh"], "cross-rank " + n)
    if run(["redact", "--check"] + [os.path.join(odir, n) for n in os.listdir(odir)]).returncode:
        fail("--check on the cross-rank outputs is not clean")
    # and --check on the raw inputs finds the names in every rank
    p = run(["redact", "--check", "--format", "json"] + ins)
    doc = json.loads(p.stdout)
    for t in doc["traces"] if "traces" in doc else []:
        if not t["findings"]:
            fail("--check found nothing in %s" % t["source"])


def test_duplicate_secret_keys(tmp, key):
    rnd = random.Random(3)
    tok = ["ghp_" + "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(36))
           for _ in range(3)]
    src = os.path.join(tmp, "dup.json")
    with open(src, "w") as f:
        f.write('{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1,"args":'
                '{"%s":1,"%s":2,"%s":3,"x":4}}]}' % tuple(tok))
    out = os.path.join(tmp, "dup.out.json")
    data = redact_ok(tmp, key, src, out)
    pairs = json.loads(data, object_pairs_hook=lambda kv: kv)[0][1][0][6][1]  # the args pairs
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or [v for _, v in pairs] != [1, 2, 3, 4]:
        fail("secret keys of one object: %r" % pairs)
    absent(data, tok, "secret keys")
    if redact_ok(tmp, key, out, os.path.join(tmp, "dup.out2.json")) != data:
        fail("duplicate-key numbering is not idempotent")


# (raw JSON text of a string value, the planted values that must not survive)
PLANTS = [
    # paths
    (r'"C:\Users\bwinuser\new\thing.py(3): f"', ["bwinuser"]),
    (r'"D:\Users\fwinuser\reports\tmp\b.py"', ["fwinuser"]),
    (r'"C:\Users\twinuser\bin\x.py"', ["twinuser"]),
    (r'"C:\\\\Users\\\\reprusr\\\\x\\\\y.py"', ["reprusr"]),  # Python repr: doubled
    (r'"\\\\fileserv17\\share\\uncuser\\z.py"', ["fileserv17", "uncuser"]),
    ('"gcc -I/home/flaguser/include -L/home/flaguser/lib"', ["flaguser"]),
    ('"file:///home/fileuser/x/y.py"', ["fileuser"]),
    ('"file://localhost/home/fileusr2/q.py"', ["fileusr2"]),
    ('"file:///C:/Users/fileusr3/p.py"', ["fileusr3"]),
    ('"http://h.example/x,/home/commauser/y.py"', ["commauser"]),
    ('"/scratch/scratchusr"', ["scratchusr"]),
    ('"/mnt/lustre/mntuser"', ["mntuser"]),
    ('"/home/j\u00f6rgusr/x.py"', ["j\u00f6rgusr", "jörgusr"]),
    # credentials
    ('"redis://:RedisPw9x@cache.internal:6379/0"', ["RedisPw9x"]),
    ('"postgres://bob:pa/ss@w0rd@db.example.com/x"', ["pa/ss@w0rd", "w0rd"]),
    ('"curl -H \'Authorization: Bearer eyQ1xTokenAbc123456\'"', ["eyQ1xTokenAbc123456"]),
    ('"Authorization: Basic dXNlcjpwYXNzMTIz"', ["dXNlcjpwYXNzMTIz"]),
    ('"https://x.example.com/cb?access_token%3Dghp_Ab3De5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz2Bc4Df6%26x"',
     ["ghp_Ab3De5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz2Bc4Df6"]),
    ('"q=token%3DAbC123dEf456GhI789jKl0"', ["AbC123dEf456GhI789jKl0"]),
]
# (key, raw JSON value, planted values)
KEY_PLANTS = [
    ("accessToken", '"tok-value-1"', ["tok-value-1"]),
    ("clientSecret", '"sec-value-2"', ["sec-value-2"]),
    ("dbPassword", '"pw-value-3"', ["pw-value-3"]),
    ("PGPASSWORD", '"pw-value-4"', ["pw-value-4"]),
    ("MYSQL_PWD", '"pw-value-5"', ["pw-value-5"]),
    ("pem", '["-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAqqqq", "zzzzPEMLINE2",'
            ' "-----END RSA PRIVATE KEY-----"]', ["MIIEowIBAAKCAQEAqqqq", "zzzzPEMLINE2"]),
]


def test_planted_classes(tmp, key):
    """each value of a class that once survived is removed, and --check on the raw trace finds
    a finding in every planted event"""
    evs = []
    for i, (raw, _) in enumerate(PLANTS):
        evs.append('{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":%d,"dur":1,'
                   '"args":{"v":%s}}' % (i, raw))
    for j, (k, raw, _) in enumerate(KEY_PLANTS):
        evs.append('{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":%d,"dur":1,'
                   '"args":{"%s":%s}}' % (len(PLANTS) + j, k, raw))
    src = os.path.join(tmp, "planted.json")
    with open(src, "w", encoding="utf-8") as f:
        f.write('{"schemaVersion":1,"traceEvents":[' + ",\n".join(evs) + "]}")
    out = os.path.join(tmp, "planted.out.json")
    data = redact_ok(tmp, key, src, out)
    n = len(PLANTS) + len(KEY_PLANTS)
    for i, vals in enumerate([p[1] for p in PLANTS] + [p[2] for p in KEY_PLANTS]):
        line = data.split(b"\n")[i]
        for v in vals:
            if v.lower().encode() in line.lower():
                fail("planted %r survived: %s" % (v, line[:300]))
    p = run(["redact", "--check", "--format", "json", "--max-findings", "1000", src])
    doc = json.loads(p.stdout)
    hit = {d["event"] for t in doc["traces"] for d in t["shown"]}
    missed = [i for i in range(n) if i not in hit]
    if p.returncode != 1 or missed:
        fail("--check on the raw trace missed events %s" % missed)
    if check_rc(out) != 0:
        fail("--check on the redacted planted trace is not clean")


def test_check_fails_closed(tmp, key):
    """--check never says clean when it could not look: a name learned late in standard input
    (which cannot be read twice) is exit 2; a trace that does not parse is exit 2"""
    src = os.path.join(tmp, "late.json")
    with open(src, "w") as f:
        f.write('{"traceEvents":[{"ph":"X","name":"by qlateuser x","ts":1,"dur":1,"pid":1,'
                '"tid":1}],"username":"qlateuser"}')
    if run(["redact", "--check", src]).returncode != 1:
        fail("--check on a file with a late name: not 1")
    with open(src, "rb") as f:
        p = run(["redact", "--check", "-"], stdin=f.read())
    if p.returncode != 2:
        fail("--check on standard input with a late name: exit %d, not 2" % p.returncode)
    with open(src, "w") as f:
        f.write('{"traceEvents":[{"ph":"X",')
    if run(["redact", "--check", src]).returncode != 2:
        fail("--check on a truncated trace: not 2")


def test_out_of_memory(tmp, key):
    """Out of memory is a one-line error and exit 2, with nothing written: a 150 MB string under
    a 200 MB address-space limit. yajl buffers a string that spans read chunks; its allocations
    once bypassed the library's out-of-memory handler and redact died of SIGSEGV. Not under
    ASan, which needs the address space for itself."""
    with open(rdlib.KINESIFT if os.path.isabs(rdlib.KINESIFT) else shutil.which(rdlib.KINESIFT), "rb") as f:
        if b"__asan_init" in f.read():
            return
    src = os.path.join(tmp, "long.json")
    with open(src, "wb") as f:
        f.write(b'{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1,"args":{"s":"')
        f.write(b"ab" * (75 << 20))
        f.write(b'"}}]}')
    out = os.path.join(tmp, "long.out.json")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))
    for args in (["--key-file", key, "-o", out], ["--check"]):
        p = subprocess.run([rdlib.KINESIFT, "redact"] + args + [src], capture_output=True,
                           preexec_fn=limit)
        err = p.stderr.decode(errors="replace")
        if p.returncode != 2 or not err.startswith("kinesift: out of memory while ") \
                or src not in err or err.count("\n") != 1:
            fail("redact %s out of memory: exit %d, %r" % (args[0], p.returncode, err[-300:]))
    if os.path.exists(out):
        fail("out of memory left an output behind")
    os.unlink(src)


def test_public_suffix_list(tmp, key):
    """Host names by the public-suffix list (docs/redaction.md, fqdn): on a real trace with
    planted hosts and module names, the hosts go and the module and file names stay, in redact
    and in --check. Without the list ($KINESIFT_PSL naming a missing file) kinesift says so once
    and fails closed: a dotted name the list would have cleared is treated as a host."""
    obj = json.loads(rdlib.read_bytes(rdlib.corpus_path("hta/triton_example/triton_example.json.gz")))
    evs = [e for e in rdlib.events(obj) if isinstance(e, dict) and e.get("ph") == "X"]
    hosts = ["node-3.cluster.local", "gpu12.example.ai", "db.internal.net"]
    keep = ["torch.nn.functional", "model.py", "libcudart.so", "foo.sh", "model.backbone.net",
            "encoder.layers.local", "heads.cls.ai"]
    for i, v in enumerate(hosts + keep):
        evs[i % len(evs)].setdefault("args", {})["planted_%d" % i] = "seen " + v + " here"
    src = os.path.join(tmp, "psl.json")
    write(src, obj)
    out = os.path.join(tmp, "psl.out.json")
    data = redact_ok(tmp, key, src, out).decode()
    absent(data.encode(), hosts, "public-suffix host")
    for v in keep:
        if "seen " + v + " here" not in data:
            fail("module or file name %s was rewritten" % v)
    doc = rdlib.check_json(src, ("--max-findings", "1000"))
    if rdlib.by_rule(doc).get("fqdn", 0) != len(hosts):
        fail("--check flags %r fqdn, want %d" % (rdlib.by_rule(doc).get("fqdn"), len(hosts)))
    env = dict(os.environ, KINESIFT_PSL=os.path.join(tmp, "no-such-list.dat"))
    p = subprocess.run([rdlib.KINESIFT, "redact", "--quiet", "--key-file", key, "-o", out,
                        "--force", src, ], capture_output=True, env=env)
    err = p.stderr.decode()
    if p.returncode != 0 or err.count("cannot read the public-suffix list") != 1:
        fail("without the list: exit %d, %r" % (p.returncode, err))
    if "torch.nn.functional" in rdlib.read_bytes(out).decode():
        fail("without the list, torch.nn.functional (no public suffix) was not treated as a host")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        key = rdlib.write_key(tmp)
        for t in [test_many_deny_terms, test_many_homes, test_truncated_number_gz,
                  test_signal_no_temp, test_multi_all_or_nothing, test_escape_adjacent,
                  test_cross_rank, test_duplicate_secret_keys, test_planted_classes,
                  test_check_fails_closed, test_out_of_memory, test_public_suffix_list]:
            t(tmp, key)
            if leftovers(tmp):
                fail("%s left %s" % (t.__name__, leftovers(tmp)))
    print("ok")


if __name__ == "__main__":
    main()
