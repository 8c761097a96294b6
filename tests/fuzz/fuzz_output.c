/* libFuzzer target: the output writers on names and stacks a guest and its
 * image choose. Input:
 *   u8 flags   bits 0-1: vCPUs - 1; bit 2: name+offset; bit 3: a vcpuN
 *              root frame; bits 4-6: the vCPU written (0: all, else N-1)
 *   u8 top     entries in the top list and the JSON summary
 *   names      function names, one a line, up to the first NUL byte:
 *              name i becomes "ADDR T name" at 0x400000 + 16 i in an nm
 *              map loaded with up_symtab_load_mem
 *   stacks     until the end: u8 vcpu (bits 2-7: extra repeats), u8
 *              depth-1 (bits 0-4) and truncation (bits 5-7), then one byte
 *              per frame: bits 0-5 the name, bits 6-7 where in it (its
 *              start, inside, before every symbol, after the last)
 * The profile is written as folded stacks, an SVG flame graph, the top list
 * and the JSON summary (toolkit/summary.c). Each is read back: the folded
 * counts must add up to the samples, the SVG must be well-formed XML
 * (libxml2), the JSON must parse (yajl) with the top list in it. */
#include "config.h"

#include <libxml/parser.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "known_open.h"
#include "toolkit/run_output.h"
#include "uniprof/uniprof.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAMES 64
#define NAME_BASE 0x400000ULL

struct mem_file {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem_file *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		abort();
}

static void mem_close(struct mem_file *m)
{
	if (fclose(m->f) != 0)
		abort();
}

/* The nm map for the names; NULL when none (or the loader refuses them:
 * outputs without symbols must be valid too). */
static struct up_symtab *load_names(const uint8_t *p, size_t len)
{
	struct up_symtab *s = NULL;
	struct mem_file map;
	size_t i = 0, n = 0;

	mem_open(&map);
	while (i < len && n < MAX_NAMES) {
		const uint8_t *nl = memchr(p + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (p + i)) : len - i;

		fprintf(map.f, "%llx T ", (unsigned long long)(NAME_BASE + 16 * n++));
		fwrite(p + i, 1, l, map.f);
		fputc('\n', map.f);
		i += l + 1;
	}
	mem_close(&map);
	if (n && up_symtab_load_mem(&s, map.buf, map.len, "fuzz names") < 0)
		s = NULL;
	free(map.buf);
	return s;
}

static uint64_t frame_addr(uint8_t b)
{
	uint64_t at = NAME_BASE + 16 * (b & 63);

	switch (b >> 6) {
	case 0: return at;
	case 1: return at + 5;
	case 2: return 0x1000 + (b & 63);
	default: return NAME_BASE + 16 * MAX_NAMES + 0x100000 * (b & 63);
	}
}

static struct up_profile *build_profile(unsigned nr_vcpus, const uint8_t *p,
					size_t len)
{
	struct up_profile *prof;
	uint64_t frames[32];
	size_t i = 0;

	if (up_profile_new(&prof, nr_vcpus) < 0)
		abort();
	while (len - i >= 2) {
		unsigned vcpu = p[i] & 3, repeat = 1 + (p[i] >> 2);
		unsigned depth = 1 + (p[i + 1] & 31);
		enum up_trunc trunc = (enum up_trunc)((p[i + 1] >> 5) % (UP_TRUNC_BAD_CFA + 1));

		i += 2;
		if (len - i < depth)
			break;
		for (unsigned d = 0; d < depth; d++)
			frames[d] = frame_addr(p[i + d]);
		i += depth;
		while (repeat--)
			up_profile_add(prof, vcpu % nr_vcpus, frames, depth, trunc);
	}
	return prof;
}

/* Every line is "frames COUNT"; the counts add up to the samples. */
static void check_folded(const struct mem_file *m, uint64_t samples)
{
	uint64_t sum = 0;
	const char *p = m->buf, *end = m->buf + m->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *sp;
		char *num_end;
		unsigned long long n;

		if (!nl)
			abort();              /* a line without its newline */
		sp = nl;
		while (sp > p && sp[-1] != ' ')
			sp--;
		if (sp == p || sp == nl)
			abort();
		n = strtoull(sp, &num_end, 10);
		if (num_end != nl || n == 0)
			abort();
		sum += n;
		p = nl + 1;
	}
	if (sum != samples)
		abort();
}

