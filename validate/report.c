/* validate/report.c: the report of `kinesift validate`: text, JSON "kinesift.validate/1"
 * (docs/validate.md; the JSON is the reference and is what `gate` reads) and the raw samples
 * as CSV. Writers only format what result.c computed. */
#include "kinesift/validate.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "report/report_util.h"
#include "common/util.h"
#include "stats/stats_json.h"
#include "validate/validate_int.h"

static const char *role(uint32_t arm)
{
    return arm == 0 ? "baseline" : "candidate";
}

static void fmt_ns(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        ks_fmt_ns(buf, n, llround(v));
}

static void arm_counts(const ks_vrun *r, uint32_t arm, size_t count[4])
{
    memset(count, 0, 4 * sizeof *count);
    for (size_t i = 0; i < r->nsamples; i++)
        if (r->samples[i].arm == arm)
            count[r->samples[i].status]++;
}

/* ---- text ---------------------------------------------------------------------------- */

static void text_context(FILE *out, const ks_vreport *r)
{
    if (r->has_device) {
        const ks_cuda_info *d = &r->device;
        char l2[32];
        ks_fmt_bytes(l2, sizeof l2, (uint64_t)d->l2_bytes);
        fprintf(out, "device: %s (device %d, cc %d.%d, %d SMs, L2 %s, rated SM clock %.0f MHz), "
                     "driver %d.%d, runtime %d.%d\n",
                d->name, d->device, d->cc_major, d->cc_minor, d->sm_count, l2,
                d->rated_clock_mhz, d->driver_version / 1000, (d->driver_version % 1000) / 10,
                d->runtime_version / 1000, (d->runtime_version % 1000) / 10);
        fprintf(out, "timing: CUDA events on a non-default stream; cache: %s\n",
                r->opts.hot ? "hot (no flush)" : "cold (L2 flushed before every sample)");
    } else {
        fprintf(out, "timing: reported by the commands themselves (kinesift-sample lines); "
                     "kinesift timed nothing\n");
    }
    fprintf(out, "seed 0x%016" PRIx64 "; threshold %.3g %%, alpha %.3g, bootstrap %u resamples\n",
            r->opts.seed, 100 * r->params.threshold, r->params.alpha, r->params.resamples);
}

static void text_arm_row(FILE *out, const ks_vworkload *w, uint32_t a, const ks_summary *s)
{
    size_t cnt[4];
    arm_counts(&w->run, a, cnt);
    char mn[24], md[24], mean[24], mx[24], sd[24], q1[24], q3[24];
    fmt_ns(mn, sizeof mn, s->min);
    fmt_ns(md, sizeof md, s->median);
    fmt_ns(mean, sizeof mean, s->mean);
    fmt_ns(mx, sizeof mx, s->max);
    fmt_ns(sd, sizeof sd, s->stdev);
    fmt_ns(q1, sizeof q1, s->q1);
    fmt_ns(q3, sizeof q3, s->q3);
    fprintf(out, "  %-9s %-14.14s %4zu %5zu %4zu %10s %10s %10s %10s %10s %6.2f%% %10s %10s "
                 "%6.2f%%\n",
            role(a), w->arms[a], s->n, cnt[KS_SAMPLE_THROTTLED],
            cnt[KS_SAMPLE_WARMUP] + cnt[KS_SAMPLE_FIRST], mn, md, mean, mx, sd, 100 * s->cv, q1,
            q3, 100 * s->iqr_rel);
}

static void text_verdict(FILE *out, const ks_vworkload *w, uint32_t a, const ks_compare *c,
                         const char *space)
{
    char ratio[40], change[40], lo[40], hi[40];
    ks_compare_fmt(ratio, sizeof ratio, c, c->ratio, 0, 4);
    ks_compare_fmt(change, sizeof change, c, c->ratio, 1, 2);
    ks_compare_fmt(lo, sizeof lo, c, c->ci_lo, 0, 4);
    ks_compare_fmt(hi, sizeof hi, c, c->ci_hi, 0, 4);
    fprintf(out, "  %s vs %s%s: ratio %s (%s %%), %.4g %% interval [%s, %s], p = %.3g (%s%s)\n", w->arms[a], w->arms[0],
            space, ratio, change, 100 * c->ci_level, lo, hi, c->p,
            ks_compare_test_name(c) ? ks_compare_test_name(c) : "no test", c->holm_m > 1 ? ", Holm-adjusted" : "");
    fprintf(out, "  verdict: %s%s%s: %s\n", ks_verdict_name(c->verdict), c->caveat[0] ? "; " : "", c->caveat,
            c->reason);
    if (c->suggestion[0])
        fprintf(out, "  suggestion: %s\n", c->suggestion);
}

