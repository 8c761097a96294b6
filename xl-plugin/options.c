/* Option parsing for xl profile: its command line and usage, and the
 * option-table helpers its subcommands parse and print theirs with. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "commands.h"
#include "toolkit/sampler_cpu.h"
#include "toolkit/value_parse.h"
#include "uniprof/uniprof.h"

enum {
	OPT_VCPU = 256, OPT_TOP, OPT_MAX_DEPTH, OPT_VERSION, OPT_FORCE_SYMBOLS,
	OPT_WAIT, OPT_PAUSED, OPT_HYPERCALLS, OPT_NO_REALTIME, OPT_IDLE,
	OPT_NO_VCPU_STATE, OPT_ENTRY, OPT_MAX_PAUSE, OPT_CONSISTENCY,
	OPT_NO_INLINE, OPT_LINES, OPT_DEBUGINFOD, OPT_SAMPLER_CPU,
	OPT_MAX_STALL,
};

static const struct xlp_option_doc docs[] = {
	{ { "frequency", required_argument, NULL, 'f' }, 'f', "HZ",
	  "samples per second (default 97)" },
	{ { "duration", required_argument, NULL, 'd' }, 'd', "SECONDS",
	  "how long to profile (default: until Ctrl-C or the domain ends)" },
	{ { "output", required_argument, NULL, 'o' }, 'o', "PATH",
	  "directory, or file name stem, for the profile (default: " XEN_LOG_DIR "/profile/NAME-TIME)" },
	{ { "format", required_argument, NULL, 'F' }, 'F', "FORMAT",
	  "" /* then the formats' table's (tk_format_help) */ },
	{ { "symbols", required_argument, NULL, 's' }, 's', "FILE",
	  "symbols: an ELF image (may be gzip-compressed) or an nm/System.map text map" },
	{ { "force-symbols", no_argument, NULL, OPT_FORCE_SYMBOLS }, OPT_FORCE_SYMBOLS, NULL,
	  "use a symbol file even if its build-id differs from the kernel's" },
	{ { "debuginfod", required_argument, NULL, OPT_DEBUGINFOD }, OPT_DEBUGINFOD, "URLS",
	  "when no symbols are found locally, fetch the kernel's debug file by build-id from these debuginfod servers (space-separated; default: $DEBUGINFOD_URLS)" },
	{ { "unwinder", required_argument, NULL, 'u' }, 'u', "METHOD",
	  "stack unwinding: auto (CFI where the image has it, else frame pointers; default), cfi, libunwind, fp" },
	{ { "hypercalls", required_argument, NULL, OPT_HYPERCALLS }, OPT_HYPERCALLS, "PATH",
	  "how samples reach Xen: auto (direct when this Xen's domctl interface matches; default), direct, libxenctrl" },
	{ { "consistency", required_argument, NULL, OPT_CONSISTENCY }, OPT_CONSISTENCY, "MODE",
	  "paused: pause the domain for each sample, every stack of one instant (default); relaxed: no domain pause, Xen stops one vCPU at a time only to copy its registers, stacks checked for changes (see CONSISTENCY in xl-profile(1))" },
	{ { "idle", no_argument, NULL, OPT_IDLE }, OPT_IDLE, NULL,
	  "also show blocked (idle) vCPUs' stacks, under [idle], and those woken and not yet running, under [waiting], in the flame graph and top list (default: on-CPU time only)" },
	{ { "no-inline", no_argument, NULL, OPT_NO_INLINE }, OPT_NO_INLINE, NULL,
	  "fold calls inlined into a function back into it (default with DWARF in the image: each is a frame of its own, marked (inlined))" },
	{ { "lines", no_argument, NULL, OPT_LINES }, OPT_LINES, NULL,
	  "add the source file and line to each stack's leaf frame (needs DWARF: an image built with -g, or its debug file)" },
	{ { "no-vcpu-state", no_argument, NULL, OPT_NO_VCPU_STATE }, OPT_NO_VCPU_STATE, NULL,
	  "do not ask Xen whether each vCPU is blocked (one hypercall less per vCPU and sample; all stacks count as on-CPU)" },
	{ { "entry", required_argument, NULL, OPT_ENTRY }, OPT_ENTRY, "FUNCTION",
	  "a function where stacks begin (thread entry code without unwind information); repeat or comma-separate" },
	{ { "sampler-cpu", required_argument, NULL, OPT_SAMPLER_CPU }, OPT_SAMPLER_CPU, "N",
	  "run the sampler on dom0 CPU N (default: a dom0 vCPU that takes no backend interrupts, on a pCPU the guest cannot use; -v says which and why)" },
	{ { "no-realtime", no_argument, NULL, OPT_NO_REALTIME }, OPT_NO_REALTIME, NULL,
	  "sample at normal priority, memory unlocked (default: SCHED_FIFO, mlockall while sampling)" },
	{ { "wait", no_argument, NULL, OPT_WAIT }, OPT_WAIT, NULL,
	  "wait for a domain of that name to appear, profile it until it is destroyed" },
	{ { "paused", no_argument, NULL, OPT_PAUSED }, OPT_PAUSED, NULL,
	  "attach to a domain created with 'xl create -p', then unpause it (profiles boot)" },
	{ { "once", no_argument, NULL, '1' }, '1', NULL,
	  "print one symbolized stack per vCPU and exit (no files)" },
	{ { "vcpu", required_argument, NULL, OPT_VCPU }, OPT_VCPU, "N",
	  "profile only vCPU N (default: all vCPUs)" },
	{ { "top", required_argument, NULL, OPT_TOP }, OPT_TOP, "N",
	  "functions in the top list (default 20)" },
	{ { "max-depth", required_argument, NULL, OPT_MAX_DEPTH }, OPT_MAX_DEPTH, "N",
	  "deepest stack walked, in frames (default 128)" },
	{ { "max-pause", required_argument, NULL, OPT_MAX_PAUSE }, OPT_MAX_PAUSE, "MS",
	  "longest the domain may stay paused for one sample (paused consistency); the watchdog ends a longer pause and the sample is dropped (default 50)" },
	{ { "max-stall", required_argument, NULL, OPT_MAX_STALL }, OPT_MAX_STALL, "PCT",
	  XLP_MAX_STALL_HELP },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL,
	  "say what is done: where symbols were looked for and found" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL,
	  "print nothing but errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
	{ { "version", no_argument, NULL, OPT_VERSION }, OPT_VERSION, NULL,
	  "show the version" },
};

