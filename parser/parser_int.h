/* parser/parser_int.h: the parser room's private header. The state of one parser (ks_parser:
 * the yajl handle, the context stack, the event being read, the input window and its
 * positions, the resynchronisation scan, the caches, and a worker's unit), the key and context
 * enums, and the functions the files of parser/ share, grouped by the file that defines them, in
 * the order of the data flow (each file calls only those listed before it, plus its own):
 *
 *   keys.c      key tables             state.c     C locale, release
 *   position.c  offsets, line/column, positioned diagnostics
 *   uses.c      first uses in a worker's unit      ids.c   ids, kinds, tracks, series
 *   commit.c    an event at its '}'    values.c    scalar callbacks
 *   callbacks.c container callbacks, the yajl handle
 *   recover.c   resynchronisation      feed.c      feeding yajl, settling a run
 *   finish.c    the end of the input   spec.c      a worker's parser (split.h)
 *   parse.c     the driver loops and the public entry points (<kinesift/parse.h>)
 *
 * Why it is correct: this is one parser split by concern without any change of behaviour: every
 * function here was a static function of parse.c, with the same body. A parser is used by one
 * thread at a time (the main parser, or one worker's ks_spec); nothing here is shared between
 * parsers except the C locale (state.c, made once). Who may use it: the .c files of parser/ only;
 * the names are short because nothing outside parser/ includes it. */
#ifndef KS_PARSER_INT_H
#define KS_PARSER_INT_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "kinesift/parse.h"
#include "common/limits.h"
#include "common/util.h"
#include "json/repair.h"
#include "json/scan.h"
#include "parser/reader.h"
#include "parser/unit.h"
#include "store/writer.h"

#define DEFAULT_CHUNK (256 * 1024)
/* With the default threads, the reader thread and the parse workers start only for an input of at
 * least this many chunks (or of unknown size): a thread's start costs more than it saves on a few
 * chunks. A smaller input of more than one chunk is read through the reader all the same, by the
 * parser itself (KS_READER_NO_THREAD). On a 2-core VM the 1 MB trace of 4 chunks took 0.97
 * of the time without the workers (0.92 with the other core busy), and without the reader thread
 * too 0.96 of that (0.85 beside a nice-0 loop, 0.95 beside a nice-19 one); one of 1.7 MB (7
 * chunks) took 1.03 without the workers and 1.08 without both threads, 2.3-2.6 MB 1.05-1.12
 * (docs/performance.md, "The reader thread and the parse workers"). Speed only. */
#define MIN_THREAD_CHUNKS 6
#define MAX_SKIP_DEPTH KS_LIMIT_JSON_DEPTH
#define MAX_META_VALUE KS_LIMIT_META_VALUE
#define CAT_CACHE 8

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
    /* allocator events ([memory]: ks_mem_info) */
    K_MEM_ALLOCATED, K_MEM_RESERVED, K_MEM_ADDR, K_MEM_TYPE, K_MEM_ID,
    /* collective metadata (ks_coll_info) */
    K_COLL_NAME, K_COLL_PG, K_COLL_RANKS, K_COLL_DTYPE, K_COLL_IN, K_COLL_OUT, K_COLL_GS, K_COLL_SEQ,
    /* recorded shapes (ks_shape_info): arrays kept as their compact JSON text */
    K_INPUT_DIMS, K_INPUT_TYPE, K_CONCRETE,
    /* recorded waits (ks_sync_info) */
    K_WAIT_STREAM, K_WAIT_RECORD,
    /* kernel launch args (ks_launch_args) */
    K_L_REGS, K_L_SHMEM, K_L_BLOCKS_SM, K_L_WARPS_SM, K_L_OCC, K_L_GRID, K_L_BLOCK,
    /* distributedInfo */
    K_RANK, K_WORLD, K_BACKEND,
    /* deviceProperties[] */
    K_DP_ID, K_DP_NAME, K_DP_MEM, K_DP_MAJOR, K_DP_MINOR, K_DP_SMS
};

