/* compare/gate_budget.c: the checks of `kinesift gate`: metric names, the budget file
 * ("kinesift.budget/1", read with yajl's tree parser) and checks given as flags. Strict: an
 * unknown key or metric, a wrong type, a missing or superfluous name, a negative limit or a
 * check given twice is an error naming the check, never silently ignored (a typo in a budget
 * must not turn a gate off). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "common/jsontree.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/compare.h"
#include "kinesift/source.h"
#include "compare/gate_text.h"

static const char *const metric_names[KS_METRIC_COUNT] = {
    [KS_METRIC_STEP_TIME] = "step_time",     [KS_METRIC_LABEL] = "label",
    [KS_METRIC_GPU_LABEL] = "gpu_label",     [KS_METRIC_OP] = "op",
    [KS_METRIC_KERNEL_TIME] = "kernel_time", [KS_METRIC_GPU_IDLE] = "gpu_idle_share",
    [KS_METRIC_LAUNCHES] = "kernel_launches", [KS_METRIC_VALIDATE] = "validate",
};

const char *ks_metric_name(ks_metric m)
{
    return m >= 0 && m < KS_METRIC_COUNT ? metric_names[m] : "?";
}

int ks_metric_parse(const char *s, ks_metric *m)
{
    for (int i = 0; i < KS_METRIC_COUNT; i++)
        if (!strcmp(s, metric_names[i])) {
            *m = (ks_metric)i;
            return 0;
        }
    return -1;
}

int ks_metric_named(ks_metric m)
{
    return m == KS_METRIC_LABEL || m == KS_METRIC_GPU_LABEL || m == KS_METRIC_OP || m == KS_METRIC_KERNEL_TIME ||
           m == KS_METRIC_VALIDATE;
}

int ks_metric_points(ks_metric m)
{
    return m == KS_METRIC_GPU_IDLE;
}

/* The largest limit accepted: growth of 1000 % (11 times slower) or 100 points. */
static double max_limit(ks_metric m)
{
    return ks_metric_points(m) ? 100 : 1000;
}

int ks_budget_add(ks_budget *b, ks_metric m, const char *name, int has_limit, double limit, ks_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        const ks_check *c = &b->v[i];
        if (c->metric == m && ((!c->name && !name) || (c->name && name && !strcmp(c->name, name))))
            return ks_error_set(err, "the check %s%s%s is given twice", ks_metric_name(m), name ? " " : "",
                                name ? name : "");
    }
    KS_GROW(b->v, b->cap, b->n + 1);
    ks_check *c = &b->v[b->n++];
    c->metric = m;
    c->name = name ? ks_xstrdup(name) : NULL;
    c->has_limit = has_limit;
    c->limit = limit;
    return KS_OK;
}

void ks_budget_free(ks_budget *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->v[i].name);
    free(b->v);
    memset(b, 0, sizeof *b);
}

/* A limit: a finite number in [0, max]. */
static int parse_limit_text(const char *s, ks_metric m, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(*v) || *v < 0 || *v > max_limit(m))
        return -1;
    return 0;
}

/* The flag of a metric: its name with dashes ("--gpu-idle-share"). */
static void flag_name(ks_metric m, char *buf, size_t n)
{
    snprintf(buf, n, "--%s", ks_metric_name(m));
    for (char *p = buf; *p; p++)
        if (*p == '_')
            *p = '-';
}

int ks_budget_add_arg(ks_budget *b, ks_metric m, const char *arg, ks_error *err)
{
    const char *unit = ks_metric_points(m) ? "points" : "percent";
    char flag[40];
    flag_name(m, flag, sizeof flag);
    double v;
    if (!ks_metric_named(m)) {
        if (parse_limit_text(arg, m, &v) != 0)
            return ks_error_set(err, "%s wants a limit in %s (0 to %g), not '%s'", flag, unit, max_limit(m), arg);
        return ks_budget_add(b, m, NULL, 1, v, err);
    }
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg)
        return ks_error_set(err, "%s wants NAME=LIMIT (LIMIT in %s), not '%s'", flag, unit, arg);
    if (parse_limit_text(eq + 1, m, &v) != 0)
        return ks_error_set(err, "%s %s: the limit must be a number of %s from 0 to %g", flag, arg, unit,
                            max_limit(m));
    char *name = ks_xstrndup(arg, (size_t)(eq - arg));
    int rc = ks_budget_add(b, m, name, 1, v, err);
    free(name);
    return rc;
}

/* ---- the file ------------------------------------------------------------------------------- */

static int number(yajl_val v, double *out)
{
    if (!YAJL_IS_NUMBER(v))
        return -1;
    *out = YAJL_IS_DOUBLE(v) ? YAJL_GET_DOUBLE(v) : (double)YAJL_GET_INTEGER(v);
    return isfinite(*out) ? 0 : -1;
}

