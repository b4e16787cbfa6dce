/* parser/state.c: what every parser shares or holds: the C locale for the numbers (strtod_l:
 * "1.5" is one and a half whatever the process locale says), made once for all threads with
 * pthread_once (`ranks` parses several traces at once, so a lazy unguarded static would race), and
 * the release of a parser's own memory. ks_ps_release frees only what the parser itself owns: the
 * reader and split threads are stopped by parse.c first (their order matters: workers read the
 * reader's chunks). Internal to parser/. */
#include "parser/parser_int.h"

#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

/* made once for every thread: `ranks` parses several traces at once */
static locale_t c_loc;
static pthread_once_t c_loc_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t ks_ps_c_locale(void)
{
    pthread_once(&c_loc_once, make_c_locale);
    return c_loc;
}

/* Each part frees what it owns. */
static void input_release(ps_input *in)
{
    free(in->own);
}

static void pos_release(ps_pos *pos)
{
    ks_buf_free(&pos->keep);
}

static void repairs_release(ps_repairs *rp)
{
    ks_repair_free(&rp->rep);
    free(rp->pending);
}

static void cache_release(ps_cache *c)
{
    free(c->cat_kind);
    free(c->cat_own);
}

static void worker_release(ps_worker *wk)
{
    free(wk->str_stamp);
    free(wk->cat_stamp);
    free(wk->track_stamp);
}

/* Free what the parser owns (its yajl handle, its parts' buffers and tables); p->split and
 * p->in.reader must be stopped already (parse.c). */
void ks_ps_release(ks_parser *p)
{
    if (p->h)
        yajl_free(p->h);
    input_release(&p->in);
    pos_release(&p->pos);
    repairs_release(&p->rp);
    cache_release(&p->cache);
    worker_release(&p->wk);
    ks_buf_free(&p->shp.buf);
    ks_ps_memo_free(&p->memo);
    free(p->kv);
    ks_buf_free(&p->kvkeys);
    free(p->pt);
}
