/* redact/output.c: redacting one stream to a file: the checks on the target (never the input,
 * never an existing file without force), the compression like the input, the temporary file,
 * the search for literals learned late and the second pass when one survived, the rename (the
 * file itself is common/afile.c). Also the names of outputs written into a directory. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "common/afile.h"
#include "redact/redact_int.h"

ks_compress ks_redact_compress_of(const char *filter)
{
    if (!filter)
        return KS_COMPRESS_NONE;
    /* archive members: "tar/gzip" is a gzipped member, "tar+gzip" a plain member of a .tar.gz */
    const char *slash = strchr(filter, '/');
    if (slash)
        filter = slash + 1;
    else if (strchr(filter, '+') || !strncmp(filter, "tar", 3) || !strncmp(filter, "zip", 3))
        return KS_COMPRESS_NONE;
    if (strstr(filter, "gzip"))
        return KS_COMPRESS_GZIP;
    if (strstr(filter, "zstd"))
        return KS_COMPRESS_ZSTD;
    if (strstr(filter, "xz") || strstr(filter, "lzma"))
        return KS_COMPRESS_XZ;
    if (strstr(filter, "bzip2"))
        return KS_COMPRESS_BZIP2;
    return KS_COMPRESS_NONE;
}

void ks_redact_cleanup_on_signals(void)
{
    ks_afile_cleanup_on_signals();
}

/* The target may be written: not one of the inputs, not an existing file unless force. */
static int check_target(const ks_redact_output *o, ks_error *err)
{
    return ks_afile_check_target(o->path, o->force, o->input, o->inputs, o->ninputs, err);
}

static int redact_to_sink(ks_redactor *rd, ks_stream *in, const char *path, ks_compress c,
                          ks_afile **out, ks_redact_result *res, ks_error *err)
{
    ks_afile *s;
    if (ks_afile_open(path, c, &s, err) != KS_OK)
        return KS_ERR;
    if (ks_redact_stream(rd, in, ks_afile_write, s, res, err) != KS_OK) {
        ks_error e2;
        ks_afile_close(s, &e2);
        ks_afile_abort(s);
        return KS_ERR;
    }
    if (ks_afile_close(s, err) != KS_OK) {
        ks_afile_abort(s);
        return KS_ERR;
    }
    *out = s;
    return KS_OK;
}

/* 1 when a literal learned after gen0 occurs in the temporary output: it needs another pass */
static int literal_survives(ks_redactor *rd, uint64_t gen0, const char *tmp, ks_error *err)
{
    ks_rd_litset ls = {0};
    ks_rd_literals_since(rd, gen0, &ls);
    int r = ks_rd_raw_scan(rd, tmp, &ls, err);
    ks_rd_litset_free(&ls);
    return r;
}

/* Literals learned in this stream after gen0 that may have been copied before they were known:
 * 1 when the output needs a second pass. */
static int needs_second_pass(ks_redactor *rd, uint64_t gen0, const ks_redact_result *res,
                             const char *tmp, ks_error *err)
{
    if (!res->late_literals)
        return 0;
    if (res->escaped_copies)
        return 1; /* a byte search could miss an escaped spelling */
    return literal_survives(rd, gen0, tmp, err);
}

/* the temporary output redacted again into a new temporary file, which replaces it */
static int second_pass(ks_redactor *rd, ks_afile **s1, const char *path, ks_compress c,
                       ks_redact_result *res, ks_error *err)
{
    ks_source *src;
    ks_stream *st;
    if (ks_source_open(ks_afile_tmp_path(*s1), &src, err) != KS_OK)
        return KS_ERR;
    if (ks_source_next(src, &st, err) != 1) {
        ks_source_close(src);
        return ks_error_set(err, "cannot reread the first pass");
    }
    ks_redact_result r2;
    ks_afile *s2;
    int rc = redact_to_sink(rd, st, path, c, &s2, &r2, err);
    ks_source_close(src);
    if (rc != KS_OK)
        return KS_ERR;
    ks_afile_abort(*s1);
    *s1 = s2;
    res->strings_rewritten += r2.strings_rewritten;
    res->bytes_out = r2.bytes_out;
    res->late_literals = r2.late_literals;
    res->passes++;
    return KS_OK;
}

struct ks_redact_staged {
    ks_afile *sink;
    ks_redact_output o;
    char *path, *input;
    ks_compress c;
    uint64_t known;        /* literals known when the output was last written */
};

