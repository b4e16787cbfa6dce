#!/usr/bin/env python3
"""tests/cli/batch_input.py: a batch goes on past the inputs it cannot read (docs/input.md,
"Batches"). A directory of a real trace and two fixtures, with a config.json (not a trace), an empty
file, a file nobody may read (chmod 000; that case is skipped when the test runs as a user who
can read it anyway, such as root) and a dangling symbolic link: analyze (text, JSON, CSV), stats
(text, JSON) and ranks (text, JSON) each report the readable traces as they do alone, list every
failure by name (text block, JSON "errors", CSV "error" rows), and exit 2. A list file (@LIST)
naming the same inputs behaves the same."""
import csv, io, json, os, shutil, subprocess, sys, tempfile

exe = os.environ["KINESIFT"]
fixtures = os.environ["KS_FIXTURES"]
corpus = os.environ["KS_CORPUS"]


def run(*args):
    r = subprocess.run([exe, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


tmp = tempfile.mkdtemp(prefix="ks-batch-")
try:
    d = os.path.join(tmp, "job")
    os.mkdir(d)
    # three traces without a rank of their own (ranks numbers them in input order)
    good = {"rank0.json.gz": os.path.join(corpus, "hta", "critical_path", "cuda_event_sync", "event_sync_trace.json.gz"),
            "rank1.json": os.path.join(fixtures, "insights", "tiny_kernels.json"),
            "rank2.json": os.path.join(fixtures, "insights", "sync_loop.json")}
    for name, src in good.items():
        shutil.copy(src, os.path.join(d, name))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"lr": 0.1, "batch_size": 32}, f)
    open(os.path.join(d, "empty.json"), "w").close()
    os.symlink(os.path.join(tmp, "gone", "rank9.json"), os.path.join(d, "rank9.json"))
    locked = os.path.join(d, "rank3.json")
    shutil.copy(good["rank2.json"], locked)
    os.chmod(locked, 0)
    can_read_locked = os.access(locked, os.R_OK)
    if can_read_locked:
        print("note: this user can read a chmod 000 file (root): the unreadable-file case is skipped")
        os.unlink(locked)
    bad = {"config.json": "traceEvents", "empty.json": "empty", "rank9.json": "No such file"}
    if not can_read_locked:
        bad["rank3.json"] = "ermission denied"
    goods = sorted(os.path.join(d, n) for n in good)
    bads = sorted(os.path.join(d, n) for n in bad)

    def check_errors(errors, where):
        assert sorted(e["input"] for e in errors) == bads, (where, errors)
        for e in errors:
            assert e["error"].startswith(e["input"] + ": "), (where, e)
            assert bad[os.path.basename(e["input"])] in e["error"], (where, e)

    def check_stderr(err, where):
        lines = [l for l in err.splitlines() if l.startswith("kinesift: ")]
        for b in bads:
            assert any(l.startswith(f"kinesift: {b}: ") for l in lines), (where, b, err)

    def check_text_block(out, where):
        tail = out[out.index("inputs not read"):]
        for b in bads:
            assert b + ": " in tail, (where, b, tail)
        for g in goods:
            assert g not in tail, (where, g)

    list_file = os.path.join(tmp, "inputs.txt")
    with open(list_file, "w") as f:
        f.write("# the job's files\n" + "\n".join(sorted(goods + bads)) + "\n")
    for inputs in ([d], ["@" + list_file]):
        # analyze: JSON holds the readable traces, each as analyze gives it alone
        rc, out, err = run("analyze", "--quiet", "--format", "json", *inputs)
        assert rc == 2, (inputs, rc, err)
        doc = json.loads(out)
        assert sorted(t["source"] for t in doc["traces"]) == goods, [t["source"] for t in doc["traces"]]
        check_errors(doc["errors"], "analyze json")
        check_stderr(err, "analyze json")
        for t in doc["traces"]:
            rc1, alone, _ = run("analyze", "--quiet", "--format", "json", t["source"])
            assert rc1 == 0 and json.loads(alone)["traces"][0] == t and json.loads(alone)["errors"] == []
        # analyze text: every readable trace's section, then the list
        rc, out, err = run("analyze", "--quiet", *inputs)
        assert rc == 2, rc
        assert [l[3:] for l in out.splitlines() if l.startswith("== ") and "inputs not read" not in l] == goods
        check_text_block(out, "analyze text")
        # analyze CSV: the rows of the readable traces, one "error" row per failure
        rc, out, err = run("analyze", "--quiet", "--format", "csv", *inputs)
        assert rc == 2, rc
        rows = list(csv.DictReader(io.StringIO(out)))
        assert sorted(r["source"] for r in rows if r["section"] == "error") == bads
        assert all(bad[os.path.basename(r["source"])] in r["error"] for r in rows if r["section"] == "error")
        assert sorted({r["source"] for r in rows if r["section"] != "error"}) == goods
        # stats
        rc, out, err = run("stats", "--format", "json", *inputs)
        assert rc == 2, rc
        doc = json.loads(out)
        assert sorted(t["source"] for t in doc["traces"]) == goods
        check_errors(doc["errors"], "stats json")
        check_stderr(err, "stats json")
        rc, out, err = run("stats", *inputs)
        assert rc == 2, rc
        check_text_block(out, "stats text")
        # ranks: the readable ones are ranked and reported
        rc, out, err = run("ranks", "--quiet", "--format", "json", *inputs)
        assert rc == 2, (rc, err)
        doc = json.loads(out)
        assert doc["traces"] == len(goods) and sorted(r["source"] for r in doc["ranks"]) == goods, doc["ranks"]
        check_errors(doc["errors"], "ranks json")
        check_stderr(err, "ranks json")
        rc, out, err = run("ranks", "--quiet", *inputs)
        assert rc == 2, rc
        check_text_block(out, "ranks text")
        print(f"{' '.join(inputs)}: {len(goods)} traces analysed, {len(bads)} failures listed, exit 2")
    # nothing readable at all: still one error per input, exit 2
    rc, out, err = run("analyze", "--quiet", "--format", "json", *bads)
    assert rc == 2 and sorted(e["input"] for e in json.loads(out)["errors"]) == bads, (rc, out)
    for cmd in ("analyze", "stats"):  # text: the error lines alone, nothing on stdout
        rc, out, err = run(cmd, *bads)
        assert rc == 2 and out == "" and len(err.splitlines()) == len(bads), (cmd, rc, out, err)
    rc, out, err = run("ranks", "--quiet", *bads)
    assert rc == 2 and out == "" and len(err.splitlines()) == len(bads), (rc, out, err)
    # all readable: exit 0, no error listed
    rc, out, err = run("analyze", "--quiet", "--format", "json", *goods)
    assert rc == 0 and json.loads(out)["errors"] == [], (rc, err)
    rc, out, err = run("stats", *goods)
    assert rc == 0 and "inputs not read" not in out
    print("ok")
finally:
    if os.path.exists(os.path.join(tmp, "job", "rank3.json")):
        os.chmod(os.path.join(tmp, "job", "rank3.json"), 0o600)
    shutil.rmtree(tmp)
