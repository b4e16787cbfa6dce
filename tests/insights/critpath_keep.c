/* tests/insights/critpath_keep.c: how the critical path keeps the pieces of its steps as they are
 * made (insights/critpath.c, included here to reach its sink: white-box). The corpus laws
 * (corpus_critpath.c) read back pieces that always tile their steps, so they are always packed;
 * here hand-made pieces also take the other ways:
 *  - ends 2^32 ns or more after the step's start (their high words kept beside the packed ones,
 *    from the first piece that needs them, zero for those before);
 *  - a piece that cannot be packed in the middle of a step (not beginning where the one before
 *    ended; a track of 2^28 or more): the pieces kept so far, of the steps before and of this one,
 *    are unpacked, and every piece from then on is kept whole;
 *  - a step whose first piece cannot be packed.
 * Every piece reads back (ks_critpath_piece and ks_cp_next) as it was given, in order, each step's
 * pieces from its own first; the sums by kind, the inferred time and the top items are the
 * pieces'. */
#include "insights/critpath.c"

#include <stdio.h>

static int failures;

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

#define NSTR 16
#define MAXP 16

typedef struct given {
    ks_cp_piece v[MAXP];
    size_t n;
} given;

typedef struct room {
    ks_critpath cp;
    uint8_t comm[NSTR];
    uint32_t slot[2 * NSTR];
    items it;
    sink k;
} room;

static void room_init(room *r, size_t nsteps)
{
    memset(r, 0, sizeof *r);
    r->cp.v = ks_xcalloc(nsteps, sizeof *r->cp.v);
    memset(r->comm, 1, sizeof r->comm); /* no name is a collective (and no trace is asked) */
    r->it.slot = r->slot;
    sink k = {&r->cp, NULL, NULL, r->comm, &r->it, 0, 0};
    r->k = k;
}

static void room_free(room *r)
{
    free(r->it.v);
    ks_critpath_free(&r->cp);
}

/* a step [start, end) made of the pieces of g, through the sink as step_path does */
static void step(room *r, ks_ns start, ks_ns end, given *g)
{
    ks_cp_step *s = &r->cp.v[r->cp.n++];
    s->number = (int64_t)r->cp.n;
    s->start = start;
    s->end = end;
    r->k.s = s;
    s->first = r->cp.npieces;
    r->k.at = start;
    for (size_t i = 0; i < g->n; i++) {
        const ks_cp_piece *p = &g->v[i];
        emit(&r->k, p->a, p->b, p->track, p->kind, p->inferred, p->name);
    }
    top_items(s, &r->it, NULL, r->comm);
}

static void add(given *g, ks_ns a, ks_ns b, uint32_t track, int kind, int inferred, ks_str name)
{
    ks_cp_piece p = {a, b, track, (uint8_t)kind, (uint8_t)inferred, name};
    g->v[g->n++] = p;
}

static int same(const ks_cp_piece *p, const ks_cp_piece *q)
{
    return p->a == q->a && p->b == q->b && p->track == q->track && p->kind == q->kind &&
           p->inferred == q->inferred && p->name == q->name;
}

/* step i of r holds exactly the pieces of g, read both ways, and its sums are theirs */
static void check_step(const room *r, size_t i, const given *g)
{
    const ks_cp_step *s = &r->cp.v[i];
    CHECK(s->n == g->n);
    ks_ns by_kind[KS_CP_NKINDS] = {0}, inferred = 0, cpu1 = 0;
    ks_cp_cursor cu = ks_cp_cursor_of(&r->cp, s);
    for (size_t k = 0; k < g->n && k < s->n; k++) {
        ks_cp_piece p = ks_critpath_piece(&r->cp, s, k), q;
        CHECK(same(&p, &g->v[k]));
        CHECK(ks_cp_next(&cu, &q) && same(&q, &g->v[k]));
        by_kind[g->v[k].kind] += g->v[k].b - g->v[k].a;
        if (g->v[k].inferred)
            inferred += g->v[k].b - g->v[k].a;
        if (g->v[k].kind == KS_CP_CPU && g->v[k].name == 1)
            cpu1 += g->v[k].b - g->v[k].a;
    }
    for (int k = 0; k < KS_CP_NKINDS; k++)
        CHECK(s->by_kind[k] == by_kind[k]);
    CHECK(s->inferred_ns == inferred);
    /* name 1 as CPU is among the few items of every step here, with its time; most time first */
    int found = 0;
    for (size_t k = 0; k < s->ntop; k++) {
        found += s->top[k].kind == KS_CP_CPU && s->top[k].name == 1 && s->top[k].ns == cpu1;
        CHECK(!k || s->top[k - 1].ns >= s->top[k].ns);
    }
    CHECK(found == 1);
}

