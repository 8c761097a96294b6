/* xl profile core FILE (also xl profile --core FILE): the stacks of every
 * vCPU in a Xen core file, the evidence left after a crash with on_crash =
 * "coredump-destroy" or taken of a hung domain with xl dump-core. No Xen
 * needed: the core is read as a stopped domain, walked like --once. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxlutil.h>

#include <dirent.h>

#include "toolkit/debuginfod_fetch.h"
#include "toolkit/image_cache.h"
#include "toolkit/json_write.h"
#include "toolkit/kernel_map_load.h"
#include "toolkit/options.h"
#include "stack_print.h"
#include "subcommands.h"
#include "toolkit/symbols_find.h"
#include "toolkit/unwind_load.h"

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

#define NDOCS (sizeof(docs) / sizeof(docs[0]))

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: xl profile core [options] FILE\n"
		"       xl profile --core FILE [options]\n"
		"\n"
		"Print the stack of every vCPU in a Xen core file, symbolized: the file xl\n"
		"writes for a crashed domain with on_crash = \"coredump-destroy\" (in\n"
		XEN_DUMP_DIR "/NAME), or 'xl dump-core DOMAIN FILE' of a hung one.\n"
		"No Xen is needed to read it.\n"
		"\n"
		"Options:\n");
	xlp_print_option_docs(out, docs, NDOCS);
}

struct core_run {
	struct xlp_options opt;
	const char *file;
	const char *config;
	bool json;
	char *name;            /* the domain's name, guessed from the file */
	char *config_used;
	char *kernel;          /* from the configuration */
	char build_id[41];     /* the core's, when no kernel file has it */
	struct up_core_info info;
	struct up_target_info tinfo;
	struct up_named_regs *regs;
	struct up_symtab *symtab;
	char *symbols_used;
	struct xlp_unwind uw;
	struct up_kernel_map *kmap;
	struct up_profile *profile;
	struct up_sampler_stats stats;
};

static int parse(int argc, char **argv, struct core_run *r)
{
	struct option longopts[NDOCS + 1];
	char shortopts[3 * NDOCS + 2];
	int c;

	xlp_getopt_tables(docs, NDOCS, longopts, shortopts);
	r->opt.vcpu = -1;
	r->opt.max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH;
	r->opt.unwinder = UP_UNWINDER_AUTO;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
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
			if (xlp_parse_unwinder(optarg, &r->opt.unwinder) < 0) {
				fprintf(stderr, "xl profile core: invalid unwinder '%s': use auto, cfi, libunwind or fp\n", optarg);
				return 2;
			}
			break;
		case OPT_ENTRY:
			if (xlp_parse_entries(optarg, &r->opt) < 0) {
				fprintf(stderr, "xl profile core: invalid entry function '%s': give up to 16 function names, comma-separated\n", optarg);
				return 2;
			}
			break;
		case 'F':
			if (strcmp(optarg, "json") == 0)
				r->json = true;
			else if (strcmp(optarg, "txt") != 0) {
				fprintf(stderr, "xl profile core: invalid format '%s': use txt or json\n", optarg);
				return 2;
			}
			break;
		case OPT_VCPU: {
			unsigned v;

			if (xlp_parse_uint(optarg, 4095, &v) < 0) {
				fprintf(stderr, "xl profile core: invalid vCPU '%s': give a vCPU number from 0\n", optarg);
				return 2;
			}
			r->opt.vcpu = (int)v;
			break;
		}
		case OPT_MAX_DEPTH:
			if (xlp_parse_uint(optarg, UP_UNWIND_MAX_DEPTH_LIMIT, &r->opt.max_depth) < 0 ||
			    r->opt.max_depth == 0) {
				fprintf(stderr, "xl profile core: invalid maximum depth '%s': give a number of frames from 1 to %u\n",
					optarg, UP_UNWIND_MAX_DEPTH_LIMIT);
				return 2;
			}
			break;
		case 'v':
			r->opt.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "xl profile core: unknown option or missing value; see 'xl profile core --help'\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xl profile core: %s; usage: xl profile core [options] FILE\n",
			optind >= argc ? "give the core file" : "give one core file");
		return 2;
	}
	r->file = argv[optind];
	return 0;
}

/* The domain's name: the core's file name, as on_crash gives it
 * (XEN_DUMP_DIR/NAME), less a trailing ".core". */
static char *guess_name(const char *file)
{
	char *tmp = strdup(file), *base, *name;
	size_t n;

	if (!tmp)
		return NULL;
	base = basename(tmp);
	name = strdup(base);
	free(tmp);
	if (name && (n = strlen(name)) > 5 && strcmp(name + n - 5, ".core") == 0)
		name[n - 5] = '\0';
	return name;
}

/* The kernel an xl configuration names, through libxlutil (xl's own
 * parser). 0 with *kernel NULL when the file does not exist or names none
 * (said with -v); -1 after one line when it cannot be parsed. A probe (a
 * configuration of some other domain, looked at for its build-id) says
 * nothing. */
