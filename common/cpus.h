/* common/cpus.h: the CPUs a process may use (its affinity mask, its cgroups' CPU quotas), for the
 * default thread counts; ks_cpus (kinesift/common.h) is the process's figure, worked out once. */
#ifndef KS_CPUS_H
#define KS_CPUS_H

/* The same for a file system rooted at root ("" for the real one): root/proc/self/cgroup names
 * the cgroups, root/sys/fs/cgroup holds them. The affinity mask is the calling thread's. */
long ks_cpus_at(const char *root);
/* Only the smallest quota, in CPUs rounded up; LONG_MAX when no cgroup limits the CPU time. */
long ks_cpus_quota_at(const char *root);

#endif
