#!/usr/bin/env python3
"""tests/redact/planted.py REL VARIANT: plant a value of every rule class into a copy of a corpus
trace (made here, in a temporary directory): into event names, args values, args keys and
top-level fields, also spelled with \\u0040 and \\/ escapes and Windows back-slashes. Then:
--check on the copy must flag every rule class and every place that redact changes (same JSON
path); after `redact` no planted value survives (a
caseless byte search for each finds nothing), --check is clean, every event keeps its timing
fields as text, `kinesift stats` and `analyze` agree, and a second redaction changes nothing.
VARIANT picks the layout: 0 metadata first (literals learned early), 1 metadata last (learned
late: the second pass), 2 a bare array of events, gzip-compressed."""
import gzip
import json
import os
import random
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdlib  # noqa: E402

rnd = random.Random(4417)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def rand(n, alphabet=ALNUM):
    return "".join(rnd.choice(alphabet) for _ in range(n))


# (rule, value planted, needles that must not survive)
SECRETS = [
    ("aws-access-token", "AKIA" + rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    ("github-token", "ghp_" + rand(36)),
    ("github-token", "github_pat_" + rand(82, ALNUM + "_")),
    ("gitlab-pat", "glpat-" + rand(20)),
    ("huggingface-token", "hf_" + rand(34, ALNUM[:52])),
    ("huggingface-token", "api_org_" + rand(34, ALNUM[:52])),
    ("slack-token", "xoxb-1234567890123-1234567890123-" + rand(24)),
    ("openai-key", "sk-proj-" + rand(48)),
    ("anthropic-key", "sk-ant-api03-" + rand(93, ALNUM + "_-") + "AA"),
    ("gcp-api-key", "AIza" + rand(35)),
    ("npm-token", "npm_" + rand(36)),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + rand(60)),
    ("stripe-key", "sk_live_" + rand(24)),
]
PLANTS = [(r, "%s" % v, [v]) for r, v in SECRETS] + [
    ("slack-webhook", "https://hooks.slack.com/services/T0PLANTED/B0PLANTED/" + rand(24),
     ["T0PLANTED/B0PLANTED"]),
    ("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwbGFudGVkIiwiaWF0IjoxNTE2MjM5MDIyfQ."
     + rand(43), ["eyJzdWIiOiJwbGFudGVkIiwiaWF0IjoxNTE2MjM5MDIyfQ"]),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEplantedKEYbody" + rand(40)
     + "\n-----END RSA PRIVATE KEY-----", ["MIIEplantedKEYbody"]),
    ("url-userinfo", "clone https://deploy:Pl4ntedPassw0rd@git.example.org/repo.git",
     ["Pl4ntedPassw0rd"]),
    ("generic-api-key", "export API_KEY=Zx9plantedQw3Er7Ty1", ["Zx9plantedQw3Er7Ty1"]),
    ("email", "mail jane.doe.planted@corp-example.com", ["jane.doe.planted"]),
    ("ipv4", "MASTER_ADDR=10.123.45.67", ["10.123.45.67"]),
    ("ipv6", "peer 2001:db8:85a3:1:2:8a2e:370:7334 up", ["2001:db8:85a3"]),
    ("fqdn", "on gpu-node-planted17.cluster.internal", ["gpu-node-planted17"]),
    ("home-path", "/home/plantuser41/secretproj/train.py(12): step", ["plantuser41", "secretproj"]),
    ("home-path", "/Users/plantmac5/devstuff/x.py", ["plantmac5", "devstuff"]),
    ("home-path", "C:\\Users\\plantwin9\\winproj\\run.py", ["plantwin9", "winproj"]),
    ("torchinductor-path", "/tmp/torchinductor_plantind2/ab/cabcdefg.py", ["plantind2"]),
    ("abs-path", "/srv/planteddir/sub/file.py", ["planteddir"]),
    ("site-packages", "/opt/plantenv8/lib/python3.11/site-packages/torch/x.py(3): f", ["plantenv8"]),
]
# written with escapes in the file: \u0040 for '@', \/ for '/'
ESCAPED = [
    ("email", "jane.esc.planted@corp-example.com", ["jane.esc.planted"],
     '"jane.esc.planted\\u0040corp-example.com"'),
    ("home-path", "/home/plantesc3/escproj/y.py", ["plantesc3", "escproj"],
     '"\\/home\\/plantesc3\\/escproj\\/y.py"'),
]
TOP = {
    "host_name": ("host-name", "planted-host-name.example.net", ["planted-host-name"]),
    "username": ("username", "plantusr77", ["plantusr77"]),
    "PT_PROFILER_JOB_NAME": ("profiler-job", "planted-job-xyz", ["planted-job-xyz"]),
    "trace_id": ("trace-id", "PLANTEDTRACEID0042", ["PLANTEDTRACEID0042"]),
    "traceName": ("trace-name", "/home/plantuser41/logs/plantedtracehost_1234.1700000000123.pt.trace.json",
                  ["plantedtracehost", "plantuser41"]),
    "INFO": ("kineto-logs", ["INFO: plantlogline-xyz started"], ["plantlogline"]),
    "tw_cluster": ("metadata", "plantedcluster-east", ["plantedcluster-east"]),
}
# learned literals: defined in stripped metadata or top-level fields, used in events
LEARNED = [("learned-host", "planthost42"), ("learned-user", "plantusr77"),
           ("learned-host", "planted-host-name.example.net")]
