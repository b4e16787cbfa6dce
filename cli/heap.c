/* cli/heap.c: the command's heap on transparent huge pages (see heap.h).
 *
 * glibc's malloc grows its heap, and maps its blocks of 128 KiB and more, in 4 KiB pages; each
 * first write to one is a page fault. On a virtual machine a fault can take ~10 us, and `analyze`
 * of a 15-35 MB trace takes 2 000-3 500 of them: a quarter of its wall time. glibc backs both with
 * 2 MiB pages (one fault each) when asked by its tunable glibc.malloc.hugetlb=1 (glibc 2.35 and
 * later), with glibc.malloc.top_pad=4 MiB so that the heap grows a whole huge page at a time. It
 * reads them from GLIBC_TUNABLES once, as the process starts. So the command runs itself again
 * (/proc/self/exe, the same arguments), once, with them added to the user's GLIBC_TUNABLES; the
 * new process puts GLIBC_TUNABLES back as the user had it before anything else (KINESIFT_HEAP_RUN
 * carries it over), so that what it runs itself (validate's commands) sees the user's
 * environment. The cost is one exec, 1-3 ms, hence only for inputs of KS_HEAP_MIN_INPUT or more.
 *
 * Smaller inputs, of known size (files: not standard input or an @FILE list) and of
 * KS_HEAP_RESERVE_MIN_INPUT or more (under it, the first 2 MiB page costs more than the 4 KiB
 * faults it saves), get the first
 * KS_HEAP_RESERVE bytes of the main heap on huge pages without the exec (reserve()): malloc's
 * options, unlike its tunables, take at any time. Blocks under KS_HEAP_RESERVE_MMAP are kept in
 * the heap (glibc maps those of 128 KiB and more apart at first, in 4 KiB pages; bigger ones stay
 * apart, where realloc moves them without a copy) and its free top is not handed back; the top is
 * grown by KS_HEAP_RESERVE and its whole 2 MiB pages advised (MADV_HUGEPAGE) before anything
 * writes to them: what the command allocates next faults them in 2 MiB at a time. The threads
 * the library starts put their own arenas on huge pages as they start (thread_arena(), through
 * ks_set_thread_start). The blocks of 1 MiB and more stay in 4 KiB pages, which the run again
 * puts on huge pages too: past KS_HEAP_MIN_INPUT that counts for more than the exec.
 *
 * Either way the heap's top is then made to start on a 2 MiB boundary (align_top()), so that what
 * the command allocates first is on huge pages too; in the process run again it is made to end on
 * one as well (glibc ends the heap's later growths on one, but not its first), and malloc's mmap
 * threshold is fixed at RUN_AGAIN_MMAP, where glibc starts it (it would raise it as mapped blocks
 * are freed: fixed at 1 MiB as in the reserved heap, the dense 1 GiB trace took 3-5 MB more).
 *
 * Otherwise the heap's trim threshold is fixed (TRIM_THRESHOLD): glibc raises it to twice the
 * largest mapped block freed so far (up to 64 MiB), so after the first big temporary the freed top
 * of the heap stays resident; a fixed one gives it back (~8 % of the peak of a trace of a million
 * names or tracks, bench/memory_shapes.py). Malloc's options are the process's policy, so the
 * command's, not the library's.
 *
 * KINESIFT_HUGE_HEAP=0: neither; =1: run again whatever the inputs; unset (or anything else): by
 * the inputs named on the command line (files, and the trace files of a directory named, as the
 * command will read them; a gzip file by the size it says its contents have). Never where
 * GLIBC_TUNABLES already names glibc.malloc.hugetlb (the user's choice stands), under valgrind
 * (its tools do not follow into the new process), in a sanitizer build (its allocator is not
 * glibc's), where the kernel's transparent huge pages are off, or outside glibc 2.35 and later on
 * Linux. */
#include "cli/heap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#include <malloc.h>
#endif
#include <pthread.h>

#include "common/util.h"
#include "kinesift/common.h"
#include "kinesift/source.h"

