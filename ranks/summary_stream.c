/* ranks/summary_stream.c: a summary's lines read as a stream through yajl's callback parser,
 * keeping only the fields its readers read (ranks_int.h, ks_sum_reader).
 *
 * What: the bytes come in chunks (from a stream, or a text in memory) and go to yajl as they
 * come; its callbacks build a yajl tree of the fields a reader reads (line 1: the ks_rank's
 * fields, in each collective and memory device its fields; line 2: the analyze report's fields,
 * its JSON trace object whole) and drop everything else as it passes: a value under a key no
 * reader reads, the contents of a container where a scalar (or the other kind of container) is
 * read. A dropped container is kept as an empty one of its type, so a field of the wrong type is
 * still refused as mistyped by the checks of ranks/summary.c, which read the tree as before.
 * Every value counts (KS_LIMIT_TREE_VALUES a line) and every level too (KS_LIMIT_TREE_DEPTH),
 * kept or dropped; the bytes of the whole summary are bounded by KS_LIMIT_SUMMARY_BYTES.
 *
 * yajl buffers a string until its closing quote. A string no reader reads (a value or key under a
 * dropped value, a key of an object of known fields) goes to yajl up to
 * KS_LIMIT_SUMMARY_SKIPPED_STRING bytes; the rest of it is checked here as yajl checks a string
 * (no control character, valid escapes, valid UTF-8 by yajl's rule) and not passed on: yajl sees a
 * shorter string, dropped all the same. So a string of 60 MiB under an unused key costs its
 * reading time and no memory. To know where strings begin, the bytes are followed with yajl's
 * lexical rules (strings with their escapes, and the comments yajl_tree allowed); a string is
 * shortened only after yajl accepted every byte before the cut, so on such a prefix the two agree.
 *
 * Errors: one line naming the file, the byte, line and column (in the decompressed summary).
 * Internal to ranks/. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "common/limits.h"
#include "common/util.h"
#include "common/yajl_alloc.h"
#include "json/textpos.h"
#include "kinesift/source.h"
#include "ranks/ranks_int.h"

/* ---- what is kept ------------------------------------------------------------------------- */

enum { K_SCALAR, K_ALL, K_OBJ, K_ARR };

typedef struct field field;
typedef struct shape {
    int kind;
    const field *fields; /* K_OBJ: the keys read, NULL-terminated */
    const struct shape *elem; /* K_ARR: each element's shape */
} shape;
struct field {
    const char *key;
    const shape *s;
};

static const shape SCALAR = {K_SCALAR, NULL, NULL};
static const shape ALL = {K_ALL, NULL, NULL};
static const shape SCALARS = {K_ARR, NULL, &SCALAR};
static const shape ARR_SCALARS = {K_ARR, NULL, &SCALARS};

static const field MEM_FIELDS[] = {{"device_type", &SCALAR},          {"device_type_id", &SCALAR},
                                   {"device", &SCALAR},               {"peak_allocated_bytes", &SCALAR},
                                   {"peak_reserved_bytes", &SCALAR},  {"capacity_bytes", &SCALAR},
                                   {NULL, NULL}};
static const shape MEM = {K_OBJ, MEM_FIELDS, NULL};
static const shape MEMS = {K_ARR, NULL, &MEM};

static const field COLL_FIELDS[] = {{"name", &SCALAR},       {"group", &SCALAR},    {"seq", &SCALAR},
                                    {"bytes", &SCALAR},      {"group_size", &SCALAR}, {"step", &SCALAR},
                                    {"start_ns", &SCALAR},   {"end_ns", &SCALAR},   {"before", &ARR_SCALARS},
                                    {NULL, NULL}};
static const shape COLL = {K_OBJ, COLL_FIELDS, NULL};
static const shape COLLS = {K_ARR, NULL, &COLL};

