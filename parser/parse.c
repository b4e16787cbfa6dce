/* parser/parse.c: the trace reader. Bytes flow source -> repair pre-filter -> yajl -> a small
 * state machine that knows the trace layout -> the event store.
 *
 *  - Containers: {"traceEvents": [...], ...metadata} or a bare [...] array; a missing ']' is
 *    allowed; an object cut anywhere keeps every event whose closing '}' was read.
 *  - An event counts only at its closing '}'. A syntax error inside an event drops that event and
 *    resynchronises on the next event start with a fresh yajl handle (errors are sticky).
 *  - Numbers arrive as raw text (yajl_number): ts/dur go to int64 ns exactly, ids to int64.
 *  - Every recovery is counted in the trace's diagnostics with its byte/line/column.
 *  - With more threads, workers parse the middle of chunks ahead (split.h); the same parser
 *    state machine runs there in "unit" mode, and the main parser replays what they made. */
#include "kinesift/parse.h"

#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "common/limits.h"
#include "common/util.h"
#include "common/yajl_alloc.h"
#include "parser/numfast.h"
#include "parser/reader.h"
#include "source/source_int.h"
#include "store/store_int.h"
#include "json/repair.h"
#include "json/textpos.h"
#include "parser/split.h"

#define DEFAULT_CHUNK (256 * 1024)
#define MAX_SKIP_DEPTH KS_LIMIT_JSON_DEPTH
#define MAX_META_VALUE KS_LIMIT_META_VALUE
#define CAT_CACHE 8

/* ---- keys ---------------------------------------------------------------------------------- */

enum key {
    K_NONE = 0,
    K_IGNORE,
    /* top level */
    K_TRACE_EVENTS, K_SCHEMA, K_DEVPROPS, K_DIST, K_BASETIME, K_DTU, K_TRACENAME, K_META,
    /* event */
    K_PH, K_NAME, K_CAT, K_TS, K_DUR, K_PID, K_TID, K_ID, K_ID2, K_BP, K_SCOPE, K_ARGS,
    /* args */
    K_EXT, K_CORR, K_STREAM, K_DEVICE, K_BYTES, K_FINISHED, K_ARG_NAME, K_ARG_LABELS,
    K_ARG_SORT, K_COUNTER,
    /* collective metadata (ks_coll_info) */
    K_COLL_NAME, K_COLL_PG, K_COLL_RANKS, K_COLL_DTYPE, K_COLL_IN, K_COLL_OUT, K_COLL_GS, K_COLL_SEQ,
    /* distributedInfo */
    K_RANK, K_WORLD, K_BACKEND,
    /* deviceProperties[] */
    K_DP_ID, K_DP_NAME, K_DP_MEM, K_DP_MAJOR, K_DP_MINOR, K_DP_SMS
};

enum ctx { CX_TOP_OBJ = 1, CX_EVENTS, CX_EVENT, CX_ARGS, CX_ID2, CX_DIST, CX_DEVPROPS, CX_DEVPROP };

#define KEYIS(lit) (len == sizeof(lit) - 1 && !memcmp(k, lit, sizeof(lit) - 1))

static int top_key(const char *k, size_t len)
{
    if (KEYIS("traceEvents")) return K_TRACE_EVENTS;
    if (KEYIS("schemaVersion")) return K_SCHEMA;
    if (KEYIS("deviceProperties")) return K_DEVPROPS;
    if (KEYIS("distributedInfo")) return K_DIST;
    if (KEYIS("baseTimeNanoseconds")) return K_BASETIME;
    if (KEYIS("displayTimeUnit")) return K_DTU;
    if (KEYIS("traceName")) return K_TRACENAME;
    return K_META;
}

static int event_key(const char *k, size_t len)
{
    switch (len) {
    case 1: if (k[0] == 's') return K_SCOPE; break;
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return K_PH;
        if (k[0] == 't' && k[1] == 's') return K_TS;
        if (k[0] == 'i' && k[1] == 'd') return K_ID;
        if (k[0] == 'b' && k[1] == 'p') return K_BP;
        break;
    case 3:
        if (!memcmp(k, "pid", 3)) return K_PID;
        if (!memcmp(k, "tid", 3)) return K_TID;
        if (!memcmp(k, "cat", 3)) return K_CAT;
        if (!memcmp(k, "dur", 3)) return K_DUR;
        if (!memcmp(k, "id2", 3)) return K_ID2;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        if (!memcmp(k, "args", 4)) return K_ARGS;
        break;
    }
    return K_IGNORE;
}

static int args_key(const char *k, size_t len)
{
    switch (len) {
    case 3: if (!memcmp(k, "Seq", 3)) return K_COLL_SEQ; break;
    case 4: if (!memcmp(k, "name", 4)) return K_ARG_NAME; break;
    case 5:
        if (!memcmp(k, "bytes", 5) || !memcmp(k, "Bytes", 5)) return K_BYTES;
        if (!memcmp(k, "dtype", 5)) return K_COLL_DTYPE;
        break;
    case 6:
        if (!memcmp(k, "stream", 6)) return K_STREAM;
        if (!memcmp(k, "device", 6) || !memcmp(k, "Device", 6)) return K_DEVICE;
        if (!memcmp(k, "labels", 6)) return K_ARG_LABELS;
        break;
    case 8: if (!memcmp(k, "finished", 8)) return K_FINISHED; break;
    case 10:
        if (!memcmp(k, "sort_index", 10)) return K_ARG_SORT;
        if (!memcmp(k, "Group size", 10)) return K_COLL_GS;
        break;
    case 11:
        if (!memcmp(k, "External id", 11) || !memcmp(k, "external id", 11)) return K_EXT;
        if (!memcmp(k, "correlation", 11)) return K_CORR;
        break;
    case 13: if (!memcmp(k, "In msg nelems", 13)) return K_COLL_IN; break;
    case 14: if (!memcmp(k, "Out msg nelems", 14)) return K_COLL_OUT; break;
    case 15: if (!memcmp(k, "Collective name", 15)) return K_COLL_NAME; break;
    case 18: if (!memcmp(k, "Process Group Name", 18)) return K_COLL_PG; break;
    case 19: if (!memcmp(k, "Process Group Ranks", 19)) return K_COLL_RANKS; break;
    }
    return K_IGNORE;
}

/* ---- parser state -------------------------------------------------------------------------- */

typedef struct counter_kv {
    size_t key_off, key_len;
    double value;
} counter_kv;

typedef struct pending_thread {
    ks_id pid, tid;
    ks_str name;
    int32_t sort_index;
    uint8_t has_name, has_sort;
} pending_thread;

/* the event being read */
typedef struct cur_event {
    uint64_t start;          /* input offset of its '{' */
    uint64_t keys_seen;      /* bit k: key k (enum key) of the event or its args seen */
    uint32_t nkeys;
    char ph;
    uint8_t has_ph, ph_bad, has_name, has_cat, has_ts, has_dur;
    int ts_status, dur_status;
    ks_str name;
    uint16_t cat;
    int64_t ts, dur;
    ks_id pid, tid;
    uint16_t flags;
    int64_t ext, corr, aux;
    int32_t stream;
    int16_t device;
    ks_str arg_name, arg_labels;
    int64_t arg_sort;
    uint8_t has_arg_name, has_arg_labels, has_arg_sort;
    uint8_t has_coll;        /* "Collective name" seen: coll is kept with the event */
    ks_coll_info coll;       /* the numbers are -1 + 1 = 0 until seen (stored minus one) */
    size_t ncounters;
} cur_event;

enum mode { M_PARSE, M_RESYNC, M_STOP };
enum resync_target { RS_EVENT, RS_TRACE_EVENTS };

typedef struct parser {
    ks_trace *t;
    int strict;
    yajl_handle h;
    ks_error *err;
    int failed;               /* a callback hit a fatal condition (err is set) */

    uint8_t stack[16];
    int depth;
    int ctx;                  /* stack[depth - 1], or 0 at the top level */
    int skip;                 /* depth inside an ignored container */
    int key;
    ks_str meta_key;
    int top_done;             /* the top-level value is complete */
    int events_done;          /* the traceEvents array was closed */
    int in_events_seen;
    uint32_t top_seen;        /* bit k: top-level key k (enum key) seen */

    cur_event ev;
    counter_kv *kv;
    size_t kv_cap;
    ks_buf kvkeys;
    ks_device_prop dp;

    pending_thread *pt;
    size_t npt, pt_cap;

    uint64_t events_read;
    uint64_t last_commit_end;

    /* the input window: our own buffer, or the reader thread's current chunk */
    char *inbuf;
    char *own_inbuf;
    size_t in_len, in_cap;
    size_t chunk;
    ks_reader *reader;        /* the reader thread, when one is used */
    ks_run run;               /* the current run for yajl, with its offset map: from rep or the
                               * reader thread's chunk */
    size_t run_hint;          /* map entry of the last offset looked up in it */
    uint64_t in_base;         /* absolute offset of inbuf[0] */
    size_t run_start;         /* inbuf offset of the current run */
    size_t feed_off;          /* run offset of the current yajl feed (a run may be fed in parts) */
    size_t last_ev_run_end;   /* run offset after the last event's '}' in this run; SIZE_MAX none */
    ks_split *split;          /* workers parsing ahead (split.h), or NULL */
    ks_parse_info info;
    int feeding_prefix;
    uint64_t lines_before;    /* newlines before inbuf[0] */
    int64_t last_nl;          /* absolute offset of the last newline before inbuf[0], -1 none */
    /* line and column of the current event's '{', taken before its bytes left the window (a
     * diagnostic about the event names its start, which may lie in a window already dropped) */
    int has_lc;
    uint64_t lc_at, lc_line, lc_col;
    /* the end of the last token yajl accepted (it called back): a run offset while the run is fed
     * (acc_set), made absolute once the run is settled (has_acc, acc_abs). The bytes from there on
     * are not dropped from the window (keep: bytes of earlier reader windows still needed), so a
     * syntax error or a repair after it is placed whatever the chunking (issue 16). */
    size_t acc_run;
    int acc_set, has_acc;
    uint64_t acc_abs;
    /* the newlines before the position line_col was last asked for in the window, and the last
     * of them: facts about the input, so the next count in the window starts there rather than
     * at the window's start (a diagnostic cost a scan of the window each) */
    int lcc_ok;
    uint64_t lcc_abs, lcc_lines;
    int64_t lcc_last;
    ks_buf keep;              /* raw bytes [keep_base, in_base) of earlier reader windows */
    uint64_t keep_base;
    uint64_t keep_lines;      /* newlines before keep_base */
    int64_t keep_last_nl;     /* the last of them, -1 none */

    ks_repair rep;
    ks_pending_repair *pr;
    size_t npr, pr_cap;       /* repairs of the current run, committed once yajl accepts them */
    int strict_repair;        /* first repair in strict mode: kind + 1 */
    uint64_t strict_repair_at;

    enum mode mode;
    enum resync_target rs_target;
    int rs_state;
    uint64_t rs_from;         /* where the resync scan began (for the skipped byte count) */
    /* RS_EVENT: brackets outside strings since the scan began; the ']' that takes rs_depth to
     * -rs_close closes traceEvents (a broken last event does not hide the metadata after it) */
    int64_t rs_depth, rs_close;
    uint8_t rs_str, rs_esc;
    /* the '{' of the event the scan may resume at (its start), with its line and column once it
     * left the window (rs_brace_lc) */
    uint64_t rs_brace, rs_brace_line, rs_brace_col;
    int rs_brace_lc;

    /* caches */
    uint8_t *cat_kind;        /* by category id: ks_kind + 1 (0 = not computed) */
    size_t cat_kind_cap;
    ks_id last_pid, last_tid;
    uint32_t last_track;
    int have_last_track;
    uint32_t last_series;
    struct cat_entry {        /* recent categories and their ids (len 0: empty slot) */
        char text[48];
        size_t len;
        uint16_t id;
    } cat_cache[CAT_CACHE];
    unsigned cat_next;

    /* a worker's parser (split.h): committed events go to a unit, not to the store */
    ks_unit *unit;
    int unit_bad;             /* the unit met something only the main parser may do */
    uint32_t unit_no;
    uint32_t *str_stamp, *cat_stamp, *track_stamp; /* by local id: unit_no of its last use */
    size_t str_stamp_cap, cat_stamp_cap, track_stamp_cap;
} parser;

