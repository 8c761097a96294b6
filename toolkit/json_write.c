#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "uniprof/profile.h"
#include "uniprof/text.h"

static void print_cb(void *ctx, const char *s, size_t len)
{
	fwrite(s, 1, len, ctx);
}

yajl_gen tk_json_open(FILE *out)
{
	yajl_gen g = yajl_gen_alloc(NULL);

	if (!g)
		return NULL;
	yajl_gen_config(g, yajl_gen_beautify, 1);
	yajl_gen_config(g, yajl_gen_print_callback, print_cb, out);
	return g;
}

void tk_json_key(yajl_gen g, const char *k)
{
	yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

void tk_json_str(yajl_gen g, const char *s)
{
	char *valid = s ? up_text_valid_utf8(s) : NULL;

	if (valid)
		yajl_gen_string(g, (const unsigned char *)valid, strlen(valid));
	else
		yajl_gen_null(g);
	free(valid);
}

void tk_json_num(yajl_gen g, double v, int decimals)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%.*f", decimals, v);

	yajl_gen_number(g, buf, (size_t)n);
}

void tk_json_top(yajl_gen g, const struct up_top_entry *top, size_t ntop,
		  size_t n, uint64_t kept)
{
	tk_json_key(g, "top");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < ntop && i < n; i++) {
		yajl_gen_map_open(g);
		tk_json_key(g, "function"); tk_json_str(g, top[i].name);
		tk_json_key(g, "self"); yajl_gen_integer(g, (long long)top[i].self);
		tk_json_key(g, "total"); yajl_gen_integer(g, (long long)top[i].total);
		tk_json_key(g, "self_pct");
		tk_json_num(g, kept ? 100.0 * (double)top[i].self / (double)kept : 0, 2);
		tk_json_key(g, "total_pct");
		tk_json_num(g, kept ? 100.0 * (double)top[i].total / (double)kept : 0, 2);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}
