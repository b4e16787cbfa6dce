/* redact/fields.c: the structural rules (docs/redaction.md §2.2, §2.3): what a value means by
 * its position. Top-level keys go through an allowlist (everything unknown is stripped); event
 * fields that carry the trace's structure (ph, ts, dur, pid, tid, id, bp, s, cat, ...) are never
 * touched; args keys may be dropped, kept, stripped with --shapes or mapped (Addr); a key whose
 * name says it holds a secret has its value replaced whatever its shape. */
#include <string.h>
#include <strings.h>

#include "redact/redact_int.h"

#define KEYIS(lit) (n == sizeof(lit) - 1 && !memcmp(k, lit, sizeof(lit) - 1))

static int in_list(char *const *list, size_t cnt, const char *k, size_t n)
{
    for (size_t i = 0; i < cnt; i++)
        if (strlen(list[i]) == n && !memcmp(list[i], k, n))
            return 1;
    return 0;
}

/* top-level keys kept as they are (their strings are still scanned) */
static int allowed_top(const char *k, size_t n)
{
    static const char *const keep[] = {
        "schemaVersion", "displayTimeUnit", "baseTimeNanoseconds", "deviceProperties",
        "cupti_version", "cuda_runtime_version", "cuda_driver_version", "roctracer_version",
        "profile_memory", "with_stack", "record_shapes", "with_modules", "with_flops",
        "DISABLE_CUPTI_LAZY_REINIT", "PT_PROFILER_JOB_ATTEMPT_INDEX",
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (strlen(keep[i]) == n && !memcmp(keep[i], k, n))
            return 1;
    /* hip_runtime_version, hip_driver_version, ... */
    return n > 12 && !memcmp(k, "hip_", 4) && !memcmp(k + n - 8, "_version", 8);
}

int ks_rd_top_role(const ks_redactor *rd, const char *k, size_t n, int *rule)
{
    *rule = R_METADATA;
    if (KEYIS("traceEvents"))
        return ROLE_EVENTS;
    if (allowed_top(k, n) || KEYIS("distributedInfo") || in_list(rd->keep_meta, rd->nkeep_meta, k, n))
        return ROLE_SCAN;
    if (KEYIS("traceName")) {
        *rule = R_TRACE_NAME;
        return ROLE_TRACENAME;
    }
    if (KEYIS("host_name")) {
        *rule = R_HOST_NAME;
        return ROLE_HOSTNAME;
    }
    if (KEYIS("username")) {
        *rule = R_USERNAME;
        return ROLE_USERNAME;
    }
    if (n > 15 && !memcmp(k, "PT_PROFILER_JOB_", 16)) {
        *rule = R_JOB;
        return ROLE_JOB;
    }
    if (KEYIS("trace_id") || KEYIS("group_trace_id")) {
        *rule = R_TRACE_ID;
        return ROLE_ID;
    }
    if (KEYIS("INFO") || KEYIS("WARNING") || KEYIS("ERROR")) {
        *rule = R_KINETO_LOGS;
        return rd->keep_logs ? ROLE_SCAN : ROLE_STRIP;
    }
    return ROLE_STRIP;
}

int ks_rd_event_role(const char *k, size_t n)
{
    switch (n) {
    case 1:
        if (k[0] == 's') return ROLE_SKIP;
        break;
    case 2:
        if (KEYIS("ph") || KEYIS("ts") || KEYIS("id") || KEYIS("bp")) return ROLE_SKIP;
        break;
    case 3:
        if (KEYIS("pid") || KEYIS("tid") || KEYIS("dur") || KEYIS("cat") || KEYIS("tts"))
            return ROLE_SKIP;
        if (KEYIS("id2")) return ROLE_ID2;
        break;
    case 4:
        if (KEYIS("name")) return ROLE_NAME;
        if (KEYIS("args")) return ROLE_ARGS;
        if (KEYIS("tdur")) return ROLE_SKIP;
        break;
    case 5:
        if (KEYIS("scope")) return ROLE_SKIP;
        break;
    case 7:
        if (KEYIS("bind_id") || KEYIS("flow_in")) return ROLE_SKIP;
        break;
    case 8:
        if (KEYIS("flow_out")) return ROLE_SKIP;
        break;
    }
    return ROLE_SCAN;
}

/* a key part delimited by _ - . space or the ends */
static int part_is(const char *p, size_t l, const char *w)
{
    return strlen(w) == l && !strncasecmp(p, w, l);
}

int ks_rd_sensitive_key(const char *k, size_t n)
{
    if (n < 4)
        return 0;
    const char *parts[16];
    size_t lens[16], np = 0;
    size_t i = 0;
    while (i < n && np < 16) {
        while (i < n && (k[i] == '_' || k[i] == '-' || k[i] == '.' || k[i] == ' '))
            i++;
        size_t b = i;
        while (i < n && !(k[i] == '_' || k[i] == '-' || k[i] == '.' || k[i] == ' '))
            i++;
        if (i > b) {
            parts[np] = k + b;
            lens[np++] = i - b;
        }
    }
    for (size_t j = 0; j < np; j++) {
        const char *p = parts[j];
        size_t l = lens[j];
        if (part_is(p, l, "token") || part_is(p, l, "secret") || part_is(p, l, "secrets") ||
            part_is(p, l, "credential") || part_is(p, l, "credentials") ||
            part_is(p, l, "auth") || part_is(p, l, "authorization") ||
            part_is(p, l, "apikey") || part_is(p, l, "passphrase") ||
            (l >= 5 && !strncasecmp(p, "passw", 5)))
            return 1;
        if (j + 1 < np && part_is(parts[j + 1], lens[j + 1], "key") &&
            (part_is(p, l, "api") || part_is(p, l, "private") || part_is(p, l, "secret")))
            return 1;
    }
    return 0;
}

static int pip_key(const char *k, size_t n)
{
    return KEYIS("pip_packages") || KEYIS("pip_list") || KEYIS("pip_freeze");
}

int ks_rd_inner_role(const char *k, size_t n, int *rule)
{
    if (ks_rd_sensitive_key(k, n)) {
        *rule = R_SENSITIVE_KEY;
        return ROLE_SENSITIVE;
    }
    if (pip_key(k, n)) {
        *rule = R_PIP_LIST;
        return ROLE_STRIP;
    }
    return ROLE_SCAN;
}

int ks_rd_args_role(const ks_redactor *rd, const char *k, size_t n, int *rule)
{
    if (in_list(rd->keep_args, rd->nkeep_args, k, n))
        return ROLE_SKIP;
    if (in_list(rd->drop_args, rd->ndrop_args, k, n)) {
        *rule = R_DROP_ARG;
        return ROLE_STRIP;
    }
    if (rd->shapes && (KEYIS("Input Dims") || KEYIS("Input Strides") || KEYIS("Concrete Inputs"))) {
        *rule = R_SHAPES;
        return ROLE_STRIP;
    }
    if (KEYIS("Addr")) {
        *rule = R_ADDR;
        return ROLE_ADDR;
    }
    return ks_rd_inner_role(k, n, rule);
}

int ks_rd_learn_key(const char *k, size_t n, int parent_is_uname)
{
    if (parent_is_uname && KEYIS("node"))
        return LEARN_HOST;
    if (KEYIS("HOSTNAME") || KEYIS("hostname") || KEYIS("host_name") || KEYIS("HOST"))
        return LEARN_HOST;
    if (KEYIS("USER") || KEYIS("LOGNAME") || KEYIS("USERNAME") || KEYIS("username") ||
        KEYIS("user"))
        return LEARN_USER;
    if (KEYIS("HOME"))
        return LEARN_HOME;
    if (KEYIS("uname"))
        return LEARN_UNAME;
    return LEARN_NONE;
}

int ks_rd_is_profiler_step(const char *s, size_t n)
{
    static const char p[] = "ProfilerStep#";
    if (n <= sizeof p - 1 || memcmp(s, p, sizeof p - 1))
        return 0;
    for (size_t i = sizeof p - 1; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}