/* The key k[0..len) is the literal lit (a key table's test: length first, then the bytes). */
#define KEYIS(lit) (len == sizeof(lit) - 1 && !memcmp(k, lit, sizeof(lit) - 1))

enum ctx { CX_TOP_OBJ = 1, CX_EVENTS, CX_EVENT, CX_ARGS, CX_ID2, CX_DIST, CX_DEVPROPS, CX_DEVPROP };

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
    ks_mem_info mem;         /* allocator args; mem.has says which were seen (Bytes: aux) */
    uint8_t mem_counter;     /* the allocator key being read may also be a counter series */
    uint8_t has_shape;       /* a shape arg kept: shape is kept with the event */
    ks_shape_info shape;     /* string ids (local in a worker's unit) */
    ks_sync_info sync;       /* recorded wait args; sync.has says which were seen */
    ks_launch_args launch;   /* launch args; kept with the event when launch.has */
    size_t ncounters;
} cur_event;

enum mode { M_PARSE, M_RESYNC, M_STOP };
enum resync_target { RS_EVENT, RS_TRACE_EVENTS };

/* Where the callbacks are in the document (callbacks.c, keys.c, values.c). */
typedef struct ps_nest {
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
} ps_nest;

/* A shape arg being read (values.c, callbacks.c): its key, the array depth inside it (0: none),
 * whether the next element needs a comma, whether it held something not kept (an object), and
 * its compact text so far. */
typedef struct ps_shape {
    int key, depth, sep, bad;
    ks_buf buf;
} ps_shape;

/* The shape args handed over whole, by their bytes, with their string ids (shapememo.c). */
typedef struct ks_memo_entry {
    uint64_t h;               /* ks_hash of the bytes */
    uint32_t off, len;        /* the bytes in text */
    ks_str id;                /* their compact text's id */
    uint32_t clen;            /* its length */
} ks_memo_entry;

typedef struct ks_shape_memo {
    uint32_t *slot;           /* open addressing: entry + 1, 0 empty; cap a power of two */
    size_t cap;
    ks_memo_entry *e;
    size_t n, ecap;
    ks_buf text;              /* the bytes of every entry, one after another */
} ks_shape_memo;

/* The input window: our own buffer, or the reader thread's current chunk, and the run of it
 * being fed to yajl (parse.c, feed.c). */
typedef struct ps_input {
    char *buf;
    char *own;                /* the parser's own buffer (buf when no reader window is used) */
    size_t len, cap;
    size_t chunk;
    ks_reader *reader;        /* the reader thread, when one is used */
    ks_run run;               /* the current run for yajl, with its offset map: from the repair
                               * filter or the reader thread's chunk */
    size_t run_hint;          /* map entry of the last offset looked up in it */
    uint64_t base;            /* absolute offset of buf[0] */
    size_t run_start;         /* buf offset of the current run */
    size_t feed_off;          /* run offset of the current yajl feed (a run may be fed in parts) */
    size_t last_ev_run_end;   /* run offset after the last event's '}' in this run; SIZE_MAX none */
    int feeding_prefix;
} ps_input;

/* What positions are counted from (position.c): newlines before the window, the reader thread's
 * counts over its window, the current event's line and column, the last count asked for, and the
 * raw bytes of earlier reader windows still needed. */
typedef struct ps_pos {
    uint64_t lines_before;    /* newlines before the window's first byte */
    int64_t last_nl;          /* absolute offset of the last newline before it, -1 none */
    /* what the reader thread counted over its window (ks_rchunk: lines, lines_upto, last_nl),
     * used while the window is that one (win_buf at win_base): a position near the window's end
     * is counted from there back (textpos.h) */
    const char *win_buf;
    uint64_t win_base;
    size_t win_upto;
    uint64_t win_lines;
    int64_t win_last;
    /* line and column of the current event's '{', taken before its bytes left the window (a
     * diagnostic about the event names its start, which may lie in a window already dropped) */
    int has_lc;
    uint64_t lc_at, lc_line, lc_col;
    /* the newlines before the position ks_ps_line_col was last asked for in the window, and the
     * last of them: facts about the input, so the next count in the window starts there rather
     * than at the window's start (a diagnostic cost a scan of the window each) */
    int lcc_ok;
    uint64_t lcc_abs, lcc_lines;
    int64_t lcc_last;
    ks_buf keep;              /* raw bytes [keep_base, window base) of earlier reader windows */
    uint64_t keep_base;
    uint64_t keep_lines;      /* newlines before keep_base */
    int64_t keep_last_nl;     /* the last of them, -1 none */
} ps_pos;

