/* common/cpufeat.h: whether the CPU (and the kernel, for the wide registers) lets the vector paths
 * run: AVX2 for the repair filter's blocks (json/repair.c), SSSE3 with POPCNT for the shape
 * compactor (parser/compact.c).
 *
 * glibc reads the CPU's features once as a program starts, for its own string functions, and
 * hands them out (<sys/platform/x86.h>, glibc 2.33 and later): asking it costs no instruction
 * that leaves a virtual machine. GCC's __builtin_cpu_supports runs its own CPUID sequence instead,
 * in a constructor of every program that uses it; on a virtual machine each CPUID traps to the
 * hypervisor, and the sequence took ~70 us of every run here (an empty program linked with it
 * against one without, 300 runs), a share of the whole run on a 1 MB trace. Elsewhere (another C
 * library, another architecture) the builtin is the fallback, or no vector path at all. */
#ifndef KS_CPUFEAT_H
#define KS_CPUFEAT_H

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define KS_CPUFEAT_GLIBC 1
#endif
#endif

/* 1 where AVX2 instructions may run */
static inline int ks_cpu_has_avx2(void)
{
#if defined(KS_CPUFEAT_GLIBC)
    return CPU_FEATURE_ACTIVE(AVX2) != 0;
#elif defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
#else
    return 0;
#endif
}

/* 1 where SSSE3 and POPCNT instructions may run */
static inline int ks_cpu_has_ssse3_popcnt(void)
{
#if defined(KS_CPUFEAT_GLIBC)
    return CPU_FEATURE_ACTIVE(SSSE3) && CPU_FEATURE_ACTIVE(POPCNT);
#elif defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

#endif
