/* kinesift/parse.h: the trace reader. Streams a source through a repairing pre-filter and yajl
 * into an event store (kinesift/store.h). Tolerant by default: malformed strings are repaired,
 * broken events skipped, a truncated file keeps its complete events; every recovery is counted in
 * the trace's diagnostics. With strict set, any of them is an error with byte/line/column.
 *
 * Threads (kinesift/common.h): parses of different inputs may run at once on different threads
 * (`ranks` reads several traces at once); each parse starts its reader thread and its workers
 * (ks_parse_opts.threads) and joins them before it returns. The trace it returns belongs to the
 * caller. */
#ifndef KINESIFT_PARSE_H
#define KINESIFT_PARSE_H

#include "kinesift/source.h"
#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a parse did with its threads (tests, benchmarks): ks_parse_opts.info. */
typedef struct ks_parse_info {
    uint64_t chunks;          /* filtered chunks the main parser took from the reader thread */
    uint64_t chunks_filled;   /* chunks (filtered or not) the main parser read and filtered itself:
                               * the reader thread had none ready, or none was started */
    uint64_t units_replayed;  /* of them, parsed by a worker and replayed */
    uint64_t units_reread;    /* parsed by a worker, but read by the main parser after all */
    uint64_t units_own;       /* scanned by the main parser itself (ks_parse_opts.own_scans) and replayed */
    uint64_t units_ahead;     /* of units_own, scanned ahead while the main parser waited for a worker */
    uint64_t scans_refused;   /* chunks (a worker's or the main parser's) whose middle the fast scanner
                               * (json/scan.h) left to yajl */
} ks_parse_info;

typedef struct ks_parse_opts {
    int strict;          /* repairs, skipped events and truncation become errors */
    size_t chunk_size;   /* bytes per read; 0 = default (256 KiB) */
    /* Called every ~chunk with the decompressed bytes read so far; may be NULL. */
    void (*progress)(void *ctx, const ks_stream *st, uint64_t bytes);
    void *progress_ctx;
    /* Reader thread: 0 (default) = used for inputs bigger than a chunk (or of unknown size); for
     * one of known size under 6 chunks with threads 0 or 1, its chunks filled by the main parser
     * itself, without the thread, 1 = always, -1 = never, 2 = always and with every optional step
     * it takes when ahead of the parser, and with the workers' share of chunks always left to them
     * (tests), 3 = as 2, and each worker starts on a chunk only once the main parser waits for it
     * (tests: the main parser scans its own next chunks meanwhile, ks_parse_info.units_ahead), 4 =
     * as 1, and the thread reads every other chunk, the main parser the others itself (tests). It
     * reads, decompresses and pre-filters on a second core while yajl runs; when it has no chunk
     * ready and is not reading one, the main parser reads the next itself
     * (ks_parse_info.chunks_filled). The trace, diagnostics and errors are the same either way. */
    int reader_thread;
    /* Parser threads when the reader thread runs: 0 (default) = one per core, at most 4, and the
     * main parser alone for an input of known size under 6 chunks; 1 = the main parser alone. The
     * others parse chunks ahead of it (parser/split.h); the trace, diagnostics and errors are the
     * same whatever the number. */
    int threads;
    /* When the reader thread runs, the main parser runs the middle of every chunk no worker took
     * through the fast scanner (json/scan.h) as a worker would, and replays it: 0 (default) = yes,
     * -1 = no (yajl reads those chunks whole; tests). The trace is the same either way. */
    int own_scans;
    ks_parse_info *info; /* when not NULL: counts added there */
    /* When not NULL, the wall time of the parse, of its reads and pre-filter (on the reader
     * thread, beside it) and of the store's finish are added there (kinesift/timings.h). */
    struct ks_timings *timings;
} ks_parse_opts;

KS_API void ks_parse_opts_init(ks_parse_opts *o);

/* Parse one stream into a new trace. On error returns KS_ERR, *out = NULL, err filled (with the
 * position when there is one). */
KS_API int ks_parse_stream(ks_stream *st, const ks_parse_opts *o, ks_trace **out, ks_error *err);

/* Convenience: parse a whole buffer (tests, fuzzers). */
KS_API int ks_parse_buffer(const char *name, const void *buf, size_t len, const ks_parse_opts *o,
                           ks_trace **out, ks_error *err);

/* Exact timestamp parsing (parser/number.c): the decimal text of a value in microseconds, as
 * JSON writes it ("-?D+(.D+)?([eE][+-]?D+)?"), to int64 ns without floating point.
 * Returns KS_NUM_EXACT, KS_NUM_ROUNDED (excess fraction digits rounded half away from zero),
 * KS_NUM_INEXACT (needed more than 19 significant digits; converted via strtod/llround),
 * or a negative KS_NUM_* error. */
enum {
    KS_NUM_EXACT = 0,
    KS_NUM_ROUNDED = 1,
    KS_NUM_INEXACT = 2,
    KS_NUM_SYNTAX = -1,   /* not a number */
    KS_NUM_RANGE = -2     /* does not fit int64 ns */
};
KS_API int ks_parse_us_to_ns(const char *s, size_t len, int64_t *ns);

/* Integer text to int64 ("External id", "correlation"): KS_NUM_EXACT, or KS_NUM_RANGE (value
 * kept saturated in *v), or KS_NUM_SYNTAX (fraction/exponent or not a number). */
KS_API int ks_parse_int64(const char *s, size_t len, int64_t *v);

#ifdef __cplusplus
}
#endif
#endif