#define MARK "KINESIFT_HEAP_RUN" /* in the process run again: "=" and the user's GLIBC_TUNABLES, or "-" */
#define HUGETLB "glibc.malloc.hugetlb"
#define HUGETLB_ON HUGETLB "=1"
#define TOP_PAD "glibc.malloc.top_pad"
#define TOP_PAD_ON TOP_PAD "=4194304"

static char state[200] = "4 KiB pages (not asked)";

#define TRIM_THRESHOLD (1 << 20) /* the heap's, where it is not reserved */

const char *ks_cli_heap_state(void)
{
    return state;
}

#if defined(__GLIBC__) && defined(__linux__) && !defined(__SANITIZE_ADDRESS__) &&                  \
    !defined(__SANITIZE_THREAD__)

/* The size a gzip file says its contents have (its last 4 bytes: the last member's size mod
 * 2^32), or -1. */
static long long gzip_size(const char *path)
{
    unsigned char t[4];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    int ok = lseek(fd, -4, SEEK_END) >= 0 && read(fd, t, 4) == 4;
    close(fd);
    return ok ? (long long)ks_le32(t) : -1;
}

/* A file's weight: its size; a gzip file's, the size it says (unless that is less than the file:
 * several members, or 4 GiB and more); another compressed one's, KS_HEAP_PACKED_FACTOR times its
 * size. */
static long long weight(const char *path, const struct stat *st)
{
    static const char *const packed[] = {".gz", ".tgz", ".zst", ".xz", ".bz2", ".zip"};
    long long w = (long long)st->st_size;
    for (size_t i = 0; i < sizeof packed / sizeof *packed; i++) {
        if (!ks_ends_with(path, packed[i]))
            continue;
        long long g = i < 2 ? gzip_size(path) : -1;
        return g >= w ? g : w * KS_HEAP_PACKED_FACTOR;
    }
    return w;
}

/* The weight of the inputs named on the command line, counted up to KS_HEAP_MIN_INPUT: what the
 * library's expansion makes of each argument (a file as it is, a directory its trace files, as the
 * command will read them; an option's value that names a file counts too). Not an @FILE list:
 * reading it here could use up what the command reads (@/dev/stdin). *unknown: 1 when standard
 * input ("-") or a list is named, whose size is not counted. */
static long long inputs_bytes(int argc, char **argv, int *unknown)
{
    long long sum = 0;
    *unknown = 0;
    for (int i = 1; i < argc && sum < KS_HEAP_MIN_INPUT; i++) {
        if (!strcmp(argv[i], "-") || argv[i][0] == '@')
            *unknown = 1;
        if (argv[i][0] == '-' || argv[i][0] == '@')
            continue; /* options, standard input, lists */
        char **list;
        size_t n;
        ks_error err;
        if (ks_inputs_expand(&argv[i], 1, &list, &n, &err) != KS_OK)
            continue;
        for (size_t k = 0; k < n && sum < KS_HEAP_MIN_INPUT; k++) {
            struct stat st;
            if (!stat(list[k], &st) && S_ISREG(st.st_mode))
                sum += weight(list[k], &st);
        }
        ks_inputs_free(list, n);
    }
    return sum;
}

static int glibc_has_hugetlb(void)
{
    int major = 0, minor = 0;
    if (sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2)
        return 0;
    return major > 2 || (major == 2 && minor >= 35);
}

/* The kernel gives huge pages where asked ("[madvise]") or everywhere ("[always]"). */
static int thp_enabled(void)
{
    char buf[128] = "";
    int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return strstr(buf, "[madvise]") || strstr(buf, "[always]");
}

#if __GLIBC_PREREQ(2, 33) /* mallinfo2 */
#define HUGE ((uintptr_t)2 << 20)
#define HEAP_MMAP_MAX ((size_t)32 << 20) /* the highest mmap threshold glibc takes (64-bit) */
#define RUN_AGAIN_MMAP ((size_t)128 << 10) /* glibc's first mmap threshold */

