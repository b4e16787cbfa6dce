/* compare/diff_settings.c: are two captures comparable? The profiler settings a trace records
 * (with_stack, record_shapes, profile_memory, with_modules, with_flops), the activities it holds
 * (GPU work, runtime calls) and its device model. Profiling overhead depends on all of them
 * (with_stack alone can double a CPU loop's time), so numbers from different settings are not
 * comparable: diff warns, gate refuses unless --allow-mismatch. */
#include <stdio.h>
#include <string.h>

#include "kinesift/compare.h"

static signed char flag(const ks_trace *t, const char *key)
{
    const ks_meta_entry *e = ks_meta_find(t, key);
    if (!e)
        return 0; /* Kineto writes these keys only when set */
    const char *v = ks_trace_str(t, e->value);
    return !(strcmp(v, "0") == 0 || strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || !*v);
}

static void devices(const ks_trace *t, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < t->meta.ndevices; i++) {
        const char *name = ks_trace_str(t, t->meta.devices[i].name);
        if (!*name)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(name, ks_trace_str(t, t->meta.devices[j].name));
        if (seen)
            continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", name);
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
    }
}

void ks_settings_read(const ks_trace *t, ks_trace_settings *s)
{
    memset(s, 0, sizeof *s);
    s->with_stack = flag(t, "with_stack");
    s->record_shapes = flag(t, "record_shapes");
    s->profile_memory = flag(t, "profile_memory");
    s->with_modules = flag(t, "with_modules");
    s->with_flops = flag(t, "with_flops");
    for (size_t k = 0; k < t->ntracks && !(s->gpu_activity && s->runtime_activity); k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++) {
            int kind = tr->ev[i].kind;
            if (ks_kind_is_gpu_work((ks_kind)kind))
                s->gpu_activity = 1;
            else if (kind == KS_K_RUNTIME || kind == KS_K_DRIVER)
                s->runtime_activity = 1;
        }
    }
    devices(t, s->devices, sizeof s->devices);
}

static const char *onoff(signed char v)
{
    return v ? "on" : "off";
}

static size_t add(ks_mismatch *out, size_t n, const char *what, const char *a, const char *b)
{
    if (n >= KS_SETTINGS_MAX)
        return n;
    snprintf(out[n].what, sizeof out[n].what, "%s", what);
    snprintf(out[n].a, sizeof out[n].a, "%s", a);
    snprintf(out[n].b, sizeof out[n].b, "%s", b);
    return n + 1;
}

size_t ks_settings_compare(const ks_trace_settings *a, const ks_trace_settings *b, ks_mismatch *out)
{
    size_t n = 0;
    struct {
        const char *what;
        signed char x, y;
    } f[] = {
        {"with_stack", a->with_stack, b->with_stack},
        {"record_shapes", a->record_shapes, b->record_shapes},
        {"profile_memory", a->profile_memory, b->profile_memory},
        {"with_modules", a->with_modules, b->with_modules},
        {"with_flops", a->with_flops, b->with_flops},
        {"activities: GPU", a->gpu_activity, b->gpu_activity},
        {"activities: runtime", a->runtime_activity, b->runtime_activity},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].x >= 0 && f[i].y >= 0 && f[i].x != f[i].y)
            n = add(out, n, f[i].what, onoff(f[i].x), onoff(f[i].y));
    if (a->devices[0] && b->devices[0] && strcmp(a->devices, b->devices) != 0)
        n = add(out, n, "device", a->devices, b->devices);
    return n;
}
