#!/usr/bin/env python3
"""tests/redact/planted.py REL VARIANT: plant a value of every rule class into a copy of a corpus
trace (made here, in a temporary directory): into event names, args values, args keys and
top-level fields, also spelled with \\u0040 and \\/ escapes and Windows back-slashes. Then:
--check on the copy must flag every rule class and every place that redact changes (same JSON
path); after `redact` no planted value survives (a
caseless byte search for each finds nothing), --check is clean, every event keeps its timing
fields as text, `kinesift stats` and `analyze` agree, and a second redaction changes nothing.
Every vendor shape of gitleaks that the vendor-token rule covers is planted as one token (the
VENDOR list, named by gitleaks rule id) into an args value and an args key (not into names:
redacting ~90 of them would give events of distinct names one name, and analyze's per-name
figures would merge). VARIANT picks the layout: 0 metadata first (literals learned early), 1 metadata last (learned
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
HEX = "0123456789abcdef"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
W = ALNUM + "_"
WD = W + "-"
B64 = ALNUM + "+/"


def uuid():
    return "-".join(rand(k, HEX) for k in (8, 4, 4, 4, 12))


# gitleaks' fixed-prefix vendor shapes (rule vendor-token), written from gitleaks' rule set:
# (gitleaks rule id, a token of that shape)
VENDOR = [
    ("1password-service-account-token", "ops_eyJ" + rand(260, B64)),
    ("1password-secret-key", "A3-" + rand(6, UP) + "-" + rand(11, UP) + "-" + rand(5, UP) + "-"
     + rand(5, UP) + "-" + rand(5, UP)),
    ("artifactory-reference-token", "cmVmd" + rand(59)),
    ("age-secret-key", "AGE-SECRET-KEY-1" + rand(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
    ("alibaba-access-key-id", "LTAI" + rand(20)),
    ("artifactory-api-key", "AKCp" + rand(69)),
    ("atlassian-api-token", "ATATT3" + rand(186, WD + "=")),
    ("adobe-client-secret", "p8e-" + rand(32)),
    ("clojars-api-token", "CLOJARS_" + rand(60)),
    ("cloudflare-origin-ca-key", "v1.0-" + rand(24, HEX) + "-" + rand(146, HEX)),
    ("databricks-api-token", "dapi" + rand(32, HEX)),
    ("digitalocean-pat", "dop_v1_" + rand(64, HEX)),
    ("digitalocean-access-token", "doo_v1_" + rand(64, HEX)),
    ("digitalocean-refresh-token", "dor_v1_" + rand(64, HEX)),
    ("doppler-api-token", "dp.pt." + rand(43)),
    ("dropbox-short-lived-api-token", "sl." + rand(135, WD + "=")),
    ("duffel-api-token", "duffel_live_" + rand(43, WD)),
    ("dynatrace-api-token", "dt0c01." + rand(24) + "." + rand(64)),
    ("easypost-api-token", "EZAK" + rand(54)),
    ("easypost-test-api-token", "EZTK" + rand(54)),
    ("facebook-page-access-token", "EAAM" + rand(120)),
    ("flutterwave-secret-key", "FLWSECK_TEST-" + rand(32, "abcdefgh0123456789") + "-X"),
    ("flutterwave-public-key", "FLWPUBK_TEST-" + rand(32, "abcdefgh0123456789") + "-X"),
    ("flyio-access-token", "fo1_" + rand(43, WD)),
    ("flyio-access-token", "fm2_" + rand(120, B64)),
    ("frameio-api-token", "fio-u-" + rand(64, WD)),
    ("gitlab-cicd-job-token", "glcbt-" + rand(3) + "_" + rand(20, WD)),
    ("gitlab-deploy-token", "gldt-" + rand(20, WD)),
    ("gitlab-feature-flag-client-token", "glffct-" + rand(20, WD)),
    ("gitlab-feed-token", "glft-" + rand(20, WD)),
    ("gitlab-incoming-mail-token", "glimt-" + rand(25, WD)),
    ("gitlab-kubernetes-agent-token", "glagent-" + rand(50, WD)),
    ("gitlab-oauth-app-secret", "gloas-" + rand(64, WD)),
    ("gitlab-ptt", "glptt-" + rand(40, HEX)),
    ("gitlab-rrt", "GR1348941" + rand(20, WD)),
    ("gitlab-runner-authentication-token", "glrt-" + rand(20, WD)),
    ("gitlab-scim-token", "glsoat-" + rand(20, WD)),
    ("gitlab-session-cookie", "_gitlab_session=" + rand(32, HEX + "ghijklmnopqrstuvwxyz")),
    ("grafana-api-key", "eyJrIjoi" + rand(80)),
    ("grafana-cloud-api-token", "glc_" + rand(40, B64)),
    ("grafana-service-account-token", "glsa_" + rand(32) + "_" + rand(8, HEX)),
    ("groq-api-key", "gsk_" + rand(52)),
    ("harness-api-key", "pat." + rand(22, WD) + "." + rand(24) + "." + rand(20)),
    ("heroku-api-key-v2", "HRKU-AA" + rand(58, WD)),
    ("infracost-api-token", "ico-" + rand(32)),
    ("intra42-client-secret", "s-s4t2ud-" + rand(64, HEX)),
    ("linear-api-key", "lin_api_" + rand(40)),
    ("langsmith-api-key", "lsv2_pt_" + rand(32, HEX) + "_" + rand(10, HEX)),
    ("mapbox-api-token", "pk." + rand(60) + "." + rand(22)),
    ("new-relic-user-api-key", "NRAK-" + rand(27, UP)),
    ("new-relic-insert-key", "NRII-" + rand(32, UP.lower() + "-")),
    ("new-relic-browser-api-token", "NRJS-" + rand(19, HEX)),
    ("notion-api-token", "ntn_" + rand(11, "0123456789") + rand(35)),
    ("octopus-deploy-api-key", "API-" + rand(26, UP)),
    ("openshift-user-token", "sha256~" + rand(43, WD)),
    ("perplexity-api-key", "pplx-" + rand(48)),
    ("plaid-api-token", "access-production-" + uuid()),
    ("planetscale-api-token", "pscale_tkn_" + rand(43, WD)),
    ("planetscale-oauth-token", "pscale_oauth_" + rand(43, WD)),
    ("planetscale-password", "pscale_pw_" + rand(43, WD)),
    ("postman-api-token", "PMAK-" + rand(24, HEX) + "-" + rand(34, HEX)),
    ("prefect-api-token", "pnu_" + rand(36)),
    ("pulumi-api-token", "pul-" + rand(40, HEX)),
    ("readme-api-token", "rdme_" + rand(70, "abcdefghijklmnopqrstuvwxyz0123456789")),
    ("rubygems-api-token", "rubygems_" + rand(48, HEX)),
    ("scalingo-api-token", "tk-us-" + rand(48, WD)),
    ("sendgrid-api-token", "SG." + rand(22, WD) + "." + rand(43, WD)),
    ("sendinblue-api-token", "xkeysib-" + rand(64, HEX) + "-" + rand(16)),
    ("sentry-user-token", "sntryu_" + rand(64, HEX)),
    ("sentry-org-token", "sntrys_eyJpYXQiO" + rand(60) + "LCJyZWdpb25fdXJs" + rand(20) + "_" + rand(43)),
    ("settlemint-personal-access-token", "sm_pat_" + rand(16)),
    ("shippo-api-token", "shippo_live_" + rand(40, HEX)),
    ("shopify-access-token", "shpat_" + rand(32, HEX)),
    ("shopify-custom-access-token", "shpca_" + rand(32, HEX)),
    ("shopify-private-app-access-token", "shppa_" + rand(32, HEX)),
    ("shopify-shared-secret", "shpss_" + rand(32, HEX)),
    ("sourcegraph-access-token", "sgp_" + rand(16, HEX) + "_" + rand(40, HEX)),
    ("square-access-token", "sq0atp-" + rand(22, WD)),
    ("square-access-token", "EAAA" + rand(60, WD)),
    ("twilio-api-key", "SK" + rand(32, HEX)),
    ("typeform-api-token", "tfp_" + rand(59, WD)),
    ("vault-service-token", "hvs." + rand(95, WD)),
    ("vault-batch-token", "hvb." + rand(150, WD)),
    ("yandex-api-key", "AQVN" + rand(36, WD)),
    ("clickhouse-cloud-api-secret-key", "4b1d" + rand(38)),
    ("slack-config-access-token", "xoxe.xoxp-1-" + rand(164, UP)),
    ("slack-config-refresh-token", "xoxe-1-" + rand(146, UP)),
    ("slack-legacy-bot-token", "xoxb-12345678-" + rand(24)),
    ("slack-legacy-workspace-token", "xoxa-" + rand(40)),
    ("slack-legacy-workspace-token", "xoxr-1-" + rand(40)),
    ("microsoft-teams-webhook", "https://contoso.webhook.office.com/webhookb2/" + uuid() + "@" + uuid()
     + "/IncomingWebhook/" + rand(32, HEX) + "/" + uuid()),
]
PLANTS = [(r, "%s" % v, [v]) for r, v in SECRETS] + [
    ("vendor-token", v, [v.split("webhookb2/")[-1]]) for _, v in VENDOR] + [
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
    for i, (r, v) in enumerate(values):
        e = evs[(3 * i) % len(evs)]
        if r != "vendor-token":  # ~90 of them would give events of distinct names one name
            e["name"] = str(e.get("name", "")) + " | " + v       # names
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
        # each vendor token is planted twice (args value, args key), all found by vendor-token
        # itself (not by a keyword rule that happened to be near)
        if before.get("vendor-token", 0) < 2 * len(VENDOR):
            rdlib.fail("%s/%d: vendor-token found %d of %d planted tokens" % (
                rel, variant, before.get("vendor-token", 0), 2 * len(VENDOR)))
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