METADATA = {"system": {"uname": {"node": "planthost42"},
                       "env": {"HOSTNAME": "planthost42", "USER": "plantenvuser", "API_TOKEN": "tok-planted-555",
                               "HOME": "/home/plantenvuser"}},
            "pip_packages": ["torch==2.1.0", "plantedpkg==1.0"]}
NEEDLES_EXTRA = ["planthost42", "plantenvuser", "tok-planted-555", "plantedpkg"]
EXPECTED_RULES = sorted({r for r, _, _ in PLANTS} | {r for r, _, _, _ in ESCAPED}
                        | {v[0] for v in TOP.values()} | {r for r, _ in LEARNED}
                        | {"sensitive-key", "metadata", "pip-list"})


def plant(obj, variant):
    evs = [e for e in rdlib.events(obj) if isinstance(e, dict) and e.get("ph") != "M"
           and not str(e.get("name", "")).startswith("ProfilerStep")]
    if len(evs) < 8:
        rdlib.fail("trace too small to plant into")
    values = [(r, v) for r, v, _ in PLANTS] + [(r, "@@ESC%d@@" % i) for i, (r, _, _, _) in enumerate(ESCAPED)]
    values += [(r, "used by " + v + " today") for r, v in LEARNED]
    for i, (_, v) in enumerate(values):
        e = evs[(3 * i) % len(evs)]
        e["name"] = str(e.get("name", "")) + " | " + v           # names
        a = evs[(3 * i + 1) % len(evs)].setdefault("args", {})
        if isinstance(a, dict):
            a["planted_%d" % i] = v                              # args values
        a = evs[(3 * i + 2) % len(evs)].setdefault("args", {})
        if isinstance(a, dict):
            a[v] = i                                             # args keys
    args = evs[0].setdefault("args", {})
    args["db_password"] = "hunter2-planted-pw"                   # sensitive key
    if variant == 2:
        return rdlib.events(obj)
    out = {}
    if variant == 0:
        out["metadata"] = METADATA
    for k, (_, v, _) in TOP.items():
        out[k] = v
    di = obj.get("distributedInfo") if isinstance(obj, dict) else None
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    if isinstance(di, dict):
        di["pg_desc_planted"] = PLANTS[0][1]                     # scanned top-level block
    if variant == 1:
        out.pop("metadata", None)  # re-inserted last: learned after every event
        out["metadata"] = METADATA
    return out


