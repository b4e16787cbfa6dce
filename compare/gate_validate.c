/* compare/gate_validate.c: `kinesift validate --format json` results ("kinesift.validate/1",
 * validate/report.c) as gate inputs. The file type is told by content: a validate result is a
 * JSON object whose first key is "schema" with that value (a trace never is). Each arm of each
 * workload becomes one series named "WORKLOAD/VARIANT": its kept samples per execution (ns / k)
 * in the order taken; throttled samples are counted as discarded. The raw samples are the
 * reference, not the summary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "common/jsontree.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/compare.h"
#include "kinesift/source.h"

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static const char *expect(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    p = skip_ws(p, end);
    if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0)
        return NULL;
    return p + n;
}

int ks_is_validate_result(const char *head, size_t len)
{
    const char *p = head, *end = head + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    static const char *const parts[] = {"{", "\"schema\"", ":", "\"kinesift.validate/1\""};
    for (size_t i = 0; i < 4 && p; i++)
        p = expect(p, end, parts[i]);
    return p != NULL;
}

static yajl_val member(yajl_val obj, const char *key)
{
    if (!YAJL_IS_OBJECT(obj))
        return NULL;
    for (size_t i = 0; i < obj->u.object.len; i++)
        if (!strcmp(obj->u.object.keys[i], key))
            return obj->u.object.values[i];
    return NULL;
}

static int integer(yajl_val v, int64_t *out)
{
    if (!YAJL_IS_INTEGER(v))
        return -1;
    *out = YAJL_GET_INTEGER(v);
    return 0;
}

/* The series of one arm: kept values per execution, throttled counted. */
static int arm_series(ks_profile *p, const char *wname, const char *variant, int64_t arm, yajl_val raw,
                      const char *source, ks_error *err)
{
    char *name = ks_xasprintf("%s/%s", wname, variant);
    if (ks_profile_series(p, KS_METRIC_VALIDATE, name)) {
        free(name);
        name = ks_xasprintf("%s/%s (arm %lld)", wname, variant, (long long)arm);
    }
    KS_GROW(p->series, p->cap, p->nseries + 1);
    ks_sample_series *s = &p->series[p->nseries++];
    memset(s, 0, sizeof *s);
    s->metric = KS_METRIC_VALIDATE;
    s->name = name;
    size_t cap = 0;
    for (size_t i = 0; i < raw->u.array.len; i++) {
        yajl_val r = raw->u.array.values[i];
        int64_t a, k, ns;
        const char *st = YAJL_GET_STRING(member(r, "status"));
        if (integer(member(r, "arm"), &a) != 0 || integer(member(r, "k"), &k) != 0 ||
            integer(member(r, "ns"), &ns) != 0 || !st || k < 1)
            return ks_error_set(err, "%s: workload %s: raw[%zu] lacks arm, k, ns or status", source, wname, i);
        if (a != arm)
            continue;
        if (!strcmp(st, "throttled"))
            s->discarded++;
        else if (!strcmp(st, "kept"))
            KS_PUSH(s->v, s->n, cap, (double)ns / (double)k);
    }
    return KS_OK;
}

static int workload(ks_profile *p, yajl_val w, size_t idx, const char *source, ks_error *err)
{
    const char *wname = YAJL_GET_STRING(member(w, "name"));
    yajl_val arms = member(w, "arms"), raw = member(w, "raw");
    if (!wname || !YAJL_IS_ARRAY(arms) || !YAJL_IS_ARRAY(raw))
        return ks_error_set(err, "%s: workloads[%zu] lacks name, arms or raw", source, idx);
    for (size_t i = 0; i < arms->u.array.len; i++) {
        yajl_val a = arms->u.array.values[i];
        int64_t arm;
        const char *variant = YAJL_GET_STRING(member(a, "variant"));
        if (integer(member(a, "arm"), &arm) != 0 || !variant)
            return ks_error_set(err, "%s: workload %s: arms[%zu] lacks arm or variant", source, wname, i);
        if (arm_series(p, wname, variant, arm, raw, source, err) != KS_OK)
            return KS_ERR;
    }
    return KS_OK;
}

