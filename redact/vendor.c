/* redact/vendor.c: the fixed-prefix token shapes of vendors (rule vendor-token,
 * docs/redaction.md "gitleaks coverage").
 *
 * What it is: a table of shapes taken, as facts, from gitleaks' rule set (config/gitleaks.toml):
 * a literal prefix that only that vendor's tokens start with, the characters of the body, its
 * length range and, where gitleaks asks for one, a minimum Shannon entropy of the body. A token
 * matches at a word start (secrets.c decides that) when the prefix is there, the run of body
 * characters after it has a length in the range and is not glued to a further letter or digit.
 *
 * Why it is correct: the prefixes are the vendors' own (dop_v1_, glptt-, hvs., shpat_, ...), so a
 * match is a token of that shape; the body class and length make a prose word or an identifier
 * fail. The shapes whose only anchor is a keyword before an assignment (adafruit=..., discord:
 * ...) are not here: generic-api-key and sensitive-key handle keyword=value.
 *
 * When it does not apply: tokens with no fixed prefix, or shapes whose prefix is too common in
 * traces (a bare 40-hex value is every git commit). Who may use it: redact/secrets.c. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "redact/redact_int.h"

/* Shannon entropy of s in bits per byte (gitleaks' minimum-entropy checks, here and in
 * secrets.c). */
double ks_rd_entropy(const char *s, size_t n)
{
    if (!n)
        return 0;
    unsigned cnt[256] = {0};
    for (size_t i = 0; i < n; i++)
        cnt[(unsigned char)s[i]]++;
    double h = 0;
    for (int c = 0; c < 256; c++)
        if (cnt[c]) {
            double p = (double)cnt[c] / (double)n;
            h -= p * log2(p);
        }
    return h;
}


enum cs {
    C_ALNUM, C_WORD, C_WORDD, C_HEX, C_HEXD, C_B64, C_WORDDE, C_UPALNUM, C_ALNUMD, C_ALNUMDOT,
    C_URL
};

static int in_cs(int cs, unsigned char c)
{
    int lo = c >= 'a' && c <= 'z', up = c >= 'A' && c <= 'Z', dig = c >= '0' && c <= '9';
    int hex = dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    switch (cs) {
    case C_ALNUM: return lo || up || dig;
    case C_WORD: return lo || up || dig || c == '_';
    case C_WORDD: return lo || up || dig || c == '_' || c == '-';
    case C_HEX: return hex;
    case C_HEXD: return hex || c == '-';
    case C_B64: return lo || up || dig || c == '+' || c == '/' || c == '=';
    case C_WORDDE: return lo || up || dig || c == '_' || c == '-' || c == '=' || c == '.';
    case C_UPALNUM: return up || dig;
    case C_ALNUMD: return lo || up || dig || c == '-';
    case C_ALNUMDOT: return lo || up || dig || c == '.';
    case C_URL: return lo || up || dig || c == '-' || c == '@' || c == '/';
    }
    return 0;
}

typedef struct shape {
    const char *prefix;
    unsigned char cs;
    unsigned short min, max;
    float entropy;
} shape;

