/* bench/first_touch.c: what the machine charges for memory written the first time.
 * `first_touch [MB] [REPS]` maps MB MiB of anonymous memory (default 64) from a 2 MiB boundary,
 * writes one byte in each 4 KiB page of it, then writes it again, REPS times (default 3), once
 * advised for transparent huge pages (MADV_HUGEPAGE) and once not (in turn first: the first
 * mapping of a run can meet memory the other one then reuses), and prints for each the
 * milliseconds per MiB of the first writes (the page faults: the kernel clears each page it hands
 * out) and of the second (no fault), one line a mapping:
 *   huge 64 MiB: first writes 0.089 ms/MiB, again 0.002 ms/MiB
 * Exit status 0; 2 on a usage error or a refused mapping.
 *
 * Why: analyze writes tens to hundreds of MB the first time in a run (its store and arrays), raw
 * yajl about 2 MB, so what a first write costs moves their ratio. On a virtual machine it also
 * depends on whether the host still backs the guest's free memory: memory the guest gave back
 * (a balloon, free page reporting) is backed again at its next first write, and the same program
 * can take ten times as long from one run to the next (docs/performance.md, "First writes").
 * bench/shapes.sh prints one line of it at its start and end. Who may use it: anyone, by hand. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_PAGE ((size_t)2 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the first and second writes over n bytes from a 2 MiB boundary, in seconds */
static int measure(size_t n, int huge, double *first, double *again)
{
    size_t len = n + HUGE_PAGE;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    volatile char *p = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    (void)madvise((void *)p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    double t0 = now();
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    double t1 = now();
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 2;
    double t2 = now();
    munmap(m, len);
    *first = t1 - t0;
    *again = t2 - t1;
    return 0;
}

int main(int argc, char **argv)
{
    long mb = argc > 1 ? strtol(argv[1], NULL, 10) : 64, reps = argc > 2 ? strtol(argv[2], NULL, 10) : 3;
    if (argc > 3 || mb < 1 || mb > 65536 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: first_touch [MB (1-65536, default 64)] [REPS (1-1000, default 3)]\n");
        return 2;
    }
    size_t n = (size_t)mb << 20;
    for (long r = 0; r < reps; r++) {
        for (int k = 0; k < 2; k++) {
            int huge = (int)((r + k + 1) % 2); /* huge first in the even repetitions */
            double first, again;
            if (measure(n, huge, &first, &again) != 0) {
                fprintf(stderr, "first_touch: cannot map %ld MiB\n", mb);
                return 2;
            }
            printf("%s %ld MiB: first writes %.3f ms/MiB, again %.3f ms/MiB\n", huge ? "huge" : "4k", mb,
                   first * 1e3 / (double)mb, again * 1e3 / (double)mb);
        }
    }
    return 0;
}