static const field RANK_FIELDS[] = {
    {"schema", &SCALAR},         {"source", &SCALAR},          {"distributed_rank", &SCALAR},
    {"world_size", &SCALAR},     {"steps", &SCALAR},           {"step_median_ns", &SCALAR},
    {"step_p90_ns", &SCALAR},    {"step_ns", &SCALARS},        {"steps_reason", &SCALAR},
    {"gpu_reason", &SCALAR},     {"gpu_span_ns", &SCALAR},     {"gpu_busy_ns", &SCALAR},
    {"compute_ns", &SCALAR},     {"communication_ns", &SCALAR}, {"exposed_communication_ns", &SCALAR},
    {"host_wait_ns", &SCALAR},   {"kernels", &SCALAR},         {"collectives_reason", &SCALAR},
    {"first_step", &SCALAR},     {"last_step", &SCALAR},       {"truncated", &SCALAR},
    {"cut_byte", &SCALAR},       {"last_ns", &SCALAR},         {"names", &ARR_SCALARS},
    {"memory", &MEMS},           {"memory_reason", &SCALAR},   {"collectives", &COLLS},
    {NULL, NULL}};
static const shape RANK = {K_OBJ, RANK_FIELDS, NULL};

static const field ANALYZE_FIELDS[] = {{"step_label", &SCALAR}, {"json", &ALL}, {"text", &SCALAR},
                                       {"csv", &SCALAR},        {NULL, NULL}};
static const shape ANALYZE = {K_OBJ, ANALYZE_FIELDS, NULL};
static const field REPORT_FIELDS[] = {{"analyze", &ANALYZE}, {NULL, NULL}};
static const shape REPORT = {K_OBJ, REPORT_FIELDS, NULL};

/* ---- the tree of what is kept, built by yajl's callbacks ---------------------------------- */

typedef struct frame {
    yajl_val v;          /* a kept container */
    const shape *s;      /* its shape (K_ALL, K_OBJ or K_ARR) */
    size_t cap;          /* capacity of its arrays */
    char *key;           /* K_OBJ/K_ALL map: the key of the value to come, when kept */
    const shape *next;   /* a map: the shape of the value to come */
    int want_key;        /* a map: the next string is a key */
} frame;

typedef struct build {
    frame st[KS_LIMIT_TREE_DEPTH + 1];
    int top;             /* kept containers open */
    uint64_t skip;       /* levels open inside a dropped container */
    int skip_next;       /* the next value is dropped (under a key no reader reads) */
    int depth;
    uint64_t values;
    const shape *line;
    yajl_val root;
    char why[160];       /* a limit that stopped the parse (the callback returned 0) */
} build;

static int count(build *b)
{
    if (++b->values > KS_LIMIT_TREE_VALUES) {
        snprintf(b->why, sizeof b->why, "more than %d values", KS_LIMIT_TREE_VALUES);
        return 0;
    }
    return 1;
}

/* the shape of the value to come */
static const shape *next_shape(const build *b)
{
    if (!b->top)
        return b->line;
    const frame *f = &b->st[b->top - 1];
    if (f->v->type == yajl_t_object)
        return f->next;
    return f->s->kind == K_ALL ? &ALL : f->s->elem;
}

static void add(build *b, yajl_val v)
{
    if (!b->top) {
        b->root = v;
        return;
    }
    frame *f = &b->st[b->top - 1];
    if (f->v->type == yajl_t_object) {
        size_t n = f->v->u.object.len;
        if (n == f->cap) {
            f->cap = f->cap ? 2 * f->cap : 8;
            f->v->u.object.keys = ks_xrealloc((void *)f->v->u.object.keys, f->cap * sizeof(char *));
            f->v->u.object.values = ks_xrealloc(f->v->u.object.values, f->cap * sizeof(yajl_val));
        }
        f->v->u.object.keys[n] = f->key;
        f->v->u.object.values[n] = v;
        f->v->u.object.len = n + 1;
        f->key = NULL;
        f->want_key = 1;
    } else {
        size_t n = f->v->u.array.len;
        if (n == f->cap) {
            f->cap = f->cap ? 2 * f->cap : 8;
            f->v->u.array.values = ks_xrealloc(f->v->u.array.values, f->cap * sizeof(yajl_val));
        }
        f->v->u.array.values[n] = v;
        f->v->u.array.len = n + 1;
    }
}

/* a scalar: 1 when it is kept (added by the caller), 0 when dropped */
static int scalar_kept(build *b)
{
    if (b->skip)
        return 0;
    if (b->skip_next) {
        b->skip_next = 0;
        if (b->top)
            b->st[b->top - 1].want_key = 1;
        return 0;
    }
    return 1;
}

static yajl_val node(yajl_type t)
{
    yajl_val v = ks_xcalloc(1, sizeof *v);
    v->type = t;
    return v;
}

