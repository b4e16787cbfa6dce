/* redact/rules.c: the rule registry (every rule has a name and a class, reported by --report and
 * --check), the PCRE2 helpers (JIT-compiled patterns with their match data), and user rules read
 * from a JSON file: [{"name": "ticket", "pattern": "TICKET-[0-9]+", "class": "secret"}, ...]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "common/jsontree.h"

#include "redact/redact_int.h"

const ks_rd_rule ks_rd_builtin[R_NBUILTIN] = {
    [R_METADATA] = {"metadata", KS_CLS_STRUCT,
                    "top-level key outside the allowlist (metadata, env, uname, tw_*, ...): "
                    "value becomes \"__stripped__\""},
    [R_KINETO_LOGS] = {"kineto-logs", KS_CLS_STRUCT,
                       "Kineto log arrays INFO, WARNING, ERROR: \"__stripped__\" (--keep-logs)"},
    [R_PIP_LIST] = {"pip-list", KS_CLS_STRUCT,
                    "pip_packages / pip_list values at any depth: \"__stripped__\""},
    [R_HOST_NAME] = {"host-name", KS_CLS_HOST, "top-level host_name: host-<h> (learned)"},
    [R_USERNAME] = {"username", KS_CLS_USER, "top-level username: user-<h> (learned)"},
    [R_TRACE_NAME] = {"trace-name", KS_CLS_HOST,
                      "traceName: base name only, handler host part as host-<h>"},
    [R_JOB] = {"profiler-job", KS_CLS_JOB, "PT_PROFILER_JOB_NAME / _VERSION: job-<h>"},
    [R_TRACE_ID] = {"trace-id", KS_CLS_ID, "trace_id, group_trace_id: id-<h>"},
    [R_SENSITIVE_KEY] = {"sensitive-key", KS_CLS_SECRET,
                         "value of a key with a part token, secret, passw*, api_key/apikey, "
                         "credential(s), auth, authorization, private_key"},
    [R_DROP_ARG] = {"drop-arg", KS_CLS_STRUCT, "--drop-arg KEY: \"__stripped__\""},
    [R_SHAPES] = {"shapes", KS_CLS_STRUCT,
                  "--shapes: Input Dims, Input Strides, Concrete Inputs -> \"__stripped__\""},
    [R_ADDR] = {"addr", KS_CLS_ADDR,
                "args.Addr (memory events): keyed integer in [2^51, 2^52), equality kept"},
    [R_AWS] = {"aws-access-token", KS_CLS_SECRET, "AKIA/ASIA/ABIA/ACCA/A3T? + 16 of [A-Z2-7]"},
    [R_GITHUB] = {"github-token", KS_CLS_SECRET,
                  "ghp_/gho_/ghu_/ghs_/ghr_ + 36 alphanumerics; github_pat_ + 82"},
    [R_GITLAB] = {"gitlab-pat", KS_CLS_SECRET, "glpat- + 20 of [A-Za-z0-9_-]"},
    [R_HF] = {"huggingface-token", KS_CLS_SECRET,
              "hf_ + 34 letters or digits; api_org_ + 34 letters"},
    [R_SLACK_TOKEN] = {"slack-token", KS_CLS_SECRET, "xoxb-/xoxp-/xoxe-/xoxa-/xoxs-/xapp- tokens"},
    [R_SLACK_WEBHOOK] = {"slack-webhook", KS_CLS_SECRET,
                         "hooks.slack.com/services|workflows|triggers/ + 43-56 chars"},
    [R_JWT] = {"jwt", KS_CLS_SECRET, "ey...ey... JSON web tokens, also base64-wrapped (ZXlK...)"},
    [R_OPENAI] = {"openai-key", KS_CLS_SECRET,
                  "sk-proj-/sk-svcacct-/sk-admin- keys; legacy sk- keys with T3BlbkFJ"},
    [R_ANTHROPIC] = {"anthropic-key", KS_CLS_SECRET, "sk-ant-api03- + 93 of [\\w-] + AA"},
    [R_GCP] = {"gcp-api-key", KS_CLS_SECRET, "AIza + 35 of [\\w-]"},
    [R_NPM] = {"npm-token", KS_CLS_SECRET, "npm_ + 36 alphanumerics"},
    [R_PYPI] = {"pypi-token", KS_CLS_SECRET, "pypi-AgEIcHlwaS5vcmc + 50-1000 of [\\w-]"},
    [R_STRIPE] = {"stripe-key", KS_CLS_SECRET, "sk_/rk_ + test_/live_/prod_ + 10-99 alphanumerics"},
    [R_PRIVATE_KEY] = {"private-key", KS_CLS_SECRET, "-----BEGIN ... PRIVATE KEY----- blocks"},
    [R_URL_USERINFO] = {"url-userinfo", KS_CLS_SECRET,
                        "scheme://user:password@ : the user:password part"},
    [R_GENERIC] = {"generic-api-key", KS_CLS_SECRET,
                   "key-like word + = or : + 10-150 chars with letters and digits, entropy >= 3.5"},
    [R_AUTH_HEADER] = {"auth-header", KS_CLS_SECRET,
                       "Authorization: / Bearer / Basic / token + a credential of >= 8 chars"},
    [R_VENDOR] = {"vendor-token", KS_CLS_SECRET,
                  "vendors' fixed-prefix tokens after gitleaks (dop_v1_, glptt-, hvs., shpat_, "
                  "SG., sntryu_, ...)"},
    [R_EMAIL] = {"email", KS_CLS_EMAIL, "e-mail addresses: email-<h>@example.invalid"},
    [R_HOME_PATH] = {"home-path", KS_CLS_USER,
                     "/home/<u>, /Users/<u>, C:\\Users\\<u>, /run/user/<uid>: user learned, "
                     "directory part as <path-h>"},
    [R_TORCHINDUCTOR] = {"torchinductor-path", KS_CLS_USER,
                         "/tmp/torchinductor_<u>: user learned, directory part as <path-h>"},
    [R_SITE_PACKAGES] = {"site-packages", KS_CLS_PATH,
                         "site-packages/dist-packages/lib/pythonX.Y paths: package-relative"},
    [R_ABS_PATH] = {"abs-path", KS_CLS_PATH,
                    "other absolute paths: directory part as <path-h>, base name, line, "
                    "function kept"},
    [R_IPV4] = {"ipv4", KS_CLS_HOST, "IPv4 addresses: host-<h>"},
    [R_IPV6] = {"ipv6", KS_CLS_HOST, "IPv6 addresses (>= 4 groups or embedded IPv4): host-<h>"},
    [R_FQDN] = {"fqdn", KS_CLS_HOST,
                "host names: >= 3 labels ending in a public suffix (or local, internal, ...), "
                "no file name, no Python dotted name; or under a --domain: host-<h>"},
    [R_LEARNED_HOST] = {"learned-host", KS_CLS_HOST,
                        "host names learned from the trace (host_name, hostname, uname.node, "
                        "HOSTNAME, SLURMD_NODENAME, MASTER_ADDR, traceName; an FQDN's first "
                        "label too) and this machine's name: host-<h>"},
    [R_LEARNED_USER] = {"learned-user", KS_CLS_USER,
                        "user names learned from the trace (username, USER, home paths): "
                        "user-<h>"},
    [R_DENY] = {"deny", KS_CLS_SECRET, "--deny-file terms: [REDACTED:deny]"},
    [R_LEARNED_JOB] = {"learned-job", KS_CLS_JOB,
                       "job names learned from harness metadata (SLURM_JOB_NAME, job_name, ...): "
                       "job-<h>"},
    [R_UNSCANNABLE] = {"unscannable", KS_CLS_SECRET,
                       "a string on which a pattern failed (PCRE2 match or depth limit): "
                       "[REDACTED:unscannable] whole; the rest of the trace is still redacted"},
};

static const char *const cls_names[KS_NCLS] = {
    [KS_CLS_STRUCT] = "structure", [KS_CLS_USER] = "user",   [KS_CLS_HOST] = "host",
    [KS_CLS_EMAIL] = "email",      [KS_CLS_JOB] = "job",     [KS_CLS_ID] = "id",
    [KS_CLS_PATH] = "path",        [KS_CLS_ADDR] = "addr",   [KS_CLS_SECRET] = "secret",
};

const char *ks_rd_cls_name(int cls)
{
    return cls >= 0 && cls < KS_NCLS ? cls_names[cls] : "?";
}

int ks_rd_cls_parse(const char *name)
{
    if (!strcmp(name, "redact"))
        return KS_CLS_SECRET;
    for (int i = 1; i < KS_NCLS; i++)
        if (!strcmp(name, cls_names[i]) && i != KS_CLS_ADDR)
            return i;
    return -1;
}

size_t ks_redact_nrules(void)
{
    return R_NBUILTIN;
}

const char *ks_redact_rule_id(size_t i)
{
    return i < R_NBUILTIN ? ks_rd_builtin[i].id : NULL;
}

const char *ks_redact_rule_desc(size_t i)
{
    return i < R_NBUILTIN ? ks_rd_builtin[i].desc : NULL;
}

const char *ks_rd_rule_name(const ks_redactor *rd, int rule)
{
    if (rule < R_NBUILTIN)
        return ks_rd_builtin[rule].id;
    return rd->urules[rule - R_NBUILTIN].name;
}

int ks_rd_rule_cls(const ks_redactor *rd, int rule)
{
    if (rule < R_NBUILTIN)
        return ks_rd_builtin[rule].cls;
    return rd->urules[rule - R_NBUILTIN].cls;
}

/* A rule fired (a detector rewrote len bytes): counted for the report, recorded while a string
 * is scanned (scan.c replays the records on a cache hit), and handed to the engine's hook (the
 * findings of --check). Here beside the rules, below every detector that calls it. */