/* made once for every thread: `ranks` parses several traces at once */
static locale_t c_loc;
static pthread_once_t c_loc_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t c_locale(void)
{
    pthread_once(&c_loc_once, make_c_locale);
    return c_loc;
}

/* ---- positions ----------------------------------------------------------------------------- */

/* The input offset of the end of the token that ends at run offset out, raw being the run's
 * input. The pre-filter maps an offset where it dropped a trailing comma past the comma, but a
 * read that ended at the comma ends the run before it: the token's end is named before the comma
 * either way (issue 16). Only commas are dropped at such a point (the blank filter maps its drops
 * to where they begin), so an input ',' just before that the output does not have is one. */
static size_t token_end_in(const ks_run *run, const char *raw, size_t out, size_t *hint)
{
    size_t in = ks_run_in_offset_hint(run, out, hint);
    if (in && raw[in - 1] == ',' && (!out || run->res[out - 1] != ','))
        in--;
    return in;
}

static uint64_t cur_offset(parser *p)
{
    if (p->feeding_prefix)
        return p->in_base + p->run_start;
    size_t out_off = p->feed_off + yajl_get_bytes_consumed(p->h);
    return p->in_base + p->run_start + token_end_in(&p->run, p->inbuf + p->run_start, out_off, &p->run_hint);
}

static void line_col(parser *p, uint64_t abs, uint64_t *line, uint64_t *col)
{
    if (p->has_lc && abs == p->lc_at && abs < p->in_base) {
        *line = p->lc_line;
        *col = p->lc_col;
        return;
    }
    ks_text_win w = {p->inbuf, p->in_len, p->in_base, p->lines_before, p->last_nl};
    if (p->keep.n && abs >= p->keep_base && abs < p->in_base) {
        /* in the bytes kept from an earlier reader window */
        w = (ks_text_win){p->keep.p, p->keep.n, p->keep_base, p->keep_lines, p->keep_last_nl};
        ks_text_line_col(&w, abs, line, col);
        return;
    }
    int in_window = abs >= p->in_base && abs - p->in_base <= p->in_len;
    if (in_window && p->lcc_ok && p->lcc_abs >= p->in_base && p->lcc_abs <= abs) {
        /* count on from the last position asked for (positions come mostly in order) */
        size_t off = (size_t)(p->lcc_abs - p->in_base);
        w = (ks_text_win){p->inbuf + off, p->in_len - off, p->lcc_abs, p->lcc_lines, p->lcc_last};
    }
    ks_text_line_col(&w, abs, line, col);
    if (in_window) {
        p->lcc_ok = 1;
        p->lcc_abs = abs;
        p->lcc_lines = *line - 1;
        p->lcc_last = (int64_t)abs - (int64_t)*col; /* the column counts from the byte after it */
    }
}

/* The raw input byte at absolute offset abs, from the kept bytes or the window; -1 past both. */
static int raw_byte(const parser *p, uint64_t abs)
{
    if (abs < p->in_base) {
        if (p->keep.n && abs >= p->keep_base && abs - p->keep_base < p->keep.n)
            return (unsigned char)p->keep.p[abs - p->keep_base];
        return -1;
    }
    return abs - p->in_base < p->in_len ? (unsigned char)p->inbuf[abs - p->in_base] : -1;
}

/* The first byte at or after abs that is not a JSON blank (the start of the next token). */
static uint64_t next_token(const parser *p, uint64_t abs)
{
    for (;;) {
        int c = raw_byte(p, abs);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return abs;
        abs++;
    }
}

