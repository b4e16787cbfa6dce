#!/usr/bin/env python3
"""tests/redact/sweep.py: generators for each leak class of docs/redaction.md, planted into one
trace and redacted; no planted value may survive.

- Context sweeps: every kind of value (home paths in their Unix, Windows and long-path spellings,
  torchinductor paths, e-mail, IPv4, IPv6 long and short, host names, learned host, user and job
  names, deny terms, tokens of every fixed shape, URL credentials) with every printable ASCII
  character, a non-breaking space, U+2028 and a fullwidth colon right before it and right after
  it, in an event name, an args value and an args key. A value glued to a letter or digit on a
  side where it would be part of a longer word is no value of its class (SKIP_BEFORE /
  SKIP_AFTER list those cases, as documented in docs/redaction.md).
- Shell and log contexts: redirections, ${HOME:-...}, -isystem, [rank0], //, @, *.
- Split containers: a private key over an object's values or nested arrays, one line each.
- Key names: keys that name a secret by the rule (..._KEY, pass, pw, passcode, Cookie,
  X-Amz-Signature, ...) hold values of no known shape; keys that do not stay.
- Learned names from values that are not clean strings (a trailing newline, an array, an object).
- Integrity: names that differ only in case keep distinct pseudonyms; version numbers are no
  addresses; lone surrogates are never written as invalid UTF-8.

Then, as for every trace: --check on the output is clean, --check on the input flags exactly the
places redact changes (rdlib.check_covers, both directions), a second redaction changes nothing,
and `kinesift stats` and `analyze` agree."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdlib  # noqa: E402
from rdlib import fail  # noqa: E402

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
CONTEXT = [chr(c) for c in range(0x20, 0x7f)] + ["\u00a0", "\u2028", "\uff1a"]
LETTERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
DIGITS = set("0123456789")
WORD = LETTERS | DIGITS


def tok(seed, n, alphabet=ALNUM):
    """a deterministic high-entropy string"""
    out, x = [], seed * 2654435761 + 12345
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
        out.append(alphabet[(x >> 33) % len(alphabet)])
    return "".join(out)


# kind: (value maker(i) -> (value, needle), chars before that glue it into another word,
# chars after that do)
def home(i):
    return "/home/swpu%da/proj/x.py" % i, "swpu%da" % i


def home_dir(i):
    return "/home/swpd%db" % i, "swpd%db" % i


def users(i):
    return "/Users/swpm%dc/dev/y.py" % i, "swpm%dc" % i


def win(i):
    return "C:\\Users\\swpw%dd\\p\\r.py" % i, "swpw%dd" % i


def win_fwd(i):
    return "C:/Users/swpf%de/p/r.py" % i, "swpf%de" % i


def win_long(i):
    return "\\\\?\\C:\\Users\\swpl%df\\p\\r.py" % i, "swpl%df" % i


def win_docs(i):
    return "C:\\Documents and Settings\\swpo%dg\\p\\r.py" % i, "swpo%dg" % i


def inductor(i):
    return "/tmp/torchinductor_swpi%dh/ab/c.py" % i, "swpi%dh" % i


def email(i):
    return "swpe%dq@corp-example.com" % i, "swpe%dq" % i


def ipv4(i):
    v = "10.%d.%d.77" % (i // 200 + 1, i % 200 + 1)
    return v, v


def ipv6(i):
    v = "2001:db8:85a3:%x:0:8a2e:370:7334" % (i + 1)
    return v, v


def ipv6_short(i):
    v = "2001:db8::%x" % (i + 4096)
    return v, v


def fqdn(i):
    return "gpu-n%dz.cluster.internal" % i, "gpu-n%dz" % i


def fqdn_dotted(i):
    return "db%dk.prod.example.com" % i, "db%dk.prod" % i


def learned_host(i):
    return "swlearnhost", "swlearnhost"


def learned_user(i):
    return "swlearnuser", "swlearnuser"


def learned_job(i):
    return "swlearnjob", "swlearnjob"


def deny(i):
    return "Nightjarproj", "nightjarproj"


def ghp(i):
    v = "ghp_" + tok(i, 36)
    return v, v[4:]


def aws(i):
    v = "AKIA" + tok(i, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    return v, v


def hf(i):
    v = "hf_" + tok(i, 34, ALNUM[:52])
    return v, v[3:]


def jwt(i):
    v = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzd2VlcCJ9" + tok(i, 4) + "." + tok(i + 7, 43)
    return v, v[-43:]


def url_cred(i):
    return "https://deploy:Sw33pPw%dX@git.example.org/r" % i, "Sw33pPw%dX" % i


def nvapi(i):
    v = "nvapi-" + tok(i, 64, ALNUM + "_-")
    return v, v[6:]


def openrouter(i):
    v = "sk-or-v1-" + tok(i, 64, "0123456789abcdef")
    return v, v[9:]


def sk_hex(i):
    v = "sk-" + tok(i, 32, "0123456789abcdef")
    return v, v[3:]


def xoxc(i):
    v = "xoxc-%d-%d-%d-%s" % (1000000 + i, 2000000 + i, 3000000 + i, tok(i, 64, "0123456789abcdef"))
    return v, v[-64:]


def ya29(i):
    v = "ya29." + tok(i, 120, ALNUM + "_-")
    return v, v[5:]


def r8(i):
    v = "r8_" + tok(i, 37)
    return v, v[3:]


KINDS = {
    # kind: (maker, glue before, glue after)
    "home": (home, WORD | set("._-~"), set()),
    "home-dir": (home_dir, WORD | set("._-~"), WORD | set(".-_")),
    "users": (users, WORD | set("._-~"), set()),
    "windows": (win, WORD, set()),
    "windows-fwd": (win_fwd, WORD, set()),
    "windows-long": (win_long, WORD, set()),
    "windows-docs": (win_docs, WORD, set()),
    "torchinductor": (inductor, WORD | set("._-~"), set()),
    "email": (email, set(), set()),
    "ipv4": (ipv4, WORD | set("._-="), WORD | set(".-+~")),
    "ipv6": (ipv6, WORD | set(":._"), WORD | set(":._")),
    "ipv6-short": (ipv6_short, WORD | set(":._"), WORD | set(":._")),
    "fqdn": (fqdn, WORD | set("-."), WORD | set("-.")),
    "fqdn-dotted": (fqdn_dotted, WORD | set("-."), WORD | set("-.")),
    "learned-host": (learned_host, WORD, WORD),
    "learned-user": (learned_user, WORD, WORD),
    "learned-job": (learned_job, WORD, WORD),
    "deny": (deny, WORD, WORD),
    "github-token": (ghp, set(), WORD),
    "aws": (aws, set(), WORD),
    "huggingface": (hf, set(), WORD),
    "jwt": (jwt, WORD | set("-_"), WORD | set("-_.=")),
    "url-userinfo": (url_cred, set(), set()),
    "nvapi": (nvapi, set(), WORD | set("-_")),
    "openrouter": (openrouter, set(), WORD),
    "sk-hex": (sk_hex, WORD, WORD),
    "xoxc": (xoxc, set(), WORD | set("-")),
    "ya29": (ya29, set(), WORD | set("-_")),
    "r8": (r8, set(), WORD),
}


def cases():
    """(kind, side, context char, text, needle) for every kind and context"""
    out = []
    i = 0
    for kind, (maker, before, after) in KINDS.items():
        for c in CONTEXT:
            for side in ("before", "after"):
                if (side == "before" and c in before) or (side == "after" and c in after):
                    continue
                v, needle = maker(i)
                i += 1
                text = ("pre" + c + v + " post") if side == "before" else ("pre " + v + c + "post")
                out.append((kind, side, c, text, needle))
    return out


# shell and log contexts of home paths, written out
SHELL = [">/home/shu1x/log.txt", "2>/home/shu2x/err.log", "cat </home/shu3x/in.txt",
         "@/home/shu4x/args.txt", "//home/shu5x/x.py", "rm */home/shu6x/*", "${HOME:-/home/shu7x}/x",
         "-isystem/home/shu8x/include", "[rank0]/home/shu9x/run.py", "at\u00a0/home/shu10x/x.py",
         "at\u2028/home/shu11x/x.py", "path\uff1a/home/shu12x/x.py", "\\\\?\\C:\\Users\\shu13x\\x.py",
         "C:\\Documents and Settings\\shu14x\\x.py", "\\\\?\\UNC\\fileserver7\\home\\shu15x\\x.py"]

# keys that name a secret (by the rule) and keys that do not; values of no known shape
SECRET_KEYS = ["OPENAI_KEY", "KAGGLE_KEY", "ENCRYPTION_KEY", "ssh_key", "Cookie", "pw", "pass",
               "passcode", "X-Amz-Signature", "sessionId", "signing-key", "db.password", "jwt",
               "csrf_token", "HF_TOKEN", "clientSecret", "my api key", "MASTER_KEY", "x-auth",
               "otp", "X-Amz-Credential", "sig"]
PLAIN_KEYS = ["max_tokens", "TOKENIZERS_PARALLELISM", "sort_key", "author", "secretary",
              "num_tokens", "public_key", "key", "passenger", "monkey"]


def keyed_cases():
    """(args key, value, must the value go): args keys, and the same names in text"""
    out = []
    for i, k in enumerate(SECRET_KEYS):
        out.append((k, "plainval%dq" % i, True))
    for i, k in enumerate(PLAIN_KEYS):
        out.append((k, "keptval%dq" % i, False))
    return out


def text_keyed(i, k):
    forms = ["%s=plaintext%dq", "%s: plaintext%dq", "\"%s\": \"plaintext%dq\"", "--%s plaintext%dq",
             "https://h.example.com/o?a=1&%s=plaintext%dq&b=2"]
    if " " in k:  # a name with blanks is a key only as a JSON key (args), not in free text
        return []
    return [(f % (k, i), "plaintext%dq" % i) for f in forms]


def main():
    cs = cases()
    events = []
    for k, (_, _, _, text, _) in enumerate(cs):
        events.append({"ph": "X", "cat": "cpu_op", "name": "op%d %s" % (k, text), "pid": 1, "tid": 1,
                       "ts": 10 * k, "dur": 5, "args": {"note": text, text: k}})
    t0 = 10 * len(events)
    extra = []  # (event index, needle, must go)

    def ev(name, args=None, needles=(), keep=()):
        events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 2,
                       "ts": t0 + 10 * len(events), "dur": 5, "args": args or {}})
        for nd in needles:
            extra.append((len(events) - 1, nd, True))
        for nd in keep:
            extra.append((len(events) - 1, nd, False))
    for i, text in enumerate(SHELL):
        ev("shell%d %s" % (i, text), {"cmd": text}, ["shu%dx" % (i + 1)])
    # a private key split over an object's values and over nested arrays
    ev("pem-object", {"l1": "-----BEGIN RSA PRIVATE KEY-----", "l2": "MIIEpemObjLineOne",
                      "l3": "pemObjLineTwoQ", "l4": "-----END RSA PRIVATE KEY-----"},
       ["MIIEpemObjLineOne", "pemObjLineTwoQ"])
    ev("pem-nested", {"k": [["-----BEGIN PRIVATE KEY-----", "MIIEpemNestOne"],
                            ["pemNestTwoQ", "-----END PRIVATE KEY-----"]], "after": "keptafterpem"},
       ["MIIEpemNestOne", "pemNestTwoQ"], ["keptafterpem"])
    # key names: as args keys and in text
    for i, (k, v, secret) in enumerate(keyed_cases()):
        ev("keyed%d" % i, {k: v}, [v] if secret else [], [] if secret else [v])
        if secret:
            for text, nd in text_keyed(i, k):
                ev("keytext%d %s" % (i, text), {"t": text}, [nd])
    # names learned from values that are not clean strings, used in events
    ev("learned gpu-node-zq32 arrayuser9 objhost7 done", {}, ["gpu-node-zq32", "arrayuser9", "objhost7"])
    # integrity: case-distinct names stay distinct, versions are no addresses
    ev("run on GPU-NODE-X", {}, ["GPU-NODE-X"])
    ev("run on gpu-node-x", {}, ["gpu-node-x"])
    ev("cudnn 8.9.2.26 loaded", {}, [], ["8.9.2.26"])
    ev("cuDNN version: 8.9.2.26", {}, [], ["8.9.2.26"])
    # deny terms: a BOM before the first, case folding beyond ASCII, a comment after a tab
    ev("built by Firstterm for MÜLLER and Tabterm", {}, ["Firstterm", "MÜLLER", "Tabterm"])
    # a lone surrogate in a string that is rewritten
    ev("SURROGATE /home/surrogu9/x.py", {}, ["surrogu9"])
    trace = {"schemaVersion": 1, "host_name": "swlearnhost", "username": "swlearnuser",
             "metadata": {"env": {"SLURM_JOB_NAME": "swlearnjob", "HOSTNAME": "gpu-node-zq32\n",
                                  "USER": ["arrayuser9"], "cwd": "/home/cwduser4/proj"},
                          "host": {"name": "objhost7"}},
             "PT_PROFILER_JOB_NAME": "gpu-node-x", "traceEvents": events}
    ev("cwd user cwduser4 here", {}, ["cwduser4"])
    with tempfile.TemporaryDirectory() as tmp:
        key = rdlib.write_key(tmp)
        src = os.path.join(tmp, "sweep.json")
        text = json.dumps(trace, ensure_ascii=False)
        text = text.replace("SURROGATE", "\\udc00")
        raw = text.encode()
        with open(src, "wb") as f:
            f.write(raw)
        deny_file = os.path.join(tmp, "deny.txt")
        with open(deny_file, "wb") as f:
            f.write("\ufeffFirstterm\nnightjarproj\nmüller\nTabterm\t# a comment\n".encode())
        out = os.path.join(tmp, "out.json")
        rdlib.run(["redact", "--quiet", "--key-file", key, "--deny-file", deny_file,
                   "--compress", "none", "-o", out, src], check_rc=0)
        red = rdlib.read_bytes(out)
        try:
            red.decode("utf-8", errors="strict")
        except UnicodeDecodeError as x:
            fail("the output is not valid UTF-8: %s" % x)
        evs = json.loads(red)["traceEvents"]
        leaks = []
        for k, (kind, side, c, text, needle) in enumerate(cs):
            e = evs[k]
            places = [e["name"], e["args"].get("note", "")] + list(e["args"].keys())
            for where, s in zip(("name", "args value", "args key"), places):
                if needle.lower() in s.lower():
                    leaks.append("%s %s %r in %s: %r" % (kind, side, c, where, s))
                    break
        for k, needle, go in extra:
            s = json.dumps(evs[k], ensure_ascii=False)
            if (needle.lower() in s.lower()) == go:
                leaks.append("%s: %r %s in %s" % ("planted" if go else "kept", needle,
                                                  "survived" if go else "was redacted", s))
        by_kind = {}
        for line in leaks:
            by_kind.setdefault(line.split()[0], []).append(line)
        if leaks:
            for kind, ls in sorted(by_kind.items()):
                print("%s: %d, e.g. %s" % (kind, len(ls), "; ".join(ls[:4])))
            fail("%d of %d planted values failed" % (len(leaks), len(cs) + len(extra)))
        names = {e["name"] for e in evs}
        if len(names) != len(evs):
            fail("redaction merged distinct event names: %d names for %d events" % (len(names), len(evs)))
        # one detector, the output clean, idempotent, the same figures
        deny = ("--deny-file", deny_file)
        covered = rdlib.check_covers(src, raw, red, "sweep", deny)
        after = rdlib.check_json(out, deny)
        if after["findings"]:
            fail("redacted sweep not clean: %r" % after["traces"][0]["shown"][:5])
        out2 = os.path.join(tmp, "out2.json")
        rdlib.run(["redact", "--quiet", "--key-file", key, "--deny-file", deny_file,
                   "--compress", "none", "-o", out2, out], check_rc=0)
        if rdlib.read_bytes(out2) != red:
            fail("a second redaction changed the sweep's output")
        rdlib.timing_equal(rdlib.load_raw(raw), rdlib.load_raw(red), "sweep")
        rdlib.stats_equal(src, out, "sweep")
        rdlib.analyze_equal(src, out, "sweep")
        print("%d values in %d contexts and %d other plants: none survived, %d kept; %d changed "
              "places, all flagged and nothing more; clean after, idempotent" % (
                  len(cs), len(CONTEXT), sum(1 for x in extra if x[2]),
                  sum(1 for x in extra if not x[2]), covered))


main()
