/* redact/fields.c: the structural rules (docs/redaction.md §2.2, §2.3): what a value means by
 * its position. Top-level keys go through an allowlist (everything unknown is stripped); event
 * fields that carry the trace's structure (ph, ts, dur, pid, tid, id, bp, s, cat, ...) are never
 * touched; args keys may be dropped, kept, stripped with --shapes or mapped (Addr); a key whose
 * name says it holds a secret has its value replaced whatever its shape. */
#include <pthread.h>
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

/* ---- keys that name a secret (rule sensitive-key) --------------------------------------------
 * A key is split into parts at '_', '-', '.', ' ' and at camelCase steps (a lowercase letter or
 * digit, then an uppercase one), caseless. It names a secret when
 *   - a part is a secret word: token, secret(s), credential(s), creds, auth, authorization,
 *     apikey, passphrase, password(s), passwd, pass, passcode, pw, pwd, passw..., cookie(s),
 *     signature, sig, jwt, bearer, otp, csrf, xsrf, sessionid, privatekey, secretkey, accesskey;
 *   - or its last part is "key" after another (OPENAI_KEY, ssh_key, encryptionKey, X-Api-Key), unless the
 *     part before it says what kind of key that is not secret (sort_key, cache_key, public_key,
 *     dispatch_key, ...);
 *   - or, written without delimiters, it holds password, passwd, passphrase, secretkey, apikey,
 *     privatekey, accesskey, credential, authorization, or ends in token, secret(s), pwd
 *     (PGPASSWORD, MYSQLPWD).
 * Not: key, tokens, max_tokens, TOKENIZERS_PARALLELISM, author, secretary, keys, monkey. */

static const char *const secret_words[] = {
    "token", "secret", "secrets", "credential", "credentials", "creds", "auth", "authorization",
    "apikey", "passphrase", "password", "passwords", "passwd", "pass", "passcode", "pw", "pwd",
    "cookie", "cookies", "signature", "sig", "jwt", "bearer", "otp", "csrf", "xsrf",
    "sessionid", "privatekey", "secretkey", "accesskey", NULL};

/* kinds of key that are no secret: the part right before a last part "key" */
static const char *const plain_key_kinds[] = {
    "public", "pub", "sort", "cache", "hash", "dispatch", "primary", "foreign", "partition",
    "lookup", "group", "shard", "sharding", "index", "idx", "row", "column", "col", "map", "dict",
    "kernel", "device", "trace", "event", "op", "node", "metric", "config", "cfg", "param",
    "state", "dataset", "data", "unique", "composite", "routing", "lock", "join", "order",
    "hot", "short", NULL};

static int word_in(const char *p, size_t l, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == l && !strncasecmp(p, list[i], l))
            return 1;
    return 0;
}

static int is_delim(char c)
{
    return c == '_' || c == '-' || c == '.' || c == ' ';
}

