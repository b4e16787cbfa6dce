/* parser/reader.h: the reader thread. It does, on a second core, what the parser would otherwise
 * do between two yajl calls: read (and decompress) the next chunk, run the repair pre-filter over
 * it, and count its newlines. The parser (parse.c) takes the filtered chunks from a small queue in
 * order and only runs yajl and the store. When it is ahead of the parser, the thread also drops
 * the indentation yajl would only skip (blanks.h: only with a core of its own, not with
 * KS_READER_YIELD) and faults in memory for the store (bigarray.h); when the parser waits for it
 * (slow decompression), it leaves both to the parser.
 *
 * When the parser needs a chunk that is not ready and the thread is not filling one (it has not
 * run yet after its start, or it lost its core), the parser fills it itself, as the thread would
 * have: one fill at a time, whoever does it, so the chunks are the same either way.
 *
 * The chunks are exactly those of the single-threaded loop: one read of chunk_size bytes each, the
 * filter's unconsumed tail carried into the next window, the first run delayed until 3 bytes are
 * in (BOM). So every run, repair, position and diagnostic is the same as without the thread.
 * After the parser's first resynchronisation the filter state it needs differs from the thread's,
 * so it asks for raw chunks (ks_reader_raw) and filters the rest itself. Internal to parser/. */
#ifndef KS_READER_H
#define KS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "kinesift/source.h"
#include "parser/blanks.h"
#include "json/repair.h"

typedef struct ks_reader ks_reader;

/* Repairs waiting for yajl to accept them: a run of n repairs of one kind at contiguous input
 * bytes [at, at + n) is one entry (a string of 32 MiB of raw control characters is one, not 32
 * million: the positions follow from at). */
typedef struct ks_pending_repair {
    uint32_t kind;
    uint32_t n;
    uint64_t at; /* absolute input offset of the first */
} ks_pending_repair;

/* Append n repairs of kind at [at, at + n) to v, joining the last entry when they follow it. */
static inline void ks_pending_add(ks_pending_repair **v, size_t *nv, size_t *cap, uint32_t kind, uint64_t at,
                                  uint32_t n)
{
    if (*nv) {
        ks_pending_repair *l = &(*v)[*nv - 1];
        if (l->kind == kind && l->at + l->n == at && l->n <= UINT32_MAX - n) {
            l->n += n;
            return;
        }
    }
    KS_GROW(*v, *cap, *nv + 1);
    (*v)[*nv] = (ks_pending_repair){kind, n, at};
    (*nv)++;
}

/* One read, and the filter run that followed it (if any). */
typedef struct ks_rchunk {
    char *buf;            /* the window: raw bytes [base, base + len) */
    size_t cap, len;
    int buf_lent;         /* buf is a slice of the reader's ring mapping, not malloc'ed */
    uint64_t base;
    size_t new_off;       /* buf[new_off .. len) came from this chunk's read */
    uint64_t bytes;       /* decompressed bytes read so far, this read included */
    int eof;              /* the read returned 0 (or failed) */
    int read_err;         /* the read failed (eof is set too) */
    ks_error err;         /* why the read failed */
    int bom;              /* the first run skips a UTF-8 BOM */
    int has_run;          /* the filter ran over buf[run_start .. len) */
    size_t run_start, consumed;
    int in_string;        /* the filter's string state after the run (to go on from there) */
    ks_repair out;        /* the repair filter's output of the run (its filter state unused) */
    ks_blanks_buf bbuf;   /* storage for that output without its indentation (blanks.h) */
    ks_run run;           /* what yajl gets, with its map to input offsets */
    ks_pending_repair *pr; /* repairs of the run, in order */
    size_t npr, pr_cap;
    uint64_t lines;       /* newlines in buf[0 .. lines_upto), lines_upto = run_start + consumed */
    size_t lines_upto;
    int64_t last_nl;      /* absolute offset of the last of them; -1 when none */
    /* parsing ahead (split.h), changed under the reader's lock: who reads the run first */
    uint64_t seq;         /* 0, 1, 2, ... in read order */
    int claim;            /* 0 nobody yet, -1 the parser, k > 0 worker k */
    int claim_done;       /* the worker is done with it */
    void *claim_data;     /* what the worker made of it */
} ks_rchunk;

