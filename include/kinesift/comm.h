/* kinesift/comm.h: what is communication, decided in one place (analysis/comm.c).
 *
 * A kernel is communication when its name says so (NCCL, RCCL, HCCL, MSCCL kernels), when the op
 * that launched it is a communication op, or when it carries collective metadata
 * ("Collective name" in its args, kept by the parser in ks_trace.colls). A CPU op is
 * communication by name: record_param_comms, c10d:: ops, nccl:/gloo:/hccl:/mpi:/ucc: ranges,
 * symm_mem:: ops, and custom all-reduce ops (vllm::all_reduce, trtllm::allreduce, ...).
 *
 * Names alone cannot see a vendor kernel that carries neither a known prefix nor metadata; such a
 * kernel counts as compute. Used by the GPU and step passes (gpu.c, breakdown.c) and by `ranks`;
 * any other pass that asks "is this communication" uses these functions, never its own list. */
#ifndef KINESIFT_COMM_H
#define KINESIFT_COMM_H

#include <stdint.h>

#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 for communication kernels by name: contains nccl, rccl, hccl or msccl (any case). */
KS_API int ks_comm_kernel_name(const char *name);

/* 1 for communication CPU ops and ranges by name (see above). */
KS_API int ks_comm_op_name(const char *name);

/* Collective kinds, for bus bandwidth (nccl-tests' PERFORMANCE.md factors). */
typedef enum ks_coll_kind {
    KS_COLL_OTHER = 0, KS_COLL_ALLREDUCE, KS_COLL_ALLGATHER, KS_COLL_REDUCESCATTER,
    KS_COLL_BROADCAST, KS_COLL_REDUCE, KS_COLL_ALLTOALL, KS_COLL_SENDRECV, KS_COLL_BARRIER
} ks_coll_kind;

/* The kind of a "Collective name" value (allreduce, all_reduce, _allgather_base,
 * reduce_scatter_tensor_coalesced, ...) or of an NCCL kernel name (ncclKernel_AllReduce_...,
 * ncclDevKernel_ReduceScatter_...). */
KS_API ks_coll_kind ks_coll_kind_of(const char *name);
KS_API const char *ks_coll_kind_name(ks_coll_kind k);

/* Bus bandwidth factor of nccl-tests for n ranks, as num/den: allreduce 2(n-1)/n, allgather,
 * reducescatter and alltoall (n-1)/n, broadcast, reduce and send/recv 1; 0/1 when unknown. */
KS_API void ks_coll_busbw_factor(ks_coll_kind k, int64_t n, int64_t *num, int64_t *den);

/* Size in bytes of a "dtype" value (Float 4, Half/BFloat16 2, Double/Long 8, Byte/Char/Bool 1,
 * Int 4, Short 2, Float8_* 1, ComplexFloat 8, ComplexDouble 16); 0 when unknown. */
KS_API int ks_dtype_size(const char *dtype);

/* The collective metadata of event ev of track k, or NULL (binary search in t->colls). */
KS_API const ks_coll_info *ks_trace_coll(const ks_trace *t, uint32_t track, uint32_t ev);

#ifdef __cplusplus
}
#endif
#endif