static char *dup_n(const unsigned char *s, size_t n)
{
    char *p = ks_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static int on_null(void *ctx)
{
    build *b = ctx;
    if (!count(b))
        return 0;
    if (scalar_kept(b))
        add(b, node(yajl_t_null));
    return 1;
}

static int on_bool(void *ctx, int v)
{
    build *b = ctx;
    if (!count(b))
        return 0;
    if (scalar_kept(b))
        add(b, node(v ? yajl_t_true : yajl_t_false));
    return 1;
}

/* yajl_tree's integer: an optional '-' and digits whose value fits a long long (-LLONG_MAX at
 * the least), as yajl_parse_integer accepts them; any other number is a double only */
static int integer_of(const char *s, long long *v)
{
    int neg = *s == '-';
    const char *p = s + neg;
    unsigned long long x = 0;
    if (!*p)
        return 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || x > (unsigned long long)LLONG_MAX / 10)
            return 0;
        x = x * 10 + (unsigned)(*p - '0');
        if (x > (unsigned long long)LLONG_MAX)
            return 0;
    }
    *v = neg ? -(long long)x : (long long)x;
    return 1;
}

static int on_number(void *ctx, const char *s, size_t n)
{
    build *b = ctx;
    if (!count(b))
        return 0;
    if (!scalar_kept(b))
        return 1;
    yajl_val v = node(yajl_t_number);
    v->u.number.r = dup_n((const unsigned char *)s, n);
    if (integer_of(v->u.number.r, &v->u.number.i))
        v->u.number.flags |= YAJL_NUMBER_INT_VALID;
    char *end = NULL;
    errno = 0;
    v->u.number.d = strtod(v->u.number.r, &end);
    if (!errno && end && !*end)
        v->u.number.flags |= YAJL_NUMBER_DOUBLE_VALID;
    add(b, v);
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    build *b = ctx;
    if (!count(b))
        return 0;
    if (scalar_kept(b)) {
        yajl_val v = node(yajl_t_string);
        v->u.string = dup_n(s, n);
        add(b, v);
    }
    return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    build *b = ctx;
    if (!count(b))
        return 0;
    if (b->skip)
        return 1;
    frame *f = &b->st[b->top - 1];
    f->want_key = 0;
    if (f->s->kind == K_ALL) {
        f->key = dup_n(s, n);
        f->next = &ALL;
        return 1;
    }
    for (const field *d = f->s->fields; d->key; d++)
        if (strlen(d->key) == n && !memcmp(d->key, s, n)) {
            f->key = dup_n(s, n);
            f->next = d->s;
            return 1;
        }
    b->skip_next = 1;
    return 1;
}

static int open_level(build *b, yajl_type t)
{
    if (!count(b))
        return 0;
    if (++b->depth > KS_LIMIT_TREE_DEPTH) {
        snprintf(b->why, sizeof b->why, "nested deeper than %d levels", KS_LIMIT_TREE_DEPTH);
        return 0;
    }
    if (b->skip) {
        b->skip++;
        return 1;
    }
    if (b->skip_next) {
        b->skip_next = 0;
        b->skip = 1;
        return 1;
    }
    const shape *s = next_shape(b);
    yajl_val v = node(t);
    add(b, v);
    int kept = s->kind == K_ALL || (t == yajl_t_object ? s->kind == K_OBJ : s->kind == K_ARR);
    if (!kept) { /* kept empty: its type is all a reader looks at */
        b->skip = 1;
        return 1;
    }
    frame *f = &b->st[b->top++];
    memset(f, 0, sizeof *f);
    f->v = v;
    f->s = s;
    f->want_key = t == yajl_t_object;
    return 1;
}

static int on_start_map(void *ctx) { return open_level(ctx, yajl_t_object); }
static int on_start_array(void *ctx) { return open_level(ctx, yajl_t_array); }

static int close_level(void *ctx)
{
    build *b = ctx;
    b->depth--;
    if (b->skip) {
        if (!--b->skip && b->top)
            b->st[b->top - 1].want_key = 1;
        return 1;
    }
    b->top--;
    if (b->top)
        b->st[b->top - 1].want_key = 1;
    return 1;
}

