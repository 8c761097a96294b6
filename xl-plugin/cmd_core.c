/* xl profile core FILE (also xl profile --core FILE): the stacks of every
 * vCPU in a Xen core file, the evidence left after a crash with on_crash =
 * "coredump-destroy" or taken of a hung domain with xl dump-core. No Xen
 * needed: the core is read as a stopped domain, walked like --once. This
 * file is the command's options and its run; core_kernel.c finds the
 * kernel, core_print.c prints. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_run.h"
#include "commands.h"
#include "toolkit/debuginfod_fetch.h"
#include "toolkit/kernel_map_load.h"
#include "options.h"
#include "toolkit/symbols_find.h"

enum { OPT_FORCE = 256, OPT_VCPU, OPT_MAX_DEPTH, OPT_ENTRY, OPT_DEBUGINFOD };

static const struct xlp_option_doc docs[] = {
	{ { "symbols", required_argument, NULL, 's' }, 's', "FILE",
	  "symbols: an ELF image (may be gzip-compressed) or an nm/System.map text map (default: the kernel the domain's configuration names)" },
	{ { "config", required_argument, NULL, 'c' }, 'c', "FILE",
	  "the domain's xl configuration, for its kernel (default: " XEN_CONFIG_DIR "/NAME.cfg, NAME being the core's file name, as on_crash = \"coredump-destroy\" names it)" },
	{ { "force-symbols", no_argument, NULL, OPT_FORCE }, OPT_FORCE, NULL,
	  "use a symbol file even if its build-id differs from the kernel's" },
	{ { "debuginfod", required_argument, NULL, OPT_DEBUGINFOD }, OPT_DEBUGINFOD, "URLS",
	  "when no symbols are found locally, fetch the debug file of the kernel's (or the core's) build-id from these debuginfod servers (default: $DEBUGINFOD_URLS)" },
	{ { "unwinder", required_argument, NULL, 'u' }, 'u', "METHOD",
	  "stack unwinding: auto (CFI where the image has it, else frame pointers; default), cfi, libunwind, fp" },
	{ { "entry", required_argument, NULL, OPT_ENTRY }, OPT_ENTRY, "FUNCTION",
	  "a function where stacks begin (thread entry code without unwind information); repeat or comma-separate" },
	{ { "format", required_argument, NULL, 'F' }, 'F', "FORMAT",
	  "txt (default) or json, on stdout" },
	{ { "vcpu", required_argument, NULL, OPT_VCPU }, OPT_VCPU, "N",
	  "only vCPU N" },
	{ { "max-depth", required_argument, NULL, OPT_MAX_DEPTH }, OPT_MAX_DEPTH, "N",
	  "deepest stack walked, in frames (default 128)" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL,
	  "also print each vCPU's registers, and say where symbols were looked for" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

static const struct xlp_option_rows rows = XLP_OPTION_ROWS(docs);
const struct xlp_option_rows *const xlp_core_options[] = { &rows, NULL };

static int parse(int argc, char **argv, struct core_run *r)
{
	const struct xlp_cmd_spec *cmd = &xlp_commands[XLP_COMMAND_CORE];
	struct xlp_command_parser parser;
	int c;

	xlp_command_parser_init(&parser, cmd);
	r->opt.vcpu = -1;
	r->opt.max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH;
	r->opt.unwinder = UP_UNWINDER_AUTO;
	while ((c = xlp_command_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 's':
			r->opt.symbols = optarg;
			break;
		case 'c':
			r->config = optarg;
			break;
		case OPT_FORCE:
			r->opt.force_symbols = true;
			break;
		case OPT_DEBUGINFOD:
			r->opt.debuginfod = optarg;
			break;
		case 'u':
			if (tk_parse_unwinder(optarg, &r->opt.unwinder) < 0)
				return xlp_command_bad_value(cmd, "unwinder", optarg,
							     "use auto, cfi, libunwind or fp");
			break;
		case OPT_ENTRY:
			if (xlp_parse_entries(optarg, &r->opt) < 0)
				return xlp_command_bad_value(cmd, "entry function", optarg,
							     "give up to 16 function names, comma-separated");
			break;
		case 'F':
			if (strcmp(optarg, "json") == 0)
				r->json = true;
			else if (strcmp(optarg, "txt") != 0)
				return xlp_command_bad_value(cmd, "format", optarg,
							     "use txt or json");
			break;
		case OPT_VCPU: {
			unsigned v;

			if (tk_parse_uint(optarg, 4095, &v) < 0)
				return xlp_command_bad_value(cmd, "vCPU", optarg,
							     "give a vCPU number from 0");
			r->opt.vcpu = (int)v;
			break;
		}
		case OPT_MAX_DEPTH:
			if (tk_parse_uint(optarg, UP_UNWIND_MAX_DEPTH_LIMIT, &r->opt.max_depth) < 0 ||
			    r->opt.max_depth == 0) {
				char fix[64];

				snprintf(fix, sizeof(fix), "give a number of frames from 1 to %u",
					 UP_UNWIND_MAX_DEPTH_LIMIT);
				return xlp_command_bad_value(cmd, "maximum depth", optarg, fix);
			}
			break;
		case 'v':
			r->opt.verbose++;
			break;
		case 'h':
			xlp_command_usage(cmd, stdout);
			return 1;
		default:
			return xlp_command_bad_option(cmd, c, argv);
		}
	}
	if (optind != argc - 1)
		return xlp_command_bad_args(cmd, optind >= argc ? "give the core file" :
					    "give one core file");
	r->file = argv[optind];
	return 0;
}


/* Walk every vCPU once, as --once does on a live domain. */
static int walk(struct core_run *r, struct up_target *t)
{
	struct up_sampler_config cfg;

	if (up_profile_new(&r->profile, r->tinfo.max_vcpus) < 0)
		return -1;
	up_sampler_config_init(&cfg, UP_SAMPLER_CONFIG_VERSION);
	cfg.vcpu = r->opt.vcpu;
	cfg.max_samples = 1;
	cfg.stopped_ok = true;
	cfg.no_activity = true;           /* a core keeps no run state */
	cfg.unwind.max_depth = r->opt.max_depth;
	tk_unwind_configure(&r->uw, r->kmap, &cfg);
	return up_sample(t, &cfg, r->profile, NULL, &r->stats);
}

