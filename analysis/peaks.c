/* analysis/peaks.c: the device peak table (kinesift/kernels.h, ks_peak_match): dense peak
 * TFLOP/s per data type and memory bandwidth of the accelerators kinesift knows, each row with the
 * datasheet it comes from, matched from deviceProperties (name, and total memory where one name
 * covers two memory sizes). Vendors print tensor-core figures "with sparsity" for NVIDIA parts
 * since Ampere: those are halved here to the dense figure, which is what a dense kernel can reach.
 * docs/analysis.md "Peaks and the roofline" prints the table. An unknown device matches nothing:
 * no roofline for it, and the reports say so (--peak gives one). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/kernels.h"

#define GB (1000.0 * 1000.0 * 1000.0)

/* match: every word of `has` in the name (case-sensitive, as the drivers spell them), none of
 * `not`; mem_min/mem_max bound totalGlobalMem in GB (0: any) */
typedef struct peak_row {
    const char *has[3];
    const char *not_has;
    double mem_min, mem_max;
    ks_peak p;
} peak_row;

static const peak_row rows[] = {
    {{"H100", "PCIe", NULL}, NULL, 0, 0,
     {"NVIDIA H100 PCIe", 25.6, 51.2, 378, 756, 1513, 2.0,
      "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column; tensor-core figures with sparsity halved)"}},
    {{"H100", NULL, NULL}, "NVL", 0, 0,
     {"NVIDIA H100 SXM", 33.5, 66.9, 494.7, 989.4, 1978.9, 3.35,
      "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column; tensor-core figures with sparsity halved)"}},
    {{"H200", NULL, NULL}, "NVL", 0, 0,
     {"NVIDIA H200 SXM", 33.5, 66.9, 494.7, 989.4, 1978.9, 4.8,
      "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column; tensor-core figures with sparsity halved)"}},
    {{"B200", NULL, NULL}, NULL, 0, 0,
     {"NVIDIA B200", 37, 75, 1100, 2250, 4500, 8.0,
      "NVIDIA HGX B200 datasheet, per GPU (the 8-GPU figures divided by 8; tensor-core figures with sparsity halved)"}},
    {{"A100", "PCIE", NULL}, NULL, 0, 60,
     {"NVIDIA A100 PCIe 40GB", 9.7, 19.5, 156, 312, 0, 1.555,
      "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB PCIe column; tensor-core figures with sparsity halved)"}},
    {{"A100", "PCIe", NULL}, NULL, 60, 0,
     {"NVIDIA A100 PCIe 80GB", 9.7, 19.5, 156, 312, 0, 1.935,
      "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe column; tensor-core figures with sparsity halved)"}},
    {{"A100", NULL, NULL}, NULL, 0, 60,
     {"NVIDIA A100 SXM 40GB", 9.7, 19.5, 156, 312, 0, 1.555,
      "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM column; tensor-core figures with sparsity halved)"}},
    {{"A100", NULL, NULL}, NULL, 60, 0,
     {"NVIDIA A100 SXM 80GB", 9.7, 19.5, 156, 312, 0, 2.039,
      "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM column; tensor-core figures with sparsity halved)"}},
    {{"V100", "PCIE", NULL}, NULL, 0, 0,
     {"NVIDIA V100 PCIe", 7, 14, 0, 112, 0, 0.9,
      "NVIDIA Tesla V100 datasheet (V100 PCIe column: FP16 tensor performance, no bfloat16)"}},
    {{"V100", NULL, NULL}, NULL, 0, 0,
     {"NVIDIA V100 SXM2", 7.8, 15.7, 0, 125, 0, 0.9,
      "NVIDIA Tesla V100 datasheet (V100 SXM2 column: FP16 tensor performance, no bfloat16)"}},
    {{"L40S", NULL, NULL}, NULL, 0, 0,
     {"NVIDIA L40S", 0, 91.6, 183, 362.05, 733, 0.864,
      "NVIDIA L40S datasheet (tensor-core figures with sparsity halved)"}},
    {{"L4", NULL, NULL}, "L40", 0, 0,
     {"NVIDIA L4", 0, 30.3, 60, 121, 242.5, 0.3,
      "NVIDIA L4 Tensor Core GPU datasheet (tensor-core figures with sparsity halved)"}},
    {{"MI300X", NULL, NULL}, NULL, 0, 0,
     {"AMD Instinct MI300X", 81.7, 163.4, 653.7, 1307.4, 2614.9, 5.3,
      "AMD Instinct MI300X data sheet (dense: the sparsity figures are not used)"}},
    {{"MI250", NULL, NULL}, NULL, 0, 0,
     {"AMD Instinct MI250X", 95.7, 95.7, 0, 383, 0, 3.2768,
      "AMD Instinct MI250X data sheet (FP32 and FP64 matrix peaks; no TF32 or FP8)"}},
    {{"MI210", NULL, NULL}, NULL, 0, 0,
     {"AMD Instinct MI210", 45.3, 45.3, 0, 181, 0, 1.6384,
      "AMD Instinct MI210 data sheet (FP32 and FP64 matrix peaks; no TF32 or FP8)"}},
};