static void text_workload(FILE *out, const ks_vreport *r, const ks_vworkload *w)
{
    if (strcmp(w->source, "commands") == 0) {
        fprintf(out, "\ncommands\n");
        for (int i = 0; i < w->nparams; i++)
            fprintf(out, "  %s\n", w->params[i]);
    } else {
        fprintf(out, "\n%s (%s)", w->name, w->source);
        for (int i = 0; i < w->nparams; i++)
            fprintf(out, "%s%s", i ? " " : ": ", w->params[i]);
        fprintf(out, "\n");
    }
    if (r->has_device)
        fprintf(out, "  protocol: the first execution of each arm discarded, then warm-up >= %u executions and "
                     ">= %.3g ms per arm; ", r->opts.warmup_runs, (double)r->opts.warmup_ns / 1e6);
    else
        fprintf(out, "  protocol: in every command run the first sample discarded, then warm-up >= %u samples and "
                     ">= %.3g ms; ", r->opts.warmup_runs, (double)r->opts.warmup_ns / 1e6);
    fprintf(out, "discarded:");
    for (uint32_t a = 0; a < w->narms; a++) {
        size_t cnt[4];
        arm_counts(&w->run, a, cnt);
        fprintf(out, "%s %s %zu first + %zu warm-up", a ? "," : "", w->arms[a], cnt[KS_SAMPLE_FIRST],
                cnt[KS_SAMPLE_WARMUP]);
        if (cnt[KS_SAMPLE_THROTTLED])
            fprintf(out, " + %zu throttled", cnt[KS_SAMPLE_THROTTLED]);
        fprintf(out, " (%zu kept)", cnt[KS_SAMPLE_KEPT]);
    }
    fprintf(out, "; %u interleaved blocks; batch K = %u; stop: %s (%s)\n", w->run.nblocks, w->run.k, w->run.stop,
            w->run.stop_detail);
    if (r->has_device)
        fprintf(out, "  unit: the interleaved block (one sample of every arm): Welch t on the logs of the per-block "
                     "values (docs/statistics.md section 8)\n");
    else
        fprintf(out, "  unit: the command run (one run of each command per block): Welch t on the logs of the per-run "
                     "medians of the kept samples (docs/statistics.md section 8)\n");
    for (uint32_t a = 1; a < w->narms; a++)
        fprintf(out, "  output check of %s: %s%s%s\n", w->arms[a],
                ks_check_result_name(w->check[a].result), w->check[a].detail[0] ? ": " : "",
                w->check[a].detail);
    fprintf(out, "  %-9s %-14s %4s %5s %4s %10s %10s %10s %10s %10s %7s %10s %10s %7s\n", "arm",
            "variant", "n", "thrtl", "warm", "min", "median", "mean", "max", "stdev", "cv",
            "q1", "q3", "iqr/med");
    text_arm_row(out, w, 0, &w->cmp[0].a);
    for (uint32_t a = 1; a < w->narms; a++)
        text_arm_row(out, w, a, &w->cmp[a - 1].b);
    if (w->run.k > 1)
        fprintf(out, "  (values per execution: each sample timed %u executions)\n", w->run.k);
    for (uint32_t a = 1; a < w->narms; a++) {
        text_verdict(out, w, a, &w->cmp[a - 1], "");
        if (w->has_cycles[a - 1])
            text_verdict(out, w, a, &w->cycles[a - 1], " in SM cycles");
    }
    for (size_t i = 0; i < w->nwarnings; i++)
        fprintf(out, "  warning: %s\n", w->warnings[i]);
}

void ks_vreport_text(FILE *out, const ks_vreport *r)
{
    fprintf(out, "kinesift validate\n");
    text_context(out, r);
    for (uint32_t i = 0; i < r->nw; i++)
        text_workload(out, r, &r->w[i]);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_header(ks_jw *w, const char *status)
{
    ks_jw_kstr(w, "schema", "kinesift.validate/1");
    ks_jw_kstr(w, "tool", "kinesift");
    ks_jw_kstr(w, "version", ks_version());
    ks_jw_kstr(w, "mode", "validate");
    ks_jw_kstr(w, "status", status);
}

int ks_vreport_json_status(FILE *out, const char *status, const char *reason, int exit_code)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    json_header(&w, status);
    ks_jw_kstr(&w, "reason", reason);
    ks_jw_kint(&w, "exit_code", exit_code);
    ks_jw_end_obj(&w);
    return ks_jw_close(&w);
}

