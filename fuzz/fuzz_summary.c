/* fuzz/fuzz_summary.c: a summary (kinesift.summary/2, read by ranks, analyze and report) on
 * outside bytes, read as a stream keeping only what its readers read (ranks/summary_stream.c).
 * An error is one line without control characters, naming the input; a summary whose report reads
 * has a line 1 that reads alone; read from a stream (in pieces) or from memory (whole), the same
 * bytes give the same outcome and, when read, the same ranks and the same report. */
#include <yajl/yajl_gen.h>

#include "fuzz/fuzz.h"
#include "common/jsonw.h"
#include "kinesift/ranks.h"
#include "kinesift/source.h"

#define NAME "fuzz.kss.json"

static void one_line(const ks_error *err)
{
    FUZZ_CHECK(!strncmp(err->msg, NAME ": ", strlen(NAME) + 2), "error not naming the input: %s", err->msg);
    for (const char *p = err->msg; *p; p++)
        FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control character in the error: %s", err->msg);
}

/* the report's trace object written out: to compare two reads */
static char *trace_text(const ks_summary_report *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ks_jw w;
    ks_jw_open(&w, m, 0);
    ks_jw_tree(&w, rep->trace);
    ks_jw_close(&w);
    fclose(m);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    ks_error err;
    ks_summary_report rep;
    int ok = ks_summary_report_read(NAME, text, size, &rep, &err) == KS_OK;
    if (!ok)
        one_line(&err);
    ks_rank r;
    int rok = ks_rank_summary_read(NAME, text, size, &r, &err) == KS_OK;
    if (!rok)
        one_line(&err);
    FUZZ_CHECK(!ok || rok, "a report read, its line 1 not");
    if (ok) {
        FUZZ_CHECK(rep.trace && rep.text && rep.csv, "a report without its trace, text or CSV");
        FUZZ_CHECK(r.source != NULL, "a rank without its source");
    }

    /* the same bytes from a stream; a compressed or archived input reads otherwise from memory */
    ks_source *src;
    ks_stream *st;
    if (size && ks_source_open_memory(NAME, data, size, &src, &err) == KS_OK) {
        if (!ks_source_is_archive(src) && ks_source_next(src, &st, &err) == 1 &&
            !strcmp(ks_stream_filter(st), "none") && !strcmp(ks_stream_name(st), NAME)) {
            ks_summary_report rep2;
            int ok2 = ks_summary_report_stream(st, &rep2, &err) == KS_OK;
            FUZZ_CHECK(ok2 == ok, "read from a stream: %d, from memory: %d (%s)", ok2, ok, ok2 ? "" : err.msg);
            if (ok2) {
                char *a = trace_text(&rep), *b = trace_text(&rep2);
                FUZZ_CHECK(!strcmp(a, b) && !strcmp(rep.text, rep2.text) && !strcmp(rep.csv, rep2.csv),
                           "the report differs read from a stream");
                free(a);
                free(b);
                ks_summary_report_free(&rep2);
            } else
                one_line(&err);
        }
        ks_source_close(src);
    }
    if (ok)
        ks_summary_report_free(&rep);
    if (rok)
        ks_rank_free(&r);
    return 0;
}