/* gitleaks rule id in the comment at the end of each line */
static const shape shapes[] = {
    {"ops_eyJ", C_B64, 250, 4000, 4.0f},            /* 1password-service-account-token */
    {"A3-", C_ALNUMD, 36, 36, 3.8f},                 /* 1password-secret-key */
    {"cmVmd", C_ALNUM, 59, 59, 4.5f},                /* artifactory-reference-token */
    {"AGE-SECRET-KEY-1", C_UPALNUM, 58, 58, 0},      /* age-secret-key */
    {"LTAI", C_ALNUM, 20, 20, 2.0f},                 /* alibaba-access-key-id */
    {"AKCp", C_ALNUM, 69, 69, 4.5f},                 /* artifactory-api-key */
    {"ATATT3", C_WORDDE, 186, 186, 3.5f},            /* atlassian-api-token */
    {"p8e-", C_ALNUM, 32, 32, 2.0f},                 /* adobe-client-secret */
    {"CLOJARS_", C_ALNUM, 60, 60, 2.0f},             /* clojars-api-token */
    {"v1.0-", C_HEXD, 171, 171, 2.0f},               /* cloudflare-origin-ca-key */
    {"dapi", C_HEXD, 32, 34, 3.0f},                  /* databricks-api-token */
    {"dop_v1_", C_HEX, 64, 64, 3.0f},                /* digitalocean-pat */
    {"doo_v1_", C_HEX, 64, 64, 3.0f},                /* digitalocean-access-token */
    {"dor_v1_", C_HEX, 64, 64, 0},                   /* digitalocean-refresh-token */
    {"dp.pt.", C_ALNUM, 43, 43, 2.0f},               /* doppler-api-token */
    {"sl.", C_WORDDE, 135, 135, 0},                  /* dropbox-short-lived-api-token */
    {"duffel_test_", C_WORDDE, 43, 43, 2.0f},        /* duffel-api-token */
    {"duffel_live_", C_WORDDE, 43, 43, 2.0f},        /* duffel-api-token */
    {"dt0c01.", C_ALNUMDOT, 89, 89, 4.0f},           /* dynatrace-api-token */
    {"EZAK", C_ALNUM, 54, 54, 2.0f},                 /* easypost-api-token */
    {"EZTK", C_ALNUM, 54, 54, 2.0f},                 /* easypost-test-api-token */
    {"EAAM", C_ALNUM, 100, 4000, 4.0f},              /* facebook-page-access-token */
    {"EAAC", C_ALNUM, 100, 4000, 4.0f},              /* facebook-page-access-token */
    {"FLWSECK_TEST-", C_ALNUMD, 12, 34, 2.0f},       /* flutterwave-encryption/secret-key */
    {"FLWPUBK_TEST-", C_ALNUMD, 34, 34, 2.0f},       /* flutterwave-public-key */
    {"fo1_", C_WORDD, 43, 43, 4.0f},                 /* flyio-access-token */
    {"fm1a_", C_B64, 100, 4000, 4.0f},               /* flyio-access-token */
    {"fm1r_", C_B64, 100, 4000, 4.0f},               /* flyio-access-token */
    {"fm2_", C_B64, 100, 4000, 4.0f},                /* flyio-access-token */
    {"fio-u-", C_WORDDE, 64, 64, 0},                 /* frameio-api-token */
    {"glcbt-", C_WORDD, 21, 26, 3.0f},               /* gitlab-cicd-job-token */
    {"gldt-", C_WORDD, 20, 20, 3.0f},                /* gitlab-deploy-token */
    {"glffct-", C_WORDD, 20, 20, 3.0f},              /* gitlab-feature-flag-client-token */
    {"glft-", C_WORDD, 20, 20, 3.0f},                /* gitlab-feed-token */
    {"glimt-", C_WORDD, 25, 25, 3.0f},               /* gitlab-incoming-mail-token */
    {"glagent-", C_WORDD, 50, 50, 3.0f},             /* gitlab-kubernetes-agent-token */
    {"gloas-", C_WORDD, 64, 64, 3.0f},               /* gitlab-oauth-app-secret */
    {"glptt-", C_HEX, 40, 40, 3.0f},                 /* gitlab-ptt */
    {"GR1348941", C_WORDD, 20, 20, 3.0f},            /* gitlab-rrt */
    {"glrt-", C_WORDD, 20, 300, 3.0f},               /* gitlab-runner-authentication-token */
    {"glsoat-", C_WORDD, 20, 20, 3.0f},              /* gitlab-scim-token */
    {"_gitlab_session=", C_ALNUM, 32, 32, 3.0f},     /* gitlab-session-cookie */
    {"eyJrIjoi", C_ALNUM, 70, 400, 3.0f},            /* grafana-api-key */
    {"glc_", C_B64, 32, 400, 3.0f},                  /* grafana-cloud-api-token */
    {"glsa_", C_WORD, 41, 41, 3.0f},                 /* grafana-service-account-token */
    {"gsk_", C_ALNUM, 52, 52, 3.0f},                 /* groq-api-key */
    {"pat.", C_WORDDE, 68, 68, 3.0f},                /* harness-api-key */
    {"sat.", C_WORDDE, 68, 68, 3.0f},                /* harness-api-key */
    {"HRKU-AA", C_WORDD, 58, 58, 4.0f},              /* heroku-api-key-v2 */
    {"ico-", C_ALNUM, 32, 32, 3.0f},                 /* infracost-api-token */
    {"s-s4t2ud-", C_HEX, 64, 64, 3.0f},              /* intra42-client-secret */
    {"s-s4t2af-", C_HEX, 64, 64, 3.0f},              /* intra42-client-secret */
    {"lin_api_", C_ALNUM, 40, 40, 2.0f},             /* linear-api-key */
    {"lsv2_pt_", C_WORD, 43, 43, 3.0f},              /* langsmith-api-key */
    {"lsv2_sk_", C_WORD, 43, 43, 3.0f},              /* langsmith-api-key */
    {"pk.", C_ALNUMDOT, 83, 83, 3.0f},               /* mapbox-api-token */
    {"NRAK-", C_ALNUM, 27, 27, 3.0f},                /* new-relic-user-api-key */
    {"NRII-", C_ALNUMD, 32, 32, 3.0f},               /* new-relic-insert-key */
    {"NRJS-", C_HEX, 19, 19, 3.0f},                  /* new-relic-browser-api-token */
    {"ntn_", C_ALNUM, 46, 46, 4.0f},                 /* notion-api-token */
    {"API-", C_UPALNUM, 26, 26, 3.0f},               /* octopus-deploy-api-key */
    {"sha256~", C_WORDD, 43, 43, 3.5f},              /* openshift-user-token */
    {"pplx-", C_ALNUM, 48, 48, 4.0f},                /* perplexity-api-key */
    {"access-sandbox-", C_HEXD, 36, 36, 3.0f},       /* plaid-api-token */
    {"access-development-", C_HEXD, 36, 36, 3.0f},   /* plaid-api-token */
    {"access-production-", C_HEXD, 36, 36, 3.0f},    /* plaid-api-token */
    {"pscale_tkn_", C_WORDDE, 32, 64, 3.0f},         /* planetscale-api-token */
    {"pscale_oauth_", C_WORDDE, 32, 64, 3.0f},       /* planetscale-oauth-token */
    {"pscale_pw_", C_WORDDE, 32, 64, 3.0f},          /* planetscale-password */
    {"PMAK-", C_HEXD, 59, 59, 3.0f},                 /* postman-api-token */
    {"pnu_", C_ALNUM, 36, 36, 2.0f},                 /* prefect-api-token */
    {"pul-", C_HEX, 40, 40, 2.0f},                   /* pulumi-api-token */
    {"rdme_", C_ALNUM, 70, 70, 2.0f},                /* readme-api-token */
    {"rubygems_", C_HEX, 48, 48, 2.0f},              /* rubygems-api-token */
    {"tk-us-", C_WORDD, 48, 48, 2.0f},               /* scalingo-api-token */
    {"SG.", C_WORDDE, 66, 66, 2.0f},                 /* sendgrid-api-token */
    {"xkeysib-", C_ALNUMD, 81, 81, 2.0f},            /* sendinblue-api-token */
    {"sntryu_", C_HEX, 64, 64, 3.5f},                /* sentry-user-token */
    {"sntrys_eyJpYXQiO", C_WORD, 60, 600, 4.5f},     /* sentry-org-token (base64 + _) */
    {"sm_aat_", C_ALNUM, 16, 16, 3.0f},              /* settlemint-application-access-token */
    {"sm_pat_", C_ALNUM, 16, 16, 3.0f},              /* settlemint-personal-access-token */
    {"sm_sat_", C_ALNUM, 16, 16, 3.0f},              /* settlemint-service-access-token */
    {"shippo_live_", C_HEX, 40, 40, 2.0f},           /* shippo-api-token */
    {"shippo_test_", C_HEX, 40, 40, 2.0f},           /* shippo-api-token */
    {"shpat_", C_HEX, 32, 32, 2.0f},                 /* shopify-access-token */
    {"shpca_", C_HEX, 32, 32, 2.0f},                 /* shopify-custom-access-token */
    {"shppa_", C_HEX, 32, 32, 2.0f},                 /* shopify-private-app-access-token */
    {"shpss_", C_HEX, 32, 32, 2.0f},                 /* shopify-shared-secret */
    {"sgp_", C_WORD, 40, 63, 3.0f},                  /* sourcegraph-access-token (sgp_ forms) */
    {"sq0atp-", C_WORDD, 22, 60, 2.0f},              /* square-access-token */
    {"EAAA", C_WORDD, 22, 60, 3.0f},                 /* square-access-token */
    {"SK", C_HEX, 32, 32, 3.0f},                     /* twilio-api-key */
    {"tfp_", C_WORDDE, 59, 59, 3.0f},                /* typeform-api-token */
    {"hvs.", C_WORDD, 90, 120, 3.5f},                /* vault-service-token */
    {"hvb.", C_WORDD, 138, 300, 4.0f},               /* vault-batch-token */
    {"AQVN", C_WORDD, 35, 38, 3.0f},                 /* yandex-api-key */
    {"webhook.office.com/webhookb2/", C_URL, 100, 300, 3.0f}, /* microsoft-teams-webhook */
    /* not in gitleaks' rule set: the shapes the vendors document */
    {"nvapi-", C_WORDD, 40, 100, 3.0f},              /* NVIDIA API key (build.nvidia.com) */
    {"sk-or-v1-", C_HEX, 64, 64, 3.0f},              /* OpenRouter API key */
    {"sk-", C_ALNUM, 32, 200, 3.0f},                 /* sk-<32 hex> and sk-<48> LLM API keys */
    {"ya29.", C_WORDD, 20, 2048, 3.0f},              /* Google OAuth 2.0 access token */
    {"r8_", C_ALNUM, 37, 40, 3.0f},                  /* Replicate API token */
    {"4b1d", C_ALNUM, 38, 38, 3.0f},                 /* clickhouse-cloud-api-secret-key */
    /* Slack forms slack-token (secrets.c: two dashes, >= 20) does not take */
    {"xoxe.xoxb-", C_ALNUMD, 165, 168, 2.0f},        /* slack-config-access-token */
    {"xoxe.xoxp-", C_ALNUMD, 165, 168, 2.0f},        /* slack-config-access-token */
    {"xoxe-", C_ALNUMD, 148, 148, 2.0f},             /* slack-config-refresh-token */
    {"xoxb-", C_ALNUMD, 27, 41, 2.0f},               /* slack-legacy-bot-token */
    {"xoxa-", C_ALNUMD, 8, 50, 2.0f},                /* slack-legacy-workspace-token */
    {"xoxr-", C_ALNUMD, 8, 50, 2.0f},                /* slack-legacy-workspace-token */
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static unsigned char first[256];
/* the shapes by first byte: by_first[c] .. by_first[c + 1] index order[] */
static unsigned short by_first[257], order[NSHAPES];
static unsigned char plen[NSHAPES];
static pthread_once_t first_once = PTHREAD_ONCE_INIT;

static void first_init(void)
{
    size_t k = 0;
    for (int c = 0; c < 256; c++) {
        by_first[c] = (unsigned short)k;
        for (size_t i = 0; i < NSHAPES; i++)
            if ((unsigned char)shapes[i].prefix[0] == c) {
                order[k++] = (unsigned short)i;
                first[c] = 1;
            }
    }
    by_first[256] = (unsigned short)k;
    for (size_t i = 0; i < NSHAPES; i++)
        plen[i] = (unsigned char)strlen(shapes[i].prefix);
}

const unsigned char *ks_rd_vendor_firsts(void)
{
    pthread_once(&first_once, first_init);
    return first;
}

/* a prefix distinctive enough to be found glued to a word (xnvapi-..., 0ya29....): 3 bytes or
 * more with a '-', '_' or '.' in them; not the bare "sk-" (disk-..., task-...) */
static int glue_ok(const char *prefix, size_t pl)
{
    return pl >= 3 && strcmp(prefix, "sk-") && strpbrk(prefix, "-_.") != NULL;
}

size_t ks_rd_vendor_token(const char *s, size_t n, int glued)
{
    pthread_once(&first_once, first_init);
    unsigned char c0 = n ? (unsigned char)s[0] : 0;
    for (size_t j = by_first[c0]; j < by_first[c0 + 1]; j++) {
        size_t i = order[j];
        const shape *sh = &shapes[i];
        size_t pl = plen[i];
        if (n < pl + sh->min || memcmp(s, sh->prefix, pl) || (glued && !glue_ok(sh->prefix, pl)))
            continue;
        size_t k = 0;
        while (pl + k < n && k <= sh->max && in_cs(sh->cs, (unsigned char)s[pl + k]))
            k++;
        if (k < sh->min || k > sh->max)
            continue;
        unsigned char next = pl + k < n ? (unsigned char)s[pl + k] : 0;
        if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') ||
            (next >= '0' && next <= '9'))
            continue;
        if (sh->entropy > 0 && ks_rd_entropy(s + pl, k) < sh->entropy)
            continue;
        return pl + k;
    }
    return 0;
}