/* The end of the last token yajl accepted (it called back): a run offset while the run is fed
 * (set), made absolute once the run is settled (has, abs). The bytes from there on are not
 * dropped from the window (pos.keep: bytes of earlier reader windows still needed), so a syntax
 * error or a repair after it is placed whatever the chunking. */
typedef struct ps_accepted {
    size_t run;
    int set, has;
    uint64_t abs;
    /* where the window must keep bytes from: abs moved over the blanks after it and over one
     * ',' or ':' among them (comma: the ',' ks_ps_offending_token steps over, or a ':' after
     * which yajl expects a value, not a ','), which need no memory however many there are
     * (ks_ps_skip_kept_blanks) */
    uint64_t keep;
    int comma;
    int value;                /* that token completed a value (a scalar, a '}' or ']'): a token
                               * after it with no ',' between is yajl's "I expect ','" */
    int unplaced;             /* the tokens accepted now are not placed (run, set left as they
                               * are): the '[' fed before a unit's or a recovery's bytes, and the
                               * fast scanner's whole run, whose end the unit's replay places */
} ps_accepted;

/* The repair filter and the repairs of the current run, committed once yajl accepts them
 * (feed.c). */
typedef struct ps_repairs {
    ks_repair rep;
    ks_pending_repair *pending;
    size_t npending, pending_cap;
    int strict_kind;          /* first repair in strict mode: kind + 1 */
    uint64_t strict_at;
} ps_repairs;

/* The resynchronisation scan (recover.c). */
typedef struct ps_resync {
    enum resync_target target;
    int state;
    uint64_t from;            /* where the scan began (for the skipped byte count) */
    /* RS_EVENT: brackets outside strings since the scan began; the ']' that takes depth to
     * -close closes traceEvents (a broken last event does not hide the metadata after it) */
    int64_t depth, close;
    uint8_t str, esc;
    /* the '{' of the event the scan may resume at (its start), with its line and column once it
     * left the window (brace_lc) */
    uint64_t brace, brace_line, brace_col;
    int brace_lc;
} ps_resync;

/* Caches of ids and kinds (ids.c, values.c). */
typedef struct ps_cache {
    uint8_t *cat_kind;        /* by category id: ks_kind + 1 (0 = not computed) */
    size_t cat_kind_cap;
    uint8_t *cat_own;         /* by category id: 0 not looked at, 1 the trace's, 2 kinesift's own
                               * ("kinesift", "kinesift.*": what `kinesift annotate` added) */
    size_t cat_own_cap;
    ks_id own_pid;            /* the process named "kinesift" (annotate's tracks), when seen */
    int has_own_pid;
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
} ps_cache;

/* A worker's parser (split.h): committed events go to a unit, not to the store (uses.c). */
typedef struct ps_worker {
    ks_unit *unit;
    int bad;                  /* the unit met something only the main parser may do */
    int cut;                  /* the scan stopped at an event of the main parser's (spec.c) */
    uint32_t no;
    uint32_t *str_stamp, *cat_stamp, *track_stamp; /* by local id: unit no of its last use */
    size_t str_stamp_cap, cat_stamp_cap, track_stamp_cap;
} ps_worker;