static void json_device(ks_jw *w, const ks_vreport *r)
{
    ks_jw_key(w, "device");
    if (!r->has_device) {
        ks_jw_null(w);
        return;
    }
    const ks_cuda_info *d = &r->device;
    char v[32];
    ks_jw_obj(w);
    ks_jw_kint(w, "index", d->device);
    ks_jw_kstr(w, "name", d->name);
    ks_jw_kstr(w, "pci_bus_id", d->pci_bus_id);
    snprintf(v, sizeof v, "%d.%d", d->cc_major, d->cc_minor);
    ks_jw_kstr(w, "compute_capability", v);
    ks_jw_kint(w, "sm_count", d->sm_count);
    ks_jw_kint(w, "l2_bytes", d->l2_bytes);
    ks_jw_kint(w, "memory_bytes", d->global_mem_bytes);
    ks_jw_kdouble(w, "rated_sm_clock_mhz", d->rated_clock_mhz);
    snprintf(v, sizeof v, "%d.%d", d->driver_version / 1000, (d->driver_version % 1000) / 10);
    ks_jw_kstr(w, "driver_version", v);
    snprintf(v, sizeof v, "%d.%d", d->runtime_version / 1000, (d->runtime_version % 1000) / 10);
    ks_jw_kstr(w, "runtime_version", v);
    ks_jw_end_obj(w);
}

static void json_protocol(ks_jw *w, const ks_vreport *r)
{
    const ks_vopts *o = &r->opts;
    ks_jw_key(w, "protocol");
    ks_jw_obj(w);
    ks_jw_kuint(w, "samples", o->samples);
    ks_jw_kuint(w, "min_samples", o->min_samples);
    ks_jw_kuint(w, "max_samples", o->max_samples);
    ks_jw_kbool(w, "first_run_discarded", 1);
    ks_jw_kuint(w, "warmup_runs", o->warmup_runs);
    ks_jw_kdouble(w, "warmup_ms", (double)o->warmup_ns / 1e6);
    ks_jw_kdouble(w, "warmup_cap_ms", (double)o->warmup_cap_ns / 1e6);
    ks_jw_kdouble(w, "timeout_s", (double)o->timeout_ns / 1e9);
    ks_jw_kdouble(w, "stdrel", o->stdrel);
    ks_jw_kdouble(w, "stdrel_min_s", (double)o->stdrel_min_ns / 1e9);
    if (o->batch)
        ks_jw_kuint(w, "batch", o->batch);
    else
        ks_jw_kstr(w, "batch", "auto");
    ks_jw_kdouble(w, "batch_below_us", (double)o->batch_below_ns / 1e3);
    ks_jw_kdouble(w, "batch_target_ms", (double)o->batch_target_ns / 1e6);
    ks_jw_kdouble(w, "throttle_share", o->throttle_share);
    ks_jw_kstr(w, "interleave", r->has_device ? "seeded random blocks, one sample of every arm per block"
                                               : "seeded random blocks, one run of every command per block");
    ks_jw_kstr(w, "comparison_unit", r->has_device ? "block" : "command-run");
    if (!r->has_device) {
        ks_jw_kuint(w, "min_runs", o->min_runs);
        ks_jw_kuint(w, "max_runs", o->max_runs);
        ks_jw_kdouble(w, "check_rtol", o->check_rtol);
    }
    ks_jw_end_obj(w);
}

static void json_context(ks_jw *w, const ks_vreport *r)
{
    ks_jw_key(w, "context");
    ks_jw_obj(w);
    ks_jw_kstr(w, "timing", r->timing);
    json_device(w, r);
    if (r->has_device)
        ks_jw_kstr(w, "cache", r->opts.hot ? "hot" : "cold");
    else
        ks_jw_knull(w, "cache");
    json_protocol(w, r);
    ks_jw_end_obj(w);
}