static const yajl_callbacks CALLBACKS = {on_null, on_bool, NULL, NULL, on_number, on_string,
                                         on_start_map, on_key, close_level, on_start_array, close_level};

/* 1 when the string that begins now is not kept: inside a dropped value, the dropped value itself,
 * or a key of an object of known fields (a key this long is none of them) */
static int string_dropped(const build *b)
{
    if (b->skip || b->skip_next)
        return 1;
    if (!b->top)
        return 0;
    const frame *f = &b->st[b->top - 1];
    return f->v->type == yajl_t_object && f->s->kind == K_OBJ && f->want_key;
}

static void build_free(build *b)
{
    for (int i = 0; i < b->top; i++)
        free(b->st[i].key);
    yajl_tree_free(b->root);
    b->root = NULL;
    b->top = 0;
}

/* ---- the reader ---------------------------------------------------------------------------- */

/* yajl's lexical state, followed to know where a string begins and ends */
enum { LX_OUT, LX_NUM, LX_STR, LX_ESC, LX_HEX, LX_UTF8, LX_SLASH, LX_BLOCK, LX_STAR, LX_LINE };

struct ks_sum_reader {
    const char *name;
    ks_stream *st;
    const char *mem;
    size_t mem_len, mem_off;
    size_t chunk_n;   /* bytes a read asks for */
    char *chunk;
    const char *buf; /* buf[pos .. n) not read yet; buf[0] at offset base */
    size_t n, pos;
    uint64_t base;
    uint64_t lines;   /* newlines before buf[pos] */
    int64_t last_nl;  /* offset of the last of them, -1 */
    int eof;
};

typedef struct line_ctx {
    ks_sum_reader *r;
    build b;
    yajl_handle h;
    int lx, need;
    size_t slen;      /* bytes of the token so far */
    int decided;      /* a long string or comment: dropped or held */
    int dropping;     /* the rest of the token is dropped */
    int holding;      /* the rest of the token is held in held (from held_abs on) */
    ks_buf held;
    uint64_t held_abs;
    uint64_t held_lines; /* newlines before held_abs */
    int64_t held_last;   /* the offset of the last of them, -1 */
    const char *what; /* "" or "its analyze report: " */
} line_ctx;

enum { CHUNK = 1 << 16 };

/* A held string goes to yajl after an empty comment: yajl copies the first token of a feed that
 * follows one ending between tokens into its buffer; the comment is that token, the string is
 * then read where it lies. */
#define HELD_LEAD "/**/"
enum { HELD_LEAD_N = sizeof HELD_LEAD - 1 };

ks_sum_reader *ks_sum_reader_open(const char *name, ks_stream *st, const char *text, size_t len)
{
    ks_sum_reader *r = ks_xcalloc(1, sizeof *r);
    r->name = name;
    r->st = st;
    r->mem = text;
    r->mem_len = len;
    r->last_nl = -1;
    r->chunk_n = CHUNK;
    if (st)
        r->chunk = ks_xmalloc(CHUNK);
    return r;
}

void ks_sum_reader_chunk(ks_sum_reader *r, size_t n)
{
    r->chunk_n = n < 1 ? 1 : n > CHUNK ? CHUNK : n;
}

void ks_sum_reader_close(ks_sum_reader *r)
{
    if (!r)
        return;
    free(r->chunk);
    free(r);
}

/* line and column of the byte at offset abs, which lies in buf[pos ..] */
static void line_col(const ks_sum_reader *r, uint64_t abs, uint64_t *line, uint64_t *col)
{
    uint64_t lines = r->lines;
    int64_t last = r->last_nl;
    uint64_t from = r->base + r->pos, end = abs < r->base + r->n ? abs : r->base + r->n;
    if (end > from)
        ks_text_count(r->buf + r->pos, (size_t)(end - from), from, &lines, &last);
    *line = lines + 1;
    *col = abs - (uint64_t)(last + 1) + 1;
}