static int parse_check(ks_budget *b, yajl_val c, size_t idx, const char *name, ks_error *err)
{
    if (!YAJL_IS_OBJECT(c))
        return ks_error_set(err, "%s: checks[%zu] is not an object", name, idx);
    const char *metric = NULL, *cname = NULL, *limit_key = NULL;
    double limit = 0;
    for (size_t i = 0; i < c->u.object.len; i++) {
        const char *k = c->u.object.keys[i];
        yajl_val v = c->u.object.values[i];
        if (!strcmp(k, "metric") && YAJL_IS_STRING(v))
            metric = YAJL_GET_STRING(v);
        else if (!strcmp(k, "name") && YAJL_IS_STRING(v))
            cname = YAJL_GET_STRING(v);
        else if (!strcmp(k, "max_growth_pct") || !strcmp(k, "max_growth_points")) {
            if (limit_key)
                return ks_error_set(err, "%s: checks[%zu]: give one limit, not %s and %s", name, idx, limit_key, k);
            if (number(v, &limit) != 0)
                return ks_error_set(err, "%s: checks[%zu]: %s must be a number", name, idx, k);
            limit_key = k;
        } else if (!strcmp(k, "comment") && YAJL_IS_STRING(v))
            continue;
        else if (!strcmp(k, "metric") || !strcmp(k, "name") || !strcmp(k, "comment"))
            return ks_error_set(err, "%s: checks[%zu]: %s must be a string", name, idx, k);
        else
            return ks_error_set(err, "%s: checks[%zu]: unknown key '%s' (metric, name, max_growth_pct, "
                                     "max_growth_points, comment)", name, idx, k);
    }
    ks_metric m;
    if (!metric)
        return ks_error_set(err, "%s: checks[%zu]: no \"metric\"", name, idx);
    if (ks_metric_parse(metric, &m) != 0)
        return ks_error_set(err, "%s: checks[%zu]: unknown metric '%s' (step_time, label, gpu_label, op, "
                                 "kernel_time, gpu_idle_share, kernel_launches, validate)", name, idx, metric);
    if (ks_metric_named(m) && (!cname || !*cname))
        return ks_error_set(err, "%s: checks[%zu]: metric %s needs a \"name\"", name, idx, metric);
    if (!ks_metric_named(m) && cname)
        return ks_error_set(err, "%s: checks[%zu]: metric %s takes no \"name\"", name, idx, metric);
    const char *want = ks_metric_points(m) ? "max_growth_points" : "max_growth_pct";
    if (limit_key && strcmp(limit_key, want) != 0)
        return ks_error_set(err, "%s: checks[%zu]: metric %s takes %s, not %s", name, idx, metric, want, limit_key);
    if (limit_key && (limit < 0 || limit > max_limit(m)))
        return ks_error_set(err, "%s: checks[%zu]: %s must be from 0 to %g", name, idx, want, max_limit(m));
    ks_error e2;
    if (ks_budget_add(b, m, cname, limit_key != NULL, limit, &e2) != KS_OK)
        return ks_error_set(err, "%s: checks[%zu]: %s", name, idx, e2.msg);
    return KS_OK;
}

static int parse_root(ks_budget *b, yajl_val root, const char *name, ks_error *err)
{
    if (!YAJL_IS_OBJECT(root))
        return ks_error_set(err, "%s: a budget is a JSON object", name);
    yajl_val checks = NULL;
    for (size_t i = 0; i < root->u.object.len; i++) {
        const char *k = root->u.object.keys[i];
        yajl_val v = root->u.object.values[i];
        if (!strcmp(k, "schema")) {
            const char *sv = YAJL_GET_STRING(v);
            if (!sv || strcmp(sv, "kinesift.budget/1") != 0)
                return ks_error_set(err, "%s: schema must be \"kinesift.budget/1\"", name);
        } else if (!strcmp(k, "threshold_pct")) {
            if (number(v, &b->threshold_pct) != 0 || b->threshold_pct < 0 || b->threshold_pct > 1000)
                return ks_error_set(err, "%s: threshold_pct must be a number from 0 to 1000", name);
            b->has_threshold = 1;
        } else if (!strcmp(k, "checks")) {
            if (!YAJL_IS_ARRAY(v))
                return ks_error_set(err, "%s: checks must be an array", name);
            checks = v;
        } else if (!strcmp(k, "comment")) {
            continue;
        } else {
            return ks_error_set(err, "%s: unknown key '%s' (schema, threshold_pct, checks, comment)", name, k);
        }
    }
    if (!checks)
        return ks_error_set(err, "%s: no \"checks\" array", name);
    for (size_t i = 0; i < checks->u.array.len; i++)
        if (parse_check(b, checks->u.array.values[i], i, name, err) != KS_OK)
            return KS_ERR;
    return KS_OK;
}

int ks_budget_parse(const char *text, size_t len, const char *name, ks_budget *b, ks_error *err)
{
    char msg[256] = "";
    yajl_val root = ks_json_tree_parse(text, len, msg, sizeof msg);
    if (!root)
        return ks_error_set(err, "%s: not valid JSON: %s", name, msg);
    int rc = parse_root(b, root, name, err);
    yajl_tree_free(root);
    return rc;
}

int ks_budget_load(const char *path, ks_budget *b, ks_error *err)
{
    ks_source *src;
    ks_stream *st;
    if (ks_source_open(path, &src, err) != KS_OK)
        return KS_ERR;
    int r = ks_source_next(src, &st, err);
    if (r != 1) {
        ks_source_close(src);
        return r == 0 ? ks_error_set(err, "%s: empty", path) : KS_ERR;
    }
    ks_buf text = {0};
    char chunk[65536];
    for (;;) {
        ssize_t n = ks_stream_read(st, chunk, sizeof chunk, err);
        if (n < 0) {
            ks_buf_free(&text);
            ks_source_close(src);
            return KS_ERR;
        }
        if (n == 0)
            break;
        if (text.n + (size_t)n > KS_LIMIT_BUDGET_BYTES) {
            ks_buf_free(&text);
            ks_source_close(src);
            return ks_error_set(err, "%s: larger than %u MiB: not a budget", path, KS_LIMIT_BUDGET_BYTES >> 20);
        }
        ks_buf_put(&text, chunk, (size_t)n);
    }
    ks_source_close(src);
    int rc = ks_budget_parse(text.p ? text.p : "", text.n, path, b, err);
    ks_buf_free(&text);
    return rc;
}
