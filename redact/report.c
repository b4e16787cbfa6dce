/* redact/report.c: what a redaction did, for --report: replacements per rule and the number of
 * distinct values per class (counted from keyed digests; no value is ever kept or printed),
 * where the key came from, and the best-effort notice. */
#include <stdio.h>

#include "common/jsonw.h"
#include "redact/redact_int.h"

static const char *key_text(ks_redact_key_source k)
{
    switch (k) {
    case KS_KEY_FILE: return "file";
    case KS_KEY_ENV: return "env";
    default: return "random";
    }
}

static const char *key_line(ks_redact_key_source k)
{
    switch (k) {
    case KS_KEY_FILE: return "from --key-file: tokens are the same in every run with this key";
    case KS_KEY_ENV:
        return "from $" KS_REDACT_KEY_ENV ": tokens are the same in every run with this key";
    default:
        return "random, drawn for this run and never written: tokens are consistent within this "
               "run only";
    }
}

void ks_redact_report_text(FILE *out, const ks_redactor *rd, ks_redact_key_source key)
{
    fprintf(out, "redaction report\n  key: %s\n", key_line(key));
    fprintf(out, "  %-22s %-10s %12s\n", "rule", "class", "replaced");
    for (size_t i = 0; i < rd->nrules; i++) {
        if (!rd->counts[i])
            continue;
        fprintf(out, "  %-22s %-10s %12llu\n", ks_rd_rule_name(rd, (int)i),
                ks_rd_cls_name(ks_rd_rule_cls(rd, (int)i)), (unsigned long long)rd->counts[i]);
    }
    fprintf(out, "  %-22s %-10s %12llu\n", "total", "", (unsigned long long)ks_redact_count_total(rd));
    fprintf(out, "  (replaced: every match a rule rewrote, in all traces of this run; a string can hold\n"
                 "  several, so this can exceed the summary's \"strings changed\")\n");
    fprintf(out, "  %-10s %16s\n", "class", "distinct values");
    for (int c = KS_CLS_USER; c < KS_NCLS; c++) {
        if (c == KS_CLS_ADDR)
            continue; /* addresses are not counted: there can be millions */
        fprintf(out, "  %-10s %16llu\n", ks_rd_cls_name(c),
                (unsigned long long)ks_rd_pseudo_distinct(rd->pn, c));
    }
    fprintf(out, "%s\n", ks_redact_notice);
}

int ks_redact_report_json(FILE *out, const ks_redactor *rd, ks_redact_key_source key)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", "kinesift.redact-report/1");
    ks_jw_kstr(&w, "key", key_text(key));
    ks_jw_kuint(&w, "total", ks_redact_count_total(rd));
    ks_jw_key(&w, "rules");
    ks_jw_obj(&w);
    for (size_t i = 0; i < rd->nrules; i++) {
        ks_jw_key(&w, ks_rd_rule_name(rd, (int)i));
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "class", ks_rd_cls_name(ks_rd_rule_cls(rd, (int)i)));
        ks_jw_kuint(&w, "replaced", rd->counts[i]);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_obj(&w);
    ks_jw_key(&w, "distinct");
    ks_jw_obj(&w);
    for (int c = KS_CLS_USER; c < KS_NCLS; c++)
        if (c != KS_CLS_ADDR)
            ks_jw_kuint(&w, ks_rd_cls_name(c), ks_rd_pseudo_distinct(rd->pn, c));
    ks_jw_end_obj(&w);
    ks_jw_kstr(&w, "notice", ks_redact_notice);
    ks_jw_end_obj(&w);
    return ks_jw_close(&w);
}