void ks_rd_hit(ks_redactor *rd, int rule, size_t len)
{
    if (!rd->muted)
        rd->counts[rule]++;
    if (rd->nrec >= 0 && rd->nrec < (int)(sizeof rd->rec / sizeof rd->rec[0])) {
        rd->rec[rd->nrec].rule = (uint16_t)rule;
        rd->rec[rd->nrec].len = (uint32_t)len;
        rd->nrec++;
    } else if (rd->nrec >= 0) {
        rd->nrec = (int)(sizeof rd->rec / sizeof rd->rec[0]) + 1;
    }
    if (rd->hit && !rd->muted)
        rd->hit(rd->hit_ctx, rule, len);
}

/* ---- PCRE2 ----------------------------------------------------------------------------------- */

int ks_rd_re_compile(ks_rd_re *re, const char *pattern, ks_error *err)
{
    memset(re, 0, sizeof *re);
    re->re = ks_regex_new(pattern, 0, err);
    return re->re ? KS_OK : KS_ERR;
}

void ks_rd_re_free(ks_rd_re *re)
{
    ks_regex_free(re->re);
    memset(re, 0, sizeof *re);
}

int ks_rd_re_match(ks_rd_re *re, const char *s, size_t n, size_t start, const size_t **ov)
{
    if (!re->re)
        return 0;
    int rc = ks_regex_exec(re->re, s, n, start, ov);
    if (rc < 0 && re->fail)
        *re->fail = rc;
    return rc > 0;
}