int main(void)
{
    const ks_ns big = (ks_ns)1 << 32;
    {
        /* packed throughout; the third piece ends 2^32 ns after the step's start */
        room r;
        room_init(&r, 2);
        given g0 = {0}, g1 = {0};
        add(&g0, 1000, 1100, 3, KS_CP_CPU, 0, 1);
        add(&g0, 1100, 1300, 3, KS_CP_LAUNCH, 1, 0);
        add(&g0, 1300, 1000 + big + 7, 5, KS_CP_GPU, 0, 2);
        add(&g0, 1000 + big + 7, 1000 + big + 50, 3, KS_CP_CPU, 0, 1);
        step(&r, 1000, 1000 + big + 50, &g0);
        add(&g1, 2 * big, 2 * big + 40, 3, KS_CP_CPU, 0, 1);
        add(&g1, 2 * big + 40, 2 * big + 45, 3, KS_CP_SYNC, 0, 4);
        step(&r, 2 * big, 2 * big + 45, &g1);
        CHECK(r.cp.packed && r.cp.end_hi && !r.cp.wide);
        CHECK(r.cp.npieces == 6 && r.cp.v[1].first == 4);
        check_step(&r, 0, &g0);
        check_step(&r, 1, &g1);
        room_free(&r);
    }
    {
        /* a step packed, then one that cannot be from its third piece (a gap), then a track too
         * large to pack: all kept whole from the gap on, the ones before as they were given */
        room r;
        room_init(&r, 3);
        given g0 = {0}, g1 = {0}, g2 = {0};
        add(&g0, 0, 10, 2, KS_CP_CPU, 0, 1);
        add(&g0, 10, big + 3, 2, KS_CP_GPU, 0, 3);
        step(&r, 0, big + 3, &g0);
        CHECK(r.cp.packed && r.cp.end_hi && !r.cp.wide);
        add(&g1, big + 10, big + 20, 2, KS_CP_CPU, 0, 1);
        add(&g1, big + 20, big + 25, 2, KS_CP_THREAD_WAIT, 1, 0);
        add(&g1, big + 30, big + 70, 2, KS_CP_CPU, 0, 1); /* begins after the one before ended */
        add(&g1, big + 70, big + 90, 6, KS_CP_GPU, 1, 5);
        step(&r, big + 10, big + 90, &g1);
        CHECK(r.cp.wide && !r.cp.packed && !r.cp.end_hi);
        add(&g2, 3 * big, 3 * big + 100, 2, KS_CP_CPU, 0, 1);
        add(&g2, 3 * big + 100, 3 * big + 130, 1u << 28, KS_CP_UNMODELED, 0, 0);
        step(&r, 3 * big, 3 * big + 130, &g2);
        CHECK(r.cp.npieces == 8 && r.cp.v[1].first == 2 && r.cp.v[2].first == 6);
        check_step(&r, 0, &g0);
        check_step(&r, 1, &g1);
        check_step(&r, 2, &g2);
        room_free(&r);
    }
    {
        /* the first step's first piece begins after the step's start: whole from the first */
        room r;
        room_init(&r, 1);
        given g0 = {0};
        add(&g0, 505, 600, 1, KS_CP_CPU, 0, 1);
        add(&g0, 600, 700, 1, KS_CP_CPU, 0, 2);
        step(&r, 500, 700, &g0);
        CHECK(r.cp.wide && !r.cp.packed);
        check_step(&r, 0, &g0);
        room_free(&r);
    }
    if (failures)
        fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