static void diag_at(parser *p, const char *id, ks_severity sev, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void diag_at(parser *p, const char *id, ks_severity sev, uint64_t at, const char *fmt, ...)
{
    if (p->unit) {
        p->unit_bad = 1; /* positions are the main parser's */
        return;
    }
    const ks_diag_kind *k = ks_diag_get(&p->t->diag, id);
    if (k && k->nexamples >= KS_DIAG_EXAMPLES) {
        ks_diag_count(&p->t->diag, id, sev, 1);
        return;
    }
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    line_col(p, at, &line, &col);
    ks_diag_add_at(&p->t->diag, id, sev, at, line, col, "%s", buf);
}

static int fatal_at(parser *p, uint64_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fatal_at(parser *p, uint64_t at, const char *fmt, ...)
{
    if (p->unit) {
        p->unit_bad = 1;
        p->failed = 1;
        return 0;
    }
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    line_col(p, at, &line, &col);
    ks_error_set_at(p->err, at, line, col, "%s", buf);
    p->failed = 1;
    return 0;
}

/* ---- first uses in a worker's unit (unit.h) --------------------------------------------------- */

/* 1 the first time local id is seen in the current unit. */
static int first_use(parser *p, uint32_t **stamp, size_t *cap, uint32_t id)
{
    if (id >= *cap) {
        size_t old = *cap;
        KS_GROW(*stamp, *cap, (size_t)id + 1);
        memset(*stamp + old, 0, (*cap - old) * sizeof **stamp);
    }
    if ((*stamp)[id] == p->unit_no)
        return 0;
    (*stamp)[id] = p->unit_no;
    return 1;
}

static void note_use(parser *p, uint32_t id, const char *text, size_t len, int is_cat)
{
    ks_unit *u = p->unit;
    KS_GROW(u->use, u->use_cap, u->nuse + 1);
    ks_unit_use *w = &u->use[u->nuse++];
    w->local = id;
    w->text = text;
    w->len = (uint32_t)len;
    w->is_cat = (uint8_t)is_cat;
}

/* Every string of an event is interned through here: a worker logs its first use in the unit. */
static ks_str intern(parser *p, const char *s, size_t len)
{
    ks_str id = ks_strtab_intern(p->t->strings, s, len);
    if (p->unit && id && first_use(p, &p->str_stamp, &p->str_stamp_cap, id))
        note_use(p, id, ks_strtab_get(p->t->strings, id), len, 0);
    return id;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static ks_id parse_id_number(parser *p, const char *s, size_t len)
{
    ks_id id = {0, KS_ID_NUM};
    int64_t v;
    int r = int64_of(s, len, &v);
    if (r == KS_NUM_EXACT) {
        id.type = KS_ID_INT;
        id.v = v;
        return id;
    }
    if (r == KS_NUM_RANGE && s[0] != '-') {
        /* above INT64_MAX: keep the uint64 bits when it fits */
        uint64_t u = 0;
        int ok = 1;
        for (size_t i = 0; i < len && ok; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (u > (UINT64_MAX - d) / 10)
                ok = 0;
            else
                u = u * 10 + d;
        }
        if (ok) {
            id.type = KS_ID_UINT;
            id.v = (int64_t)u;
            return id;
        }
    }
    id.v = intern(p, s, len);
    return id;
}

/* "-?[1-9][0-9]*" or "0": the text a number would have been written as. */
static int canonical_int(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    if (i >= len || len - i > 19)
        return 0;
    if (s[i] == '0')
        return len - i == 1 && i == 0;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Flow ids: numbers as integers; strings parsed as hex (Perfetto), else hashed. */
static int64_t parse_flow_id(const char *s, size_t len, int is_string, uint16_t *flags)
{
    int64_t v;
    if (!is_string) {
        if (int64_of(s, len, &v) == KS_NUM_EXACT)
            return v;
        *flags |= KS_EF_FLOW_STRID;
        return (int64_t)ks_hash(s, len);
    }
    *flags |= KS_EF_FLOW_STRID;
    size_t i = 0;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        i = 2;
    if (i < len && len - i <= 16) {
        uint64_t u = 0;
        size_t j;
        for (j = i; j < len; j++) {
            char c = s[j];
            unsigned d;
            if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
            else break;
            u = u * 16 + d;
        }
        if (j == len)
            return (int64_t)u;
    }
    return (int64_t)ks_hash(s, len);
}

static ks_kind kind_of(parser *p, uint16_t cat, const ks_str name, char ph)
{
    if (cat >= p->cat_kind_cap) {
        size_t old = p->cat_kind_cap;
        KS_GROW(p->cat_kind, p->cat_kind_cap, (size_t)cat + 1);
        memset(p->cat_kind + old, 0, p->cat_kind_cap - old);
    }
    if (!p->cat_kind[cat]) {
        const char *c = ks_trace_cat_name(p->t, cat);
        p->cat_kind[cat] = (uint8_t)(ks_classify(c, strlen(c), NULL, 0) + 1);
    }
    ks_kind k = (ks_kind)(p->cat_kind[cat] - 1);
    if (k == KS_K_OTHER && name && (ph == 's' || ph == 't' || ph == 'f')) {
        const char *n = ks_strtab_get(p->t->strings, name);
        k = ks_classify(NULL, 0, n, strlen(n));
    }
    return k;
}

static uint32_t track_of(parser *p, ks_id pid, ks_id tid)
{
    if (p->have_last_track && ks_id_equal(pid, p->last_pid) && ks_id_equal(tid, p->last_tid))
        return p->last_track;
    p->last_track = ks_trace_track(p->t, pid, tid);
    if (p->unit && first_use(p, &p->track_stamp, &p->track_stamp_cap, p->last_track)) {
        ks_unit *u = p->unit;
        KS_GROW(u->tr, u->tr_cap, u->ntr + 1);
        u->tr[u->ntr].local = p->last_track;
        u->tr[u->ntr].pid = pid;
        u->tr[u->ntr].tid = tid;
        u->ntr++;
    }
    p->last_pid = pid;
    p->last_tid = tid;
    p->have_last_track = 1;
    return p->last_track;
}

static uint32_t series_of(parser *p, uint32_t track, const char *name, const char *key, size_t klen)
{
    ks_trace *t = p->t;
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s %.*s", name, (int)klen, key);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    ks_str sname = ks_strtab_intern(t->strings, buf, (size_t)n);
    if (p->last_series < t->nseries && t->series[p->last_series].track == track &&
        t->series[p->last_series].name == sname)
        return p->last_series;
    for (size_t i = 0; i < t->nseries; i++)
        if (t->series[i].track == track && t->series[i].name == sname)
            return p->last_series = (uint32_t)i;
    KS_GROW(t->series, t->series_cap, t->nseries + 1);
    t->series[t->nseries].track = track;
    t->series[t->nseries].name = sname;
    return p->last_series = (uint32_t)t->nseries++;
}

/* ---- committing an event ------------------------------------------------------------------- */

static void apply_metadata(parser *p)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    const char *n = ks_strtab_get(t->strings, e->name);
    if (!strcmp(n, "process_name") || !strcmp(n, "process_labels") ||
        !strcmp(n, "process_sort_index")) {
        uint32_t pi = ks_trace_process(t, e->pid);
        ks_process *pr = &t->procs[pi];
        if (n[8] == 'n' && e->has_arg_name)
            pr->name = e->arg_name;
        else if (n[8] == 'l' && e->has_arg_labels)
            pr->labels = e->arg_labels;
        else if (n[8] == 's' && e->has_arg_sort) {
            pr->sort_index = (int32_t)e->arg_sort;
            pr->has_sort_index = 1;
        }
        return;
    }
    if (!strcmp(n, "thread_name") || !strcmp(n, "thread_sort_index")) {
        KS_GROW(p->pt, p->pt_cap, p->npt + 1);
        pending_thread *q = &p->pt[p->npt++];
        memset(q, 0, sizeof *q);
        q->pid = e->pid;
        q->tid = e->tid;
        if (n[7] == 'n' && e->has_arg_name) {
            q->name = e->arg_name;
            q->has_name = 1;
        } else if (n[7] == 's' && e->has_arg_sort) {
            q->sort_index = (int32_t)e->arg_sort;
            q->has_sort = 1;
        }
        return;
    }
    ks_diag_count(&t->diag, "parse.ignored_metadata", KS_SEV_INFO, 1);
}

static void commit_counter(parser *p, uint32_t track)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    const char *name = ks_strtab_get(t->strings, e->name);
    for (size_t i = 0; i < e->ncounters; i++) {
        counter_kv *kv = &p->kv[i];
        uint32_t s = series_of(p, track, name, p->kvkeys.p + kv->key_off, kv->key_len);
        KS_GROW(t->counters, t->counters_cap, t->ncounters + 1);
        ks_counter_sample *c = &t->counters[t->ncounters++];
        c->ts = e->ts;
        c->series = s;
        c->value = kv->value;
    }
}

/* Keep the collective metadata of the event just appended to track (main parser only). */
static void commit_coll(parser *p, uint32_t track)
{
    ks_trace *t = p->t;
    ks_coll_info c = p->ev.coll;
    c.track = track;
    c.ev = (uint32_t)(t->tracks[track].n - 1);
    c.in_nelems--;
    c.out_nelems--;
    c.group_size--;
    c.seq--;
    KS_PUSH(t->colls, t->ncolls, t->colls_cap, c);
}

static void commit_event(parser *p)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    p->events_read++;
    if (!e->nkeys) {
        ks_diag_count(&t->diag, "parse.empty_event", KS_SEV_INFO, 1);
        return;
    }
    if (!e->has_ph) {
        diag_at(p, "parse.missing_ph", KS_SEV_WARNING, e->start, "event without \"ph\" skipped");
        return;
    }
    if (e->ph_bad || (unsigned char)e->ph >= 128) {
        t->phase_other++;
        diag_at(p, "parse.ignored_phase", KS_SEV_INFO, e->start, "phase not a single ASCII character");
        return;
    }
    char ph = e->ph;
    if (p->unit && (ph == 'M' || ph == 'C')) {
        p->unit_bad = 1; /* process/thread tables and counters: the main parser's */
        return;
    }
    t->by_phase[(unsigned char)ph]++;
    t->by_cat[e->cat]++;
    if (ph == 'M') {
        apply_metadata(p);
        return;
    }
    int stored = 0;
    switch (ph) {
    case 'X': case 'B': case 'E': case 'i': case 'I': case 'R': case 's': case 't': case 'f':
    case 'b': case 'n': case 'e': case 'S': case 'T': case 'p': case 'F': case 'C':
        stored = 1;
        break;
    default:
        ks_diag_count(&t->diag, "parse.ignored_phase", KS_SEV_INFO, 1);
        return;
    }
    (void)stored;
    if (!e->has_ts) {
        diag_at(p, "parse.missing_ts", KS_SEV_WARNING, e->start, "'%c' event without \"ts\" skipped", ph);
        return;
    }
    if (e->ts_status < 0) {
        diag_at(p, "parse.bad_ts", KS_SEV_WARNING, e->start, "\"ts\" %s: event skipped",
                e->ts_status == KS_NUM_RANGE ? "out of the int64 ns range" : "is not a number");
        return;
    }
    int64_t dur = KS_NO_DUR;
    if (ph == 'X') {
        if (!e->has_dur) {
            diag_at(p, "parse.x_without_dur", KS_SEV_WARNING, e->start, "'X' event without \"dur\" skipped");
            return;
        }
        if (e->dur_status < 0) {
            diag_at(p, "parse.bad_dur", KS_SEV_WARNING, e->start, "\"dur\" %s: event skipped",
                    e->dur_status == KS_NUM_RANGE ? "out of the int64 ns range" : "is not a number");
            return;
        }
        if (e->dur < 0) {
            diag_at(p, "parse.negative_dur", KS_SEV_WARNING, e->start, "'X' event with negative \"dur\" skipped");
            return;
        }
        if (e->ts > INT64_MAX - e->dur) {
            diag_at(p, "parse.bad_dur", KS_SEV_WARNING, e->start, "ts + dur beyond the int64 ns range: event skipped");
            return;
        }
        dur = e->dur;
    }
    if (e->ts_status == KS_NUM_ROUNDED || (ph == 'X' && e->dur_status == KS_NUM_ROUNDED)) {
        e->flags |= KS_EF_TS_INEXACT;
        ks_diag_count(&t->diag, "parse.ts_rounded", KS_SEV_INFO, 1);
    }
    if (e->ts < 0) {
        e->flags |= KS_EF_NEG_TS;
        ks_diag_count(&t->diag, "parse.negative_ts", KS_SEV_INFO, 1);
    }
    uint32_t track = track_of(p, e->pid, e->tid);
    if (ph == 'C') {
        commit_counter(p, track);
        return;
    }
    ks_event rec;
    rec.ts = e->ts;
    rec.dur = dur;
    rec.ext_id = e->ext;
    rec.corr = e->corr;
    rec.aux = e->aux;
    rec.name = e->name;
    rec.stream = e->stream;
    rec.cat = e->cat;
    rec.ph = (uint8_t)ph;
    rec.kind = (uint8_t)ks_classify_event(kind_of(p, e->cat, e->name, ph), ph, e->flags);
    rec.flags = e->flags;
    rec.device = e->device;
    if (p->unit) {
        ks_unit *u = p->unit;
        KS_GROW(u->ev, u->ev_cap, u->nev + 1);
        u->ev[u->nev].ev = rec;
        u->ev[u->nev].track = track;
        u->nev++;
        return;
    }
    ks_trace_append(t, track, &rec);
    if (e->has_coll)
        commit_coll(p, track);
}

/* ---- yajl callbacks ------------------------------------------------------------------------ */

#define P ((parser *)ctx)

/* Every callback: yajl accepted a token ending here (see acc_run). */
static inline void accepted(parser *p)
{
    if (!p->feeding_prefix) {
        p->acc_run = p->feed_off + yajl_get_bytes_consumed(p->h);
        p->acc_set = 1;
    }
}

static inline int top(const parser *p)
{
    return p->ctx;
}

static void push(parser *p, int c)
{
    if (p->depth < (int)sizeof p->stack) {
        p->stack[p->depth++] = (uint8_t)c;
        p->ctx = c;
    }
}

static void pop(parser *p)
{
    if (p->depth)
        p->depth--;
    p->ctx = p->depth ? p->stack[p->depth - 1] : 0;
}

static int enter_skip(parser *p)
{
    if (++p->skip > MAX_SKIP_DEPTH)
        return fatal_at(p, cur_offset(p), "JSON nested deeper than %d levels", MAX_SKIP_DEPTH);
    return 1;
}

static void begin_event(parser *p)
{
    cur_event *e = &p->ev;
    memset(e, 0, sizeof *e);
    e->start = cur_offset(p) - 1; /* yajl has consumed the '{' */
    p->kvkeys.n = 0;
}

static int non_object_event(parser *p)
{
    p->events_read++;
    diag_at(p, "parse.non_object_event", KS_SEV_WARNING, cur_offset(p),
            "traceEvents element is not an object: skipped");
    return 1;
}

static int not_a_trace(parser *p)
{
    return fatal_at(p, cur_offset(p), "not a trace: the top-level JSON value is not an object or array");
}

static int cb_start_map(void *ctx)
{
    parser *p = P;
    accepted(p);
    if (p->skip)
        return enter_skip(p);
    int key = p->key;
    p->key = K_NONE;
    switch (top(p)) {
    case 0:
        if (p->top_done)
            return 1;
        if (!p->t->container)
            p->t->container = '{';
        push(p, CX_TOP_OBJ);
        return 1;
    case CX_TOP_OBJ:
        if (key == K_DIST) {
            push(p, CX_DIST);
            return 1;
        }
        return enter_skip(p);
    case CX_EVENTS:
        begin_event(p);
        push(p, CX_EVENT);
        return 1;
    case CX_EVENT:
        if (key == K_ARGS) {
            push(p, CX_ARGS);
            return 1;
        }
        if (key == K_ID2) {
            push(p, CX_ID2);
            return 1;
        }
        return enter_skip(p);
    case CX_DEVPROPS:
        memset(&p->dp, 0, sizeof p->dp);
        p->dp.id = -1;
        push(p, CX_DEVPROP);
        return 1;
    default:
        return enter_skip(p);
    }
}

static int cb_end_map(void *ctx)
{
    parser *p = P;
    accepted(p);
    if (p->skip) {
        p->skip--;
        return 1;
    }
    int c = top(p);
    pop(p);
    switch (c) {
    case CX_EVENT:
        commit_event(p);
        p->last_commit_end = cur_offset(p);
        if (!p->feeding_prefix)
            p->last_ev_run_end = p->feed_off + yajl_get_bytes_consumed(p->h);
        break;
    case CX_TOP_OBJ:
        p->top_done = 1;
        break;
    case CX_DEVPROP: {
        ks_meta *m = &p->t->meta;
        m->devices = ks_xrealloc(m->devices, (m->ndevices + 1) * sizeof *m->devices);
        m->devices[m->ndevices++] = p->dp;
        break;
    }
    default:
        break;
    }
    return 1;
}

static int cb_start_array(void *ctx)
{
    parser *p = P;
    accepted(p);
    if (p->skip)
        return enter_skip(p);
    int key = p->key;
    p->key = K_NONE;
    switch (top(p)) {
    case 0:
        if (p->top_done)
            return 1;
        if (!p->t->container)
            p->t->container = '[';
        p->in_events_seen = 1;
        push(p, CX_EVENTS);
        return 1;
    case CX_TOP_OBJ:
        if (key == K_TRACE_EVENTS) {
            p->in_events_seen = 1;
            push(p, CX_EVENTS);
            return 1;
        }
        if (key == K_DEVPROPS) {
            push(p, CX_DEVPROPS);
            return 1;
        }
        return enter_skip(p);
    case CX_EVENTS:
        non_object_event(p);
        return enter_skip(p);
    default:
        return enter_skip(p);
    }
}

static int cb_end_array(void *ctx)
{
    parser *p = P;
    accepted(p);
    if (p->skip) {
        p->skip--;
        return 1;
    }
    int c = top(p);
    pop(p);
    if (c == CX_EVENTS) {
        p->events_done = 1;
        if (!p->depth)
            p->top_done = 1;
    }
    return 1;
}

/* a key kinesift reads, given twice in one event (or its args): the last value is used, counted */
static void seen_key(parser *p)
{
    if (p->key <= K_IGNORE || p->key >= 64)
        return;
    uint64_t bit = (uint64_t)1 << p->key;
    if (p->ev.keys_seen & bit)
        ks_diag_count(&p->t->diag, "parse.duplicate_key", KS_SEV_INFO, 1);
    p->ev.keys_seen |= bit;
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len)
{
    parser *p = P;
    accepted(p);
    if (p->skip)
        return 1;
    const char *k = (const char *)key;
    switch (top(p)) {
    case CX_EVENT:
        p->ev.nkeys++;
        p->key = event_key(k, len);
        seen_key(p);
        return 1;
    case CX_ARGS:
        p->key = args_key(k, len);
        seen_key(p);
        if (p->key == K_IGNORE && (!p->ev.has_ph || p->ev.ph == 'C')) {
            /* a counter series, unless the event turns out not to be a counter */
            p->key = K_COUNTER;
            KS_GROW(p->kv, p->kv_cap, p->ev.ncounters + 1);
            p->kv[p->ev.ncounters].key_off = p->kvkeys.n;
            p->kv[p->ev.ncounters].key_len = len;
            ks_buf_put(&p->kvkeys, k, len);
        }
        return 1;
    case CX_TOP_OBJ:
        p->key = top_key(k, len);
        if (p->key != K_META && !p->feeding_prefix) {
            /* a duplicate traceEvents adds its events; the other values: the last one wins */
            if (p->top_seen & (1u << p->key))
                ks_diag_count(&p->t->diag, "parse.duplicate_key", KS_SEV_INFO, 1);
            p->top_seen |= 1u << p->key;
        }
        if (p->key == K_META)
            p->meta_key = ks_strtab_intern(p->t->strings, k, len);
        return 1;
    case CX_ID2:
        p->key = (KEYIS("local") || KEYIS("global")) ? K_ID : K_IGNORE;
        return 1;
    case CX_DIST:
        p->key = KEYIS("rank") ? K_RANK : KEYIS("world_size") ? K_WORLD : KEYIS("backend") ? K_BACKEND : K_IGNORE;
        return 1;
    case CX_DEVPROP:
        p->key = KEYIS("id") ? K_DP_ID : KEYIS("name") ? K_DP_NAME : KEYIS("totalGlobalMem") ? K_DP_MEM
               : KEYIS("computeMajor") ? K_DP_MAJOR : KEYIS("computeMinor") ? K_DP_MINOR
               : KEYIS("numSms") ? K_DP_SMS : K_IGNORE;
        return 1;
    default:
        p->key = K_IGNORE;
        return 1;
    }
}

enum vtype { V_STRING, V_NUMBER, V_TRUE, V_FALSE, V_NULL };

static void set_meta_entry(parser *p, const char *s, size_t len, int is_string)
{
    ks_meta *m = &p->t->meta;
    if (len > MAX_META_VALUE) {
        ks_diag_count(&p->t->diag, "parse.long_metadata_skipped", KS_SEV_INFO, 1);
        return;
    }
    ks_str v = ks_strtab_intern(p->t->strings, s, len);
    for (size_t i = 0; i < m->nentries; i++)
        if (m->entries[i].key == p->meta_key) {
            ks_diag_count(&p->t->diag, "parse.duplicate_key", KS_SEV_INFO, 1);
            m->entries[i].value = v;
            m->entries[i].is_string = (uint8_t)is_string;
            return;
        }
    m->entries = ks_xrealloc(m->entries, (m->nentries + 1) * sizeof *m->entries);
    m->entries[m->nentries].key = p->meta_key;
    m->entries[m->nentries].value = v;
    m->entries[m->nentries].is_string = (uint8_t)is_string;
    m->nentries++;
}

static int int_value(enum vtype vt, const char *s, size_t len, int64_t *v)
{
    if (vt != V_NUMBER && vt != V_STRING)
        return 0;
    return int64_of(s, len, v) == KS_NUM_EXACT;
}

/* ks_trace_cat, remembering the last few categories: events come in runs of a handful. */
static uint16_t category(parser *p, const char *s, size_t len)
{
    uint16_t id = 0;
    for (int i = 0; i < CAT_CACHE; i++) {
        const struct cat_entry *c = &p->cat_cache[i];
        if (len && len == c->len && !memcmp(s, c->text, len)) {
            id = c->id;
            goto found;
        }
    }
    id = ks_trace_cat(p->t, s, len);
    if (len && len <= sizeof p->cat_cache[0].text && p->t->ncats < UINT16_MAX) {
        /* a real id, not the overflow slot */
        struct cat_entry *c = &p->cat_cache[p->cat_next++ % CAT_CACHE];
        memcpy(c->text, s, len);
        c->len = len;
        c->id = id;
    }
found:
    if (p->unit && id && first_use(p, &p->cat_stamp, &p->cat_stamp_cap, id))
        note_use(p, id, ks_trace_cat_name(p->t, id), len, 1);
    return id;
}

static int event_value(parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    switch (key) {
    case K_PH:
        if (vt == V_STRING) {
            e->has_ph = 1;
            e->ph_bad = len != 1;
            e->ph = len ? s[0] : 0;
        }
        break;
    case K_NAME:
        if (vt == V_STRING || vt == V_NUMBER) {
            e->name = intern(p, s, len);
            e->has_name = 1;
        }
        break;
    case K_CAT:
        if (vt == V_STRING) {
            e->cat = category(p, s, len);
            e->has_cat = 1;
        }
        break;
    case K_TS:
        if (vt == V_NUMBER || vt == V_STRING) {
            e->has_ts = 1;
            e->ts_status = us_to_ns(s, len, &e->ts);
        }
        break;
    case K_DUR:
        if (vt == V_NUMBER || vt == V_STRING) {
            e->has_dur = 1;
            e->dur_status = us_to_ns(s, len, &e->dur);
        }
        break;
    case K_PID:
    case K_TID: {
        ks_id id = {0, KS_ID_NONE};
        if (vt == V_NUMBER)
            id = parse_id_number(p, s, len);
        else if (vt == V_STRING) {
            int64_t v;
            if (canonical_int(s, len) && int64_of(s, len, &v) == KS_NUM_EXACT) {
                /* "25738": 2021 Kineto wrote the same thread as a string on slices and as a
                 * number on instants and flows; a canonical decimal string is that number */
                id.type = KS_ID_INT;
                id.v = v;
                ks_diag_count(&t->diag, "parse.numeric_string_id", KS_SEV_INFO, 1);
            } else {
                id.type = KS_ID_STR;
                id.v = intern(p, s, len);
            }
        }
        if (key == K_PID)
            e->pid = id;
        else
            e->tid = id;
        break;
    }
    case K_ID:
        if (vt == V_NUMBER || vt == V_STRING) {
            e->corr = parse_flow_id(s, len, vt == V_STRING, &e->flags);
            e->flags |= KS_EF_CORR;
        }
        break;
    case K_BP:
        if (vt == V_STRING && len == 1 && s[0] == 'e')
            e->flags |= KS_EF_BP_E;
        break;
    case K_SCOPE:
        if (vt == V_STRING && len == 1) {
            if (s[0] == 'g')
                e->flags |= KS_EF_SCOPE_G;
            else if (s[0] == 'p')
                e->flags |= KS_EF_SCOPE_P;
        }
        break;
    default:
        break;
    }
    return 1;
}

/* A collective arg: strings interned, numbers kept plus one (0 = absent). A worker leaves events
 * with collective metadata to the main parser (the side table is the main parser's). */
static void coll_value(parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    int64_t v;
    if (p->unit) {
        p->unit_bad = 1;
        return;
    }
    if (vt == V_STRING) {
        ks_str id = intern(p, s, len);
        if (key == K_COLL_NAME) {
            e->coll.name = id;
            e->has_coll = 1;
        } else if (key == K_COLL_PG)
            e->coll.pg_name = id;
        else if (key == K_COLL_RANKS)
            e->coll.pg_ranks = id;
        else if (key == K_COLL_DTYPE)
            e->coll.dtype = id;
        else if (key == K_COLL_SEQ && ks_parse_int64(s, len, &v) == KS_NUM_EXACT && v >= 0)
            e->coll.seq = v + 1;
        return;
    }
    if (!int_value(vt, s, len, &v) || v < 0 || v == INT64_MAX)
        return;
    if (key == K_COLL_IN)
        e->coll.in_nelems = v + 1;
    else if (key == K_COLL_OUT)
        e->coll.out_nelems = v + 1;
    else if (key == K_COLL_GS)
        e->coll.group_size = v + 1;
    else if (key == K_COLL_SEQ)
        e->coll.seq = v + 1;
}

static int args_value(parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    int64_t v;
    switch (key) {
    case K_EXT:
        if (int_value(vt, s, len, &v)) {
            e->ext = v;
            e->flags |= KS_EF_EXT;
        }
        break;
    case K_CORR:
        if (int_value(vt, s, len, &v) && !(e->flags & KS_EF_CORR && (e->ph == 's' || e->ph == 'f' || e->ph == 't'))) {
            e->corr = v;
            e->flags |= KS_EF_CORR;
        }
        break;
    case K_STREAM:
        if (int_value(vt, s, len, &v) && v >= INT32_MIN && v <= INT32_MAX) {
            e->stream = (int32_t)v;
            e->flags |= KS_EF_STREAM;
        }
        break;
    case K_DEVICE:
        if (int_value(vt, s, len, &v) && v >= INT16_MIN && v <= INT16_MAX) {
            e->device = (int16_t)v;
            e->flags |= KS_EF_DEVICE;
        }
        break;
    case K_BYTES:
        if (int_value(vt, s, len, &v)) {
            e->aux = v;
            e->flags |= KS_EF_BYTES;
        }
        break;
    case K_FINISHED:
        if (vt == V_FALSE)
            e->flags |= KS_EF_UNFINISHED;
        break;
    case K_ARG_NAME:
        if (vt == V_STRING) {
            e->arg_name = intern(p, s, len);
            e->has_arg_name = 1;
        }
        break;
    case K_ARG_LABELS:
        if (vt == V_STRING) {
            e->arg_labels = intern(p, s, len);
            e->has_arg_labels = 1;
        }
        break;
    case K_ARG_SORT:
        if (int_value(vt, s, len, &v)) {
            e->arg_sort = v;
            e->has_arg_sort = 1;
        }
        break;
    case K_COLL_NAME: case K_COLL_PG: case K_COLL_RANKS: case K_COLL_DTYPE:
    case K_COLL_IN: case K_COLL_OUT: case K_COLL_GS: case K_COLL_SEQ:
        coll_value(p, key, vt, s, len);
        break;
    case K_COUNTER:
        if (vt == V_NUMBER && len < 64) {
            char buf[64];
            memcpy(buf, s, len);
            buf[len] = 0;
            p->kv[e->ncounters].value = strtod_l(buf, NULL, c_locale());
            e->ncounters++;
        }
        break;
    default:
        break;
    }
    return 1;
}

static int top_value(parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    ks_meta *m = &p->t->meta;
    ks_strtab *st = p->t->strings;
    int64_t v;
    switch (key) {
    case K_SCHEMA:
        m->schema_version = ks_strtab_intern(st, s, len);
        break;
    case K_BASETIME:
        if (int_value(vt, s, len, &v)) {
            m->base_time_ns = v;
            m->has_base_time = 1;
        }
        break;
    case K_DTU:
        if (vt == V_STRING)
            m->display_time_unit = ks_strtab_intern(st, s, len);
        break;
    case K_TRACENAME:
        if (vt == V_STRING)
            m->trace_name = ks_strtab_intern(st, s, len);
        break;
    case K_META:
        if (vt == V_STRING || vt == V_NUMBER)
            set_meta_entry(p, s, len, vt == V_STRING);
        else if (vt == V_TRUE)
            set_meta_entry(p, "true", 4, 0);
        else if (vt == V_FALSE)
            set_meta_entry(p, "false", 5, 0);
        else
            set_meta_entry(p, "null", 4, 0);
        break;
    case K_TRACE_EVENTS:
        diag_at(p, "parse.trace_events_not_array", KS_SEV_WARNING, cur_offset(p),
                "\"traceEvents\" is not an array");
        break;
    default:
        break;
    }
    return 1;
}

static int value(parser *p, enum vtype vt, const char *s, size_t len)
{
    accepted(p);
    if (p->skip)
        return 1;
    int key = p->key;
    p->key = K_NONE;
    switch (top(p)) {
    case 0:
        if (p->top_done)
            return 1;
        return not_a_trace(p);
    case CX_EVENTS:
        return non_object_event(p);
    case CX_EVENT:
        return event_value(p, key, vt, s, len);
    case CX_ARGS:
        return args_value(p, key, vt, s, len);
    case CX_ID2:
        if (key == K_ID)
            return event_value(p, K_ID, vt, s, len);
        return 1;
    case CX_TOP_OBJ:
        return top_value(p, key, vt, s, len);
    case CX_DIST: {
        int64_t v;
        if (key == K_RANK && int_value(vt, s, len, &v)) {
            p->t->meta.rank = v;
            p->t->meta.has_rank = 1;
        } else if (key == K_WORLD && int_value(vt, s, len, &v)) {
            p->t->meta.world_size = v;
            p->t->meta.has_world_size = 1;
        } else if (key == K_BACKEND && vt == V_STRING) {
            p->t->meta.backend = ks_strtab_intern(p->t->strings, s, len);
        }
        return 1;
    }
    case CX_DEVPROP: {
        int64_t v = 0;
        int ok = int_value(vt, s, len, &v);
        switch (key) {
        case K_DP_ID: if (ok) p->dp.id = v; break;
        case K_DP_NAME: if (vt == V_STRING) p->dp.name = ks_strtab_intern(p->t->strings, s, len); break;
        case K_DP_MEM: if (ok) p->dp.total_global_mem = v; break;
        case K_DP_MAJOR: if (ok) p->dp.compute_major = v; break;
        case K_DP_MINOR: if (ok) p->dp.compute_minor = v; break;
        case K_DP_SMS: if (ok) p->dp.num_sms = v; break;
        default: break;
        }
        return 1;
    }
    default:
        return 1;
    }
}

static int cb_null(void *ctx) { return value(P, V_NULL, "", 0); }
static int cb_boolean(void *ctx, int b) { return value(P, b ? V_TRUE : V_FALSE, "", 0); }
static int cb_number(void *ctx, const char *s, size_t len) { return value(P, V_NUMBER, s, len); }
static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    return value(P, V_STRING, (const char *)s, len);
}

