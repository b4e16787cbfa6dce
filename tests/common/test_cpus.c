/* tests/common/test_cpus.c: the CPUs a process may use (common/cpus.c). Quotas read from cgroup
 * trees made here (v2 cpu.max on the group and the groups above it, the root's own, v1's
 * cpu.cfs_quota_us / cpu.cfs_period_us, no limit, lines that are not cgroups); the affinity mask
 * narrowed to one CPU before the process's figure is first asked for, so that ks_cpus and the
 * default thread counts built on it (the analysis pool) follow the mask, not the machine. */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ks_test.h"
#include "algo/pool.h"
#include "common/cpus.h"
#include "kinesift/common.h"

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int fresh(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/ks-cpus-XXXXXX");
    assert_non_null(mkdtemp(root));
    return 0;
}

static int gone(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void no_cgroup_file_no_limit(void **state)
{
    (void)state;
    assert_int_equal(ks_cpus_quota_at(root), LONG_MAX);
}

static void v2_smallest_quota_on_the_path_rounded_up(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/job/step\n");
    put("sys/fs/cgroup/job/step/cpu.max", "max 100000\n");
    put("sys/fs/cgroup/job/cpu.max", "150000 100000\n"); /* 1.5 CPUs: 2 */
    assert_int_equal(ks_cpus_quota_at(root), 2);
    put("sys/fs/cgroup/job/step/cpu.max", "50000 100000\n"); /* the group itself, smaller: 1 */
    assert_int_equal(ks_cpus_quota_at(root), 1);
    put("sys/fs/cgroup/job/step/cpu.max", "max 100000\n");
    put("sys/fs/cgroup/job/cpu.max", "max 100000\n");
    assert_int_equal(ks_cpus_quota_at(root), LONG_MAX);
    put("sys/fs/cgroup/cpu.max", "300000 100000\n"); /* a container's own root */
    assert_int_equal(ks_cpus_quota_at(root), 3);
}

static void v2_root_group(void **state)
{
    (void)state;
    put("proc/self/cgroup", "0::/\n");
    assert_int_equal(ks_cpus_quota_at(root), LONG_MAX);
    put("sys/fs/cgroup/cpu.max", "400000 200000\n");
    assert_int_equal(ks_cpus_quota_at(root), 2);
}

static void v1_cpu_controller(void **state)
{
    (void)state;
    put("proc/self/cgroup", "12:memory:/docker/c1\n4:cpu,cpuacct:/docker/c1\n1:name=systemd:/docker/c1\n");
    put("sys/fs/cgroup/cpu,cpuacct/docker/c1/cpu.cfs_quota_us", "250000\n");
    put("sys/fs/cgroup/cpu,cpuacct/docker/c1/cpu.cfs_period_us", "100000\n");
    assert_int_equal(ks_cpus_quota_at(root), 3);
    put("sys/fs/cgroup/cpu,cpuacct/docker/c1/cpu.cfs_quota_us", "-1\n"); /* no limit */
    assert_int_equal(ks_cpus_quota_at(root), LONG_MAX);
}

static void lines_that_are_not_cgroups(void **state)
{
    (void)state;
    put("proc/self/cgroup", "garbage\n::\n7:cpu\n0::relative\n0::/x\n");
    put("sys/fs/cgroup/x/cpu.max", "not numbers\n");
    assert_int_equal(ks_cpus_quota_at(root), LONG_MAX);
    put("sys/fs/cgroup/x/cpu.max", "0 100000\n"); /* nonsense quota: no limit taken from it */
    assert_int_equal(ks_cpus_quota_at(root), LONG_MAX);
}

static void quota_caps_the_mask(void **state)
{
    (void)state;
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    long mask = CPU_COUNT(&set);
    put("proc/self/cgroup", "0::/q\n");
    assert_int_equal(ks_cpus_at(root), mask); /* no limit: the mask */
    put("sys/fs/cgroup/q/cpu.max", "100000 100000\n");
    assert_int_equal(ks_cpus_at(root), 1);
}

/* Run first, before anything asks for the process's figure: the mask narrowed to one CPU. */
static void defaults_follow_the_mask(void **state)
{
    (void)state;
    cpu_set_t set, one;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_SET(c, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_int_equal(ks_cpus(), 1);
    assert_int_equal(ks_pool_threads(0), 1);
    assert_int_equal(ks_pool_threads(3), 3); /* asked for: as asked */
    assert_int_equal(sched_setaffinity(0, sizeof set, &set), 0);
    assert_int_equal(ks_cpus(), 1); /* worked out once */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(ks_cpus_at("") >= 1 && ks_cpus_at("") <= (online > 0 ? online : 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_follow_the_mask),
        cmocka_unit_test_setup_teardown(no_cgroup_file_no_limit, fresh, gone),
        cmocka_unit_test_setup_teardown(v2_smallest_quota_on_the_path_rounded_up, fresh, gone),
        cmocka_unit_test_setup_teardown(v2_root_group, fresh, gone),
        cmocka_unit_test_setup_teardown(v1_cpu_controller, fresh, gone),
        cmocka_unit_test_setup_teardown(lines_that_are_not_cgroups, fresh, gone),
        cmocka_unit_test_setup_teardown(quota_caps_the_mask, fresh, gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
