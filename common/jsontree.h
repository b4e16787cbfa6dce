/* common/jsontree.h: the one way the library reads a small JSON document (a budget, a validate
 * result, a redaction rules file, the analyze report summarize keeps) into a yajl tree, bounded
 * before anything is built. A summary is read as a stream instead (ranks/summary_stream.c).
 *
 * Why: yajl_tree_parse keeps its whole tree in memory (~100 bytes a value) and yajl_tree_free
 * walks it by recursion, one stack frame a level: a document nested a few hundred thousand levels
 * deep (even under a key nobody reads) overflowed the stack when the tree was freed, and one of
 * ten million tiny values cost a gigabyte. So a document is scanned first (one pass, no memory):
 * nesting deeper than KS_LIMIT_TREE_DEPTH, more than KS_LIMIT_TREE_VALUES values or a NUL byte is
 * refused with the byte where it was seen, and only then is the tree built. The depth bound also
 * bounds every recursive walk of the tree (yajl_tree_free, ks_jw_tree).
 * Who may use it: every room; the only caller of yajl_tree_parse in the library. */
#ifndef KS_JSONTREE_H
#define KS_JSONTREE_H

#include <stddef.h>
#include <yajl/yajl_tree.h>

/* The tree of text[0..len) (need not be NUL-terminated), or NULL with a one-line reason in
 * msg[0..n) (no file name: the caller adds it). Free with yajl_tree_free. */
yajl_val ks_json_tree_parse(const char *text, size_t len, char *msg, size_t n);

#endif