/* One parser: what it writes to, its yajl handle and mode, and one owned part per concern. */
typedef struct ks_parser {
    ks_trace *t;
    int strict;
    yajl_handle h;
    struct ks_jscan *scan;    /* the fast scanner when it drives the callbacks (spec.c), else NULL */
    ks_error *err;
    int failed;               /* a callback hit a fatal condition (err is set) */
    enum mode mode;

    ps_nest nest;
    cur_event ev;             /* the event being read */
    ps_shape shp;
    ks_shape_memo memo;       /* shape args met before, whole (shapememo.c) */
    counter_kv *kv;           /* the counter values of the event being read */
    size_t kv_cap;
    ks_buf kvkeys;
    ks_device_prop dp;        /* the deviceProperties entry being read */
    pending_thread *pt;       /* thread names and sort indices met before their tracks */
    size_t npt, pt_cap;

    uint64_t events_read;
    uint64_t last_commit_end;

    ps_input in;
    struct ks_split *split;   /* workers parsing ahead (split.h), or NULL */
    int own_scans;            /* ks_parse_opts.own_scans >= 0 */
    struct ks_spec *own_spec; /* the main parser's own scans of chunks no worker took (parse.c) */
    ks_unit own_unit;
    ks_unit_maps own_maps;
    ks_parse_info info;
    struct ks_timings *timings; /* ks_parse_opts.timings (NULL: not timed) */

    ps_pos pos;
    ps_accepted acc;
    ps_repairs rp;
    ps_resync rs;
    ps_cache cache;
    ps_worker wk;
} ks_parser;

enum vtype { V_STRING, V_NUMBER, V_TRUE, V_FALSE, V_NULL };

/* In a callback: the bytes of the current feed up to the end of the token it is called for. */
static inline size_t ks_ps_consumed(const ks_parser *p)
{
    return p->scan ? p->scan->consumed : yajl_get_bytes_consumed(p->h);
}

/* Every callback: yajl accepted a token ending here (see ps_accepted). */
static inline void ks_ps_accepted(ks_parser *p)
{
    if (!p->acc.unplaced) {
        p->acc.run = p->in.feed_off + ks_ps_consumed(p);
        p->acc.set = 1;
    }
}

static inline int ks_ps_top(const ks_parser *p)
{
    return p->nest.ctx;
}

/* ---- keys.c: a key of the top-level object, of an event, of its "args" -> enum key ---------- */
int ks_ps_top_key(const char *k, size_t len);
int ks_ps_event_key(const char *k, size_t len);
int ks_ps_args_key(const char *k, size_t len);

/* ---- state.c -------------------------------------------------------------------------------- */
/* The C locale, made once for all threads. */
locale_t ks_ps_c_locale(void);
/* Free what the parser owns; its reader and split must be stopped already. */
void ks_ps_release(ks_parser *p);

/* ---- position.c ----------------------------------------------------------------------------- */
/* The input offset of the end of the token that ends at run offset out, raw being the run's
 * input. The pre-filter maps an offset where it dropped a trailing comma past the comma, but a
 * read that ended at the comma ends the run before it: the token's end is named before the comma
 * either way. Only commas are dropped at such a point (the blank filter maps its drops
 * to where they begin), so an input ',' just before that the output does not have is one. */
size_t ks_ps_token_end_in(const ks_run *run, const char *raw, size_t out, size_t *hint);
/* Absolute input offset of yajl's current position: the end of the token it consumed last. */
uint64_t ks_ps_cur_offset(ks_parser *p);
/* The absolute input offset of the end of a token ending at run offset out_off. */
uint64_t ks_ps_run_abs(ks_parser *p, size_t out_off);
/* Line and column of absolute offset abs; counts on from the position asked for last when abs
 * lies after it in the window (lcc_*). */