static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static void check_svg(const struct mem_file *m)
{
	xmlDocPtr doc;
	xmlNodePtr root;

	if (m->len > INT32_MAX)
		abort();
	doc = xmlReadMemory(m->buf, (int)m->len, "flame.svg", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		if (KNOWN_OPEN_O1_UTF8 && e && (e->code == XML_ERR_INVALID_CHAR ||
						e->code == XML_ERR_INVALID_ENCODING))
			return;
		abort();                      /* not well-formed XML */
	}
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "svg") != 0)
		abort();
	xmlFreeDoc(doc);
}

static void check_json(const struct mem_file *m, size_t want_top)
{
	char err[256];
	char *text = malloc(m->len + 1);
	const char *top_path[] = { "top", NULL };
	yajl_val doc, top;

	if (!text)
		abort();
	memcpy(text, m->buf, m->len);
	text[m->len] = '\0';
	doc = yajl_tree_parse(text, err, sizeof(err));
	free(text);
	if (!doc) {
		if (KNOWN_OPEN_O1_UTF8 && strstr(err, "UTF8"))
			return;
		abort();                      /* not valid JSON */
	}
	top = yajl_tree_get(doc, top_path, yajl_t_array);
	if (!top || YAJL_GET_ARRAY(top)->len != want_top)
		abort();
	yajl_tree_free(doc);
}

static void write_json(const struct up_profile *prof, const struct up_symtab *syms,
		       unsigned top, struct mem_file *out)
{
	struct tk_domain dom = { .domid = 7, .name = (char *)"fuzz", .type = "pvh",
				  .kernel = (char *)"/boot/fuzz.elf" };
	uint64_t pause_ns[] = { 1000, 2000, 3000 };
	struct up_sampler_stats stats = {
		.samples = up_profile_samples(prof), .pause_ns = pause_ns,
		.nr_pause = 3, .elapsed_s = 1, .stop = UP_STOP_DURATION,
	};
	struct tk_run r = {
		.asked = { .hz = 97, .top = top }, .dom = &dom, .symtab = syms,
		.symbols_used = syms ? "fuzz names" : NULL, .profile = prof,
		.stats = &stats, .unwinder = UP_UNWINDER_AUTO, .hypercalls = "image",
	};

	if (tk_run_json(&r, out->f) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	struct up_symtab *syms;
	struct up_profile *prof;
	struct up_output_opts opts;
	struct up_top_entry *top;
	struct mem_file folded, svg, text, json;
	unsigned nr_vcpus;
	size_t names_len, ntop;
	uint64_t samples;
	int rc;

	if (size < 2)
		return 0;
	xmlSetGenericErrorFunc(NULL, quiet);
	nr_vcpus = 1 + (data[0] & 3);
	opts = (struct up_output_opts){
		.version = UP_OUTPUT_OPTS_VERSION,
		.vcpu = (int)((data[0] >> 4) & 7) - 1,
		.with_offsets = data[0] & 4,
		.vcpu_root = data[0] & 8,
	};
	nul = memchr(data + 2, '\0', size - 2);
	names_len = nul ? (size_t)(nul - (data + 2)) : size - 2;
	syms = load_names(data + 2, names_len);
	prof = nul ? build_profile(nr_vcpus, nul + 1, size - (size_t)(nul + 1 - data)) :
		     build_profile(nr_vcpus, NULL, 0);
	samples = opts.vcpu < 0 ? up_profile_samples(prof) :
		  up_profile_vcpu_samples(prof, (unsigned)opts.vcpu);

	mem_open(&folded);
	rc = up_profile_write_folded(prof, syms, &opts, folded.f);
	mem_close(&folded);
	if (rc == 0)
		check_folded(&folded, samples);

	mem_open(&svg);
	rc = up_profile_write_svg(prof, syms, &opts, "fuzz <&\"'> flame graph", svg.f);
	mem_close(&svg);
	if (rc == 0)
		check_svg(&svg);

	mem_open(&text);
	rc = up_profile_write_top(prof, syms, &opts, data[1], text.f);
	mem_close(&text);

	if (up_profile_top(prof, syms, NULL, &top, &ntop) < 0)
		abort();
	up_top_free(top, ntop);
	mem_open(&json);
	write_json(prof, syms, data[1], &json);
	mem_close(&json);
	check_json(&json, ntop < data[1] ? ntop : data[1]);

	free(folded.buf);
	free(svg.buf);
	free(text.buf);
	free(json.buf);
	up_profile_free(prof);
	up_symtab_free(syms);
	return 0;
}
