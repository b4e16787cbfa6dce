/* tests/common/test_threads.c: how the library starts its threads (common/threads.c,
 * ks_thread_create): the thread runs its function with its argument and hands its result to
 * pthread_join; it starts on a CPU other than its creator's whenever the creator may use more than
 * one (its first CPU and the mask it was started with, seen from inside), and then holds its
 * creator's whole mask again; with a mask of one CPU it starts as pthread_create would, on that
 * CPU. The creator's mask is narrowed here to two CPUs and to one, so that the checks do not
 * depend on the machine (a machine with one CPU runs the one-CPU case only). The application's
 * hook (ks_set_thread_start) runs in each such thread, once, before its function; NULL removes it. */
#include <pthread.h>
#include <sched.h>

#include <stdatomic.h>

#include "ks_test.h"
#include "common/threads.h"
#include "kinesift/common.h"

typedef struct seen {
    int arg;
    int first_cpu;        /* sched_getcpu() first thing in the function */
    cpu_set_t mask;       /* the thread's mask inside its function */
} seen;

static void *body(void *p)
{
    seen *s = p;
    s->first_cpu = sched_getcpu();
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof s->mask, &s->mask), 0);
    return (void *)(intptr_t)(s->arg * 2);
}

/* runs one thread from the calling thread; returns its boot record */
static ks_thread_boot run_one(seen *s, int arg)
{
    pthread_t t;
    ks_thread_boot b;
    memset(s, 0, sizeof *s);
    s->arg = arg;
    assert_int_equal(ks_thread_create(&t, &b, body, s), 0);
    void *ret = NULL;
    assert_int_equal(pthread_join(t, &ret), 0);
    assert_int_equal((int)(intptr_t)ret, arg * 2); /* the function's result through the join */
    return b;
}

static int narrow(cpu_set_t *to, const cpu_set_t *from, int n) /* the first n CPUs of from */
{
    CPU_ZERO(to);
    int k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < n; c++)
        if (CPU_ISSET(c, from)) {
            CPU_SET(c, to);
            k++;
        }
    return k;
}

static void starts_off_the_callers_cpu(void **state)
{
    (void)state;
    cpu_set_t all, two;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    if (narrow(&two, &all, 2) < 2) {
        print_message("one CPU: the start off the caller's CPU is not checked\n");
        return;
    }
    assert_int_equal(sched_setaffinity(0, sizeof two, &two), 0);
    for (int i = 0; i < 20; i++) {
        int me = sched_getcpu();
        seen s;
        ks_thread_boot b = run_one(&s, i);
        assert_true(b.placed);
        /* started with the creator's CPU left out: its first CPU is the other one, unless the
         * creator itself moved between its sched_getcpu and ours (then both may differ) */
        if (sched_getcpu() == me)
            assert_int_not_equal(s.first_cpu, me);
        assert_true(CPU_ISSET(s.first_cpu, &two));
        /* and inside its function it holds the creator's whole mask */
        assert_true(CPU_EQUAL(&s.mask, &two));
    }
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
}

static void one_cpu_starts_as_pthread_create(void **state)
{
    (void)state;
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    assert_int_equal(narrow(&one, &all, 1), 1);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    seen s;
    ks_thread_boot b = run_one(&s, 21);
    assert_false(b.placed);
    assert_true(CPU_ISSET(s.first_cpu, &one));
    assert_true(CPU_EQUAL(&s.mask, &one));
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
}

/* many threads at once, as the pool starts them: each runs its own function once */
static void many_at_once(void **state)
{
    (void)state;
    enum { N = 8 };
    pthread_t t[N];
    ks_thread_boot b[N];
    seen s[N];
    for (int i = 0; i < N; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].arg = 100 + i;
        assert_int_equal(ks_thread_create(&t[i], &b[i], body, &s[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        void *ret = NULL;
        assert_int_equal(pthread_join(t[i], &ret), 0);
        assert_int_equal((int)(intptr_t)ret, (100 + i) * 2);
    }
}

static atomic_int hook_calls;
static _Thread_local int hook_ran; /* in this thread */

static void hook(void)
{
    hook_ran++;
    atomic_fetch_add(&hook_calls, 1);
}

static void *hook_seen(void *p)
{
    *(int *)p = hook_ran; /* what the hook did in this thread before the function */
    return NULL;
}

static void calls_the_hook_first(void **state)
{
    (void)state;
    enum { N = 4 };
    pthread_t t[N];
    ks_thread_boot b[N];
    int ran[N];
    ks_set_thread_start(hook);
    atomic_store(&hook_calls, 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(ks_thread_create(&t[i], &b[i], hook_seen, &ran[i]), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(ran[i], 1); /* once, in the thread, before its function */
    assert_int_equal(atomic_load(&hook_calls), N);
    assert_int_equal(hook_ran, 0); /* not in the caller */
    ks_set_thread_start(NULL);
    assert_int_equal(ks_thread_create(&t[0], &b[0], hook_seen, &ran[0]), 0);
    assert_int_equal(pthread_join(t[0], NULL), 0);
    assert_int_equal(ran[0], 0);
    assert_int_equal(atomic_load(&hook_calls), N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(starts_off_the_callers_cpu),
        cmocka_unit_test(one_cpu_starts_as_pthread_create),
        cmocka_unit_test(many_at_once),
        cmocka_unit_test(calls_the_hook_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