static int is_lower_or_digit(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* glued spellings: the key without delimiters, lowercased */
static int glued_secret(const char *k, size_t n)
{
    char b[128];
    size_t m = 0;
    for (size_t i = 0; i < n && m < sizeof b - 1; i++)
        if (!is_delim(k[i]))
            b[m++] = (char)(k[i] >= 'A' && k[i] <= 'Z' ? k[i] + 32 : k[i]);
    b[m] = 0;
    static const char *const words[] = {"password",  "passwd",     "passphrase", "secretkey",
                                        "apikey",    "privatekey", "accesskey",  "credential",
                                        "authorization", "sessionid", NULL};
    static const char *const ends[] = {"token", "secret", "secrets", "pwd", NULL};
    for (size_t i = 0; words[i]; i++)
        if (strstr(b, words[i]))
            return 1;
    for (size_t i = 0; ends[i]; i++) {
        size_t l = strlen(ends[i]);
        if (m >= l && !strcmp(b + m - l, ends[i]))
            return 1;
    }
    return 0;
}

int ks_rd_sensitive_key(const char *k, size_t n)
{
    if (n < 2)
        return 0;
    if (n >= 3 && glued_secret(k, n))
        return 1;
    const char *prev = NULL, *last = NULL;
    size_t prevl = 0, lastl = 0, i = 0;
    while (i < n) {
        while (i < n && is_delim(k[i]))
            i++;
        size_t b = i;
        while (i < n && !is_delim(k[i]) &&
               !(i > b && k[i] >= 'A' && k[i] <= 'Z' && is_lower_or_digit(k[i - 1])))
            i++;
        if (i == b)
            break;
        size_t l = i - b;
        if (l >= 2 && l <= 16 && word_in(k + b, l, secret_words))
            return 1;
        if (l >= 5 && !strncasecmp(k + b, "passw", 5))
            return 1;
        prev = last;
        prevl = lastl;
        last = k + b;
        lastl = l;
    }
    if (last && lastl == 3 && !strncasecmp(last, "key", 3))
        return prev && !word_in(prev, prevl, plain_key_kinds); /* "key" alone names nothing */
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

/* Kineto's args keys (docs/trace-format.md §3.2) and the M events' args */
static const char *const known_args[] = {
    "External id", "external id", "correlation", "Ev Idx", "Profiler Event Index",
    "Record function id", "Input Dims", "Input Strides", "Input type", "Concrete Inputs",
    "Call stack", "Module Hierarchy", "Fwd thread id", "Sequence number", "Backend",
    "kernel_backend", "kernel_hash", "kernel_file", "grid", "block", "stream", "Collective name",
    "dtype", "In msg nelems", "Out msg nelems", "In split size", "Out split size",
    "Global rank start", "Global rank stride", "Group size", "Process Group Name",
    "Process Group Description", "Process Group Ranks", "Rank", "Src Rank", "Dst Rank", "Seq",
    "Input Tensors start", "Output Tensors start", "Is asynchronized op", "Comms Id",
    "Python id", "Python parent id", "Python module id", "Python thread", "CallFrom", "queued",
    "device", "context", "registers per thread", "shared memory", "blocks per SM",
    "warps per SM", "est. achieved occupancy %", "theoretical occupancy %", "graph id",
    "graph node id", "priority", "limitingFactors", "occupancy", "kernel", "cid", "hsa_queue",
    "bytes", "memory bandwidth (GB/s)", "fromDevice", "inDevice", "toDevice", "fromContext",
    "inContext", "toContext", "cuda_sync_kind", "wait_on_stream",
    "wait_on_cuda_event_record_corr_id", "wait_on_cuda_event_id", "cbid", "Device Type",
    "Device Id", "Addr", "Bytes", "Total Allocated", "Total Reserved", "finished", "name",
    "labels", "sort_index", "Op count", "Trace name", "Trace iteration", "Device",
};

#define KNOWN_SLOTS 512
static const char *known_set[KNOWN_SLOTS];
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static void known_build(void)
{
    for (size_t i = 0; i < sizeof known_args / sizeof known_args[0]; i++) {
        size_t h = ks_hash(known_args[i], strlen(known_args[i])) & (KNOWN_SLOTS - 1);
        while (known_set[h])
            h = (h + 1) & (KNOWN_SLOTS - 1);
        known_set[h] = known_args[i];
    }
}

int ks_rd_known_arg_key(const char *k, size_t n)
{
    pthread_once(&known_once, known_build);
    size_t h = ks_hash(k, n) & (KNOWN_SLOTS - 1);
    for (; known_set[h]; h = (h + 1) & (KNOWN_SLOTS - 1))
        if (strlen(known_set[h]) == n && !memcmp(known_set[h], k, n))
            return 1;
    return 0;
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

/* The last part of a key, lowercased, split at _ - . space and at a lowercase-to-uppercase step
 * (camelCase): "SLURMD_NODENAME" -> "nodename", "masterAddr" -> "addr". And the part before. */
static void last_parts(const char *k, size_t n, char *last, size_t cap, char *prev)
{
    size_t e = n, b;
    last[0] = prev[0] = 0;
    for (int which = 0; which < 2; which++) {
        while (e && is_delim(k[e - 1]))
            e--;
        b = e;
        while (b && !is_delim(k[b - 1]) &&
               !(k[b] >= 'A' && k[b] <= 'Z' && k[b - 1] >= 'a' && k[b - 1] <= 'z'))
            b--;
        char *dst = which ? prev : last;
        size_t l = e - b < cap - 1 ? e - b : cap - 1;
        for (size_t i = 0; i < l; i++)
            dst[i] = (char)(k[b + i] >= 'A' && k[b + i] <= 'Z' ? k[b + i] + 32 : k[b + i]);
        dst[l] = 0;
        e = b;
    }
}

/* Names worth learning in metadata (stripped blocks, distributedInfo, top-level keys), by the
 * key's last part: host, hostname, nodename, node name, addr(ess), fqdn (HOSTNAME, hostname,
 * SLURMD_NODENAME, MASTER_ADDR, masterAddr, uname.node); user, username, logname, owner (USER,
 * SLURM_JOB_USER, SUDO_USER, userName); the job's name (SLURM_JOB_NAME, job_name, jobName). */
int ks_rd_learn_key(const char *k, size_t n, int parent_is_uname)
{
    if (parent_is_uname && KEYIS("node"))
        return LEARN_HOST;
    if (KEYIS("HOME"))
        return LEARN_HOME;
    if (KEYIS("uname"))
        return LEARN_UNAME;
    if (n > 64)
        return LEARN_NONE;
    char last[32], prev[32];
    last_parts(k, n, last, sizeof last, prev);
    static const char *const hosts[] = {"host", "hostname", "nodename", "addr", "address", "fqdn"};
    static const char *const users[] = {"user", "username", "logname", "owner"};
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++)
        if (!strcmp(last, hosts[i]))
            return LEARN_HOST;
    for (size_t i = 0; i < sizeof users / sizeof users[0]; i++)
        if (!strcmp(last, users[i]))
            return LEARN_USER;
    if (!strcmp(last, "name") && (!strcmp(prev, "host") || !strcmp(prev, "node")))
        return LEARN_HOST;
    if (!strcmp(last, "name") && !strcmp(prev, "user"))
        return LEARN_USER;
    if ((!strcmp(last, "name") && !strcmp(prev, "job")) || !strcmp(last, "jobname"))
        return LEARN_JOB;
    return LEARN_NONE;
}