/* Start the main heap's top on a 2 MiB boundary at or after at: a block from the top's start up to
 * there, kept for good. The heap starts where the program's data ends, anywhere in a 2 MiB page;
 * the heap's part of that page cannot be a huge page, and malloc hands out the lowest addresses
 * first: without the block, the first 0-2 MiB the command allocates (by where the kernel put the
 * heap) fault in 4 KiB at a time, 100-500 faults. Malloc writes a block's header and the top's,
 * not the block (unless MALLOC_PERTURB_ has it fill the block, once): its pages but the first are
 * never touched. The top ends at the break (the main heap grows by moving it), so it starts at
 * the break less its size. end_too (glibc.malloc.hugetlb on): also end the top on a boundary, by
 * one block bigger than the top, freed (glibc then grows the heap to one and advises it); a top
 * ending inside a 2 MiB page has it fault in 4 KiB pages as the heap fills it, before it grows.
 * Leaves malloc's mmap threshold at mmap_after (fixed: glibc no longer moves it). Returns 1 when
 * the top starts (and ends) on a boundary; else the block, unless it came from the top, is freed
 * (the heap as it was). */
static int align_top(uintptr_t at, int end_too, size_t mmap_after)
{
    static void *block;
    /* under the mmap threshold while the blocks are made (mallopt first: it merges freed small
     * blocks into the top); the thread's first malloc takes its cache from the top */
    if (!mallopt(M_MMAP_THRESHOLD, (int)HEAP_MMAP_MAX))
        return 0;
    void *volatile first = malloc(1); /* volatile: the compiler would drop the pair */
    free(first);
    uintptr_t t = (uintptr_t)sbrk(0) - mallinfo2().keepcost;
    uintptr_t a = ((at > t + 64 ? at : t + 64) + HUGE - 1) & ~(HUGE - 1);
    block = malloc(a - t - sizeof(size_t)); /* a - t bytes, its header included */
    if (block && (uintptr_t)block != t + 2 * sizeof(size_t)) { /* from a free block, not the top */
        free(block);
        block = NULL;
    }
    if (block && end_too && (uintptr_t)sbrk(0) % HUGE && mallinfo2().keepcost < HEAP_MMAP_MAX) {
        void *volatile more = malloc(mallinfo2().keepcost); /* more than the top: the heap grows */
        free(more);
    }
    (void)mallopt(M_MMAP_THRESHOLD, (int)mmap_after);
    uintptr_t end = (uintptr_t)sbrk(0);
    return block && (end - mallinfo2().keepcost) % HUGE == 0 && (!end_too || end % HUGE == 0);
}

#define ARENA_HEAP ((uintptr_t)64 << 20) /* glibc's HEAP_MAX_SIZE (64-bit): a thread arena's heap */

/* Each thread the library starts (ks_set_thread_start), where the main heap is reserved: the
 * thread's own malloc arena on huge pages. glibc gives a thread that allocates an arena of its
 * own (up to 8 a CPU, reused by later threads): a heap of ARENA_HEAP bytes aligned to its size,
 * its first 4 MiB writable (the top pad reserve() leaves), in 4 KiB pages: ~60 % of the faults
 * left on a 10 MB trace, in the parse's worker and the analysis pool. Once per arena: the whole
 * heap advised (MADV_HUGEPAGE), and two blocks kept that fill its first 2 MiB page (its header,
 * already written, holds that page in 4 KiB pages; malloc writes the blocks' headers, not them,
 * unless MALLOC_PERTURB_ has it fill them), so that what the thread allocates starts on the
 * second. One arena for all threads (M_ARENA_MAX) would do it too, but its lock then costs more
 * than the faults where the threads allocate much (1.5 times the wall at 100 000 tracks). */
