/* xl profile core's output: the core's description and every vCPU's
 * stack, as text or JSON, on stdout. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "core_run.h"
#include "toolkit/json_write.h"

static const char *type_name(const struct up_target_info *ti)
{
	return ti->type == UP_DOMAIN_PV ? "PV" : "HVM/PVH";
}

void xlp_core_print_text(struct core_run *r, const struct xlp_stack_print *sp)
{
	printf("core %s: %s domain, %u vCPU%s, %" PRIu64 " pages",
	       r->file, type_name(&r->tinfo), r->tinfo.max_vcpus,
	       r->tinfo.max_vcpus == 1 ? "" : "s", r->info.nr_pages);
	if (r->info.xen_major)
		printf(", written by Xen %u.%u%s", r->info.xen_major,
		       r->info.xen_minor, r->info.xen_extra);
	putchar('\n');
	if (r->opt.verbose || !r->symtab)
		printf("symbols %s\n", r->symbols_used ? r->symbols_used : "none (raw addresses)");
	xlp_print_stacks_text(sp, stdout);
}

int xlp_core_print_json(struct core_run *r, const struct xlp_stack_print *sp)
{
	yajl_gen g = tk_json_open(stdout);
	char ver[64];

	if (!g)
		return -1;
	yajl_gen_map_open(g);
	tk_json_key(g, "core");
	tk_json_str(g, r->file);
	tk_json_key(g, "domain_type");
	tk_json_str(g, r->tinfo.type == UP_DOMAIN_PV ? "pv" : "hvm");
	tk_json_key(g, "name_guess");
	tk_json_str(g, r->name);
	tk_json_key(g, "pages");
	yajl_gen_integer(g, (long long)r->info.nr_pages);
	tk_json_key(g, "xen_version");
	snprintf(ver, sizeof(ver), "%u.%u%s", r->info.xen_major, r->info.xen_minor,
		 r->info.xen_extra);
	tk_json_str(g, r->info.xen_major ? ver : NULL);
	tk_json_key(g, "config");
	tk_json_str(g, r->config_used);
	tk_json_key(g, "kernel");
	tk_json_str(g, r->kernel);
	tk_json_key(g, "symbols");
	tk_json_str(g, r->symbols_used);
	tk_json_key(g, "build_id");
	tk_json_str(g, r->symtab ? up_symtab_build_id(r->symtab) : NULL);
	tk_json_key(g, "unwinder");
	tk_json_str(g, up_unwinder_name(r->uw.unwinder));
	xlp_print_stacks_json(sp, g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	return 0;
}