static const yajl_callbacks callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

#undef P

/* ---- feeding ------------------------------------------------------------------------------- */

static yajl_handle new_handle(parser *p)
{
    /* yajl's allocations go through the library's out-of-memory handler too */
    yajl_handle h = yajl_alloc(&callbacks, ks_yajl_alloc_funcs(), p);
    if (h)
        yajl_config(h, yajl_dont_validate_strings, 1); /* the pre-filter validates UTF-8 */
    return h;
}

static void on_repair(void *ctx, int kind, size_t in_off)
{
    parser *p = ctx;
    KS_GROW(p->pr, p->pr_cap, p->npr + 1);
    p->pr[p->npr].kind = kind;
    p->pr[p->npr].at = p->in_base + p->run_start + in_off;
    p->npr++;
}

/* Count the pending repairs that lie before limit (yajl accepted them: a token ended after them,
 * or the syntax error lies after them); the others stay pending, in order. After a syntax error
 * the caller drops them: they are filtered again after the resynchronisation. */
static void commit_repairs(parser *p, uint64_t limit)
{
    size_t kept = 0;
    static const char *const what[] = {
        "unescaped '\"' inside a string escaped",
        "raw control character inside a string escaped",
        "invalid escape: backslash taken literally",
        "invalid UTF-8 byte replaced by U+FFFD",
        "trailing comma removed",
    };
    for (size_t i = 0; i < p->npr; i++) {
        int kind = p->pr[i].kind;
        uint64_t at = p->pr[i].at;
        if (at >= limit) {
            p->pr[kept++] = p->pr[i];
            continue;
        }
        if (p->strict && kind != KS_REPAIR_COMMA && !p->strict_repair) {
            p->strict_repair = kind + 1;
            p->strict_repair_at = at;
        }
        diag_at(p, ks_repair_kind_id(kind), kind == KS_REPAIR_COMMA ? KS_SEV_INFO : KS_SEV_WARNING,
                at, "%s", what[kind]);
    }
    p->npr = kept;
}