static int config_kernel(struct core_run *r, const char *path, bool explicit,
			 bool probe)
{
	FILE *report;
	struct stat st;
	XLU_Config *cfg;
	const char *k = NULL;
	int rc = 0;

	if (stat(path, &st) < 0) {
		if (explicit) {
			fprintf(stderr, "xl profile core: cannot read configuration %s: %s\n",
				path, strerror(errno));
			return -1;
		}
		if (r->opt.verbose && !probe)
			fprintf(stderr, "xl profile core: no configuration at %s\n", path);
		return 0;
	}
	report = probe ? fopen("/dev/null", "w") : stderr;
	cfg = report ? xlu_cfg_init(report, path) : NULL;
	if (!cfg) {
		if (report && report != stderr)
			fclose(report);
		if (!probe)
			fprintf(stderr, "xl profile core: out of memory\n");
		return -1;
	}
	if (xlu_cfg_readfile(cfg, path) != 0) {
		if (!probe)
			fprintf(stderr, "xl profile core: cannot parse configuration %s (see above); give symbols with -s FILE\n",
				path);
		rc = -1;
	} else if (xlu_cfg_get_string(cfg, "kernel", &k, 1) == 0 && k) {
		r->kernel = strdup(k);
		r->config_used = strdup(path);
		if (r->opt.verbose && !probe)
			fprintf(stderr, "xl profile core: %s names kernel %s\n", path, k);
	} else if (r->opt.verbose && !probe) {
		fprintf(stderr, "xl profile core: %s names no kernel\n", path);
	}
	xlu_cfg_destroy(cfg);
	if (report != stderr)
		fclose(report);
	return rc;
}

static int find_config(struct core_run *r)
{
	char *path;
	int rc;

	if (r->config)
		return config_kernel(r, r->config, true, false);
	if (r->opt.symbols || !r->name || !r->name[0])
		return 0;
	if (asprintf(&path, "%s/%s.cfg", XEN_CONFIG_DIR, r->name) < 0)
		return -1;
	rc = config_kernel(r, path, false, false);
	free(path);
	return rc;
}

#define MAX_IDS 16
#define MAX_CONFIGS 1024

static bool has_id(char (*ids)[41], size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

/* Without a configuration that fits: the build-ids in the core's memory,
 * against the kernels of every configuration in XEN_CONFIG_DIR, then the
 * debug directory's .build-id tree. A configuration's kernel whose
 * build-id the core does not hold is stale: dropped, said in one line. */
static int find_by_build_id(struct core_run *r, struct up_target *t)
{
	char ids[MAX_IDS][41];
	struct up_elf_identity kid;
	size_t n = 0, seen = 0;
	DIR *d;
	struct dirent *e;

	if (up_target_core_build_ids(t, ids, MAX_IDS, &n) < 0 || n == 0) {
		if (r->opt.verbose)
			fprintf(stderr, "xl profile core: no build-id note in the core's memory\n");
		return 0;
	}
	if (r->opt.verbose)
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "xl profile core: the core holds build-id %s\n", ids[i]);
	if (r->kernel) {
		if (xlp_elf_identify(r->kernel, &kid) < 0 || !kid.build_id[0] ||
		    has_id(ids, n, kid.build_id))
			return 0;
		fprintf(stderr, "xl profile core: %s (from %s) has build-id %s, which the core does not hold: a stale configuration? looking for the core's build-id instead\n",
			r->kernel, r->config_used, kid.build_id);
		free(r->kernel);
		free(r->config_used);
		r->kernel = r->config_used = NULL;
	}
	d = opendir(XEN_CONFIG_DIR);
	while (d && !r->kernel && (e = readdir(d)) && seen++ < MAX_CONFIGS) {
		size_t len = strlen(e->d_name);
		char *path;
		struct core_run probe;

		if (len < 5 || strcmp(e->d_name + len - 4, ".cfg") != 0 ||
		    asprintf(&path, "%s/%s", XEN_CONFIG_DIR, e->d_name) < 0)
			continue;
		memset(&probe, 0, sizeof(probe));
		if (config_kernel(&probe, path, false, true) == 0 && probe.kernel &&
		    xlp_elf_identify(probe.kernel, &kid) == 0 &&
		    has_id(ids, n, kid.build_id)) {
			r->kernel = probe.kernel;
			r->config_used = probe.config_used;
			probe.kernel = probe.config_used = NULL;
			if (r->opt.verbose)
				fprintf(stderr, "xl profile core: %s names %s, build-id %s: the core's\n",
					path, r->kernel, kid.build_id);
		}
		free(probe.kernel);
		free(probe.config_used);
		free(path);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < n && !r->kernel; i++) {
		const char *debug = getenv("UNIPROF_DEBUG_DIR");
		char *path;

		if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", debug ? debug : "/usr/lib/debug",
			     ids[i], ids[i] + 2) < 0)
			continue;
		if (access(path, R_OK) == 0) {
			r->kernel = path;
			if (r->opt.verbose)
				fprintf(stderr, "xl profile core: %s: by the core's build-id\n", path);
		} else {
			free(path);
		}
	}
	/* Left for debuginfod, if it is on. */
	if (!r->kernel)
		snprintf(r->build_id, sizeof(r->build_id), "%s", ids[0]);
	return 0;
}