/* ---- user rules -------------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t max, size_t *len, ks_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ks_error_set(err, "%s: cannot open", path);
        return NULL;
    }
    ks_buf b = {0};
    char tmp[8192];
    size_t r;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) {
        ks_buf_put(&b, tmp, r);
        if (b.n > max) {
            fclose(f);
            ks_buf_free(&b);
            ks_error_set(err, "%s: larger than %zu bytes: not a rules file", path, max);
            return NULL;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        ks_buf_free(&b);
        ks_error_set(err, "%s: read error", path);
        return NULL;
    }
    ks_buf_cstr(&b);
    *len = b.n;
    return b.p;
}

static const char *tree_str(yajl_val obj, const char *key)
{
    const char *path[] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, path, yajl_t_string);
    return v ? YAJL_GET_STRING(v) : NULL;
}

static int valid_rule_name(const char *s)
{
    if (!*s || strlen(s) > 64)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            return 0;
    return 1;
}

static int load_rule(yajl_val o, size_t i, ks_rd_user_rule *r, const char *path, ks_error *err)
{
    if (!YAJL_IS_OBJECT(o))
        return ks_error_set(err, "%s: rule %zu is not an object", path, i);
    const char *name = tree_str(o, "name"), *pat = tree_str(o, "pattern");
    const char *cls = tree_str(o, "class");
    if (!cls)
        cls = tree_str(o, "replacement");
    if (!name || !pat || !cls)
        return ks_error_set(err, "%s: rule %zu needs the strings name, pattern and class", path, i);
    if (!valid_rule_name(name))
        return ks_error_set(err, "%s: rule %zu: name '%.64s' must be 1-64 of [A-Za-z0-9._-]", path,
                            i, name);
    for (size_t k = 0; k < R_NBUILTIN; k++)
        if (!strcmp(name, ks_rd_builtin[k].id))
            return ks_error_set(err, "%s: rule %zu: '%s' is a built-in rule name", path, i, name);
    r->cls = ks_rd_cls_parse(cls);
    if (r->cls < 0)
        return ks_error_set(err,
                            "%s: rule %s: class '%.32s' must be secret, user, host, email, job, "
                            "id or path",
                            path, name, cls);
    ks_error e2;
    if (ks_rd_re_compile(&r->re, pat, &e2) != KS_OK)
        return ks_error_set(err, "%s: rule %s: %s", path, name, e2.msg);
    r->name = ks_xstrdup(name);
    return KS_OK;
}

int ks_rd_user_rules_load(const char *path, ks_rd_user_rule **rules, size_t *n, ks_error *err)
{
    *rules = NULL;
    *n = 0;
    size_t len;
    char *text = slurp(path, KS_LIMIT_RULES_FILE, &len, err);
    if (!text)
        return KS_ERR;
    char eb[256];
    yajl_val root = ks_json_tree_parse(text, len, eb, sizeof eb);
    free(text);
    if (!root)
        return ks_error_set(err, "%s: %s", path, eb);
    yajl_val arr = root;
    if (YAJL_IS_OBJECT(root)) {
        const char *p[] = {"rules", NULL};
        arr = yajl_tree_get(root, p, yajl_t_array);
    }
    if (!arr || !YAJL_IS_ARRAY(arr)) {
        yajl_tree_free(root);
        return ks_error_set(err, "%s: expected an array of rules (or {\"rules\": [...]})", path);
    }
    size_t cnt = YAJL_GET_ARRAY(arr)->len;
    ks_rd_user_rule *v = ks_xcalloc(cnt ? cnt : 1, sizeof *v);
    for (size_t i = 0; i < cnt; i++) {
        if (load_rule(YAJL_GET_ARRAY(arr)->values[i], i, &v[i], path, err) != KS_OK) {
            ks_rd_user_rules_free(v, i);
            yajl_tree_free(root);
            return KS_ERR;
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(v[j].name, v[i].name)) {
                ks_error_set(err, "%s: rule name '%s' given twice", path, v[i].name);
                ks_rd_user_rules_free(v, i + 1);
                yajl_tree_free(root);
                return KS_ERR;
            }
    }
    yajl_tree_free(root);
    *rules = v;
    *n = cnt;
    return KS_OK;
}

void ks_rd_user_rules_free(ks_rd_user_rule *rules, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rules[i].name);
        ks_rd_re_free(&rules[i].re);
    }
    free(rules);
}

/* One user rule over in: every match that is not one of our tokens is replaced. */
static int apply_user_rule(ks_redactor *rd, size_t k, const char *in, size_t n, ks_buf *out)
{
    ks_rd_user_rule *r = &rd->urules[k];
    size_t pos = 0, last = 0;
    int changed = 0;
    const size_t *ov;
    while (pos <= n && ks_rd_re_match(&r->re, in, n, pos, &ov)) {
        size_t s = ov[0], e = ov[1];
        if (e == s) { /* empty match: step on */
            pos = e + 1;
            continue;
        }
        if (ks_rd_in_token(in, n, s, e - s) || ks_rd_is_token(in + s, e - s)) {
            pos = e;
            continue;
        }
        if (!changed)
            out->n = 0;
        changed = 1;
        ks_buf_put(out, in + last, s - last);
        if (r->cls == KS_CLS_SECRET) {
            ks_rd_pseudo_note(rd->pn, KS_CLS_SECRET, in + s, e - s);
            ks_rd_put_redacted(out, r->name);
        } else if (r->cls == KS_CLS_PATH) {
            ks_buf_puts(out, "<path-");
            ks_rd_pseudo_append_hex(rd->pn, KS_CLS_PATH, in + s, e - s, out);
            ks_buf_putc(out, '>');
        } else {
            ks_rd_pseudo_append(rd->pn, r->cls, in + s, e - s, out);
        }
        ks_rd_hit(rd, R_NBUILTIN + (int)k, e - s);
        last = pos = e;
    }
    if (changed)
        ks_buf_put(out, in + last, n - last);
    return changed;
}

int ks_rd_det_user_rules(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    /* rules apply one after the other; each sees the previous one's result */
    int any = 0;
    const char *cur = in;
    size_t cn = n;
    for (size_t k = 0; k < rd->nurules; k++) {
        ks_buf *dst = (cur == rd->tmp.p) ? out : &rd->tmp;
        if (apply_user_rule(rd, k, cur, cn, dst)) {
            any = 1;
            cur = dst->p;
            cn = dst->n;
        }
    }
    if (any && cur != out->p) {
        out->n = 0;
        ks_buf_put(out, cur, cn);
    }
    return any;
}