/* The first repair in strict mode is the error. Returns 0 when there was one (err set). */
static int strict_repair_ok(parser *p, ks_error *err)
{
    if (!p->strict_repair)
        return 1;
    uint64_t line, col;
    line_col(p, p->strict_repair_at, &line, &col);
    ks_error_set_at(err, p->strict_repair_at, line, col, "malformed string: %s (--strict)",
                    ks_repair_kind_id(p->strict_repair - 1) + 6);
    return 0;
}

/* Drop inbuf[0..pos), counting its newlines. */
/* inbuf[0..upto) is about to be dropped: keep the line and column of the current event's start
 * when it lies there */
static void remember_event_start(parser *p, size_t upto)
{
    uint64_t b = p->rs_brace;
    if (p->mode == M_RESYNC && p->rs_state == 2 && !p->rs_brace_lc && b >= p->in_base &&
        b < p->in_base + upto) {
        line_col(p, b, &p->rs_brace_line, &p->rs_brace_col);
        p->rs_brace_lc = 1;
    }
    uint64_t s = p->ev.start;
    if (s >= p->in_base && s < p->in_base + upto) {
        line_col(p, s, &p->lc_line, &p->lc_col);
        p->lc_at = s;
        p->has_lc = 1;
    }
}

/* Where the window may be cut before reading on, at most pos: not after the end of the last
 * accepted token (see acc_abs). */
static size_t drop_point(const parser *p, size_t pos)
{
    if (p->mode == M_PARSE && p->has_acc && p->acc_abs >= p->in_base && p->acc_abs - p->in_base < pos)
        return (size_t)(p->acc_abs - p->in_base);
    return pos;
}

static void discard(parser *p, size_t pos)
{
    if (!pos)
        return;
    remember_event_start(p, pos);
    ks_text_count(p->inbuf, pos, p->in_base, &p->lines_before, &p->last_nl);
    memmove(p->inbuf, p->inbuf + pos, p->in_len - pos);
    p->in_len -= pos;
    p->in_base += pos;
}