static int fail_at(line_ctx *c, uint64_t abs, ks_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(line_ctx *c, uint64_t abs, ks_error *err, const char *fmt, ...)
{
    uint64_t line, col;
    if (c->held.n && abs >= c->held_abs && abs < c->r->base + c->r->pos) {
        /* in a held string that began before the bytes in hand: counted from its start */
        uint64_t lines = c->held_lines, held = c->held.n - HELD_LEAD_N;
        int64_t last = c->held_last;
        ks_text_count(c->held.p + HELD_LEAD_N, (size_t)(abs - c->held_abs < held ? abs - c->held_abs : held),
                      c->held_abs, &lines, &last);
        line = lines + 1;
        col = abs - (uint64_t)(last + 1) + 1;
    } else
        line_col(c->r, abs, &line, &col);
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ks_error_set(err, "%s: not a summary: %s%s at byte %llu (line %llu, column %llu)", c->r->name, c->what,
                        what, (unsigned long long)abs, (unsigned long long)line, (unsigned long long)col);
}

/* yajl's message, one line */
static int yajl_failed(line_ctx *c, uint64_t abs, ks_error *err)
{
    if (c->b.why[0])
        return fail_at(c, abs, err, "%s", c->b.why);
    unsigned char *m = yajl_get_error(c->h, 0, NULL, 0);
    char msg[160];
    snprintf(msg, sizeof msg, "%s", m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(c->h, m);
    size_t l = strlen(msg);
    while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' ' || msg[l - 1] == '.'))
        msg[--l] = 0;
    return fail_at(c, abs, err, "%s", msg);
}

/* give p[0, n) to yajl; p[0] at offset abs */
static int feed_lead(line_ctx *c, const char *p, size_t n, uint64_t abs, size_t lead, ks_error *err)
{
    if (!n)
        return KS_OK;
    yajl_status s = yajl_parse(c->h, (const unsigned char *)p, n);
    if (s == yajl_status_ok)
        return KS_OK;
    size_t at = yajl_get_bytes_consumed(c->h);
    if (s == yajl_status_client_canceled && at)
        at--; /* the byte that ended the token */
    return yajl_failed(c, abs + (at > lead ? at - lead : 0), err);
}

static int feed_at(line_ctx *c, const char *p, size_t n, uint64_t abs, ks_error *err)
{
    return feed_lead(c, p, n, abs, 0, err);
}

/* A held string goes to yajl after an empty comment: yajl copies the first token of a feed that
 * follows one ending between tokens into its buffer; the comment is that token, the string is
 * then read where it lies. */

static int feed_held(line_ctx *c, ks_error *err)
{
    return feed_lead(c, c->held.p, c->held.n, c->held_abs, HELD_LEAD_N, err);
}

static int feed(line_ctx *c, size_t a, size_t n, ks_error *err)
{
    return feed_at(c, c->r->buf + a, n, c->r->base + a, err);
}

/* yajl's UTF-8 rule (yajl_lex_utf8_char): the continuation bytes a lead byte needs, -1 when none */
static int utf8_need(unsigned char ch)
{
    if (ch >> 5 == 0x6)
        return 1;
    if (ch >> 4 == 0xe)
        return 2;
    if (ch >> 3 == 0x1e)
        return 3;
    return -1;
}

