/* common/cpus.c: how many CPUs this process may use, for every default thread count: the CPUs
 * its affinity mask allows (taskset, a container's cpuset), capped by the CPU quota of its cgroup
 * and of every cgroup above it (cgroup v2 cpu.max; v1 cpu.cfs_quota_us / cpu.cfs_period_us),
 * rounded up, at least 1. The online CPUs of the machine (sysconf) are the last resort when the
 * mask cannot be read. Worked out once per process; ks_cpus_at does the work on a given root so
 * that tests can give it a cgroup tree of their own. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cpus.h"
#include "kinesift/common.h"

/* the CPUs the calling thread's affinity mask allows, or the online CPUs */
static long affinity_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* the first line of a small file, or NULL */
static char *first_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *r = fgets(buf, (int)n, f);
    fclose(f);
    return r;
}

/* CPUs of a quota of q microseconds each period of p, rounded up; LONG_MAX when unlimited */
static long quota_cpus(long long q, long long p)
{
    if (q <= 0 || p <= 0)
        return LONG_MAX;
    long long n = (q + p - 1) / p;
    return n < 1 ? 1 : n > LONG_MAX ? LONG_MAX : (long)n;
}

/* cgroup v2: the smallest cpu.max quota on the path from the group rel up to the mount point mnt
 * (the mount itself included: the root group has no cpu.max, a container's view of it may) */
static long v2_quota(const char *mnt, const char *rel)
{
    char path[PATH_MAX], line[128], dir[PATH_MAX];
    long best = LONG_MAX;
    if (snprintf(dir, sizeof dir, "%s", rel) >= (int)sizeof dir)
        return LONG_MAX;
    for (;;) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = 0;
        int top = !strcmp(dir, "/");
        long long q, p;
        if (snprintf(path, sizeof path, "%s%s/cpu.max", mnt, top ? "" : dir) < (int)sizeof path &&
            first_line(path, line, sizeof line) && sscanf(line, "%lld %lld", &q, &p) == 2) {
            long c = quota_cpus(q, p);
            if (c < best)
                best = c;
        }
        if (top)
            return best;
        char *slash = strrchr(dir, '/'); /* rel starts with '/' */
        if (slash == dir)
            dir[1] = 0; /* "/a" -> "/" */
        else
            *slash = 0; /* "/a/b" -> "/a" */
    }
}

/* cgroup v1: the quota of the cpu controller's group (its mount, then the group's own path) */
static long v1_quota(const char *root, const char *rel)
{
    static const char *const mounts[] = {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"};
    char path[PATH_MAX], line[128];
    for (size_t m = 0; m < sizeof mounts / sizeof *mounts; m++)
        for (int own = 1; own >= 0; own--) {
            const char *sub = own && strcmp(rel, "/") ? rel : "";
            long long q, p;
            if (snprintf(path, sizeof path, "%s%s%s/cpu.cfs_quota_us", root, mounts[m], sub) >= (int)sizeof path ||
                !first_line(path, line, sizeof line) || sscanf(line, "%lld", &q) != 1)
                continue;
            if (snprintf(path, sizeof path, "%s%s%s/cpu.cfs_period_us", root, mounts[m], sub) >= (int)sizeof path ||
                !first_line(path, line, sizeof line) || sscanf(line, "%lld", &p) != 1)
                continue;
            return quota_cpus(q, p);
        }
    return LONG_MAX;
}

long ks_cpus_quota_at(const char *root)
{
    char path[PATH_MAX], line[PATH_MAX + 64];
    if (snprintf(path, sizeof path, "%s/proc/self/cgroup", root) >= (int)sizeof path)
        return LONG_MAX;
    FILE *f = fopen(path, "re");
    if (!f)
        return LONG_MAX;
    long best = LONG_MAX;
    char mnt[PATH_MAX];
    snprintf(mnt, sizeof mnt, "%s/sys/fs/cgroup", root);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        /* "ID:CONTROLLERS:PATH": v2 is "0::PATH", v1's cpu controller names "cpu" in its list */
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/')
            continue;
        *c1 = *c2 = 0;
        const char *ctrls = c1 + 1, *rel = c2 + 1;
        long q = LONG_MAX;
        if (!strcmp(line, "0") && !*ctrls) {
            q = v2_quota(mnt, rel);
        } else {
            char list[256];
            snprintf(list, sizeof list, ",%s,", ctrls);
            if (strstr(list, ",cpu,"))
                q = v1_quota(root, rel);
        }
        if (q < best)
            best = q;
    }
    fclose(f);
    return best;
}

long ks_cpus_at(const char *root)
{
    long n = affinity_cpus(), q = ks_cpus_quota_at(root);
    return q < n ? q : n;
}

static long cpus;
static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;

static void cpus_init(void)
{
    cpus = ks_cpus_at("");
}

int ks_cpus(void)
{
    pthread_once(&cpus_once, cpus_init);
    return cpus > INT_MAX ? INT_MAX : (int)cpus;
}
