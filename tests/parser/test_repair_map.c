/* tests/parser/test_repair_map.c: the offset map from repaired text back to the input (json/repair.h,
 * ks_repair_map) and its composition with the indentation-dropping stage (parser/blanks.c), against
 * a naive reference that has one input offset per output byte. The reference is built here from
 * the repairs the filter reported (kind and input offset: a repaired byte's expansion comes from
 * it, a dropped comma gives no byte, every other byte is copied) and, for the stage, by aligning
 * its output with the repaired text (a run of blanks that went maps to its first byte, the byte
 * after it to itself). Random inputs with repairs in random places, alone and in runs of one
 * shape, are cut into runs at random points and read through the reader thread at random chunk
 * sizes; every output offset of every run is looked up (plain and hinted) and compared. A run of
 * repairs of one shape is one map point: 256 KiB of raw control characters in a name need a map of
 * a few points, not 262 144. */
#include "ks_test.h"
#include "json/repair.h"
#include "parser/blanks.h"
#include "parser/reader.h"
#include "source/stream.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)((rng >> 11) % n);
}

/* output bytes of one repair of kind k (a dropped comma gives none) */
static size_t width(int k)
{
    switch (k) {
    case KS_REPAIR_QUOTE:
    case KS_REPAIR_ESCAPE:
        return 2;
    case KS_REPAIR_CONTROL:
        return 6;
    case KS_REPAIR_UTF8:
        return 3;
    default:
        return 0;
    }
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The reference for a repair run: ref[o] for o in [0, len] from the repairs kind[i] >= 0 at the
 * run's input offsets i in [0, used). The copied bytes are checked against the input. */
static size_t *repair_reference(const char *input, size_t used, const int *kind, const ks_run *run)
{
    size_t *ref = ks_xmalloc((run->len + 1) * sizeof *ref);
    size_t o = 0;
    for (size_t i = 0; i < used; i++) {
        if (kind[i] < 0) {
            assert_true(o < run->len);
            assert_int_equal((unsigned char)run->res[o], (unsigned char)input[i]);
            ref[o++] = i;
            continue;
        }
        size_t w = width(kind[i]);
        assert_true(o + w <= run->len);
        for (size_t j = 0; j < w; j++)
            ref[o++] = i;
    }
    assert_int_equal(o, run->len);
    ref[o] = used;
    return ref;
}

/* The reference for the stage's output t of the repaired text s (reference rs). */
static size_t *blanks_reference(const ks_run *s, const size_t *rs, const ks_run *t)
{
    size_t *ref = ks_xmalloc((t->len + 1) * sizeof *ref);
    size_t p = 0, q = 0;
    while (q < s->len) {
        assert_true(p < t->len);
        if (is_blank(s->res[q]) && !is_blank(t->res[p])) {
            size_t x = q; /* a run that went: the byte after it maps to its first byte */
            while (q < s->len && is_blank(s->res[q]))
                q++;
            assert_true(q < s->len);
            assert_int_equal(t->res[p], s->res[q]);
            ref[p++] = rs[x];
            q++;
            continue;
        }
        assert_int_equal(t->res[p], s->res[q]);
        ref[p++] = rs[q++];
    }
    assert_int_equal(p, t->len);
    ref[p] = rs[s->len];
    return ref;
}

/* Every offset of run maps as ref says, looked up alone and with a hint (in order, and jumping). */
static void check_run(const ks_run *run, const size_t *ref)
{
    size_t hint = 0, hint2 = 0;
    for (size_t o = 0; o <= run->len; o++) {
        if (ks_run_in_offset(run, o) != ref[o])
            fail_msg("offset %zu of %zu maps to %zu, not %zu (map of %zu points)", o, run->len,
                     ks_run_in_offset(run, o), ref[o], run->nmap);
        assert_int_equal(ks_run_in_offset_hint(run, o, &hint), ref[o]);
        size_t r = run->len ? rnd((uint32_t)run->len + 1) : 0, h0 = hint2;
        size_t got = ks_run_in_offset_hint(run, r, &hint2);
        if (got != ref[r])
            fail_msg("offset %zu of %zu maps to %zu with hint %zu, not %zu (map of %zu points)", r, run->len, got,
                     h0, ref[r], run->nmap);
    }
    for (size_t m = 1; m < run->nmap; m++) {
        assert_true(run->map[m].out > run->map[m - 1].out || !run->map[m - 1].gin);
        assert_true(run->map[m].in >= run->map[m - 1].in);
    }
}

/* Random text in the shape of a pretty-printed trace with damaged strings: runs of one repair
 * (control characters, invalid UTF-8 bytes, unescaped quotes, invalid escapes), runs of one shape
 * with bytes copied between them, single repairs, valid escapes and UTF-8, trailing commas, and
 * indentation the stage drops. */
static void random_text(ks_buf *b, size_t target)
{
    b->n = 0;
    ks_buf_puts(b, "{\"traceEvents\": [\n");
    while (b->n < target) {
        ks_buf_puts(b, "    {\n      \"ph\": \"X\",\n      \"name\": \"");
        int parts = 1 + (int)rnd(6);
        for (int k = 0; k < parts; k++) {
            size_t len = 1 + rnd(rnd(4) ? 8 : 300);
            char c;
            switch (rnd(12)) {
            case 0: /* a run of one control character */
                c = (char)(1 + rnd(31));
                for (size_t j = 0; j < len; j++)
                    ks_buf_putc(b, c == '"' ? 1 : c);
                break;
            case 1: /* invalid UTF-8 */
                for (size_t j = 0; j < len; j++)
                    ks_buf_putc(b, (char)(0xf8 + rnd(8)));
                break;
            case 2: /* unescaped quotes */
                for (size_t j = 0; j < len; j++)
                    ks_buf_puts(b, "\"x");
                break;
            case 3: /* invalid escapes (a Windows path) */
                for (size_t j = 0; j < len; j++)
                    ks_buf_puts(b, rnd(2) ? "\\q" : "\\d");
                break;
            case 4: { /* a run of one shape: copied bytes, then one repaired byte */
                size_t v = rnd(4);
                c = (char)(1 + rnd(31));
                for (size_t j = 0; j < len; j++) {
                    for (size_t u = 0; u < v; u++)
                        ks_buf_putc(b, 'a');
                    ks_buf_putc(b, c);
                }
                break;
            }
            case 5: /* two shapes alternating */
                for (size_t j = 0; j < len; j++)
                    ks_buf_puts(b, j % 2 ? "\x01" : "\xff");
                break;
            case 6: /* valid escapes and UTF-8 */
                for (size_t j = 0; j < len; j++)
                    ks_buf_puts(b, rnd(2) ? "\\n\\u00e9" : "\xc3\xa9");
                break;
            case 7: /* a raw line break and indentation inside the string */
                ks_buf_puts(b, "\n        ");
                break;
            case 8: /* random bytes */
                for (size_t j = 0; j < len; j++) {
                    c = (char)rnd(256);
                    ks_buf_putc(b, c == '"' ? 'q' : c);
                }
                break;
            default:
                for (size_t j = 0; j < len; j++)
                    ks_buf_putc(b, (char)('a' + rnd(26)));
            }
        }
        ks_buf_puts(b, "\",\n      \"ts\": 1,\n      \"args\": [\n        1,\n        2");
        if (rnd(2))
            ks_buf_puts(b, ",\n      ]");
        else
            ks_buf_puts(b, "\n      ]");
        ks_buf_puts(b, rnd(3) ? "\n    },\n" : ",\n    },\n");
    }
    ks_buf_puts(b, "    {}\n]}\n");
}

/* Filter text in runs cut at random points (unconsumed bytes passed again, as the parser does),
 * with runs of one shape (no_runs 0) or one point per repair (1); check every run's map and the
 * stage's map over it. Returns the map points of the whole text in one run. */
typedef struct rep_log {
    int *kind;
    size_t base;
} rep_log;

static void log_repair(void *ctx, int kind, size_t in_off)
{
    rep_log *l = ctx;
    l->kind[l->base + in_off] = kind;
}

static size_t filter_in_runs(const char *text, size_t n, int no_runs, int cut)
{
    ks_repair r;
    ks_repair_init(&r);
    r.no_runs = no_runs;
    r.no_blocks = rnd(4) == 0;
    rep_log log = {ks_xmalloc((n + 1) * sizeof(int)), 0};
    r.on_repair = log_repair;
    r.ctx = &log;
    ks_blanks_buf bb = {0};
    size_t at = 0, end = 0, points = 0;
    for (;;) {
        size_t want = cut ? 1 + rnd(rnd(2) ? 16 : 2000) : n;
        end = end + want > n ? n : end + want;
        int eof = end == n;
        for (size_t i = at; i < end; i++)
            log.kind[i] = -1;
        log.base = at;
        size_t used = ks_repair_run(&r, text + at, end - at, eof);
        ks_run run = ks_repair_last_run(&r), dropped;
        points = run.nmap;
        size_t *ref = repair_reference(text + at, used, log.kind + at, &run);
        check_run(&run, ref);
        ks_blanks_run(&run, &bb, &dropped);
        size_t *bref = blanks_reference(&run, ref, &dropped);
        check_run(&dropped, bref);
        free(ref);
        free(bref);
        at += used;
        if (eof)
            break;
    }
    ks_blanks_buf_free(&bb);
    free(log.kind);
    ks_repair_free(&r);
    return points;
}

/* The same through the reader thread at a chunk size: each chunk's repair run (its map, from the
 * repairs the chunk reports) and what the parser gets (the stage's output when it ran). */
static void through_reader(const char *text, size_t n, size_t chunk)
{
    ks_source *src;
    ks_stream *st;
    ks_error err;
    assert_int_equal(ks_source_open_memory("t.json", text, n, &src, &err), KS_OK);
    assert_int_equal(ks_source_next(src, &st, &err), 1);
    static const int flags[] = {0, KS_READER_EAGER, KS_READER_EAGER, KS_READER_TURNS};
    ks_reader *rd = ks_reader_start(st, chunk, flags[rnd(4)]);
    assert_non_null(rd);
    ks_rchunk *c;
    int *kind = NULL;
    size_t kind_cap = 0;
    while ((c = ks_reader_next(rd))) {
        if (c->has_run) {
            const char *in = c->buf + c->run_start;
            KS_GROW(kind, kind_cap, c->consumed + 1);
            for (size_t i = 0; i < c->consumed; i++)
                kind[i] = -1;
            uint64_t from = c->base + c->run_start;
            for (size_t k = 0; k < c->npr; k++)
                for (uint32_t j = 0; j < c->pr[k].n; j++) {
                    assert_true(c->pr[k].at + j >= from && c->pr[k].at + j < from + c->consumed);
                    kind[c->pr[k].at + j - from] = (int)c->pr[k].kind;
                }
            ks_run rep = ks_repair_last_run(&c->out);
            size_t *ref = repair_reference(in, c->consumed, kind, &rep);
            check_run(&rep, ref);
            if (c->run.res != rep.res) {
                size_t *bref = blanks_reference(&rep, ref, &c->run);
                check_run(&c->run, bref);
                free(bref);
            }
            free(ref);
        }
        if (c->eof)
            break;
    }
    free(kind);
    ks_reader_stop(rd);
    ks_source_close(src);
}

static void maps_match_a_per_byte_reference(void **state)
{
    (void)state;
    ks_buf b = {0};
    static const size_t chunks[] = {1, 2, 3, 7, 64, 4096};
    for (int t = 0; t < 200; t++) {
        random_text(&b, 200 + rnd(t % 10 ? 2000 : 20000));
        filter_in_runs(b.p, b.n, 0, 0);
        filter_in_runs(b.p, b.n, 0, 1);
        filter_in_runs(b.p, b.n, 1, 1);
        size_t chunk = t % 3 ? chunks[b.n > 4000 ? 3 + rnd(3) : rnd(6)] : 1 + rnd(20000);
        through_reader(b.p, b.n, chunk);
    }
    ks_buf_free(&b);
}

/* 256 KiB of raw control characters in a name, then the same with one copied byte before each, and
 * a trailing comma after every element of an array: each is a few map points, and maps exactly. */
static void a_run_of_one_shape_is_one_point(void **state)
{
    (void)state;
    static const char *const unit[] = {"\x01", "a\x02", "\xff", "\"y", "\\q", "bc\x1f"};
    ks_buf b = {0};
    for (size_t u = 0; u < sizeof unit / sizeof *unit; u++) {
        b.n = 0;
        ks_buf_puts(&b, "[{\"name\": \"");
        while (b.n < (1u << 18))
            ks_buf_puts(&b, unit[u]);
        ks_buf_puts(&b, "\"}]");
        size_t points = filter_in_runs(b.p, b.n, 0, 0);
        if (points > 4)
            fail_msg("unit %zu: %zu map points for one run of repairs", u, points);
        assert_true(filter_in_runs(b.p, b.n, 1, 0) > 50000); /* one point per repair */
    }
    b.n = 0;
    ks_buf_puts(&b, "[");
    for (int i = 0; i < 20000; i++)
        ks_buf_puts(&b, "[1,2,],");
    ks_buf_puts(&b, "[]]");
    size_t points = filter_in_runs(b.p, b.n, 0, 0);
    if (points > 4)
        fail_msg("%zu map points for 20 000 trailing commas one shape apart", points);
    ks_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_of_one_shape_is_one_point),
        cmocka_unit_test(maps_match_a_per_byte_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