/* Start the thread over st (st must not be touched by the caller until ks_reader_stop). flags:
 * KS_READER_EAGER (tests): take the optional steps (indentation, ready memory) whether or not the
 * thread is ahead (or has a core of its own), and fill every chunk in the thread (the parser
 * waits for it rather than fill one itself); KS_READER_TIMED: keep the time of reads, of the
 * filter and of the parser's waits and fills (clock reads per chunk), for ks_reader_stop_timed;
 * KS_READER_YIELD: the thread runs at a lower priority (nice + 2; see reader.c), for when the
 * parse has more threads than there are cores; KS_READER_TURNS (tests): the thread fills only the
 * odd-numbered chunks (seq 1, 3, ...), the parser the others itself: the filter's state changes
 * hands at every chunk; KS_READER_NO_THREAD: no thread is started, the parser fills every chunk
 * itself (an input of a few chunks, where a thread's start costs more than it saves). */
enum { KS_READER_EAGER = 1, KS_READER_TIMED = 2, KS_READER_YIELD = 4, KS_READER_TURNS = 8, KS_READER_NO_THREAD = 16 };
ks_reader *ks_reader_start(ks_stream *st, size_t chunk, int flags);

/* The next chunk, in order; valid until the next ks_reader_next. NULL after the eof chunk. */
ks_rchunk *ks_reader_next(ks_reader *r);

/* The chunks the parser filled itself, the thread having none ready (ks_parse_info). */
uint64_t ks_reader_self_fills(ks_reader *r);

/* 1 when started with KS_READER_TIMED. */
int ks_reader_timed(const ks_reader *r);

/* From now on deliver raw chunks only (no filter run, no leftover carried). */
void ks_reader_raw(ks_reader *r);

/* A ready memory block for the store (a ks_page_supply's take, see bigarray.h), or NULL. The
 * first call asks the thread to keep a couple ready from then on, made while it waits. */
void *ks_reader_take_block(void *ctx);

/* Parsing ahead (split.h). Set once, before any claim: the workers' share is every chunk with a
 * filtered run whose seq % period is >= main_share (the others are the parser's). With
 * leave_to_workers (tests) the parser waits for a worker to claim each chunk of their share; it
 * would otherwise read a chunk itself when no worker has started it yet. */
void ks_reader_share(ks_reader *r, unsigned period, unsigned main_share, int leave_to_workers);
/* A worker waits for a chunk of the workers' share that the parser has not taken yet and claims
 * it; NULL when there will be no more (raw mode, the end, or ks_reader_end_claims). The parser
 * takes every chunk in order all the same: one claimed by a worker comes with the worker's data
 * once ks_reader_wait_claim returns. A claimed slot is never reused before the worker is done. */
ks_rchunk *ks_reader_claim(ks_reader *r, int worker);
void ks_reader_claim_done(ks_reader *r, ks_rchunk *c, void *data);
/* The parser, instead of waiting for the worker that claimed c: when that worker is not done, claim
 * the first chunk of the parser's own share that is published, has a filtered run and is not
 * claimed yet, as claimant id (> 0, no worker's), to read it ahead now (ks_reader_claim_done
 * when read); NULL when the worker is done or there is no such chunk. Never blocks. */
ks_rchunk *ks_reader_claim_ahead(ks_reader *r, const ks_rchunk *c, int id);
/* The parser: wait until the worker that claimed c (c->claim > 0) is done; returns its data. */
void *ks_reader_wait_claim(ks_reader *r, ks_rchunk *c);
/* No more claims: waiting workers get NULL. */
void ks_reader_end_claims(ks_reader *r);

/* Stop the thread (it may be blocked on a full queue) and free everything. */
void ks_reader_stop(ks_reader *r);
/* The same, and, when started with KS_READER_TIMED and t is not NULL, add to t (once the thread
 * is joined) its reads with decompression and its filter runs (beside the parse), the parser's
 * waits for chunks, the chunks it filled itself and, when workers parsed ahead, its waits for the
 * chunks they had claimed and not finished (within the parse). */
struct ks_timings;
void ks_reader_stop_timed(ks_reader *r, struct ks_timings *t);

#endif
