#include "config.h"

#include <stdio.h>
#include <string.h>

#include "image_cache.h"
#include "kernel_map_load.h"

static const char *fp_name(enum up_frame_pointers fp)
{
	return fp == UP_FP_KEPT ? "kept" : fp == UP_FP_OMITTED ? "omitted" :
	       "unknown";
}

static void name_stubs(struct up_symtab *symtab, uint64_t page)
{
	if (page && symtab && up_symtab_name_hypercalls(symtab, page) < 0)
		fprintf(stderr, "xl profile: cannot name the hypercall stubs: %s\n",
			up_error_last());
}

bool tk_kernel_map_probe(struct up_kernel_map *k, struct up_symtab *symtab,
			  struct up_target *t, bool verbose, const char *who)
{
	const char *how;
	int rc = up_kernel_map_probe_hypercall_page(k, t, &how);

	if (rc == 1)
		name_stubs(symtab, up_kernel_map_hypercall_page(k));
	if (verbose && rc < 0)
		fprintf(stderr, "%s: hypercall page: not looked for in memory: %s\n",
			who, up_error_last());
	else if (verbose)
		fprintf(stderr, "%s: hypercall page %#llx: %s\n", who,
			(unsigned long long)up_kernel_map_hypercall_page(k), how);
	return rc > 0;
}

int tk_kernel_map_load(const char *kernel, const char *symbols_file,
			struct up_symtab *symtab, const struct up_cfi_table *cfi,
			const char *const *entries, unsigned nr_entries,
			bool verbose, struct up_kernel_map **out)
{
	const char *from[2] = { kernel, symbols_file };
	struct up_kernel_map *k = NULL;
	const char *used = NULL;
	uint64_t hc;

	for (int i = 0; i < 2 && !k; i++) {
		if (!from[i])
			continue;
		if (tk_kernel_map_read(&k, from[i], symtab) == 0)
			used = from[i];
		else if (verbose)
			fprintf(stderr, "xl profile: code map: %s\n", up_error_last());
	}
	if (!k && up_kernel_map_new(&k) < 0) {
		fprintf(stderr, "xl profile: %s\n", up_error_last());
		return -1;
	}
	/* Without an image, the symbols still name the hypercall page. */
	if (!used && symtab)
		for (size_t i = 0; i < up_symtab_count(symtab); i++)
			if (up_symtab_symbol(symtab, i)->name[0] == 'h' &&
			    strcmp(up_symtab_symbol(symtab, i)->name, "hypercall_page") == 0) {
				up_kernel_map_set_hypercall_page(k, up_symtab_symbol(symtab, i)->addr);
				break;
			}
	for (unsigned i = 0; i < nr_entries; i++) {
		if (up_kernel_map_add_entry_symbol(k, symtab, entries[i]) < 0) {
			fprintf(stderr, "xl profile: --entry %s: %s\n", entries[i],
				symtab ? up_error_last() : "no symbols to find it in (see -s)");
			up_kernel_map_free(k);
			return -1;
		}
	}
	if (cfi)
		up_kernel_map_set_frame_pointers(k, up_cfi_frame_pointers(cfi));
	if (symtab)
		up_kernel_map_set_functions(k, symtab);
	hc = up_kernel_map_hypercall_page(k);
	name_stubs(symtab, hc);
	if (verbose)
		fprintf(stderr, "xl profile: code map from %s: %zu code ranges, %zu outermost functions, hypercall page %#llx, frame pointers %s\n",
			used ? used : "symbols only", up_kernel_map_text_ranges(k),
			up_kernel_map_entries(k), (unsigned long long)hc,
			fp_name(up_kernel_map_frame_pointers(k)));
	*out = k;
	return 0;
}
