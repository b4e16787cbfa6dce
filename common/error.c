/* common/error.c: ks_error, the one-line error every library call can return. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kinesift/common.h"
#include "ks_config.h"

int ks_error_set(ks_error *err, const char *fmt, ...)
{
    if (!err)
        return KS_ERR;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->has_pos = 0;
    err->byte = err->line = err->column = 0;
    return KS_ERR;
}

int ks_error_set_at(ks_error *err, uint64_t byte, uint64_t line, uint64_t column, const char *fmt,
                    ...)
{
    if (!err)
        return KS_ERR;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->has_pos = 1;
    err->byte = byte;
    err->line = line;
    err->column = column;
    return KS_ERR;
}

void ks_error_format(const ks_error *err, char *buf, size_t n)
{
    if (err->has_pos)
        snprintf(buf, n, "byte %llu (line %llu, column %llu): %s", (unsigned long long)err->byte,
                 (unsigned long long)err->line, (unsigned long long)err->column, err->msg);
    else
        snprintf(buf, n, "%s", err->msg);
}

const char *ks_version(void)
{
    return KS_VERSION;
}
