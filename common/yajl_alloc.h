/* common/yajl_alloc.h: yajl's allocation functions routed through the library's checked
 * allocators, so that yajl (which does not check for NULL everywhere: its buffer code asserts or
 * writes through a failed allocation) runs out of memory the way the rest of kinesift does, through
 * the settable out-of-memory handler (kinesift/common.h): a clear message and exit 2, never a crash.
 * Pass it to yajl_alloc and yajl_gen_alloc. Not applicable to yajl_tree_parse, which takes no
 * allocation functions (called only by common/jsontree.c, on inputs bounded in size, depth and
 * values before the tree is built).
 * Internal; any part of the library may use it. */
#ifndef KS_YAJL_ALLOC_H
#define KS_YAJL_ALLOC_H

#include <yajl/yajl_common.h>

/* the same static table every time; never NULL */
yajl_alloc_funcs *ks_yajl_alloc_funcs(void);

#endif