int xlp_cmd_core(int argc, char **argv)
{
	struct core_run r;
	struct up_target *t = NULL;
	struct tk_symbol_query q = { 0 };
	int rc;

	memset(&r, 0, sizeof(r));
	rc = parse(argc, argv, &r);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (up_target_open_core(&t, r.file) < 0) {
		fprintf(stderr, "xl profile core: %s\n", up_error_last());
		return 1;
	}
	r.tinfo = *up_target_info(t);
	up_target_core_info(t, &r.info);
	if (r.opt.vcpu >= 0 && (unsigned)r.opt.vcpu >= r.tinfo.max_vcpus) {
		fprintf(stderr, "xl profile core: vCPU %d is not in the core: it holds %u vCPUs (0-%u)\n",
			r.opt.vcpu, r.tinfo.max_vcpus, r.tinfo.max_vcpus - 1);
		rc = 2;
		goto out;
	}
	r.regs = calloc(r.tinfo.max_vcpus, sizeof(*r.regs));
	if (!r.regs) {
		rc = 1;
		goto out;
	}
	for (unsigned v = 0; v < r.tinfo.max_vcpus; v++)
		up_target_get_named_regs(t, v, &r.regs[v]);
	r.name = xlp_core_guess_name(r.file);
	rc = 1;
	if (xlp_core_find_config(&r) < 0 || (!r.opt.symbols && xlp_core_find_by_build_id(&r, t) < 0))
		goto out;
	q.explicit_file = r.opt.symbols;
	q.kernel = r.kernel;
	q.debug_dir = getenv("UNIPROF_DEBUG_DIR");
	q.force = r.opt.force_symbols;
	q.verbose = r.opt.verbose;
	q.debuginfod = tk_debuginfod_setup(r.opt.debuginfod);
	q.build_id = r.build_id;
	q.arch = r.tinfo.arch;
	if (r.tinfo.type == UP_DOMAIN_PV)
		q.guest_width = r.tinfo.guest_width;
	if (!r.kernel && !r.opt.symbols && q.debuginfod && r.build_id[0]) {
		if (tk_find_symbols(&q, &r.symtab, &r.symbols_used) < 0)
			goto out;
	} else if (!r.kernel && !r.opt.symbols)
		fprintf(stderr, "xl profile core: no kernel found for domain '%s' (neither %s/%s.cfg nor a build-id the core holds): printing raw addresses; give -s IMAGE or -c CONFIG\n",
			r.name ? r.name : "?", XEN_CONFIG_DIR, r.name ? r.name : "?");
	else if (tk_find_symbols(&q, &r.symtab, &r.symbols_used) < 0)
		goto out;
	if (tk_unwind_load(r.opt.unwinder, r.kernel, r.symbols_used, r.opt.verbose, &r.uw) < 0 ||
	    tk_kernel_map_load(r.kernel, r.symbols_used, r.symtab, r.uw.cfi, r.opt.entries,
				r.opt.nr_entries, r.opt.verbose, &r.kmap) < 0)
		goto out;
	tk_kernel_map_probe(r.kmap, r.symtab, t, r.opt.verbose, "xl profile core");
	if (walk(&r, t) < 0) {
		fprintf(stderr, "xl profile core: %s\n", up_error_last());
		goto out;
	}

	struct xlp_stack_print sp = {
		.profile = r.profile, .symtab = r.symtab, .vcpu = r.opt.vcpu,
		.regs = r.json || r.opt.verbose ? r.regs : NULL,
		.missing_why = "no registers or memory for it in the core",
	};

	if (r.json)
		rc = xlp_core_print_json(&r, &sp) < 0 ? 1 : 0;
	else {
		xlp_core_print_text(&r, &sp);
		rc = 0;
	}
	if (rc == 0 && r.stats.samples == 0)
		rc = 1;
out:
	up_target_close(t);
	up_sampler_stats_release(&r.stats);
	up_profile_free(r.profile);
	up_symtab_free(r.symtab);
	tk_unwind_release(&r.uw);
	up_kernel_map_free(r.kmap);
	free(r.regs);
	free(r.name);
	free(r.config_used);
	free(r.kernel);
	free(r.symbols_used);
	return rc;
}
