/* Small helpers over libyajl's generator shared by the JSON writers. */
#ifndef TK_JSON_WRITE_H
#define TK_JSON_WRITE_H

#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

/* A beautified generator printing to out; NULL when out of memory. */
yajl_gen tk_json_open(FILE *out);
void tk_json_key(yajl_gen g, const char *k);
/* A string made valid UTF-8 (names come from images and configs), or
 * null for NULL. */
void tk_json_str(yajl_gen g, const char *s);
/* A number with as many decimals as mean something. */
void tk_json_num(yajl_gen g, double v, int decimals);

/* "top": [ { function, self, total, self_pct, total_pct } ...] of the
 * first n entries, percentages of kept samples. */
struct up_top_entry;
void tk_json_top(yajl_gen g, const struct up_top_entry *top, size_t ntop,
		  size_t n, uint64_t kept);

#endif
