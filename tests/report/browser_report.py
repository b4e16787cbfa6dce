#!/usr/bin/env python3
"""tests/report/browser_report.py: the reports of `kinesift report` in a real browser: headless
Chromium (Debian's chromium, installed by scripts/browser-deps.sh when missing) loads the page of
every fixture, the telemetry fixture with its samples and two real traces, with console logging
on stderr. It fails on any console message: a script error, and any request (the page's
Content-Security-Policy refuses every fetch, and each refusal is a console message), so a page that
tried to load anything fails; it checks that the DOM after the scripts holds no src or outside
href either; it parses the DOM after the scripts ran (--dump-dom) and
checks that the key elements are there and not empty, and that the script did run (it makes the
table headers focusable); it saves a screenshot of each page in $KS_BUILD_DIR/report-browser/.
First it loads a page that is broken on purpose, to prove that the checker sees each fault.

No chromium and no way to install it: the test FAILS saying so (CI must install chromium: see
docs/report.md), unless KS_ALLOW_NO_BROWSER=1, then it is SKIPPED (exit 77) with the same words."""
import os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks
from checks import check, run

FIX = os.environ["KS_FIXTURES"]
CORPUS = os.environ.get("KS_CORPUS", "")
ROOT = os.environ["KS_SOURCE_ROOT"]
OUT = os.path.join(os.environ.get("KS_BUILD_DIR", tempfile.gettempdir()), "report-browser")
REAL = ["kineto-tb/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
        "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"]


def find_chromium():
    for b in (os.environ.get("KS_CHROMIUM"), "chromium", "chromium-browser"):
        if b and shutil.which(b):
            return shutil.which(b)
    return None


browser = find_chromium()
if not browser:
    subprocess.run(["sh", os.path.join(ROOT, "scripts", "browser-deps.sh")])
    browser = find_chromium()
if not browser:
    msg = ("BROWSER TEST NOT RUN: no chromium, and scripts/browser-deps.sh could not install it "
           "(needs root and apt: apt-get install chromium)")
    print(msg, file=sys.stderr)
    sys.exit(77 if os.environ.get("KS_ALLOW_NO_BROWSER") == "1" else 1)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]
FAULT = re.compile(r"INFO:CONSOLE|net::ERR_|Failed to load|Refused to|Uncaught")


def chromium(page, *extra):
    """Run chromium on a file; returns (stdout, the fault lines of stderr)."""
    with tempfile.TemporaryDirectory() as prof:
        r = subprocess.run([browser, *FLAGS, f"--user-data-dir={prof}", *extra, "file://" + page],
                           capture_output=True, timeout=120)
    faults = [l for l in r.stderr.decode("utf-8", "replace").splitlines() if FAULT.search(l)]
    return r.stdout.decode("utf-8", "replace"), faults