static char *yajl_message(yajl_handle h)
{
    unsigned char *m = yajl_get_error(h, 0, NULL, 0);
    char *s = ks_xstrdup(m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(h, m);
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = 0;
    return s;
}

/* Decide what to do after yajl reported an error at absolute offset at. Returns 0 when the error
 * is fatal (err set), else 1 with p->mode set. */
static int on_syntax_error(parser *p, uint64_t at, const char *msg)
{
    int in_events = p->depth >= 1 && p->stack[0] == CX_EVENTS;
    int in_event = 0;
    for (int i = 0; i < p->depth; i++) {
        if (p->stack[i] == CX_EVENTS)
            in_events = 1;
        if (p->stack[i] == CX_EVENT)
            in_event = 1;
    }
    if (p->strict)
        return fatal_at(p, at, "invalid JSON: %s", msg);
    if (!p->t->container)
        return fatal_at(p, at, "%s: %s", raw_byte(p, at) == 0 ? "not JSON" : "not a JSON trace", msg);
    if (p->top_done) {
        diag_at(p, "parse.trailing_garbage", KS_SEV_WARNING, at, "bytes after the trace ignored: %s", msg);
        p->mode = M_STOP;
        return 1;
    }
    if (in_events || in_event) {
        diag_at(p, "parse.skipped_event", KS_SEV_ERROR, at, "event skipped: %s", msg);
        p->rs_target = RS_EVENT;
        int ev = 0;
        while (ev < p->depth && p->stack[ev] != CX_EVENTS)
            ev++;
        /* containers open inside traceEvents, then traceEvents itself */
        p->rs_close = (int64_t)(p->depth - ev - 1) + p->skip + 1;
        p->rs_depth = 0;
        p->rs_str = p->rs_esc = 0;
    } else if (p->t->container == '{' && !p->in_events_seen) {
        diag_at(p, "parse.skipped_metadata", KS_SEV_WARNING, at, "metadata skipped up to \"traceEvents\": %s", msg);
        p->rs_target = RS_TRACE_EVENTS;
    } else {
        diag_at(p, "parse.skipped_tail", KS_SEV_WARNING, at, "metadata after the events ignored: %s", msg);
        p->mode = M_STOP;
        return 1;
    }
    p->mode = M_RESYNC;
    p->rs_state = 0;
    p->rs_from = at;
    return 1;
}

/* Follow the brackets outside strings while looking for the next event: 1 at the ']' that closes
 * traceEvents, when it comes before any next event (the broken event was the last one). */
static int closes_events(parser *p, char c)
{
    if (p->rs_str) {
        if (p->rs_esc)
            p->rs_esc = 0;
        else if (c == '\\')
            p->rs_esc = 1;
        else if (c == '"')
            p->rs_str = 0;
        return 0;
    }
    if (c == '"')
        p->rs_str = 1;
    else if (c == '{' || c == '[')
        p->rs_depth++;
    else if (c == '}' || c == ']')
        return --p->rs_depth <= -p->rs_close && c == ']';
    return 0;
}

/* Scan inbuf[*pos..in_len) for the resynchronisation point. Returns 1 when found: *pos is where
 * parsing resumes and *prefix the synthetic JSON to feed before it. */
static int resync_scan(parser *p, size_t *pos, const char **prefix)
{
    static const char lit[] = "\"traceEvents\"";
    const char *b = p->inbuf;
    for (size_t i = *pos; i < p->in_len; i++) {
        char c = b[i];
        int blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (p->rs_target == RS_EVENT && closes_events(p, c)) {
            *pos = i;
            *prefix = p->t->container == '[' ? "[" : "{\"traceEvents\":[";
            return 1;
        }
        if (p->rs_target == RS_EVENT) {
            /* ( ',' | '[' ) blank* '{' blank* '"' */
            switch (p->rs_state) {
            case 0: if (c == ',' || c == '[') p->rs_state = 1; break;
            case 1:
                if (c == '{') {
                    p->rs_state = 2;
                    p->rs_brace = p->in_base + i;
                    p->rs_brace_lc = 0;
                }
                else if (!blank) p->rs_state = (c == ',' || c == '[') ? 1 : 0;
                break;
            case 2:
                if (c == '"') {
                    *pos = i;
                    *prefix = p->t->container == '[' ? "[{" : "{\"traceEvents\":[{";
                    return 1;
                }
                if (!blank) p->rs_state = (c == ',' || c == '[') ? 1 : 0;
                break;
            }
        } else {
            /* "traceEvents" blank* ':' blank* '[' */
            if (p->rs_state < (int)sizeof lit - 1) {
                if (c == lit[p->rs_state]) p->rs_state++;
                else p->rs_state = c == '"' ? 1 : 0;
            } else if (p->rs_state == (int)sizeof lit - 1) {
                if (c == ':') p->rs_state++;
                else if (!blank) p->rs_state = c == '"' ? 1 : 0;
            } else {
                if (c == '[') {
                    *pos = i + 1;
                    *prefix = "{\"traceEvents\":[";
                    return 1;
                }
                if (!blank) p->rs_state = c == '"' ? 1 : 0;
            }
        }
    }
    *pos = p->in_len;
    return 0;
}

static void restart(parser *p, const char *prefix, size_t pos)
{
    yajl_free(p->h);
    p->h = new_handle(p);
    p->depth = 0;
    p->ctx = 0;
    p->skip = 0;
    p->key = K_NONE;
    p->top_done = 0;
    ks_repair_reset(&p->rep);
    p->run_start = pos;
    p->feeding_prefix = 1;
    yajl_parse(p->h, (const unsigned char *)prefix, strlen(prefix));
    p->feeding_prefix = 0;
    if (prefix[strlen(prefix) - 1] == '{') {
        /* the event starts at its own '{', which may have left the window during the scan */
        p->ev.start = p->rs_brace;
        if (p->rs_brace_lc) {
            p->has_lc = 1;
            p->lc_at = p->rs_brace;
            p->lc_line = p->rs_brace_line;
            p->lc_col = p->rs_brace_col;
        }
    }
    uint64_t at = p->in_base + pos;
    /* the prefix stands for what was accepted up to here: the bytes from here on stay in the
     * window until a token after them is accepted, so that a repair in the first token after
     * the resynchronisation is placed whatever the chunking */
    p->acc_abs = at;
    p->has_acc = 1;
    p->acc_set = 0;
    ks_diag_count(&p->t->diag, "parse.resync_bytes_skipped", KS_SEV_WARNING, at - p->rs_from);
    p->mode = M_PARSE;
}

static int finish(parser *p, ks_error *err)
{
    ks_trace *t = p->t;
    if (!t->container)
        return ks_error_set(err, p->in_base + p->in_len ? "not a trace: no JSON object or array found"
                                                         : "empty input");
    if (!p->top_done && p->mode != M_STOP) {
        uint64_t end = p->in_base + p->in_len;
        int in_event = 0;
        for (int i = 0; i < p->depth; i++)
            if (p->stack[i] == CX_EVENT)
                in_event = 1;
        if (t->container == '[' && p->depth == 1 && p->stack[0] == CX_EVENTS && !p->skip) {
            ks_diag_add(&t->diag, "parse.array_unclosed", KS_SEV_INFO,
                        "array without its closing ']' (allowed by the format)");
        } else {
            t->truncated = 1;
            t->truncated_at = p->last_commit_end;
            uint64_t line, col;
            line_col(p, end, &line, &col);
            if (!p->events_read) /* nothing to keep: say so, where the input ends */
                return ks_error_set_at(err, end, line, col,
                                       "input ends inside the trace before any complete event "
                                       "(truncated file: %llu bytes%s)", (unsigned long long)end,
                                       p->in_events_seen ? ", the traceEvents array opened and nothing "
                                                           "followed" : "");
            if (p->strict)
                return ks_error_set_at(err, end, line, col,
                                       "input ends inside the trace (truncated file)");
            ks_diag_add_at(&t->diag, "parse.truncated", KS_SEV_ERROR, end, line, col,
                           "input ends inside the trace%s; the %llu complete event%s before byte "
                           "%llu %s kept",
                           in_event ? " (an event was cut)" : "",
                           (unsigned long long)p->events_read, p->events_read == 1 ? "" : "s",
                           (unsigned long long)p->last_commit_end, p->events_read == 1 ? "is" : "are");
        }
    }
    if (p->mode == M_RESYNC)
        ks_diag_count(&t->diag, "parse.resync_bytes_skipped", KS_SEV_WARNING,
                      p->in_base + p->in_len - p->rs_from);
    if (t->container == '{' && !p->in_events_seen)
        return ks_error_set(err, "not a Chrome trace: no \"traceEvents\" array");
    if (p->strict && p->t->diag.n) {
        /* skipped events and similar are errors in strict mode */
        for (size_t i = 0; i < t->diag.n; i++) {
            const ks_diag_kind *k = &t->diag.kinds[i];
            if (k->severity >= KS_SEV_WARNING && k->nexamples && k->ex[0].has_pos)
                return ks_error_set_at(err, k->ex[0].byte, k->ex[0].line, k->ex[0].column,
                                       "%s (%s; --strict)", k->ex[0].text, k->id);
        }
    }
    /* thread names arrive after the events they name */
    for (size_t i = 0; i < p->npt; i++) {
        uint32_t tr;
        if (!ks_trace_track_find(t, p->pt[i].pid, p->pt[i].tid, &tr)) {
            ks_diag_count(&t->diag, "parse.thread_metadata_without_events", KS_SEV_INFO, 1);
            continue;
        }
        if (p->pt[i].has_name)
            t->tracks[tr].name = p->pt[i].name;
        if (p->pt[i].has_sort) {
            t->tracks[tr].sort_index = p->pt[i].sort_index;
            t->tracks[tr].has_sort_index = 1;
        }
    }
    t->events = 0;
    for (size_t i = 0; i < t->ntracks; i++)
        t->events += t->tracks[i].n;
    ks_diag_sort(&t->diag);
    ks_trace_finish(t);
    return KS_OK;
}

void ks_parse_opts_init(ks_parse_opts *o)
{
    memset(o, 0, sizeof *o);
}

static void parser_free(parser *p)
{
    if (p->h)
        yajl_free(p->h);
    ks_split_stop(p->split); /* before the reader: workers read its chunks */
    p->split = NULL;
    ks_reader_stop(p->reader);
    p->reader = NULL;
    ks_repair_free(&p->rep);
    free(p->own_inbuf);
    free(p->kv);
    ks_buf_free(&p->kvkeys);
    ks_buf_free(&p->keep);
    free(p->pt);
    free(p->pr);
    free(p->cat_kind);
    free(p->str_stamp);
    free(p->cat_stamp);
    free(p->track_stamp);
}

/* Hand run[off, off + len) to yajl. */
static yajl_status feed_part(parser *p, size_t off, size_t len)
{
    p->feed_off = off;
    return len ? yajl_parse(p->h, (const unsigned char *)p->run.res + off, len) : yajl_status_ok;
}

/* yajl's lexer stops one byte after the offending byte for an invalid character and a
 * misspelt literal ("trux"), and at the offending byte for every other lexical error (it steps
 * back there): 1 for the two kinds that must be moved back one byte. The offending byte is always
 * in the current feed (a token start or a literal's mismatch is read in the call that fails). */
static int lexed_past_offender(const char *msg)
{
    return strstr(msg, "lexical error: invalid char in json text") != NULL;
}

/* "after key and value, inside map, I expect ',' or '}'" and "after array element, I expect ','
 * or ']'": yajl moves its offset back by the offending token's length, and to the start of the
 * current feed when that token began in an earlier one (yajl_parser.c), so its position depends on
 * the chunking. The offending token is the first one after the last accepted token: named here
 * from the raw bytes, which the window keeps from there on (acc_abs). */
static int before_offending_token(const char *msg)
{
    return strstr(msg, "I expect ','") != NULL;
}

/* The offending token of a missing-',' error: the first token after the end of the last
 * accepted one, abs. Only blanks and a trailing comma the pre-filter dropped can lie between
 * (yajl took no ',' there, or the error would be another one): the comma is skipped too. */
static uint64_t offending_token(const parser *p, uint64_t abs)
{
    abs = next_token(p, abs);
    return raw_byte(p, abs) == ',' ? next_token(p, abs + 1) : abs;
}

/* After the run (or its parts) went to yajl: settle its repairs and the syntax error, if any. */
static int settle(parser *p, size_t pos, yajl_status ys, ks_error *err, uint64_t *err_at)
{
    if (p->failed)
        return 0;
    *err_at = UINT64_MAX;
    if (p->acc_set) {
        size_t hint = 0;
        p->acc_abs = p->in_base + pos + token_end_in(&p->run, p->inbuf + pos, p->acc_run, &hint);
        p->acc_set = 0;
        p->has_acc = 1;
    }
    char *msg = NULL;
    if (ys != yajl_status_ok) {
        size_t out_off = p->feed_off + yajl_get_bytes_consumed(p->h);
        msg = yajl_message(p->h);
        size_t hint = 0, in_off;
        if (lexed_past_offender(msg)) {
            /* name the offending byte itself, as the other lexical errors do (in input bytes: the
             * filtered run may have dropped blanks before it, and a trailing comma after it) */
            in_off = token_end_in(&p->run, p->inbuf + pos, out_off, &hint);
            if (in_off > 0)
                in_off--;
        } else {
            in_off = ks_run_in_offset(&p->run, out_off);
        }
        *err_at = p->in_base + pos + in_off;
        if (before_offending_token(msg) && p->has_acc)
            *err_at = offending_token(p, p->acc_abs);
        if (raw_byte(p, *err_at) == 0) {
            /* binary data (/dev/zero, a sparse or zero-filled file): say so */
            free(msg);
            char buf[64];
            snprintf(buf, sizeof buf, "NUL byte at byte %llu", (unsigned long long)*err_at);
            msg = ks_xstrdup(buf);
        }
    }
    commit_repairs(p, *err_at != UINT64_MAX ? *err_at : p->has_acc ? p->acc_abs : 0);
    if (*err_at != UINT64_MAX) {
        p->npr = 0;
        p->has_acc = 0; /* resynchronising: nothing to keep */
    }
    if (!strict_repair_ok(p, err)) {
        free(msg);
        return 0;
    }
    if (ys != yajl_status_ok) {
        int ok = on_syntax_error(p, *err_at, msg);
        free(msg);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Hand the filtered run of inbuf[pos ..] (p->run) to yajl and settle its repairs. Returns 0
 * on a fatal error (err set); else 1, with *err_at the absolute offset of a syntax error
 * (p->mode set by on_syntax_error) or UINT64_MAX. */
static int feed_run(parser *p, size_t pos, ks_error *err, uint64_t *err_at)
{
    p->run_hint = 0;
    p->last_ev_run_end = SIZE_MAX;
    return settle(p, pos, feed_part(p, 0, p->run.len), err, err_at);
}

/* 1 when the parser stands between two elements of traceEvents, after the ',' that follows the
 * '}' at run offset brace, which closed an event: then the bytes after it mean what they meant to
 * the worker that parsed them (unit.h). */
static int at_event_boundary(const parser *p, size_t brace)
{
    return p->last_ev_run_end == brace + 1 && p->ctx == CX_EVENTS && !p->skip && p->mode == M_PARSE &&
           !p->failed && !p->top_done;
}

static void replay(parser *p, const ks_unit *u)
{
    ks_unit_merge(p->t, u);
    p->events_read += u->events_read;
    p->last_commit_end = u->last_end;
    p->last_ev_run_end = u->yb + 1;
    p->acc_run = u->yb + 1;
    p->acc_set = 1;
}

/* feed_run for a run a worker parsed ahead: its edges go to yajl here, the unit is replayed in
 * between; when the edge does not end on an event boundary, the rest is read here after all. */
static int feed_unit(parser *p, size_t pos, const ks_unit *u, ks_error *err, uint64_t *err_at)
{
    p->run_hint = 0;
    p->last_ev_run_end = SIZE_MAX;
    yajl_status ys = feed_part(p, 0, u->x);
    if (ys == yajl_status_ok && !p->failed) {
        if (at_event_boundary(p, u->xb)) {
            replay(p, u);
            p->info.units_replayed++;
            ys = feed_part(p, u->y, p->run.len - u->y);
        } else {
            ys = feed_part(p, u->x, p->run.len - u->x);
        }
    }
    return settle(p, pos, ys, err, err_at);
}

/* A read failed at absolute offset at (the end of what was read): fatal at the very start, in
 * strict mode or when the stream failed an integrity check (damaged: what was decoded is wrong
 * too), else the decoded part is kept. Returns 0 when fatal (err set). */
static int read_failed(parser *p, uint64_t at, const char *msg, int damaged, ks_error *err)
{
    if (damaged)
        return ks_error_set(err, "read error: %s", msg), 0; /* no decoded position: all of it is suspect */
    if (at == 0 || p->strict) {
        uint64_t line, col;
        line_col(p, at, &line, &col);
        ks_error_set_at(err, at, line, col, "read error: %s", msg);
        return 0;
    }
    /* a damaged compressed stream (killed job): keep what was decoded */
    ks_diag_add(&p->t->diag, "parse.read_error", KS_SEV_ERROR, "input unreadable after byte %llu: %s",
                (unsigned long long)at, msg);
    return 1;
}

/* Read up to n bytes into dst: from the stream, or the raw part of the reader's next chunk. */
static ssize_t read_more(parser *p, ks_stream *st, char *dst, size_t n, ks_error *rerr)
{
    if (!p->reader)
        return ks_stream_read(st, dst, n, rerr);
    ks_rchunk *c = ks_reader_next(p->reader);
    if (!c)
        return 0;
    ks_unit *u = ks_split_unit(p->split, c); /* parsed ahead before the switch: not needed */
    if (u)
        ks_split_release(p->split, u);
    if (c->read_err) {
        *rerr = c->err;
        return -1;
    }
    size_t k = c->len - c->new_off;
    memcpy(dst, c->buf + c->new_off, k);
    return (ssize_t)k;
}

/* Workers parsing ahead: threads - 1, by default one per core beyond the first (at most 3). */
static int parse_workers(const ks_parse_opts *o)
{
    long n = o->threads;
    if (n <= 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n > 4)
            n = 4;
    }
    return n > 1 ? (int)n - 1 : 0;
}

static int use_reader_thread(const ks_parse_opts *o, const ks_stream *st, size_t chunk)
{
    if (o->reader_thread)
        return o->reader_thread > 0;
    uint64_t size = ks_stream_size_hint(st);
    return size == 0 || size > chunk;
}

/* How much to read before the next feed: a chunk, or as much as the window holds from the end of
 * the last accepted token when that is more: yajl lexes a token cut by a feed again from its
 * start at the next feed, so a long token is fed in parts that double (time linear in it). */
static size_t read_want(const parser *p)
{
    if (p->mode == M_PARSE && p->has_acc && p->acc_abs >= p->in_base) {
        uint64_t held = p->in_base + p->in_len - p->acc_abs;
        if (held > p->chunk)
            return (size_t)held;
    }
    return p->chunk;
}

/* Read a chunk onto the window, or chunks until want bytes came (or the end). Returns 0 when a
 * read failed fatally (err set). */
static int fill_window(parser *p, ks_stream *st, const ks_parse_opts *opts, size_t want, int *eof,
                       ks_error *err)
{
    size_t got = 0;
    do {
        if (p->in_cap < p->in_len + p->chunk) {
            p->in_cap = p->in_len + p->chunk > 2 * p->in_cap ? p->in_len + p->chunk : 2 * p->in_cap;
            p->own_inbuf = p->inbuf = ks_xrealloc(p->inbuf, p->in_cap);
        }
        ks_error rerr;
        ssize_t r = read_more(p, st, p->inbuf + p->in_len, p->chunk, &rerr);
        if (r < 0) {
            if (!read_failed(p, p->in_base + p->in_len, rerr.msg, ks_stream_damaged(st), err))
                return 0;
            r = 0;
        }
        if (r == 0)
            *eof = 1;
        p->in_len += (size_t)r;
        got += (size_t)r;
        p->t->bytes = p->in_base + p->in_len;
        if (opts->progress)
            opts->progress(opts->progress_ctx, st, p->t->bytes);
    } while (!*eof && want > p->chunk && got < want);
    return 1;
}

/* The rest is ignored, but read: the byte count (and a read error) do not depend on where in a
 * chunk the parse stopped. Returns 0 when a read failed fatally (err set). */
static int drain(parser *p, ks_stream *st, const ks_parse_opts *opts, int *eof, ks_error *err)
{
    while (!*eof) {
        discard(p, p->in_len);
        if (!fill_window(p, st, opts, p->chunk, eof, err))
            return 0;
    }
    return 1;
}

enum { FILTERED_DONE, FILTERED_SWITCH, FILTERED_FAIL };

/* The reader window c is about to be replaced by the next one, which starts at c's drop point:
 * keep the bytes from the end of the last accepted token (acc_abs) up to there. */
static void keep_tail(parser *p, const ks_rchunk *c)
{
    size_t done = c->has_run ? c->run_start + c->consumed : 0;
    uint64_t drop = c->base + done;
    if (!p->has_acc || p->acc_abs >= drop) {
        p->keep.n = 0;
        return;
    }
    if (p->acc_abs >= c->base || !p->keep.n) {
        size_t from = p->acc_abs >= c->base ? (size_t)(p->acc_abs - c->base) : 0;
        p->keep.n = 0;
        p->keep_base = c->base + from;
        p->keep_lines = p->lines_before;
        p->keep_last_nl = p->last_nl;
        ks_text_count(c->buf, from, c->base, &p->keep_lines, &p->keep_last_nl);
        ks_buf_put(&p->keep, c->buf + from, done - from);
        return;
    }
    ks_buf_put(&p->keep, c->buf, done);
}

/* 1 when the token after the last accepted one began more than two chunks before the end of
 * what the reader window c filtered. */
static int inside_long_token(const parser *p, const ks_rchunk *c)
{
    uint64_t drop = c->base + (c->has_run ? c->run_start + c->consumed : 0);
    return p->has_acc && p->acc_abs < drop && drop - p->acc_abs > 2 * (uint64_t)p->chunk;
}

/* Put the kept bytes in front of our own window. */
static void prepend_keep(parser *p)
{
    size_t k = p->keep.n;
    if (p->in_cap < p->in_len + k + p->chunk) {
        p->in_cap = p->in_len + k + p->chunk;
        p->own_inbuf = ks_xrealloc(p->own_inbuf, p->in_cap);
    }
    memmove(p->own_inbuf + k, p->own_inbuf, p->in_len);
    memcpy(p->own_inbuf, p->keep.p, k);
    p->inbuf = p->own_inbuf;
    p->in_len += k;
    p->in_base = p->keep_base;
    p->lines_before = p->keep_lines;
    p->last_nl = p->keep_last_nl;
    p->keep.n = 0;
}

/* Leave the reader's windows: ours holds the window c, after the bytes kept from earlier ones
 * when the parse goes on from need_from, before c. */
static void own_window(parser *p, const ks_rchunk *c, uint64_t need_from)
{
    if (p->in_cap < c->len + p->chunk) {
        p->in_cap = c->len + p->chunk;
        p->own_inbuf = ks_xrealloc(p->own_inbuf, p->in_cap);
    }
    memcpy(p->own_inbuf, c->buf, c->len);
    p->inbuf = p->own_inbuf;
    if (p->keep.n && need_from < p->in_base)
        prepend_keep(p);
    p->keep.n = 0;
}

/* The parse while the reader thread filters: one chunk per read, the run it filtered handed to
 * yajl, the window kept for positions. The first syntax error switches to the single-threaded
 * loop (FILTERED_SWITCH: the window copied to our own buffer, *pos where parsing resumes). */
static int filtered_loop(parser *p, const ks_parse_opts *opts, ks_stream *st, size_t *pos, int *eof,
                         ks_error *err)
{
    uint64_t lines = 0;
    int64_t last_nl = -1;
    ks_rchunk *prev = NULL;
    for (;;) {
        if (prev) {
            remember_event_start(p, p->in_len);
            keep_tail(p, prev);
        }
        ks_rchunk *c = prev = ks_reader_next(p->reader);
        if (!c)
            return FILTERED_DONE;
        /* the previous window is discarded now, its newlines counted */
        p->lines_before += lines;
        if (last_nl >= 0)
            p->last_nl = last_nl;
        lines = c->lines;
        last_nl = c->last_nl;
        p->inbuf = c->buf;
        p->in_len = c->len;
        p->in_base = c->base;
        p->run_start = c->run_start;
        if (c->read_err && !read_failed(p, c->base + c->len, c->err.msg, ks_stream_damaged(st), err))
            return FILTERED_FAIL;
        p->t->bytes = c->bytes;
        if (opts->progress)
            opts->progress(opts->progress_ctx, st, p->t->bytes);
        if (c->bom)
            ks_diag_count(&p->t->diag, "parse.bom", KS_SEV_INFO, 1);
        if (!c->has_run) {
            if (c->eof)
                return FILTERED_DONE;
            continue;
        }
        for (size_t i = 0; i < c->npr; i++) {
            KS_GROW(p->pr, p->pr_cap, p->npr + 1);
            p->pr[p->npr].kind = c->pr[i].kind;
            p->pr[p->npr].at = c->pr[i].at;
            p->npr++;
        }
        p->run = c->run;
        uint64_t err_at;
        ks_unit *u = ks_split_unit(p->split, c);
        uint64_t replayed = p->info.units_replayed;
        int ok = u && u->state == KS_UNIT_CLEAN ? feed_unit(p, c->run_start, u, err, &err_at)
                                                : feed_run(p, c->run_start, err, &err_at);
        p->info.chunks++;
        if (u) {
            p->info.units_reread += p->info.units_replayed == replayed;
            ks_split_release(p->split, u);
        }
        if (!ok)
            return FILTERED_FAIL;
        if (err_at != UINT64_MAX) {
            /* resynchronise on the raw bytes: our own window and filter from here on */
            own_window(p, c, err_at);
            *pos = (size_t)(err_at - p->in_base);
            if (*pos > p->in_len)
                *pos = p->in_len;
            *eof = c->eof;
            ks_reader_raw(p->reader);
            return FILTERED_SWITCH;
        }
        if (c->eof)
            return FILTERED_DONE; /* the last window stays: finish() reports positions in it */
        if (inside_long_token(p, c)) {
            /* yajl would lex the token again from its start at every chunk: go on with our own
             * window, which grows with the token (issue 16) */
            own_window(p, c, p->acc_abs);
            *pos = (size_t)(c->base + c->run_start + c->consumed - p->in_base);
            p->rep.in_string = c->in_string;
            ks_reader_raw(p->reader);
            return FILTERED_SWITCH;
        }
    }
}

int ks_parse_stream(ks_stream *st, const ks_parse_opts *opts, ks_trace **out, ks_error *err)
{
    ks_parse_opts defaults;
    if (!opts) {
        ks_parse_opts_init(&defaults);
        opts = &defaults;
    }
    *out = NULL;
    size_t chunk = opts->chunk_size ? opts->chunk_size : DEFAULT_CHUNK;
    parser p;
    memset(&p, 0, sizeof p);
    p.t = ks_trace_new(ks_stream_name(st));
    p.t->filter = ks_xstrdup(ks_stream_filter(st));
    p.strict = opts->strict;
    p.err = err;
    p.last_nl = -1;
    p.chunk = chunk;
    ks_repair_init(&p.rep);
    p.rep.on_repair = on_repair;
    p.rep.ctx = &p;
    p.h = new_handle(&p);
    p.in_cap = chunk * 2 + 8192;
    p.own_inbuf = ks_xmalloc(p.in_cap);
    p.inbuf = p.own_inbuf;
    if (!p.h) {
        ks_error_set(err, "cannot create a JSON parser");
        goto fail;
    }

    size_t pos = 0;
    int eof = 0, need_more = 1, first = 1;
    if (use_reader_thread(opts, st, chunk))
        p.reader = ks_reader_start(st, chunk, opts->reader_thread >= 2);
    int workers = p.reader ? parse_workers(opts) : 0;
    if (workers) {
        c_locale(); /* made once, before any worker might */
        p.split = ks_split_start(p.reader, workers, opts->reader_thread >= 2);
    }
    if (p.reader) {
        ks_page_supply supply = {ks_reader_take_block, p.reader};
        ks_trace_set_supply(p.t, &supply);
        int r = filtered_loop(&p, opts, st, &pos, &eof, err);
        if (r == FILTERED_FAIL)
            goto fail;
        if (r == FILTERED_DONE)
            goto done;
        need_more = 0;
        first = 0;
    }
    for (;;) {
        if (need_more) {
            if (eof)
                break;
            size_t drop = drop_point(&p, pos);
            discard(&p, drop);
            pos -= drop;
            if (!fill_window(&p, st, opts, read_want(&p), &eof, err))
                goto fail;
            if (first) {
                if (p.in_len < 3 && !eof)
                    continue;
                first = 0;
                if (p.in_len >= 3 && !memcmp(p.inbuf, "\xef\xbb\xbf", 3)) {
                    pos = 3;
                    ks_diag_count(&p.t->diag, "parse.bom", KS_SEV_INFO, 1);
                }
            }
            need_more = 0;
        }
        if (p.mode == M_STOP) {
            if (!drain(&p, st, opts, &eof, err))
                goto fail;
            break;
        }
        if (p.mode == M_RESYNC) {
            const char *prefix;
            if (resync_scan(&p, &pos, &prefix))
                restart(&p, prefix, pos);
            else
                need_more = 1;
            continue;
        }
        size_t avail = p.in_len - pos;
        if (!avail) {
            need_more = 1;
            continue;
        }
        p.run_start = pos;
        size_t consumed = ks_repair_run(&p.rep, p.inbuf + pos, avail, eof);
        p.run = ks_repair_last_run(&p.rep);
        uint64_t err_at;
        if (!feed_run(&p, pos, err, &err_at))
            goto fail;
        if (err_at != UINT64_MAX) {
            pos = (size_t)(err_at - p.in_base);
            if (pos > p.in_len)
                pos = p.in_len;
            continue;
        }
        pos += consumed;
        if (consumed < avail || pos == p.in_len)
            need_more = 1;
    }
done:
    if (p.npr && !p.failed) {
        /* repairs in the last, unfinished token */
        commit_repairs(&p, UINT64_MAX);
        if (!strict_repair_ok(&p, err))
            goto fail;
    }
    ks_trace_set_supply(p.t, NULL);
    if (opts->info) {
        opts->info->chunks += p.info.chunks;
        opts->info->units_replayed += p.info.units_replayed;
        opts->info->units_reread += p.info.units_reread;
    }
    if (p.mode == M_PARSE && p.top_done) {
        /* flush yajl: detects nothing new, but keeps the handle consistent */
        yajl_complete_parse(p.h);
    }
    if (p.failed)
        goto fail;
    if (finish(&p, err) != KS_OK)
        goto fail;
    parser_free(&p);
    *out = p.t;
    return KS_OK;
fail:
    ks_trace_set_supply(p.t, NULL);
    parser_free(&p);
    ks_trace_free(p.t);
    return KS_ERR;
}

/* ---- a worker's parser (split.h, unit.h) -------------------------------------------------- */

struct ks_spec {
    parser p;
    ks_error err;
};

ks_spec *ks_spec_new(void)
{
    ks_spec *s = ks_xcalloc(1, sizeof *s);
    s->p.t = ks_trace_new("");
    s->p.t->container = '[';
    s->p.err = &s->err;
    s->p.last_nl = -1;
    return s;
}

void ks_spec_free(ks_spec *s)
{
    if (!s)
        return;
    parser_free(&s->p);
    ks_trace_free(s->p.t);
    free(s);
}

/* Move the unit's counts out of the worker's trace (which keeps only its tables). */
static void collect(parser *p, ks_unit *u)
{
    ks_trace *t = p->t;
    memcpy(u->by_phase, t->by_phase, sizeof u->by_phase);
    memset(t->by_phase, 0, sizeof t->by_phase);
    KS_GROW(u->cat_count, u->cat_count_cap, t->ncats);
    memcpy(u->cat_count, t->by_cat, t->ncats * sizeof *t->by_cat);
    u->ncat_count = t->ncats;
    memset(t->by_cat, 0, t->ncats * sizeof *t->by_cat);
    for (size_t i = 0; i < t->diag.n; i++) {
        const ks_diag_kind *k = &t->diag.kinds[i];
        if (k->nexamples)
            p->unit_bad = 1;
        KS_GROW(u->diag, u->diag_cap, u->ndiag + 1);
        u->diag[u->ndiag].id = k->id;
        u->diag[u->ndiag].sev = k->severity;
        u->diag[u->ndiag].n = k->count;
        u->ndiag++;
    }
    ks_diag_free(&t->diag);
    u->events_read = p->events_read;
    u->last_end = p->last_commit_end;
}

/* The state of a parser at the start of a bare array of events. */
static void spec_begin(parser *p, const ks_rchunk *c, ks_unit *u)
{
    p->inbuf = c->buf;
    p->in_len = c->len;
    p->in_base = c->base;
    p->run_start = c->run_start;
    p->run = c->run;
    p->run_hint = 0;
    p->unit = u;
    p->unit_no++;
    p->unit_bad = p->failed = 0;
    p->events_read = 0;
    p->have_last_track = 0; /* every track used is logged for the unit */
    p->depth = 0; /* the '[' fed first opens the events array */
    p->ctx = 0;
    p->skip = 0;
    p->key = K_NONE;
    p->top_done = p->events_done = 0;
    p->in_events_seen = 1;
    p->mode = M_PARSE;
    p->last_ev_run_end = SIZE_MAX;
    p->last_commit_end = 0;
}

void ks_spec_parse(ks_spec *s, const ks_rchunk *c, ks_unit *u)
{
    parser *p = &s->p;
    ks_unit_reset(u);
    if (!ks_unit_bounds(c->run.res, c->run.len, &u->x, &u->xb, &u->y, &u->yb))
        return;
    spec_begin(p, c, u);
    int clean = 0;
    p->h = new_handle(p);
    if (p->h) {
        p->feeding_prefix = 1;
        yajl_status ys = yajl_parse(p->h, (const unsigned char *)"[", 1);
        p->feeding_prefix = 0;
        if (ys == yajl_status_ok)
            ys = feed_part(p, u->x, u->y - u->x);
        /* every event complete, and the last one ended at the '}' before y */
        clean = ys == yajl_status_ok && !p->failed && p->depth == 1 && p->ctx == CX_EVENTS && !p->skip &&
                !p->events_done && p->last_ev_run_end == u->yb + 1;
        yajl_free(p->h);
        p->h = NULL;
    }
    collect(p, u);
    u->state = clean && !p->unit_bad ? KS_UNIT_CLEAN : KS_UNIT_UNCLEAN;
    p->unit = NULL;
}

int ks_parse_buffer(const char *name, const void *buf, size_t len, const ks_parse_opts *o,
                    ks_trace **out, ks_error *err)
{
    ks_source *src;
    *out = NULL;
    if (len == 0)
        return ks_error_set(err, "empty input");
    if (ks_source_open_memory(name, buf, len, &src, err) != KS_OK)
        return KS_ERR;
    ks_stream *st;
    int r = ks_source_next(src, &st, err);
    if (r != 1) {
        ks_source_close(src);
        return r == 0 ? ks_error_set(err, "no trace in input") : KS_ERR;
    }
    r = ks_parse_stream(st, o, out, err);
    ks_source_close(src);
    return r;
}
