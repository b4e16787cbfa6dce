/* kinesift/strtab.h: interned strings. Each distinct byte string is stored once and named by a
 * small integer id; id 0 is the empty string. Lookups during parsing cost one hash probe. */
#ifndef KINESIFT_STRTAB_H
#define KINESIFT_STRTAB_H

#include "kinesift/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_strtab ks_strtab;

KS_API ks_strtab *ks_strtab_new(void);
KS_API void ks_strtab_free(ks_strtab *t);

/* Intern len bytes (need not be NUL-terminated). Returns the id, or 0 for len == 0.
 * Aborts on out-of-memory (as every allocation in the library does). */
KS_API ks_str ks_strtab_intern(ks_strtab *t, const char *s, size_t len);

/* Find without inserting: the id, or 0 when absent (or empty). */
KS_API ks_str ks_strtab_find(const ks_strtab *t, const char *s, size_t len);

/* The NUL-terminated text of an id ("" for 0 or an unknown id). Stable until the table is freed. */
KS_API const char *ks_strtab_get(const ks_strtab *t, ks_str id);
KS_API size_t ks_strtab_len(const ks_strtab *t, ks_str id);

/* Number of ids handed out, including 0 (so valid ids are 0 .. count-1). */
KS_API uint32_t ks_strtab_count(const ks_strtab *t);

/* Bytes held by the table (text, index, hash). */
KS_API size_t ks_strtab_bytes(const ks_strtab *t);

#ifdef __cplusplus
}
#endif
#endif