/* xl profile's rows in its command table (commands.c), which makes its
 * --help: the usage, every command's summary, these options. */
static const struct xlp_option_rows profile_rows = XLP_OPTION_ROWS(docs);
const struct xlp_option_rows *const xlp_profile_options[] = { &profile_rows, NULL };

void xlp_print_usage(FILE *out)
{
	xlp_command_usage(&xlp_commands[XLP_COMMAND_PROFILE], out);
}

static int bad(const char *what, const char *value, const char *expect)
{
	return xlp_command_bad_value(&xlp_commands[XLP_COMMAND_PROFILE], what,
				     value, expect);
}

/* Names point into argv (comma lists are split in place). */
int xlp_parse_entries(char *arg, struct xlp_options *o)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_entries >= sizeof(o->entries) / sizeof(o->entries[0]))
			return -1;
		o->entries[o->nr_entries++] = tok;
	}
	return o->nr_entries ? 0 : -1;
}

int xlp_parse_options(int argc, char **argv, struct xlp_options *o)
{
	const struct xlp_cmd_spec *cmd = &xlp_commands[XLP_COMMAND_PROFILE];
	struct xlp_command_parser parser;
	int c;

	memset(o, 0, sizeof(*o));
	o->hz = UP_SAMPLER_DEFAULT_HZ;
	o->vcpu = -1;
	o->sampler_cpu = -1;
	o->top = 20;
	o->max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH;
	o->unwinder = UP_UNWINDER_AUTO;
	xlp_command_parser_init(&parser, cmd);
	while ((c = xlp_command_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'f':
			if (tk_parse_double(optarg, &o->hz) < 0 || o->hz <= 0 ||
			    o->hz > UP_SAMPLER_MAX_HZ)
				return bad("frequency", optarg,
					   "give samples per second, above 0 and at most 100000");
			break;
		case 'd':
			if (tk_parse_double(optarg, &o->duration_s) < 0 ||
			    o->duration_s <= 0 || o->duration_s > 1e7)
				return bad("duration", optarg,
					   "give a number of seconds above 0");
			break;
		case 'o':
			if (!*optarg)
				return bad("output path", optarg, "give a directory or file name");
			o->output = optarg;
			break;
		case 'F':
			if (tk_parse_formats_arg("xl profile", optarg, TK_CMD_PROFILE,
						  &o->formats) < 0)
				return 2;
			break;
		case 's':
			o->symbols = optarg;
			break;
		case 'u':
			if (tk_parse_unwinder(optarg, &o->unwinder) < 0)
				return bad("unwinder", optarg, "use auto, cfi, libunwind or fp");
			break;
		case OPT_HYPERCALLS:
			if (strcmp(optarg, "auto") == 0)
				o->hypercalls = UP_HYPERCALLS_AUTO;
			else if (strcmp(optarg, "direct") == 0)
				o->hypercalls = UP_HYPERCALLS_DIRECT;
			else if (strcmp(optarg, "libxenctrl") == 0)
				o->hypercalls = UP_HYPERCALLS_LIBXENCTRL;
			else
				return bad("hypercall path", optarg, "use auto, direct or libxenctrl");
			break;
		case OPT_NO_REALTIME:
			o->no_realtime = true;
			break;
		case OPT_SAMPLER_CPU: {
			char why[96];

			if (tk_sampler_cpu_parse(optarg, &o->sampler_cpu, why, sizeof(why)) < 0)
				return bad("sampler CPU", optarg, why);
			break;
		}
		case OPT_CONSISTENCY:
			if (strcmp(optarg, "paused") == 0)
				o->consistency = UP_CONSISTENCY_PAUSED;
			else if (strcmp(optarg, "relaxed") == 0)
				o->consistency = UP_CONSISTENCY_RELAXED;
			else
				return bad("consistency", optarg,
					   "give paused or relaxed");
			break;
		case OPT_IDLE:
			o->with_idle = true;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_LINES:
			o->lines = true;
			break;
		case OPT_NO_VCPU_STATE:
			o->no_vcpu_state = true;
			break;
		case OPT_ENTRY:
			if (xlp_parse_entries(optarg, o) < 0)
				return bad("entry function", optarg,
					   "give up to 16 function names, comma-separated");
			break;
		case OPT_FORCE_SYMBOLS:
			o->force_symbols = true;
			break;
		case OPT_DEBUGINFOD:
			o->debuginfod = optarg;
			break;
		case OPT_WAIT:
			o->wait = true;
			break;
		case OPT_PAUSED:
			o->paused = true;
			break;
		case '1':
			o->once = true;
			break;
		case OPT_VCPU: {
			unsigned v;

			if (tk_parse_uint(optarg, 4095, &v) < 0)
				return bad("vCPU", optarg, "give a vCPU number from 0");
			o->vcpu = (int)v;
			break;
		}
		case OPT_TOP:
			if (tk_parse_uint(optarg, 100000, &o->top) < 0)
				return bad("top count", optarg, "give a number of functions");
			break;
		case OPT_MAX_DEPTH:
			if (tk_parse_uint(optarg, UP_UNWIND_MAX_DEPTH_LIMIT, &o->max_depth) < 0 ||
			    o->max_depth < 1)
				return bad("maximum depth", optarg,
					   "give a number of frames from 1 to 4096");
			break;
		case OPT_MAX_PAUSE:
			if (tk_parse_uint(optarg, 10000, &o->max_pause_ms) < 0 ||
			    o->max_pause_ms < 1)
				return bad("maximum pause", optarg,
					   "give milliseconds from 1 to 10000");
			break;
		case OPT_MAX_STALL:
			if (tk_parse_max_stall(optarg, &o->max_stall_pct) < 0)
				return bad("stall budget", optarg,
					   "give a share of the time above 0 and at most 100, in % (100: no budget)");
			break;
		case 'v':
			o->verbose++;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			xlp_print_usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("xl profile (uniprof) %s\n", up_version());
			return 1;
		default:   /* ':' (no value) or an unknown option */
			return xlp_command_bad_option(cmd, c, argv);
		}
	}
	if (optind >= argc)
		return xlp_command_bad_args(cmd, "no domain given");
	if (optind + 1 < argc) {
		fprintf(stderr, "xl profile: unexpected argument '%s' after the domain\n",
			argv[optind + 1]);
		return 2;
	}
	o->domain = argv[optind];
	if (o->once && (o->wait || o->paused || o->duration_s > 0)) {
		fprintf(stderr, "xl profile: --once takes one sample now: it does not combine with --wait, --paused or -d\n");
		return 2;
	}
	if (!o->formats)
		o->formats = tk_formats_default(TK_CMD_PROFILE);
	return 0;
}
