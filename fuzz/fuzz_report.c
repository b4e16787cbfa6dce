/* fuzz/fuzz_report.c: a parsed trace through the command's passes (ks_insights_run) and the
 * writers no other target calls: the HTML page (`kinesift report`: step bars, GPU strip, tables),
 * the CSV rows (`analyze --format csv`) and the folded stacks (`analyze --format folded`, CPU self
 * time and GPU time, with and without Python frames). The first byte chooses the window (bit 0:
 * the default or `--window trace`), the sort key (bits 1-2) and the Python frames (bit 3); the rest
 * is the trace. Besides no undefined behaviour (UBSan) and no memory error, what the writers must
 * hold on any input: every CSV record has the header's number of fields (names with commas,
 * quotes and line breaks are quoted), every folded line is "frames value" with the value a
 * decimal number and no line break inside the frames, and the HTML page closes every <svg>,
 * <table> and <details> it opens (a name cannot open or close an element). */
#include "fuzz/fuzz.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/report.h"

/* The fields of each record of an RFC 4180 text; FUZZ_CHECK that all have the first one's. */
static void check_csv(const char *s, size_t n)
{
    size_t fields = 1, want = 0, records = 0;
    int quoted = 0, at_start = 1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < n && s[i + 1] == '"')
                    i++;
                else
                    quoted = 0;
            }
            continue;
        }
        if (c == '"') {
            FUZZ_CHECK(at_start, "a quote inside an unquoted CSV field at byte %zu", i);
            quoted = 1;
            at_start = 0;
        } else if (c == ',') {
            fields++;
            at_start = 1;
        } else if (c == '\n') {
            if (!records++)
                want = fields;
            FUZZ_CHECK(fields == want, "CSV record %zu has %zu fields, the header %zu", records, fields, want);
            fields = 1;
            at_start = 1;
        } else {
            FUZZ_CHECK(c != '\r', "a raw carriage return outside quotes at byte %zu", i);
            at_start = 0;
        }
    }
    FUZZ_CHECK(!quoted && (n == 0 || s[n - 1] == '\n'), "the CSV ends inside a field");
}

/* Each line "frames value": a space, then only digits. */
static void check_folded(const char *s, size_t n)
{
    size_t line = 0;
    while (n) {
        const char *nl = memchr(s, '\n', n);
        FUZZ_CHECK(nl, "a folded line without its line break");
        size_t len = (size_t)(nl - s);
        const char *sp = NULL;
        for (size_t i = len; i > 0; i--)
            if (s[i - 1] == ' ') {
                sp = s + i - 1;
                break;
            }
        FUZZ_CHECK(sp && sp > s && sp + 1 < nl, "folded line %zu is not \"frames value\"", line);
        for (const char *q = sp + 1; q < nl; q++)
            FUZZ_CHECK(*q >= '0' && *q <= '9', "folded line %zu: the value is not a decimal number", line);
        n -= len + 1;
        s = nl + 1;
        line++;
    }
}

static size_t count(const char *s, size_t n, const char *what)
{
    size_t k = 0, w = strlen(what);
    for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), what, w)); p += w)
        k++;
    return k;
}

static void check_html(const char *s, size_t n)
{
    static const char *const tags[][2] = {{"<svg", "</svg>"}, {"<table", "</table>"}, {"<details", "</details>"}};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        FUZZ_CHECK(count(s, n, tags[i][0]) == count(s, n, tags[i][1]), "the page opens %zu %s and closes %zu",
                   count(s, n, tags[i][0]), tags[i][0], count(s, n, tags[i][1]));
    FUZZ_CHECK(count(s, n, "<html") == 1 && count(s, n, "</html>") == 1, "not one <html> element");
}

typedef void (*writer)(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *ro,
                       int sel);

static void w_csv(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *ro, int sel)
{
    (void)sel;
    ks_analyze_csv_header(out);
    ks_analyze_csv_trace(out, a, iv, ro);
    ks_analyze_csv_error(out, "in,\"put\"\n", "a \"message\",\r\nsplit");
}

static void w_folded(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *ro, int sel)
{
    (void)iv;
    (void)ro;
    ks_analyze_folded(out, a, KS_FOLDED_CPU, sel >> 3 & 1);
    ks_analyze_folded(out, a, KS_FOLDED_GPU, sel >> 3 & 1);
}

static void w_html(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *ro, int sel)
{
    (void)sel;
    ks_html *h = ks_html_begin(out);
    if (!h)
        abort();
    ks_html_trace(h, a, iv, ro);
    ks_html_end(h, "fuzz <title> & \"quotes\"");
}

/* One writer into memory, then its property. */
static void write_checked(writer w, void (*check)(const char *, size_t), const ks_analysis *a,
                          const ks_insights_view *iv, const ks_report_opts *ro, int sel)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    w(out, a, iv, ro, sel);
    fclose(out);
    check(text, len);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    int sel = (int)fuzz_take(&in, 1);
    ks_parse_opts po;
    ks_parse_opts_init(&po);
    po.chunk_size = FUZZ_CHUNK;
    ks_trace *t = NULL;
    ks_error err;
    if (ks_parse_buffer("fuzz", in.p, in.n, &po, &t, &err) != KS_OK)
        return 0;
    ks_insights_opts io;
    ks_insights_opts_init(&io);
    if (sel & 1)
        io.window = "trace";
    ks_insights r;
    if (ks_insights_run(t, &io, &r, &err) == KS_OK) {
        ks_insights_view iv = {&r.steps, &r.gaps, &r.diagnoses, NULL, &r.threads, r.critpath};
        ks_report_opts ro = {15, (ks_sort_key)(sel >> 1 & 3), 0, 0, (size_t)(sel % 3) * 40};
        write_checked(w_csv, check_csv, r.a, &iv, &ro, sel);
        write_checked(w_folded, check_folded, r.a, &iv, &ro, sel);
        write_checked(w_html, check_html, r.a, &iv, &ro, sel);
    }
    ks_insights_free(&r);
    ks_trace_free(t);
    return 0;
}
