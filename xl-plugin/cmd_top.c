/* xl profile top DOMAIN: a live view, refreshed each interval, as xentop
 * and perf top give one: the hottest functions over the last interval and
 * since the start, each vCPU's busy and blocked share, the sampler's own
 * cost. Keys switch the vCPU, idle stacks, the sort, freeze, quit. -b (or
 * a terminal that cannot take the screen) prints each interval as plain
 * text. --replay FILE plays a stored profile's sample times instead of a
 * domain. Nothing is written to disk: xl profile is for files. The screen
 * is drawn between samples, never while the domain is paused. This file
 * is the command's options; top_live.c and top_replay.c run it. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "toolkit/sampler_cpu.h"
#include "top_run.h"
#include "options.h"
#include "top_term.h"

enum { OPT_VCPU = 256, OPT_IDLE, OPT_TOP, OPT_DELAY, OPT_REPLAY, OPT_SPEED, OPT_SAMPLER_CPU,
       OPT_FORCE_SYMBOLS, OPT_CONSISTENCY, OPT_DEBUGINFOD, OPT_MAX_STALL };

static const struct xlp_option_doc docs[] = {
	{ { "batch", no_argument, NULL, 'b' }, 'b', NULL,
	  "plain text, one screen per interval, for scripts and pipes (also when the terminal cannot take the screen)" },
	{ { "iterations", required_argument, NULL, 'n' }, 'n', "N",
	  "stop after N intervals (default: until q, Ctrl-C, -d or the domain's end)" },
	{ { "delay", required_argument, NULL, OPT_DELAY }, OPT_DELAY, "SECONDS",
	  "the interval (default 1)" },
	{ { "duration", required_argument, NULL, 'd' }, 'd', "SECONDS",
	  "stop after this long" },
	{ { "frequency", required_argument, NULL, 'f' }, 'f', "HZ",
	  "samples per second (default 97)" },
	{ { "vcpu", required_argument, NULL, OPT_VCPU }, OPT_VCPU, "N",
	  "show vCPU N only at the start (key v switches)" },
	{ { "idle", no_argument, NULL, OPT_IDLE }, OPT_IDLE, NULL,
	  "count blocked (idle) stacks too at the start (key i switches)" },
	{ { "top", required_argument, NULL, OPT_TOP }, OPT_TOP, "N",
	  "functions listed (default: 20, or what fits the terminal)" },
	{ { "symbols", required_argument, NULL, 's' }, 's', "FILE",
	  "symbols from this ELF image or nm map instead of the search xl profile does" },
	{ { "force-symbols", no_argument, NULL, OPT_FORCE_SYMBOLS }, OPT_FORCE_SYMBOLS, NULL,
	  "use the -s file even if its build-id differs" },
	{ { "debuginfod", required_argument, NULL, OPT_DEBUGINFOD }, OPT_DEBUGINFOD, "URLS",
	  "debuginfod servers for the kernel's debug file, as for xl profile (default: $DEBUGINFOD_URLS)" },
	{ { "unwinder", required_argument, NULL, 'u' }, 'u', "METHOD",
	  "auto, cfi, fp or libunwind, as for xl profile" },
	{ { "consistency", required_argument, NULL, OPT_CONSISTENCY }, OPT_CONSISTENCY, "MODE",
	  "paused (default) or relaxed, as for xl profile" },
	{ { "sampler-cpu", required_argument, NULL, OPT_SAMPLER_CPU }, OPT_SAMPLER_CPU, "N",
	  "run the sampler on dom0 CPU N (default: chosen as for xl profile)" },
	{ { "max-stall", required_argument, NULL, OPT_MAX_STALL }, OPT_MAX_STALL, "PCT",
	  XLP_MAX_STALL_HELP },
	{ { "replay", required_argument, NULL, OPT_REPLAY }, OPT_REPLAY, "FILE",
	  "play a stored pprof profile's samples at the pace they were taken, instead of a domain" },
	{ { "speed", required_argument, NULL, OPT_SPEED }, OPT_SPEED, "X",
	  "--replay: X times as fast (default 1)" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

static const struct xlp_option_rows rows = XLP_OPTION_ROWS(docs);
const struct xlp_option_rows *const xlp_top_options[] = { &rows, NULL };


static volatile sig_atomic_t stop_requested;

static int bad(const char *what, const char *arg, const char *fix)
{
	return xlp_command_bad_value(&xlp_commands[XLP_COMMAND_TOP], what, arg, fix);
}

static int parse(struct top *tp, int argc, char **argv)
{
	const struct xlp_cmd_spec *cmd = &xlp_commands[XLP_COMMAND_TOP];
	struct xlp_command_parser parser;
	unsigned v;
	int c;

	xlp_command_parser_init(&parser, cmd);
	while ((c = xlp_command_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'b': tp->batch = true; break;
		case 'n':
			if (tk_parse_uint(optarg, 1000000, &tp->iterations) < 0 || !tp->iterations)
				return bad("iterations", optarg, "give a number of intervals from 1");
			break;
		case OPT_DELAY:
			if (tk_parse_double(optarg, &tp->delay_s) < 0 || !(tp->delay_s >= 0.1 && tp->delay_s <= 3600))
				return bad("delay", optarg, "give seconds from 0.1 to 3600");
			break;
		case 'd':
			if (tk_parse_double(optarg, &tp->opt.duration_s) < 0 || !(tp->opt.duration_s > 0 && tp->opt.duration_s <= 1e7))
				return bad("duration", optarg, "give a number of seconds above 0");
			break;
		case 'f':
			if (tk_parse_double(optarg, &tp->opt.hz) < 0 || !(tp->opt.hz > 0 && tp->opt.hz <= UP_SAMPLER_MAX_HZ))
				return bad("frequency", optarg, "give samples per second, above 0 and at most 100000");
			break;
		case OPT_VCPU:
			if (tk_parse_uint(optarg, 4095, &v) < 0)
				return bad("vCPU", optarg, "give a vCPU number from 0");
			tp->view.vcpu = (int)v;
			break;
		case OPT_IDLE: tp->view.with_idle = true; break;
		case OPT_TOP:
			if (tk_parse_uint(optarg, 100000, &tp->view.rows) < 0 || !tp->view.rows)
				return bad("--top", optarg, "give a number of functions from 1");
			tp->rows_set = true;
			break;
		case 's': tp->opt.symbols = optarg; break;
		case OPT_FORCE_SYMBOLS: tp->opt.force_symbols = true; break;
		case OPT_DEBUGINFOD: tp->opt.debuginfod = optarg; break;
		case 'u':
			if (tk_parse_unwinder(optarg, &tp->opt.unwinder) < 0)
				return bad("unwinder", optarg, "use auto, cfi, fp or libunwind");
			break;
		case OPT_CONSISTENCY:
			if (strcmp(optarg, "paused") == 0)
				tp->opt.consistency = UP_CONSISTENCY_PAUSED;
			else if (strcmp(optarg, "relaxed") == 0)
				tp->opt.consistency = UP_CONSISTENCY_RELAXED;
			else
				return bad("consistency", optarg, "use paused or relaxed");
			break;
		case OPT_REPLAY: tp->replay = optarg; break;
		case OPT_SAMPLER_CPU: {
			char why[96];

			if (tk_sampler_cpu_parse(optarg, &tp->opt.sampler_cpu, why, sizeof(why)) < 0)
				return bad("sampler CPU", optarg, why);
			break;
		}
		case OPT_MAX_STALL:
			if (tk_parse_max_stall(optarg, &tp->opt.max_stall_pct) < 0)
				return bad("stall budget", optarg,
					   "give a share of the time above 0 and at most 100, in % (100: no budget)");
			break;
		case OPT_SPEED:
			if (tk_parse_double(optarg, &tp->speed) < 0 || !(tp->speed >= 0.01 && tp->speed <= 1000))
				return bad("speed", optarg, "give a factor from 0.01 to 1000");
			break;
		case 'h':
			xlp_command_usage(cmd, stdout);
			return 1;
		default:
			return xlp_command_bad_option(cmd, c, argv);
		}
	}
	if (tp->replay && optind < argc)
		return xlp_command_bad_args(cmd, "give a domain or --replay FILE, not both");
	if (!tp->replay && optind + 1 != argc)
		return xlp_command_bad_args(cmd, optind >= argc ? "no domain given" :
					    "one domain only");
	tp->opt.domain = tp->replay ? NULL : argv[optind];
	return 0;
}

int xlp_cmd_top(int argc, char **argv)
{
	struct top tp;
	int rc;

	memset(&tp, 0, sizeof(tp));
	tp.opt.hz = UP_SAMPLER_DEFAULT_HZ;
	tp.opt.vcpu = -1;
	tp.opt.sampler_cpu = -1;
	tp.opt.max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH;
	tp.opt.unwinder = UP_UNWINDER_AUTO;
	tp.opt.quiet = true;
	tp.view.vcpu = -1;
	tp.view.rows = 20;
	tp.delay_s = 1;
	tp.speed = 1;
	tp.stop = &stop_requested;
	rc = parse(&tp, argc, argv);
	if (rc)
		return rc == 1 ? 0 : 2;
	/* A terminal that cannot take the screen gets the batch form. */
	if (!tp.batch && !xlp_term_usable())
		tp.batch = true;
	tp.view.keys = !tp.batch;
	xlp_live_stop_on_signals(&stop_requested);
	if (tp.replay)
		return xlp_top_replay(&tp);
	if (tk_libxl_open() < 0)
		return 1;
	rc = xlp_top_live(&tp);
	tk_libxl_close();
	return rc;
}