int ks_redact_stage(ks_redactor *rd, ks_stream *in, const ks_redact_output *o,
                    ks_redact_result *res, ks_redact_staged **out, ks_error *err)
{
    *out = NULL;
    ks_compress c = o->compress;
    if (c == KS_COMPRESS_AUTO)
        c = ks_redact_compress_of(ks_stream_filter(in));
    if (o->path && check_target(o, err) != KS_OK)
        return KS_ERR;
    uint64_t gen0 = rd->lit_gen;
    ks_afile *s;
    rd->progress = o->progress;
    rd->progress_ctx = o->progress_ctx;
    int r = redact_to_sink(rd, in, o->path, c, &s, res, err);
    rd->progress = NULL;
    if (r != KS_OK)
        return KS_ERR;
    res->passes = 1;
    int need = needs_second_pass(rd, gen0, res, ks_afile_tmp_path(s), err);
    if (need < 0 || (need > 0 && second_pass(rd, &s, o->path, c, res, err) != KS_OK)) {
        ks_afile_abort(s);
        return KS_ERR;
    }
    res->literals_known = rd->lit_gen;
    ks_redact_staged *st = ks_xcalloc(1, sizeof *st);
    st->sink = s;
    st->o = *o;
    st->path = o->path ? ks_xstrdup(o->path) : NULL;
    st->input = o->input ? ks_xstrdup(o->input) : NULL;
    st->o.path = st->path;
    st->o.input = st->input;
    st->c = c;
    st->known = rd->lit_gen;
    *out = st;
    return KS_OK;
}

void ks_redact_staged_abort(ks_redact_staged *st)
{
    if (!st)
        return;
    ks_afile_abort(st->sink);
    free(st->path);
    free(st->input);
    free(st);
}

/* Literals learned after an output was written (from a later trace, or from another output's
 * second pass) are searched in it, and it is redacted again when one is there; repeated until
 * no pass learns anything new (each round learns at least one literal, so this ends). */
static int catch_up_all(ks_redactor *rd, ks_redact_staged **v, size_t n, size_t *redone,
                        ks_error *err)
{
    for (;;) {
        uint64_t gen = rd->lit_gen;
        for (size_t i = 0; i < n; i++) {
            if (v[i]->known >= rd->lit_gen)
                continue;
            int found = literal_survives(rd, v[i]->known, ks_afile_tmp_path(v[i]->sink), err);
            if (found < 0)
                return KS_ERR;
            v[i]->known = rd->lit_gen;
            if (!found)
                continue;
            ks_redact_result r = {0};
            if (second_pass(rd, &v[i]->sink, v[i]->path, v[i]->c, &r, err) != KS_OK)
                return KS_ERR;
            ++*redone;
        }
        if (rd->lit_gen == gen)
            return KS_OK;
    }
}

int ks_redact_commit_all(ks_redactor *rd, ks_redact_staged **v, size_t n, size_t *redone,
                         ks_error *err)
{
    size_t local = 0;
    int rc = catch_up_all(rd, v, n, redone ? redone : &local, err);
    /* every target checked again before the first is written: all or nothing */
    for (size_t i = 0; i < n && rc == KS_OK; i++)
        if (v[i]->path && check_target(&v[i]->o, err) != KS_OK)
            rc = KS_ERR;
    for (size_t i = 0; i < n; i++) {
        if (rc == KS_OK) {
            rc = ks_afile_commit(v[i]->sink, v[i]->o.force, err);
            v[i]->sink = NULL;
        }
        ks_redact_staged_abort(v[i]);
        v[i] = NULL;
    }
    return rc;
}

int ks_redact_file(ks_redactor *rd, ks_stream *in, const ks_redact_output *o,
                   ks_redact_result *res, ks_error *err)
{
    ks_redact_staged *st;
    if (ks_redact_stage(rd, in, o, res, &st, err) != KS_OK)
        return KS_ERR;
    return ks_redact_commit_all(rd, &st, 1, NULL, err);
}

static size_t strip_suffix(const char *b, size_t n)
{
    static const char *const sufs[] = {".gz", ".zst", ".xz", ".bz2", ".lzma", ".zstd"};
    for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++) {
        size_t l = strlen(sufs[i]);
        if (n > l && !memcmp(b + n - l, sufs[i], l))
            return n - l;
    }
    return n;
}

char *ks_redact_output_name(ks_redactor *rd, const char *stream_name, ks_compress c)
{
    const char *b = stream_name;
    const char *slash = strrchr(b, '/');
    if (slash)
        b = slash + 1;
    const char *colon = strrchr(b, ':'); /* archive:member */
    if (colon)
        b = colon + 1;
    size_t n = strip_suffix(b, strlen(b));
    ks_buf t = {0}, r = {0};
    ks_rd_trace_name(rd, b, n, &t);
    const char *s;
    size_t sn;
    /* the scanners too: a user name or an e-mail in a file name */
    if (!ks_rd_scan(rd, t.p ? t.p : "", t.n, &s, &sn)) {
        s = t.p ? t.p : "";
        sn = t.n;
    }
    for (size_t i = 0; i < sn; i++) /* no directory separators or odd bytes in a file name */
        ks_buf_putc(&r, (s[i] == '/' || s[i] == '\\' || (unsigned char)s[i] < 0x20) ? '_' : s[i]);
    if (!r.n)
        ks_buf_puts(&r, "trace.json");
    ks_buf_puts(&r, ks_redact_compress_suffix(c));
    ks_buf_free(&t);
    ks_buf_cstr(&r);
    return r.p;
}
