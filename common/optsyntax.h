/* common/optsyntax.h: the syntax the commands' options share (optsyntax.c): durations with a unit
 * ("1.5ms", "-250us", "3s", "42ns") and fixed time-zone offsets ("UTC", "+02:00") and sizes ("64M", "2GiB"). The public
 * ks_duration_parse (kinesift/analysis.h) is the bare-microseconds form. */
#ifndef KS_COMMON_OPTSYNTAX_H
#define KS_COMMON_OPTSYNTAX_H

#include <stdint.h>

#include "kinesift/common.h"

/* Parse "UTC", "Z", "+02:00", "-0530"; 0 on success. */
int ks_tz_parse(const char *s, ks_ns *offset_ns);
/* Exact decimal with a unit to ns; a bare number is in bare_unit (clamp:NS takes nanoseconds). */
enum { KS_DUR_BARE_US = 0, KS_DUR_BARE_NS = 1 };
int ks_duration_parse_unit(const char *s, int bare_unit, ks_ns *ns);
/* A size with an optional binary suffix (k, K, m, M, g, G: KiB, MiB, GiB; "KiB", "MB" spelled
 * out too); 0 on success. */
int ks_parse_size(const char *s, int64_t *v);

#endif