static int from_tree(ks_profile *p, yajl_val root, const char *source, ks_error *err)
{
    const char *schema = YAJL_GET_STRING(member(root, "schema"));
    if (!schema || strcmp(schema, "kinesift.validate/1") != 0)
        return ks_error_set(err, "%s: not a kinesift.validate/1 result", source);
    const char *status = YAJL_GET_STRING(member(root, "status"));
    if (!status || strcmp(status, "ok") != 0) {
        const char *reason = YAJL_GET_STRING(member(root, "reason"));
        return ks_error_set(err, "%s: the validate run has status %s%s%s: no samples to gate", source,
                            status ? status : "(none)", reason ? ": " : "", reason ? reason : "");
    }
    yajl_val ws = member(root, "workloads");
    if (!YAJL_IS_ARRAY(ws))
        return ks_error_set(err, "%s: no workloads array", source);
    for (size_t i = 0; i < ws->u.array.len; i++)
        if (workload(p, ws->u.array.values[i], i, source, err) != KS_OK)
            return KS_ERR;
    const char *dev = YAJL_GET_STRING(member(member(member(root, "context"), "device"), "name"));
    snprintf(p->settings.devices, sizeof p->settings.devices, "%s", dev ? dev : "");
    return KS_OK;
}

int ks_profile_from_validate(const char *source, const char *text, size_t len, ks_profile *p, ks_error *err)
{
    memset(p, 0, sizeof *p);
    p->source = ks_xstrdup(source);
    p->is_validate = 1;
    ks_trace_settings *s = &p->settings;
    s->with_stack = s->record_shapes = s->profile_memory = s->with_modules = s->with_flops = -1;
    s->gpu_activity = s->runtime_activity = -1;
    snprintf(p->steps_source, sizeof p->steps_source, "validate result");
    char msg[256] = "";
    yajl_val root = ks_json_tree_parse(text, len, msg, sizeof msg);
    if (!root)
        return ks_error_set(err, "%s: not valid JSON: %s", source, msg);
    int rc = from_tree(p, root, source, err);
    yajl_tree_free(root);
    return rc;
}

int ks_validate_result_read(const char *path, char **text, size_t *len, ks_error *err)
{
    ks_source *src;
    ks_stream *st;
    *text = NULL;
    *len = 0;
    if (ks_source_open(path, &src, err) != KS_OK)
        return KS_ERR;
    if (ks_source_is_archive(src)) {
        ks_source_close(src);
        return 0;
    }
    int r = ks_source_next(src, &st, err);
    if (r != 1) {
        ks_source_close(src);
        return r; /* 0: empty, the trace reader will say so */
    }
    ks_buf b = {0};
    char chunk[65536];
    int is_result = -1;
    for (;;) {
        ssize_t n = ks_stream_read(st, chunk, sizeof chunk, err);
        if (n < 0) {
            ks_buf_free(&b);
            ks_source_close(src);
            return KS_ERR;
        }
        if (n > 0 && b.n + (size_t)n > KS_LIMIT_VALIDATE_RESULT_BYTES) {
            int was = is_result == 1;
            ks_buf_free(&b);
            ks_source_close(src);
            if (!was)
                return 0; /* not a result: the trace reader reads it */
            return ks_error_set(err, "%s: larger than %u MiB: not a validate result", path,
                                KS_LIMIT_VALIDATE_RESULT_BYTES >> 20);
        }
        if (n > 0)
            ks_buf_put(&b, chunk, (size_t)n);
        if (is_result < 0 && (b.n >= 4096 || n == 0))
            is_result = ks_is_validate_result(b.p ? b.p : "", b.n);
        if (is_result == 0 || n == 0)
            break;
    }
    ks_source_close(src);
    if (is_result != 1) {
        ks_buf_free(&b);
        return 0;
    }
    ks_buf_cstr(&b);
    *text = b.p;
    *len = b.n;
    return 1;
}
