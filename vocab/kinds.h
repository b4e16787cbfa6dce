/* vocab/kinds.h: predicates over event kinds that the passes share (the kinds themselves, their
 * names and the GPU/device/CPU sides are in kinesift/store.h, defined in vocab/kinds.c). */
#ifndef KS_VOCAB_KINDS_H
#define KS_VOCAB_KINDS_H

#include "kinesift/store.h"

/* 1 for runtime and driver kinds. */
static inline int ks_kind_is_launch_api(int k)
{
    return k == KS_K_RUNTIME || k == KS_K_DRIVER;
}

/* 1 for the kinds that own the GPU work launched under them directly (docs/analysis.md): operators
 * and labels (cpu_op, user_annotation and their legacy names); never Python frames. */
static inline int ks_kind_launches_directly(int k)
{
    return k == KS_K_CPU_OP || k == KS_K_USER_ANNOTATION;
}

#endif
