/* parser/uses.c: first uses of strings in a worker's unit (unit.h). Every string of an event is
 * interned through ks_ps_intern; in a worker's parser, the first use of each local string or
 * category in the current unit is logged (stamped with the unit's number, so no table is cleared
 * between units), which is what lets the main parser replay the unit into the real string table
 * in the order a single parser would have made. In the main parser it is only the intern.
 * Internal to parser/. */
#include "parser/parser_int.h"

#include <string.h>

/* 1 the first time local id is seen in the current unit. */
int ks_ps_first_use(ks_parser *p, uint32_t **stamp, size_t *cap, uint32_t id)
{
    if (id >= *cap) {
        size_t old = *cap;
        KS_GROW(*stamp, *cap, (size_t)id + 1);
        memset(*stamp + old, 0, (*cap - old) * sizeof **stamp);
    }
    if ((*stamp)[id] == p->wk.no)
        return 0;
    (*stamp)[id] = p->wk.no;
    return 1;
}

void ks_ps_note_use(ks_parser *p, uint32_t id, const char *text, size_t len, int is_cat)
{
    ks_unit *u = p->wk.unit;
    KS_GROW(u->use, u->use_cap, u->nuse + 1);
    ks_unit_use *w = &u->use[u->nuse++];
    w->local = id;
    w->text = text;
    w->len = (uint32_t)len;
    w->is_cat = (uint8_t)is_cat;
}

/* Every string of an event is interned through here: a worker logs its first use in the unit. */
ks_str ks_ps_intern(ks_parser *p, const char *s, size_t len)
{
    ks_str id = ks_strtab_intern(p->t->strings, s, len);
    ks_ps_use(p, id, len);
    return id;
}

void ks_ps_use_first(ks_parser *p, ks_str id, size_t len)
{
    if (p->wk.unit && id && ks_ps_first_use(p, &p->wk.str_stamp, &p->wk.str_stamp_cap, id))
        ks_ps_note_use(p, id, ks_strtab_get(p->t->strings, id), len, 0);
}