static void json_nvml(ks_jw *w, const char *key, const ks_nvml_snapshot *s)
{
    ks_jw_key(w, key);
    ks_jw_obj(w);
    ks_jw_kbool(w, "available", s->ok);
    if (!s->ok) {
        ks_jw_kstr(w, "reason", s->reason[0] ? s->reason : "not read");
        ks_jw_end_obj(w);
        return;
    }
    char reasons[256];
    ks_nvml_reasons(s->clock_event_reasons, reasons, sizeof reasons);
    ks_jw_kuint(w, "sm_clock_mhz", s->sm_clock_mhz);
    ks_jw_kuint(w, "sm_clock_max_mhz", s->sm_clock_max_mhz);
    ks_jw_kuint(w, "temperature_c", s->temperature_c);
    ks_jw_kuint(w, "clock_event_reasons_mask", s->clock_event_reasons);
    ks_jw_kstr(w, "clock_event_reasons", reasons);
    if (s->other_processes >= 0)
        ks_jw_kint(w, "other_processes", s->other_processes);
    else
        ks_jw_knull(w, "other_processes");
    ks_jw_end_obj(w);
}

static void json_raw(ks_jw *w, const ks_vworkload *wl)
{
    ks_jw_key(w, "raw");
    ks_jw_arr(w);
    for (size_t i = 0; i < wl->run.nsamples; i++) {
        const ks_vsample *s = &wl->run.samples[i];
        ks_jw_obj(w);
        ks_jw_kuint(w, "arm", s->arm);
        ks_jw_kuint(w, "block", s->block);
        ks_jw_kuint(w, "run", s->run);
        ks_jw_kuint(w, "k", s->k);
        ks_jw_kint(w, "ns", s->ns);
        if (s->host_ns >= 0)
            ks_jw_kint(w, "host_ns", s->host_ns);
        else
            ks_jw_knull(w, "host_ns");
        ks_jw_kdouble(w, "sm_clock_mhz", s->sm_clock_mhz);
        ks_jw_kstr(w, "status", ks_sample_status_name(s->status));
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void json_arms(ks_jw *w, const ks_vworkload *wl)
{
    ks_jw_key(w, "arms");
    ks_jw_arr(w);
    for (uint32_t a = 0; a < wl->narms; a++) {
        size_t cnt[4];
        arm_counts(&wl->run, a, cnt);
        ks_jw_obj(w);
        ks_jw_kuint(w, "arm", a);
        ks_jw_kstr(w, "role", role(a));
        ks_jw_kstr(w, "variant", wl->arms[a]);
        ks_jw_kuint(w, "first", cnt[KS_SAMPLE_FIRST]);
        ks_jw_kuint(w, "warmup", cnt[KS_SAMPLE_WARMUP]);
        ks_jw_kuint(w, "kept", cnt[KS_SAMPLE_KEPT]);
        ks_jw_kuint(w, "throttled", cnt[KS_SAMPLE_THROTTLED]);
        ks_jw_kdouble(w, "sm_clock_mean_mhz", wl->clock_mean_mhz[a]);
        ks_jw_kbool(w, "clock_unreliable", a < 32 && (wl->run.clock_unreliable >> a & 1));
        ks_jw_kdouble(w, "host_to_event_ratio", wl->host_ratio[a]);
        ks_jw_key(w, "check");
        ks_jw_obj(w);
        ks_jw_kstr(w, "result", ks_check_result_name(wl->check[a].result));
        ks_jw_kstr(w, "detail", wl->check[a].detail);
        ks_jw_end_obj(w);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void json_workload(ks_jw *w, const ks_vworkload *wl)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", wl->name);
    ks_jw_kstr(w, "source", wl->source);
    ks_jw_key(w, "params");
    ks_jw_obj(w);
    for (int i = 0; i < wl->nparams; i++) {
        const char *eq = strchr(wl->params[i], '=');
        size_t klen = eq ? (size_t)(eq - wl->params[i]) : strlen(wl->params[i]);
        char *k = ks_xstrndup(wl->params[i], klen);
        ks_jw_kstr(w, k, eq ? eq + 1 : "");
        free(k);
    }
    ks_jw_end_obj(w);
    ks_jw_kuint(w, "batch_k", wl->run.k);
    ks_jw_kuint(w, "blocks", wl->run.nblocks);
    ks_jw_kstr(w, "stop", wl->run.stop);
    ks_jw_kstr(w, "stop_detail", wl->run.stop_detail);
    ks_jw_kint(w, "flush_bytes", wl->flush_bytes);
    json_arms(w, wl);
    ks_jw_key(w, "nvml");
    ks_jw_obj(w);
    json_nvml(w, "before", &wl->nvml_before);
    json_nvml(w, "after", &wl->nvml_after);
    ks_jw_end_obj(w);
    ks_jw_key(w, "warnings");
    ks_jw_arr(w);
    for (size_t i = 0; i < wl->nwarnings; i++)
        ks_jw_str(w, wl->warnings[i]);
    ks_jw_end_arr(w);
    json_raw(w, wl);
    ks_jw_end_obj(w);
}

static void json_metric(ks_jw *w, const ks_vreport *r, const ks_vworkload *wl, uint32_t a)
{
    size_t na, nb;
    double *va = ks_vrun_values(&wl->run, 0, &na, NULL);
    double *vb = ks_vrun_values(&wl->run, a, &nb, NULL);
    const ks_compare *c = &wl->cmp[a - 1];
    char name[512];
    snprintf(name, sizeof name, "%s/%s", wl->name, wl->arms[a]);
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", name);
    ks_jw_kstr(w, "unit", "ns");
    ks_jw_kstr(w, "per", "execution");
    ks_jw_kstr(w, "workload", wl->name);
    ks_jw_kstr(w, "baseline_variant", wl->arms[0]);
    ks_jw_kstr(w, "candidate_variant", wl->arms[a]);
    ks_jw_kuint(w, "batch_k", wl->run.k);
    ks_jw_key(w, "baseline");
    ks_jw_obj(w);
    ks_summary_json(w, &c->a, va, na);
    ks_jw_end_obj(w);
    ks_jw_key(w, "candidate");
    ks_jw_obj(w);
    ks_summary_json(w, &c->b, vb, nb);
    ks_jw_end_obj(w);
    ks_compare_json(w, c, &r->params);
    ks_jw_kstr(w, "check", ks_check_result_name(wl->check[a].result));
    ks_jw_key(w, "cycle_space");
    if (wl->has_cycles[a - 1]) {
        ks_jw_obj(w);
        ks_compare_json(w, &wl->cycles[a - 1], &r->params);
        ks_jw_end_obj(w);
    } else {
        ks_jw_null(w);
    }
    ks_jw_end_obj(w);
    free(va);
    free(vb);
}

int ks_vreport_json(FILE *out, const ks_vreport *r)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    json_header(&w, "ok");
    ks_jw_kuint(&w, "seed", r->opts.seed);
    ks_jw_kdouble(&w, "threshold", r->params.threshold);
    ks_jw_kdouble(&w, "alpha", r->params.alpha);
    ks_jw_kuint(&w, "min_samples", r->params.min_samples);
    ks_jw_kuint(&w, "bootstrap_resamples", r->params.resamples);
    ks_jw_kbool(&w, "expect_faster", r->expect_faster);
    json_context(&w, r);
    ks_jw_key(&w, "workloads");
    ks_jw_arr(&w);
    for (uint32_t i = 0; i < r->nw; i++)
        json_workload(&w, &r->w[i]);
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "metrics");
    ks_jw_arr(&w);
    for (uint32_t i = 0; i < r->nw; i++)
        for (uint32_t a = 1; a < r->w[i].narms; a++)
            json_metric(&w, r, &r->w[i], a);
    ks_jw_end_arr(&w);
    ks_jw_kint(&w, "exit_code", ks_vreport_exit_code(r));
    ks_jw_end_obj(&w);
    return ks_jw_close(&w);
}

/* ---- CSV ----------------------------------------------------------------------------- */

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
    ks_csv_field(out, s);
}

int ks_vreport_csv(FILE *out, const ks_vreport *r)
{
    fputs("workload,arm,role,variant,index,block,run,k,ns,per_execution_ns,host_ns,"
          "sm_clock_mhz,status\n",
          out);
    for (uint32_t i = 0; i < r->nw; i++) {
        const ks_vworkload *w = &r->w[i];
        for (size_t j = 0; j < w->run.nsamples; j++) {
            const ks_vsample *s = &w->run.samples[j];
            csv_field(out, w->name);
            fprintf(out, ",%u,%s,", s->arm, role(s->arm));
            csv_field(out, w->arms[s->arm]);
            fprintf(out, ",%zu,%u,%u,%u,%" PRId64 ",%.3f,", j, s->block, s->run, s->k, s->ns,
                    (double)s->ns / (double)(s->k ? s->k : 1));
            if (s->host_ns >= 0)
                fprintf(out, "%" PRId64, s->host_ns);
            fputc(',', out);
            if (!isnan(s->sm_clock_mhz))
                fprintf(out, "%.1f", s->sm_clock_mhz);
            fprintf(out, ",%s\n", ks_sample_status_name(s->status));
        }
    }
    return ferror(out) ? -1 : 0;
}
