/* redact/tables.c: `kinesift redact SRC -o DST` in-process for a binding (kinesift/tables.h): one
 * trace redacted into a file as the command does it, its report (schema
 * kinesift.redact-report/1, docs/redaction.md) as tables. */
#include <stdlib.h>
#include <string.h>

#include "kinesift/redact.h"
#include "kinesift/source.h"
#include "kinesift/tables.h"
#include "report/tables_build.h"

ks_tables *ks_tables_redact(const char *src, const char *dst, const ks_tables_opts *o)
{
    ks_tables_opts def;
    o = ks_tables_opts_or_defaults(o, &def);
    ks_tables *t = ks_xcalloc(1, sizeof *t);
    ks_error err;
    if (!src || !dst || !strcmp(src, "-") || !strcmp(dst, "-")) {
        ks_error_set(&err, "redact: give an input path and an output path (not -)");
        return ks_tables_fail(t, NULL, &err);
    }
    unsigned char *key = NULL;
    size_t klen = 0;
    ks_redact_key_source keysrc;
    if (ks_redact_key_load(o->key_file, &key, &klen, &keysrc, &err) != KS_OK)
        return ks_tables_fail(t, NULL, &err);
    ks_redact_opts ro;
    ks_redact_opts_init(&ro);
    ro.shapes = o->shapes;
    ro.keep_logs = o->keep_logs;
    ro.key = key;
    ro.key_len = klen;
    ks_redactor *rd;
    int rc = ks_redactor_new(&ro, &rd, &err);
    ks_redact_key_free(key, klen);
    if (rc != KS_OK)
        return ks_tables_fail(t, NULL, &err);
    ks_source *s;
    if (ks_source_open(src, &s, &err) != KS_OK) {
        ks_redactor_free(rd);
        return ks_tables_fail(t, src, &err);
    }
    ks_stream *st;
    int r = ks_source_next(s, &st, &err);
    if (r == 0)
        ks_error_set(&err, "%s: no trace in this input", src);
    if (r <= 0) {
        ks_tables_fail(t, src, &err);
    } else if (ks_source_is_archive(s)) {
        ks_error_set(&err, "%s: an archive: redact its members with the command", src);
        ks_tables_fail(t, NULL, &err);
    } else {
        char *inputs[1] = {(char *)src};
        ks_redact_output out = {.path = dst, .force = o->force, .input = src, .inputs = inputs, .ninputs = 1};
        ks_redact_result res;
        if (ks_redact_file(rd, st, &out, &res, &err) != KS_OK) {
            ks_tables_fail(t, ks_stream_name(st), &err);
        } else {
            ks_tables_doc d;
            ks_redact_report_json(ks_tables_doc_begin(&d, t, o->text), rd, keysrc);
            ks_tables_doc_end(&d, t);
        }
    }
    ks_source_close(s);
    ks_redactor_free(rd);
    return t;
}