const ks_peak *ks_peak_match(const char *name, int64_t total_mem)
{
    if (!name)
        return NULL;
    double gb = total_mem > 0 ? (double)total_mem / GB : 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const peak_row *r = &rows[i];
        int ok = 1;
        for (int j = 0; j < 3 && r->has[j] && ok; j++)
            ok = strstr(name, r->has[j]) != NULL;
        if (!ok || (r->not_has && strstr(name, r->not_has)))
            continue;
        if ((r->mem_min > 0 || r->mem_max > 0) && gb <= 0)
            continue; /* the memory decides, and it is not known */
        if ((r->mem_min > 0 && gb < r->mem_min) || (r->mem_max > 0 && gb >= r->mem_max))
            continue;
        return &r->p;
    }
    return NULL;
}

double ks_peak_tflops(const ks_peak *p, const ks_op_cost *c)
{
    if (!p || !c->dtype_bytes)
        return 0;
    const char *t = c->dtype;
    if (strstr(t, "Float8") || strstr(t, "Float4"))
        return p->fp8 > 0 ? p->fp8 : p->fp16;
    if (!strcmp(t, "c10::BFloat16") || !strcmp(t, "c10::Half"))
        return p->fp16;
    if (!strcmp(t, "double"))
        return p->fp64;
    if (!strcmp(t, "float"))
        /* cuDNN convolutions run in TF32 by default (torch.backends.cudnn.allow_tf32); matmuls do
         * not (torch.backends.cuda.matmul.allow_tf32 is off by default) */
        return c->cls == KS_WC_CONV && p->tf32 > 0 ? p->tf32 : p->fp32;
    return 0;
}

const ks_peak *ks_peak_of_device(const ks_trace *t, int32_t device, double tflops, double tbps, ks_peak *over)
{
    if (tflops > 0 && tbps > 0) {
        over->name = "--peak";
        over->fp64 = over->fp32 = over->tf32 = over->fp16 = over->fp8 = tflops;
        over->tbps = tbps;
        over->source = "--peak";
        return over;
    }
    const ks_meta *m = &t->meta;
    for (size_t i = 0; i < m->ndevices; i++)
        if (m->devices[i].id == device)
            return ks_peak_match(m->devices[i].name ? ks_trace_str(t, m->devices[i].name) : NULL,
                                 m->devices[i].total_global_mem);
    return NULL;
}

ks_roof ks_roof_of(const ks_peak *p, const ks_shape_row *r)
{
    ks_roof f = {NAN, NAN, NULL};
    if (!p || !r->cost.known || !r->calls_timed || !isfinite(r->cost.bytes))
        return f; /* without the bytes, not the intensity: no roof */
    double peak = ks_peak_tflops(p, &r->cost);
    if (r->cost.flops <= 0 || peak <= 0) {
        /* no FLOPs (a copy), or no compute peak for its type: against the bandwidth alone */
        if (r->cost.flops > 0 || p->tbps <= 0)
            return f;
        f.roof = p->tbps;
        f.efficiency = r->tbps.mean / p->tbps;
        f.bound = "memory";
        return f;
    }
    double mem = r->cost.bytes > 0 ? r->cost.flops / r->cost.bytes * p->tbps : INFINITY;
    f.roof = mem < peak ? mem : peak;
    f.bound = mem < peak ? "memory" : "compute";
    f.efficiency = r->tflops.mean / f.roof;
    return f;
}