def load(page, name, traces):
    dom, faults = chromium(page, "--dump-dom")
    check(not faults, f"{name}: no console message and no failed request: {faults[:3]}")
    root = checks.parse_html(dom)
    checks.check_page_rules(root, name + " (DOM after the scripts)")
    h1 = root.find_all(lambda n: n.tag == "h1")
    check(h1 and h1[0].all_text().strip(), f"{name}: a title")
    li = root.find_all(lambda n: n.tag == "li" and "data-trace" in n.attrs)
    check(len(li) == traces and all(x.all_text().strip() for x in li), f"{name}: {traces} summary lines")
    sections = root.find_all(lambda n: n.tag == "section" and "data-trace" in n.attrs)
    check(len(sections) == traces, f"{name}: {traces} sections")
    for s in sections:
        charts = s.find_all(lambda n: n.tag == "figure")
        for f in charts:
            svg = f.find_all(lambda n: n.tag == "svg")
            check(svg and svg[0].find_all(lambda n: n.tag == "rect"), f"{name}: each chart draws rectangles")
        tables = s.find_all(lambda n: n.tag == "table")
        # a window with no row (the device span of a trace whose only op lies outside it) says so
        empty = [p for p in s.find_all(lambda n: n.tag == "p" and n.attrs.get("class") == "none")
                 if "none in the window" in p.all_text()]
        check(tables or len(empty) >= 2, f"{name}: tables in each section (or 'none in the window')")
        for t in tables:
            rows = t.find_all(lambda n: n.tag == "tr" and n.parent.tag == "tbody")
            check(rows and all(r.all_text().strip() for r in rows), f"{name}: table rows are not empty")
    if traces > 1 and name == "ranks":
        sec = root.find_all(lambda n: n.tag == "section" and n.attrs.get("id") == "ranks")
        if check(sec, f"{name}: the multi-rank section"):
            for m in ("step", "wait"):
                cells = sec[0].find_all(lambda n: n.tag == "rect" and n.attrs.get("data-map") == m)
                check(len(cells) >= traces and any("data-ns" in c.attrs for c in cells) and
                      all(c.find_all(lambda n: n.tag == "title") for c in cells), f"{name}: {m} heat map drawn")
            check(sec[0].find_all(lambda n: n.attrs.get("data-field") == "straggler"), f"{name}: the straggler")
    ths = root.find_all(lambda n: n.tag == "th" and n.parent.parent.parent.attrs.get("class") == "sortable")
    check(ths and all(t.attrs.get("tabindex") == "0" for t in ths), f"{name}: the script ran (sortable headers)")
    shot = os.path.join(OUT, name + ".png")
    _, faults = chromium(page, "--window-size=1100,2200", "--hide-scrollbars", f"--screenshot={shot}")
    check(os.path.exists(shot) and os.path.getsize(shot) > 10000, f"{name}: screenshot {shot}")
    return root


os.makedirs(OUT, exist_ok=True)
with tempfile.TemporaryDirectory() as d:
    # the checker sees a script error, a console message and requests: under the reports' CSP
    # (copied from a real one) every request is refused, and the refusal is a console message
    r = run("report", "--quiet", os.path.join(FIX, "example", "train_step.json"), "-o", "-")
    csp = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', r.stdout.decode()).group(0)
    bad = os.path.join(d, "bad.html")
    open(bad, "w").write("<!DOCTYPE html><html><head>" + csp + "<link rel=stylesheet href=missing.css>"
                         "</head><body><img src=http://example.invalid/a.png><script>console.log('x'); nope();"
                         "</script></body></html>")
    _, faults = chromium(bad, "--dump-dom")
    check(len(faults) >= 4 and any("missing.css" in f for f in faults) and any("example.invalid" in f for f in faults),
          f"the checker sees the faults of a broken page: {faults}")

    fixtures = sorted(os.path.join(dd, f) for dd, _, fs in os.walk(FIX) for f in fs if f.endswith(".json"))
    pages = [("fixtures", fixtures, []),
             ("telemetry", [os.path.join(FIX, "insights", "telemetry.json")],
              ["--smi", os.path.join(FIX, "insights", "smi.csv"), "--smi-tz", "+02:00", "--smi-offset", "-1.5s"])]
    for rel in REAL:
        p = os.path.join(CORPUS, rel)
        if check(os.path.exists(p), f"real trace {rel} present"):
            pages.append((os.path.basename(rel).split(".")[0], [p], []))
    # a multi-rank job (generated as tests/ranks does): its heat maps are checked in load()
    nccl = os.path.join(CORPUS, "hta", "nccl_parser_config", "nccl_data.json.gz")
    if check(os.path.exists(nccl), "the NCCL trace for the rank set"):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_ranks.py"), nccl, os.path.join(d, "r4"),
                        "--ranks", "4", "--straggler", "2", "--seed", "4"], check=True, stdout=subprocess.DEVNULL)
        pages.append(("ranks", sorted(os.path.join(d, "r4", f) for f in os.listdir(os.path.join(d, "r4"))
                                      if f.endswith(".json.gz")), []))
    for name, inputs, extra in pages:
        page = os.path.join(OUT, name + ".html")
        r = run("report", "--quiet", "--force", *extra, *inputs, "-o", page)
        if check(r.returncode == 0, f"report {name}: {r.stderr[:200]!r}"):
            load(page, name, len(inputs))

print(f"browser: {browser}; pages and screenshots in {OUT}; {checks.CHECKED[0]} checks, "
      f"{len(checks.FAILURES)} failures")
sys.exit(1 if checks.FAILURES else 0)