static void thread_arena(void)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static uintptr_t seen[64];
    static int nseen;
    char *volatile probe = malloc(64); /* a new thread's first block: its arena made, from the top */
    uintptr_t p = (uintptr_t)probe, base = p & ~(ARENA_HEAP - 1);
    int known = !probe || p < (uintptr_t)sbrk(0); /* the main heap (no arena of its own) */
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nseen && !known; i++)
        known = seen[i] == base;
    if (!known && nseen < (int)(sizeof seen / sizeof *seen))
        seen[nseen++] = base;
    else
        known = 1;
    pthread_mutex_unlock(&mu);
    if (!known && madvise((void *)base, ARENA_HEAP, MADV_HUGEPAGE) == 0) {
        /* the top follows the probe's block (64 bytes and its header); two blocks under the mmap
         * threshold, of exactly c1 and gap - c1 bytes with their headers, take it to base + 2 MiB */
        uintptr_t top = p + 64;
        size_t gap = base + HUGE - top, c1 = (gap / 2) & ~(size_t)15;
        if (top < base + HUGE - 64) {
            char *b1 = malloc(c1 - sizeof(size_t)), *b2 = malloc(gap - c1 - sizeof(size_t));
            if ((uintptr_t)b1 != top + 16 || (uintptr_t)b2 != top + c1 + 16) {
                free(b1); /* not from the top: the arena as it was */
                free(b2);
            }
        }
    }
    free(probe);
}

/* The first KS_HEAP_RESERVE bytes of the main heap's free top on huge pages, from inside the
 * process (see the top of this file): 2, or 1 where the top could not be made to start on the
 * first of them; 0 when malloc or the kernel refused (the heap as it was but for its options).
 * The top is grown by one block just bigger than it, with KS_HEAP_RESERVE as the top pad; the new
 * top's whole 2 MiB pages are advised before anything writes to them (malloc writes to a block it
 * hands out only under MALLOC_PERTURB_, and then to this one block alone), and the top made to
 * start on the first of them (align_top). */
static int reserve(void)
{
    size_t top = mallinfo2().keepcost; /* the top's size */
    if (top + 1 >= KS_HEAP_RESERVE_MMAP || !mallopt(M_MMAP_THRESHOLD, (int)KS_HEAP_RESERVE_MMAP) ||
        !mallopt(M_TRIM_THRESHOLD, (int)(2 * KS_HEAP_RESERVE)) || !mallopt(M_TOP_PAD, (int)KS_HEAP_RESERVE))
        return 0;
    char *p = malloc(top + 1); /* under the mmap threshold: from the heap, which grows */
    int ok = 0;
    if (p) {
        uintptr_t from = (uintptr_t)p + malloc_usable_size(p); /* the new top: its header written */
        uintptr_t a = (from + 16 + HUGE - 1) & ~(HUGE - 1), b = ((uintptr_t)sbrk(0)) & ~(HUGE - 1);
        ok = b > a && madvise((void *)a, b - a, MADV_HUGEPAGE) == 0;
        free(p); /* the top starts where p did */
        if (ok)
            ok += align_top(a, 0, KS_HEAP_RESERVE_MMAP);
    }
    if (ok)
        ks_set_thread_start(thread_arena);
    (void)mallopt(M_TOP_PAD, 4 << 20); /* later growth as with the tunables: 4 MiB at a time */
    return ok;
}
#else
static int align_top(uintptr_t at, int end_too, size_t mmap_after)
{
    (void)at;
    (void)end_too;
    (void)mmap_after;
    return 0;
}

static int reserve(void)
{
    return 0;
}
#endif

