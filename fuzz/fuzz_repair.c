/* fuzz/fuzz_repair.c: the repairing pre-filter (json/repair.h) alone. The input is cut into
 * runs at points drawn from its first bytes; fed run by run (unconsumed bytes passed again, as
 * the parser does) it must give the same output and repair counts as in one run, the output of
 * a run must map back to offsets inside the run, never backwards (the bytes of an expansion map to
 * the byte it replaces), and the byte-by-byte path and the 16-byte block path must agree with
 * the widest block path the CPU has (32-byte AVX2 blocks where it has them). */
#include "common/util.h"
#include "fuzz/fuzz.h"
#include "json/repair.h"

typedef struct filtered {
    ks_buf out;
    uint64_t count[KS_REPAIR_NKINDS];
} filtered;

/* mode 0: the widest block path, 1: bytes only, 2: 16-byte blocks */
static void filter(const uint8_t *p, size_t n, const uint8_t *cuts, size_t ncuts, int mode, filtered *f)
{
    ks_repair r;
    ks_repair_init(&r);
    r.no_blocks = mode == 1;
    r.narrow_blocks = mode == 2;
    size_t at = 0, end = 0, k = 0;
    while (at < n || end == 0) {
        /* the window grows by the next cut; unconsumed bytes are passed again */
        size_t want = ncuts ? (size_t)1 + cuts[k++ % ncuts] % 64 : n;
        end = end + want > n ? n : end + want;
        int eof = end == n;
        size_t used = ks_repair_run(&r, (const char *)p + at, end - at, eof);
        FUZZ_CHECK(used <= end - at, "consumed %zu of %zu", used, end - at);
        FUZZ_CHECK(!eof || used == end - at, "left %zu bytes at end of input", end - at - used);
        ks_run run = ks_repair_last_run(&r);
        /* every output byte maps into the run, never backwards, the same with a hint */
        size_t prev = 0, hint = 0;
        for (size_t o = 0; o <= run.len; o++) {
            size_t i = ks_run_in_offset(&run, o);
            FUZZ_CHECK(i <= used && i >= prev, "offset %zu maps to %zu (previous %zu, run %zu)", o, i, prev, used);
            FUZZ_CHECK(ks_run_in_offset_hint(&run, o, &hint) == i, "hinted mapping differs at %zu", o);
            prev = i;
        }
        for (size_t m = 1; m < run.nmap; m++)
            FUZZ_CHECK(run.map[m].out >= run.map[m - 1].out && run.map[m].in >= run.map[m - 1].in,
                       "map point %zu goes back", m);
        ks_buf_put(&f->out, run.res, run.len);
        at += used;
        if (eof)
            break;
    }
    memcpy(f->count, r.count, sizeof f->count);
    ks_repair_free(&r);
    ks_buf_cstr(&f->out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    size_t ncuts = fuzz_take(&in, 1) % 8;
    const uint8_t *cuts = in.p;
    if (ncuts > in.n)
        ncuts = in.n;
    in.p += ncuts;
    in.n -= ncuts;
    filtered whole = {0}, cut = {0}, slow = {0}, narrow = {0};
    filter(in.p, in.n, NULL, 0, 0, &whole);
    filter(in.p, in.n, cuts, ncuts, 0, &cut);
    filter(in.p, in.n, cuts, ncuts, 1, &slow);
    filter(in.p, in.n, cuts, ncuts, 2, &narrow);
    const filtered *other[] = {&cut, &slow, &narrow};
    static const char *const what[] = {"cut", "byte-by-byte", "16-byte block"};
    for (int k = 0; k < 3; k++) {
        const filtered *o = other[k];
        FUZZ_CHECK(whole.out.n == o->out.n && memcmp(whole.out.p, o->out.p, whole.out.n) == 0,
                   "%s output differs (%zu vs %zu bytes)", what[k], whole.out.n, o->out.n);
        FUZZ_CHECK(memcmp(whole.count, o->count, sizeof whole.count) == 0, "%s repair counts differ", what[k]);
    }
    ks_buf_free(&whole.out);
    ks_buf_free(&cut.out);
    ks_buf_free(&slow.out);
    ks_buf_free(&narrow.out);
    return 0;
}