void ks_ps_line_col(ks_parser *p, uint64_t abs, uint64_t *line, uint64_t *col);
/* The raw input byte at absolute offset abs, from the kept bytes or the window; -1 past both. */
int ks_ps_raw_byte(const ks_parser *p, uint64_t abs);
/* The first byte at or after abs that is not a JSON blank (the start of the next token). */
uint64_t ks_ps_next_token(const ks_parser *p, uint64_t abs);
/* The offending token of a missing-',' error: the first token after the end of the last
 * accepted one (acc.abs). Only blanks and a trailing comma the pre-filter dropped can lie between
 * (yajl took no ',' there, or the error would be another one): the comma is skipped too. The
 * search starts at acc.keep, where ks_ps_skip_kept_blanks left it (acc.comma: past the comma). */
uint64_t ks_ps_offending_token(const ks_parser *p);
/* A diagnostic placed at absolute offset at (a worker's unit becomes unclean instead). */
void ks_ps_diag_at(ks_parser *p, const char *id, ks_severity sev, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A fatal error at at: sets p->err and p->failed; returns 0 (what a callback returns to stop). */
int ks_ps_fatal_at(ks_parser *p, uint64_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- uses.c --------------------------------------------------------------------------------- */
/* 1 the first time local id is seen in the current unit. */
int ks_ps_first_use(ks_parser *p, uint32_t **stamp, size_t *cap, uint32_t id);
void ks_ps_note_use(ks_parser *p, uint32_t id, const char *text, size_t len, int is_cat);
/* Every string of an event is interned through here: a worker logs its first use in the unit. */
ks_str ks_ps_intern(ks_parser *p, const char *s, size_t len);
/* What ks_ps_intern does besides the intern, for an id found otherwise (len: its text's length):
 * in a worker's unit, the first use of id logged (ks_ps_first_use, ks_ps_note_use); an id already
 * used in the unit is told here, without a call. */
void ks_ps_use_first(ks_parser *p, ks_str id, size_t len);
static inline void ks_ps_use(ks_parser *p, ks_str id, size_t len)
{
    if (p->wk.unit && id && (id >= p->wk.str_stamp_cap || p->wk.str_stamp[id] != p->wk.no))
        ks_ps_use_first(p, id, len);
}

/* ---- shapememo.c ---------------------------------------------------------------------------- */
/* 1 when the shape arg whose bytes are (s, n) was kept before: *id its string id (its use logged,
 * ks_ps_use); *h the bytes' hash, for ks_ps_memo_add, either way. */
int ks_ps_memo_find(ks_parser *p, const char *s, size_t n, uint64_t *h, ks_str *id);
/* Keep (s, n), hash h, as the text of string id, whose compact text has clen bytes. */
void ks_ps_memo_add(ks_parser *p, const char *s, size_t n, uint64_t h, ks_str id, size_t clen);
void ks_ps_memo_free(ks_shape_memo *m);

/* ---- ids.c ---------------------------------------------------------------------------------- */
ks_id ks_ps_parse_id_number(ks_parser *p, const char *s, size_t len);
int ks_ps_canonical_int(const char *s, size_t len);
int64_t ks_ps_parse_flow_id(const char *s, size_t len, int is_string, uint16_t *flags);
ks_kind ks_ps_kind_of(ks_parser *p, uint16_t cat, const ks_str name, char ph);
/* 1 when the event being committed is one kinesift annotate added (its category "kinesift" or
 * "kinesift.*", or metadata of the process named "kinesift"): left out, counted. */
int ks_ps_own_event(ks_parser *p);
uint32_t ks_ps_track_of(ks_parser *p, ks_id pid, ks_id tid);
uint32_t ks_ps_series_of(ks_parser *p, uint32_t track, const char *name, const char *key, size_t klen);

/* ---- commit.c ------------------------------------------------------------------------------- */
/* The current event at its closing '}': to the store, or to the worker's unit. */
void ks_ps_commit_event(ks_parser *p);

/* ---- values.c: the scalar callbacks (ctx is the parser) -------------------------------------- */
int ks_ps_non_object_event(ks_parser *p);
int ks_ps_not_a_trace(ks_parser *p);
int ks_ps_value(ks_parser *p, enum vtype vt, const char *s, size_t len);
int ks_ps_cb_null(void *ctx);
int ks_ps_cb_boolean(void *ctx, int b);
int ks_ps_cb_number(void *ctx, const char *s, size_t len);
int ks_ps_cb_string(void *ctx, const unsigned char *s, size_t len);
/* A shape arg (K_INPUT_DIMS, K_INPUT_TYPE, K_CONCRETE) being read: its '[' (begin), an inner '['
 * (open) and any ']' (close: the last one keeps its text in the event's shape); ks_ps_value
 * writes the values inside it. */
void ks_ps_cap_begin(ks_parser *p, int key);
int ks_ps_cap_open(ks_parser *p);
int ks_ps_cap_close(ks_parser *p);
/* a shape or launch arg whole, as the scanner hands it over: its compact text is the bytes less the
 * blanks outside strings (json/scan.h, raw_array) */
int ks_ps_cap_raw(ks_parser *p, int key, const char *s, size_t n);
int ks_ps_cb_raw_array(void *ctx, const unsigned char *s, size_t n);

/* ---- callbacks.c ---------------------------------------------------------------------------- */
/* A yajl handle calling the parser's callbacks with p; NULL when out of memory. */
yajl_handle ks_ps_new_handle(ks_parser *p);
/* The same callbacks, for the fast scanner (json/scan.h). */
const yajl_callbacks *ks_ps_callbacks(void);

/* ---- recover.c ------------------------------------------------------------------------------ */
/* Decide what to do after yajl reported an error at absolute offset at. Returns 0 when the error
 * is fatal (err set), else 1 with p->mode set. */
int ks_ps_on_syntax_error(ks_parser *p, uint64_t at, const char *msg);
/* Scan in.buf[*pos..in.len) for the resynchronisation point. Returns 1 when found: *pos is where
 * parsing resumes and *prefix the synthetic JSON to feed before it. */
int ks_ps_resync_scan(ks_parser *p, size_t *pos, const char **prefix);
void ks_ps_restart(ks_parser *p, const char *prefix, size_t pos);

/* ---- feed.c --------------------------------------------------------------------------------- */
/* The repair filter's callback (ctx is the parser): a repair of the current run, pending. */
void ks_ps_on_repair(void *ctx, int kind, size_t in_off);
/* Count the pending repairs that lie before limit; the others stay pending, in order. */
void ks_ps_commit_repairs(ks_parser *p, uint64_t limit);
/* The first repair in strict mode is the error. Returns 0 when there was one (err set). */
int ks_ps_strict_repair_ok(ks_parser *p, ks_error *err);
/* in.buf[0..upto) is about to be dropped: keep the positions that lie there and are still needed. */
void ks_ps_remember_event_start(ks_parser *p, size_t upto);
/* Move acc.keep over the blanks after the last accepted token that the window holds (and over
 * one ',' or ':'), so that a run of blanks between two tokens is not kept, whatever its length. */
void ks_ps_skip_kept_blanks(ks_parser *p);
/* Where the window may be cut before reading on, at most pos: not after acc.keep. */
size_t ks_ps_drop_point(const ks_parser *p, size_t pos);
/* Drop in.buf[0..pos), counting its newlines. */
void ks_ps_discard(ks_parser *p, size_t pos);
/* Hand run[off, off + len) to yajl. */
yajl_status ks_ps_feed_part(ks_parser *p, size_t off, size_t len);
/* After the run (or its parts) went to yajl: settle its repairs and the syntax error, if any. */
int ks_ps_settle(ks_parser *p, size_t pos, yajl_status ys, ks_error *err, uint64_t *err_at);
/* Hand the filtered run of in.buf[pos ..] to yajl and settle it (0 on a fatal error). */
int ks_ps_feed_run(ks_parser *p, size_t pos, ks_error *err, uint64_t *err_at);

/* ---- finish.c ------------------------------------------------------------------------------- */
/* The end of the input: truncation, strict mode, thread names, the trace finished. */
int ks_ps_finish(ks_parser *p, ks_error *err);

#endif