static const char *type_name(const struct up_target_info *ti)
{
	return ti->type == UP_DOMAIN_PV ? "PV" : "HVM/PVH";
}

static void print_text(struct core_run *r, const struct xlp_stack_print *sp)
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

static int print_json(struct core_run *r, const struct xlp_stack_print *sp)
{
	yajl_gen g = xlp_json_open(stdout);
	char ver[64];

	if (!g)
		return -1;
	yajl_gen_map_open(g);
	xlp_json_key(g, "core");
	xlp_json_str(g, r->file);
	xlp_json_key(g, "domain_type");
	xlp_json_str(g, r->tinfo.type == UP_DOMAIN_PV ? "pv" : "hvm");
	xlp_json_key(g, "name_guess");
	xlp_json_str(g, r->name);
	xlp_json_key(g, "pages");
	yajl_gen_integer(g, (long long)r->info.nr_pages);
	xlp_json_key(g, "xen_version");
	snprintf(ver, sizeof(ver), "%u.%u%s", r->info.xen_major, r->info.xen_minor,
		 r->info.xen_extra);
	xlp_json_str(g, r->info.xen_major ? ver : NULL);
	xlp_json_key(g, "config");
	xlp_json_str(g, r->config_used);
	xlp_json_key(g, "kernel");
	xlp_json_str(g, r->kernel);
	xlp_json_key(g, "symbols");
	xlp_json_str(g, r->symbols_used);
	xlp_json_key(g, "build_id");
	xlp_json_str(g, r->symtab ? up_symtab_build_id(r->symtab) : NULL);
	xlp_json_key(g, "unwinder");
	xlp_json_str(g, up_unwinder_name(r->uw.unwinder));
	xlp_print_stacks_json(sp, g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
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
	xlp_unwind_configure(&r->uw, r->kmap, &cfg);
	return up_sample(t, &cfg, r->profile, NULL, &r->stats);
}

int xlp_cmd_core(int argc, char **argv)
{
	struct core_run r;
	struct up_target *t = NULL;
	struct xlp_symbol_query q = { 0 };
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
	r.name = guess_name(r.file);
	rc = 1;
	if (find_config(&r) < 0 || (!r.opt.symbols && find_by_build_id(&r, t) < 0))
		goto out;
	q.explicit_file = r.opt.symbols;
	q.kernel = r.kernel;
	q.debug_dir = getenv("UNIPROF_DEBUG_DIR");
	q.force = r.opt.force_symbols;
	q.verbose = r.opt.verbose;
	q.debuginfod = xlp_debuginfod_setup(r.opt.debuginfod);
	q.build_id = r.build_id;
	q.arch = r.tinfo.arch;
	if (r.tinfo.type == UP_DOMAIN_PV)
		q.guest_width = r.tinfo.guest_width;
	if (!r.kernel && !r.opt.symbols && q.debuginfod && r.build_id[0]) {
		if (xlp_find_symbols(&q, &r.symtab, &r.symbols_used) < 0)
			goto out;
	} else if (!r.kernel && !r.opt.symbols)
		fprintf(stderr, "xl profile core: no kernel found for domain '%s' (neither %s/%s.cfg nor a build-id the core holds): printing raw addresses; give -s IMAGE or -c CONFIG\n",
			r.name ? r.name : "?", XEN_CONFIG_DIR, r.name ? r.name : "?");
	else if (xlp_find_symbols(&q, &r.symtab, &r.symbols_used) < 0)
		goto out;
	if (xlp_unwind_load(r.opt.unwinder, r.kernel, r.symbols_used, r.opt.verbose, &r.uw) < 0 ||
	    xlp_kernel_map_load(r.kernel, r.symbols_used, r.symtab, r.uw.cfi, &r.opt, &r.kmap) < 0)
		goto out;
	xlp_kernel_map_probe(r.kmap, r.symtab, t, r.opt.verbose, "xl profile core");
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
		rc = print_json(&r, &sp) < 0 ? 1 : 0;
	else {
		print_text(&r, &sp);
		rc = 0;
	}
	if (rc == 0 && r.stats.samples == 0)
		rc = 1;
out:
	up_target_close(t);
	up_sampler_stats_release(&r.stats);
	up_profile_free(r.profile);
	up_symtab_free(r.symtab);
	xlp_unwind_release(&r.uw);
	up_kernel_map_free(r.kmap);
	free(r.regs);
	free(r.name);
	free(r.config_used);
	free(r.kernel);
	free(r.symbols_used);
	return rc;
}