static void put_back(const char *old)
{
    if (old)
        setenv("GLIBC_TUNABLES", old, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    unsetenv(MARK);
}

/* The heap's state decided (the process may run again): 1 when reserve() took */
static int heap_init(int argc, char **argv)
{
    const char *mark = getenv(MARK);
    if (mark) { /* the process run again */
        put_back(mark[0] == '=' ? mark + 1 : NULL);
        /* its name for ps, top and perf: the kernel took "exe" from /proc/self/exe */
        const char *slash = strrchr(argv[0], '/');
        (void)prctl(PR_SET_NAME, slash ? slash + 1 : argv[0], 0, 0, 0);
        snprintf(state, sizeof state, "huge pages (run again with GLIBC_TUNABLES %s:%s%s)", HUGETLB_ON,
                 TOP_PAD_ON, align_top(0, 1, RUN_AGAIN_MMAP) ? "; the heap from a 2 MiB boundary" : "");
        return 0;
    }
    const char *want = getenv("KINESIFT_HUGE_HEAP");
    const char *old = getenv("GLIBC_TUNABLES");
    const char *pre = getenv("LD_PRELOAD");
    const char *why = NULL;
    if (want && !strcmp(want, "0"))
        why = "KINESIFT_HUGE_HEAP=0";
    else if (old && strstr(old, HUGETLB))
        why = "GLIBC_TUNABLES names " HUGETLB ": as it says";
    else if (pre && strstr(pre, "vgpreload"))
        why = "under valgrind";
    else if (!glibc_has_hugetlb())
        why = "glibc before 2.35";
    else if (!thp_enabled())
        why = "transparent huge pages off";
    else if (!(want && !strcmp(want, "1"))) {
        int unknown, got;
        long long bytes = inputs_bytes(argc, argv, &unknown);
        if (bytes < KS_HEAP_MIN_INPUT) {
            if (unknown)
                why = "standard input or a list: its size unknown";
            else if (!bytes)
                why = "no input";
            else if (bytes < KS_HEAP_RESERVE_MIN_INPUT)
                why = "inputs under " KS_HEAP_RESERVE_MIN_INPUT_TEXT ": fewer faults than a 2 MiB page costs";
            else if (!(got = reserve()))
                why = "inputs under " KS_HEAP_MIN_INPUT_TEXT "; huge pages refused";
            else {
                snprintf(state, sizeof state, "huge pages (the heap's first %s%s, in the process: inputs under %s)",
                         KS_HEAP_RESERVE_TEXT, got == 2 ? " from a 2 MiB boundary" : "", KS_HEAP_MIN_INPUT_TEXT);
                return 1;
            }
        }
    }
    if (why) {
        snprintf(state, sizeof state, "4 KiB pages (%s)", why);
        return 0;
    }
    size_t olen = old ? strlen(old) : 0;
    int pad = !(old && strstr(old, TOP_PAD)); /* the user's top_pad stands */
    char *tun = malloc(olen + sizeof HUGETLB_ON + sizeof TOP_PAD_ON + 2);
    char *was = malloc(olen + 2);
    if (!tun || !was) {
        free(tun);
        free(was);
        snprintf(state, sizeof state, "4 KiB pages (no memory to run again)");
        return 0;
    }
    sprintf(tun, "%s%s%s%s%s", old ? old : "", olen ? ":" : "", HUGETLB_ON, pad ? ":" : "",
            pad ? TOP_PAD_ON : "");
    sprintf(was, "%s%s", old ? "=" : "-", old ? old : "");
    const char *keep = was + 1; /* the user's value (setenv may free the string old points into) */
    setenv(MARK, was, 1);
    setenv("GLIBC_TUNABLES", tun, 1);
    execv("/proc/self/exe", argv);
    int e = errno; /* still here: it could not run again */
    put_back(old ? keep : NULL);
    snprintf(state, sizeof state, "4 KiB pages (could not run again: %s)", strerror(e));
    free(tun);
    free(was);
    return 0;
}

void ks_cli_heap_init(int argc, char **argv)
{
    if (!heap_init(argc, argv))
        (void)mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
}

#else

void ks_cli_heap_init(int argc, char **argv)
{
    (void)argc;
    (void)argv;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    snprintf(state, sizeof state, "4 KiB pages (a sanitizer's allocator)");
#else
    snprintf(state, sizeof state, "4 KiB pages (not glibc on Linux)");
#endif
#ifdef __GLIBC__
    (void)mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
#endif
}

#endif