def serialise(obj):
    """JSON text with every number as its original text and the escaped spellings."""
    nums = []

    def tag(v):
        if isinstance(v, dict):
            return {k: tag(x) for k, x in v.items()}
        if isinstance(v, list):
            return [tag(x) for x in v]
        if isinstance(v, str) and v[:1] in "-0123456789" and v in raw_numbers:
            nums.append(v)
            return "@@NUM%d@@" % (len(nums) - 1)
        return v
    text = json.dumps(tag(obj), indent=1, ensure_ascii=False)
    for i, (_, _, _, spelled) in enumerate(ESCAPED):
        text = text.replace('"@@ESC%d@@' % i, spelled[:-1])
    return re.sub(r'"@@NUM(\d+)@@"', lambda m: nums[int(m.group(1))], text)


def main():
    rel, variant = sys.argv[1], int(sys.argv[2])
    global raw_numbers
    raw = rdlib.read_bytes(rdlib.corpus_path(rel))
    raw_numbers = set()

    def keep(s):
        raw_numbers.add(s)
        return s
    obj = json.loads(raw, parse_float=keep, parse_int=keep)
    text = serialise(plant(obj, variant)).encode()
    with tempfile.TemporaryDirectory() as tmp:
        key = rdlib.write_key(tmp)
        src = os.path.join(tmp, "planted.json" + (".gz" if variant == 2 else ""))
        with open(src, "wb") as f:
            f.write(gzip.compress(text) if variant == 2 else text)
        # every rule class is there to be found
        before = rdlib.by_rule(rdlib.check_json(src))
        # a bare array has no top-level fields: nothing to strip, no literal to learn
        top_only = {v[0] for v in TOP.values()} | {"metadata", "pip-list", "learned-host", "learned-user"}
        missing = [r for r in EXPECTED_RULES if before.get(r, 0) < 1
                   and not (variant == 2 and r in top_only)]
        if missing:
            rdlib.fail("%s/%d: --check on the planted copy misses %s" % (rel, variant, missing))
        out = os.path.join(tmp, "out.json" + (".gz" if variant == 2 else ""))
        p = rdlib.run(["redact", "--key-file", key, "--report", "-o", out, src], check_rc=0)
        red = rdlib.read_bytes(out)
        if variant == 2 and open(out, "rb").read(2) != b"\x1f\x8b":
            rdlib.fail("gzip input did not give gzip output")
        low = red.lower()
        needles = [n for _, _, ns in PLANTS for n in ns] + [n for _, _, ns, _ in ESCAPED for n in ns]
        needles += [n for _, _, ns in TOP.values() for n in ns] + NEEDLES_EXTRA + ["hunter2-planted-pw"]
        if variant == 2:
            needles = [n for _, _, ns in PLANTS for n in ns] + [n for _, _, ns, _ in ESCAPED for n in ns] \
                + ["hunter2-planted-pw", "planted-host-name"]
        for n in needles:
            if n.lower().encode() in low:
                rdlib.fail("%s/%d: planted value survived: %s" % (rel, variant, n))
        covered = rdlib.check_covers(src, text, red, "%s/%d" % (rel, variant))
        after = rdlib.check_json(out)
        if after["findings"]:
            rdlib.fail("%s/%d: redacted copy not clean: %r" % (rel, variant, after["traces"][0]["shown"][:5]))
        a = rdlib.load_raw(text)
        b = rdlib.load_raw(red)
        n = rdlib.timing_equal(a, b, rel)
        rdlib.stats_equal(src, out, rel)
        analyzed = rdlib.analyze_equal(src, out, rel)
        out2 = os.path.join(tmp, "out2.json" + (".gz" if variant == 2 else ""))
        rdlib.run(["redact", "--quiet", "--key-file", key, "-o", out2, out], check_rc=0)
        if rdlib.read_bytes(out2) != red:
            rdlib.fail("%s/%d: a second redaction changed the output" % (rel, variant))
        report = p.stderr.decode()
        if "best-effort" not in report or "from --key-file" not in report:
            rdlib.fail("report without the key source or the notice:\n" + report)
        second = "second pass" in report
        if variant == 1 and not second:
            rdlib.fail("%s/1: literals learned after the events were hunted without a second pass" % rel)
        print("%s/%d: %d events, %d rule classes planted and found, %d changed places all flagged, none survived%s%s" % (
            rel, variant, n, len(before), covered, ", second pass" if second else "",
            ", analyze equal" if analyzed else ""))


raw_numbers = set()
main()