static int is_hex(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static int in_number(unsigned ch)
{
    return (ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-';
}

/* feed buf[from, tok), hold buf[tok, e): a string from its opening quote at tok */
static int hold(line_ctx *c, size_t from, size_t tok, size_t e, ks_error *err)
{
    if (feed(c, from, tok - from, err) != KS_OK)
        return KS_ERR;
    c->holding = 1;
    c->held.n = 0;
    c->held_abs = c->r->base + tok;
    c->held_lines = c->r->lines;
    c->held_last = c->r->last_nl;
    if (tok > c->r->pos)
        ks_text_count(c->r->buf + c->r->pos, tok - c->r->pos, c->r->base + c->r->pos, &c->held_lines,
                      &c->held_last);
    ks_buf_put(&c->held, HELD_LEAD, HELD_LEAD_N);
    ks_buf_put(&c->held, c->r->buf + tok, e - tok);
    return KS_OK;
}

/* buf[a, e): follow the lexical state and feed yajl, but for the dropped part of a long string or
 * comment; the rest of a long kept string is held until its closing quote and given to yajl at
 * once (yajl lexes a token anew from its start at each feed that does not finish it: a string fed
 * in chunks costs its length times the chunks) */
static int segment(line_ctx *c, size_t a, size_t e, ks_error *err)
{
    const unsigned char *p = (const unsigned char *)c->r->buf;
    size_t from = a; /* the first byte not fed yet (nor held, nor dropped) */
    size_t tok = a;  /* the opening quote of the string, when in this segment */
    for (size_t i = a; i < e; i++) {
        unsigned ch = p[i];
        const char *bad = NULL;
        switch (c->lx) {
        case LX_NUM:
            if (in_number(ch)) {
                if (++c->slen > KS_LIMIT_SUMMARY_NUMBER)
                    return fail_at(c, c->r->base + i, err, "a number longer than %d bytes", KS_LIMIT_SUMMARY_NUMBER);
                continue;
            }
            c->lx = LX_OUT; /* ch follows the number */
            /* fall through */
        case LX_OUT:
            c->slen = 0;
            c->decided = 0;
            if (ch == '"') {
                c->lx = LX_STR;
                tok = i;
            } else if (ch == '/')
                c->lx = LX_SLASH;
            else if (ch == '-' || (ch >= '0' && ch <= '9')) {
                c->lx = LX_NUM;
                c->slen = 1;
            }
            continue;
        case LX_SLASH: c->lx = ch == '*' ? LX_BLOCK : ch == '/' ? LX_LINE : LX_OUT; continue;
        case LX_BLOCK:
        case LX_STAR:
        case LX_LINE:
            if (!c->decided && c->lx != LX_STAR && c->slen >= KS_LIMIT_SUMMARY_SKIPPED_STRING) {
                /* a long comment: yajl has its start, the rest is dropped, its end given */
                c->decided = 1;
                if (feed(c, from, i - from, err) != KS_OK)
                    return KS_ERR;
                c->dropping = 1;
            }
            c->slen++;
            if (c->lx == LX_LINE) {
                if (ch == '\n') {
                    c->lx = LX_OUT;
                    if (c->dropping) {
                        c->dropping = 0;
                        from = i; /* the newline ends it */
                        continue;
                    }
                }
            } else if (c->lx == LX_BLOCK) {
                if (ch == '*')
                    c->lx = LX_STAR;
            } else if (ch == '/') {
                c->lx = LX_OUT;
                if (c->dropping) {
                    c->dropping = 0;
                    if (feed_at(c, "*/", 2, c->r->base + i - 1, err) != KS_OK)
                        return KS_ERR;
                    from = i + 1;
                    continue;
                }
            } else if (ch != '*')
                c->lx = LX_BLOCK;
            if (c->dropping)
                from = i + 1;
            continue;
        case LX_STR:
            if (!c->decided && c->slen >= KS_LIMIT_SUMMARY_SKIPPED_STRING) {
                /* a long string: held from its quote (yajl has all before it), its rest dropped
                 * when no reader reads it */
                c->decided = 1;
                if (c->holding)
                    ks_buf_put(&c->held, p + from, i - from);
                else if (hold(c, from, tok, i, err) != KS_OK)
                    return KS_ERR;
                from = i;
                c->dropping = string_dropped(&c->b);
            }
            if (ch == '"') {
                c->lx = LX_OUT;
                if (c->holding) {
                    if (c->dropping)
                        from = i;
                    ks_buf_put(&c->held, p + from, i + 1 - from);
                    c->holding = c->dropping = 0;
                    if (feed_held(c, err) != KS_OK)
                        return KS_ERR;
                    c->held.n = 0;
                    from = i + 1;
                }
                continue;
            }
            if (ch == '\\')
                c->lx = LX_ESC;
            else if (ch < 0x20)
                bad = "invalid character inside string";
            else if (ch >= 0x80) {
                int need = utf8_need((unsigned char)ch);
                if (need < 0)
                    bad = "invalid bytes in UTF8 string";
                else {
                    c->need = need;
                    c->lx = LX_UTF8;
                }
            }
            break;
        case LX_ESC:
            if (ch == 'u') {
                c->lx = LX_HEX;
                c->need = 4;
            } else if (ch && strchr("\"\\/bfnrt", (int)ch))
                c->lx = LX_STR;
            else
                bad = "inside a string, '\\' occurs before a character which it may not";
            break;
        case LX_HEX:
            if (!is_hex((unsigned char)ch))
                bad = "invalid (non-hex) character occurs after '\\u' inside string";
            else if (!--c->need)
                c->lx = LX_STR;
            break;
        case LX_UTF8:
            if (ch >> 6 != 0x2)
                bad = "invalid bytes in UTF8 string";
            else if (!--c->need)
                c->lx = LX_STR;
            break;
        }
        c->slen++;
        if (bad) {
            if (c->dropping) /* what yajl would say of these bytes it does not see, at this byte */
                return fail_at(c, c->r->base + i, err, "lexical error: %s", bad);
            c->lx = LX_STR; /* yajl says so when the bytes reach it */
        }
        if (c->dropping)
            from = i + 1;
    }
    if (c->lx >= LX_STR && c->lx <= LX_UTF8 && !c->holding) /* a string goes on: held */
        return hold(c, from, tok, e, err);
    if (c->holding && !c->dropping)
        ks_buf_put(&c->held, p + from, e - from);
    else if (!c->dropping)
        return feed(c, from, e - from, err);
    return KS_OK;
}

/* more bytes in buf: 1, 0 at the end, KS_ERR (err set) when the stream failed */
static int refill(ks_sum_reader *r, ks_error *err)
{
    if (r->pos < r->n)
        return 1;
    if (r->eof)
        return 0;
    r->base += r->n;
    r->pos = r->n = 0;
    if (!r->st) { /* the text in pieces of chunk_n bytes, or whole */
        size_t left = r->mem_len - r->mem_off;
        r->buf = r->mem + r->mem_off;
        r->n = left < r->chunk_n || r->chunk_n == CHUNK ? left : r->chunk_n;
        r->mem_off += r->n;
        r->eof = r->mem_off == r->mem_len;
        return r->n > 0;
    }
    ssize_t got = ks_stream_read(r->st, r->chunk, r->chunk_n, err);
    if (got < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        ks_error_set(err, "%s: %s", r->name, msg);
        return KS_ERR;
    }
    r->buf = r->chunk;
    r->n = (size_t)got;
    if (!got)
        r->eof = 1;
    return got > 0;
}

/* step over buf[pos, pos + n), counting its newlines */
static void advance(ks_sum_reader *r, size_t n)
{
    ks_text_count(r->buf + r->pos, n, r->base + r->pos, &r->lines, &r->last_nl);
    r->pos += n;
}

int ks_sum_reader_more(ks_sum_reader *r, ks_error *err)
{
    return refill(r, err);
}

int ks_sum_read_line(ks_sum_reader *r, int report, yajl_val *out, ks_error *err)
{
    *out = NULL;
    line_ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.b.line = report ? &REPORT : &RANK;
    c.what = report ? "its analyze report: " : "";
    c.h = yajl_alloc(&CALLBACKS, ks_yajl_alloc_funcs(), &c.b);
    yajl_config(c.h, yajl_allow_comments, 1);
    int rc = KS_OK, last = 0;
    while (!last) {
        int more = refill(r, err);
        if (more < 0) {
            rc = KS_ERR;
            break;
        }
        if (!more)
            break;
        size_t n = r->n - r->pos;
        const char *p = r->buf + r->pos;
        const char *nl = report ? NULL : memchr(p, '\n', n);
        if (nl) {
            n = (size_t)(nl - p);
            last = 1;
        }
        if (r->base + r->pos + n > KS_LIMIT_SUMMARY_BYTES) {
            rc = ks_error_set(err, "%s: larger than %u MiB decompressed: not a summary", r->name,
                              KS_LIMIT_SUMMARY_BYTES >> 20);
            break;
        }
        const char *z = memchr(p, 0, n);
        if (z) {
            rc = fail_at(&c, r->base + r->pos + (uint64_t)(z - p), err, "%s", "not a JSON text: NUL byte");
            break;
        }
        rc = segment(&c, r->pos, r->pos + n, err);
        if (rc != KS_OK)
            break;
        advance(r, n);
    }
    if (rc == KS_OK && c.holding) /* an unfinished string: yajl says so */
        rc = feed_held(&c, err);
    if (rc == KS_OK && yajl_complete_parse(c.h) != yajl_status_ok)
        rc = yajl_failed(&c, r->base + r->pos, err); /* the line's end */
    if (rc == KS_OK && last)
        advance(r, 1); /* its newline */
    yajl_free(c.h);
    ks_buf_free(&c.held);
    if (rc != KS_OK) {
        build_free(&c.b);
        return KS_ERR;
    }
    *out = c.b.root;
    return KS_OK;
}
