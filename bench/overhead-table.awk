# Turn overhead-job.sh's "key value" lines into the overhead table (stdout)
# and a JSON file (-v json=PATH).
function kv(s, k,    i) {
	i = index(" " s " ", " " k "=")
	if (!i)
		return ""
	s = substr(s " ", i + length(k) + 1)
	return substr(s, 1, index(s, " ") - 1)
}
function slow(r, b) { return b > 0 ? 100 * (1 - r / b) : -1 }
# " NAME x.xx": relaxed over paused stall per sample, rounds averaged.
function ratio_line(name, r1, p1, r2, p2,    r, p) {
	if (!(r1 in st_per) || !(p1 in st_per))
		return
	r = st_per[r1]; p = st_per[p1]
	if (r2 != "" && (r2 in st_per) && (p2 in st_per)) { r = (r + st_per[r2]) / 2; p = (p + st_per[p2]) / 2 }
	if (p <= 0)
		return
	stall_ratio[name] = r / p
	printf " %s %.2f;", name, r / p
}
{ rest = substr($0, length($1) + 2) }
$1 == "xen" { xen = $2 }
$1 == "phase_s" { phase = $2 }
$1 == "depth" { depth = $2 }
$1 == "pause" {
	n++
	label[n] = $2
	p50[n] = kv(rest, "p50"); p99[n] = kv(rest, "p99"); pmax[n] = kv(rest, "max")
	samples[n] = kv(rest, "samples"); path[n] = kv(rest, "path")
	idx[$2] = n
}
$1 == "rate" {
	split(rest, f, " ")
	b1 = kv(f[1], "base"); r97 = kv(f[2], "p97"); b2 = kv(f[3], "base")
	q97 = kv(f[4], "q97"); b3 = kv(f[5], "base")
	r997 = kv(f[6], "p997"); b4 = kv(f[7], "base")
	q997 = kv(f[8], "q997"); b5 = kv(f[9], "base")
	r97n = kv(f[10], "p97normal"); b6 = kv(f[11], "base")
}
$1 == "split" {
	sp[$2] = 1
	for (i = 3; i <= NF; i++) { split($i, kvp, "="); spv[$2, kvp[1]] = kvp[2] }
}
$1 == "vcpu_stall" { vst[$2] = substr(rest, length($2) + 2) }
$1 == "stall" {
	ns++
	st_label[ns] = $2
	st_ms[ns] = kv(rest, "ms"); st_loops[ns] = kv(rest, "loops")
	st_gap[ns] = kv(rest, "gap_us"); st_hz[ns] = kv(rest, "hz"); st_mode[ns] = kv(rest, "mode")
}
$1 == "xenctx_frames" { xframes = $2 }
$1 == "xenctx" { xtraces = kv(rest, "traces"); xms = kv(rest, "ms") }
$1 == "vcpu1_share" { vcpu1 = $2 }
$1 == "note" { notes = notes "  " rest "\n" }
$1 == "big_once" { big_once = kv(rest, "ms") }
$1 == "big" || $1 == "small" {
	setup[$1] = kv(rest, "setup_ms"); rss[$1] = kv(rest, "rss_kib"); fns[$1] = kv(rest, "functions")
}
$1 == "error" { errors = errors "  " rest "\n" }
$1 == "fleet" && $2 == "floor" { fl_floor_cpu = kv(rest, "cpu_us"); next }
$1 == "fleet" && $2 == "base" { fl_rss0 = kv(rest, "rss_kib"); fl_idle = kv(rest, "cpu_pct"); next }
$1 == "fleet" && $2 == "serving" { next }
$1 == "fleet" && $2 ~ /^startup_/ { nsu++; su_name[nsu] = substr($2, 9); su[nsu] = rest; next }
$1 == "fleet" { nfl++; fl[nfl] = rest }
# "floor KIND r=N k=v...": bench/floor-job.sh, one measure of one round.
$1 == "floor" {
	r = kv(rest, "r")
	if (r > fl_rounds) fl_rounds = r
	nkv = split(rest, f, " ")
	for (i = 2; i <= nkv; i++) { split(f[i], kvp, "="); flv[$2, r, kvp[1]] = kvp[2] }
}
function fv(kind, r, k) { return flv[kind, r, k] + 0 }
# A reference measured before and after uniprof's run (KIND and KIND2, or
# KIND and KINDb): their mean, or the one there is.
function fb(kind, kind2, r, k,    a, b) {
	a = fv(kind, r, k); b = fv(kind2, r, k)
	return a > 0 && b > 0 ? (a + b) / 2 : a > 0 ? a : b
}
# Per-sample time of a profile run: its duration over its samples.
function per_sample(kind, r) { return fv(kind, r, "samples") > 0 ? 1e6 * fv(kind, r, "duration_s") / fv(kind, r, "samples") : 0 }
# Relaxed over paused stall per sample, the profiler's own count.
function stall_per(kind, r) { return fv(kind, r, "samples") > 0 ? fv(kind, r, "stall_pct") * fv(kind, r, "duration_s") / fv(kind, r, "samples") : 0 }
function ratio(a, b) { return b > 0 ? a / b : -1 }
# The median of the rounds' ratios of one measure (those measured).
function floor_median(key,    r, m, v, i, j, t) {
	m = 0
	for (r = 1; r <= fl_rounds; r++)
		if (fl_ratio[key, r] >= 0) v[++m] = fl_ratio[key, r]
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return m ? (m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2) : -1
}
# One row: a measure's ratio in every round, their median and worst, and
# the goal, judged by the median (a round is seconds of an emulator whose
# speed drifts; the worst is shown beside it).
function floor_row(name, key, goal,    r, v, w, line) {
	line = ""; w = -1
	for (r = 1; r <= fl_rounds; r++) {
		v = fl_ratio[key, r]
		line = line sprintf(" %5.2f", v)
		if (v > w) w = v
	}
	fl_med[key] = floor_median(key)
	fl_worst[key] = w
	printf "  %-56s%s | %5.2f %5.2f  <= %.2f %s\n", name, line, fl_med[key], w, goal,
		(fl_med[key] >= 0 && fl_med[key] <= goal ? "met" : "not met")
}
function floor_table(    r) {
	for (r = 1; r <= fl_rounds; r++) {
		fl_ratio["p50_97", r] = ratio(fv("uniprof97", r, "p50_us"), fb("paced", "paced2", r, "window_p50_us"))
		fl_ratio["p99_97", r] = ratio(fv("uniprof97", r, "p99_us"), fb("paced", "paced2", r, "window_p99_us"))
		fl_ratio["p50_max", r] = ratio(fv("uniprofmax", r, "p50_us"), fb("warm", "warm2", r, "window_p50_us"))
		# The 2017 uniprof itself when the bench was given it, else the
		# same loop done its way.
		fl_u2017[r] = fb("u2017real", "u2017realb", r, "sample_us") > 0 ? fb("u2017real", "u2017realb", r, "sample_us") : fb("u2017", "u2017b", r, "sample_us")
		fl_ratio["sample_max", r] = ratio(per_sample("uniprofmax", r), fl_u2017[r])
		# The same on a guest Xen places where it likes (suffix _u).
		fl_ratio["p50_max_u", r] = ratio(fv("uniprofmax_u", r, "p50_us"), fb("warm_u", "warm2_u", r, "window_p50_us"))
		fl_u2017u[r] = fb("u2017real_u", "u2017realb_u", r, "sample_us") > 0 ? fb("u2017real_u", "u2017realb_u", r, "sample_us") : fb("u2017_u", "u2017b_u", r, "sample_us")
		fl_ratio["sample_max_u", r] = ratio(per_sample("uniprofmax_u", r), fl_u2017u[r])
		fl_ratio["relaxed", r] = ratio(stall_per("relaxed97", r), stall_per("uniprof97", r))
	}
	printf "Against the floor (same boot, same guest; %d rounds, each measuring everything once):\n", fl_rounds
	printf "  %-56s", "ratio"
	for (r = 1; r <= fl_rounds; r++) printf " %5s", "r" r
	printf " | %5s %5s  goal (median)\n", "med", "worst"
	floor_row("pause p50 at 97 Hz / paced floor p50", "p50_97", 1.0)
	floor_row("pause p99 at 97 Hz / paced floor p99", "p99_97", 1.5)
	floor_row("pause p50 at the highest rate / warm floor p50", "p50_max", 1.05)
	floor_row("one sample at the highest rate / 2017 uniprof's", "sample_max", 0.8)
	floor_row("  the same, guest not pinned: pause / warm floor", "p50_max_u", 1.05)
	floor_row("  the same, guest not pinned: sample / 2017 uniprof's", "sample_max_u", 0.8)
	floor_row("relaxed stall per sample / paused's (97 Hz, own count)", "relaxed", 0.4)
	printf "  %-58s", "the figures (us): floor paced p50/p99"
	for (r = 1; r <= fl_rounds; r++) printf "  %.0f/%.0f", fb("paced", "paced2", r, "window_p50_us"), fb("paced", "paced2", r, "window_p99_us")
	printf "\n  %-58s", "  uniprof 97 Hz p50/p99"
	for (r = 1; r <= fl_rounds; r++) printf "  %.0f/%.0f", fv("uniprof97", r, "p50_us"), fv("uniprof97", r, "p99_us")
	printf "\n  %-58s", "  warm floor p50, fused floor p50"
	for (r = 1; r <= fl_rounds; r++) printf "  %.0f, %.0f", fb("warm", "warm2", r, "window_p50_us"), fv("fused", r, "window_p50_us")
	printf "\n  %-58s", "  uniprof highest rate p50, per sample (rate)"
	for (r = 1; r <= fl_rounds; r++) printf "  %.0f, %.0f (%.0f Hz)", fv("uniprofmax", r, "p50_us"), per_sample("uniprofmax", r), (per_sample("uniprofmax", r) > 0 ? 1e6 / per_sample("uniprofmax", r) : 0)
	printf "\n  %-58s", "  2017 uniprof per sample: itself, its loop; warm floor"
	for (r = 1; r <= fl_rounds; r++) printf "  %s, %.0f; %.0f", (fb("u2017real", "u2017realb", r, "sample_us") > 0 ? sprintf("%.0f", fb("u2017real", "u2017realb", r, "sample_us")) : "-"), fb("u2017", "u2017b", r, "sample_us"), fb("warm", "warm2", r, "sample_us")
	printf "\n  %-58s", "  not pinned: uniprof p50, per sample; 2017 per sample"
	for (r = 1; r <= fl_rounds; r++) printf "  %.0f, %.0f; %.0f", fv("uniprofmax_u", r, "p50_us"), per_sample("uniprofmax_u", r), fl_u2017u[r]
	printf "\n  %-58s", "  stall per sample paused / relaxed"
	for (r = 1; r <= fl_rounds; r++) printf "  %.0f / %.0f", 1e4 * stall_per("uniprof97", r), 1e4 * stall_per("relaxed97", r)
	printf "\n"
}
END {
	if (fl_rounds)
		floor_table()
	if (!n && !nfl) {
		if (errors != "")
			printf "\nMeasurements that failed:\n%s", errors
		if (json != "")
			floor_json()
		exit
	}
	if (fl_rounds)
		printf "\n"
	names["fp-direct"] = "PV, frame pointers, direct domctl"
	names["fp-libxenctrl"] = "PV, frame pointers, libxenctrl"
	names["cfi-direct"] = "PV, CFI table, direct domctl"
	names["cfi-libxenctrl"] = "PV, CFI table, libxenctrl"
	names["fp-2vcpu"] = "PV, 2 vCPUs, frame pointers, direct"
	names["pvh-fp-direct"] = "PVH, frame pointers, direct domctl"
	names["pvh-fp-libxenctrl"] = "PVH, frame pointers, libxenctrl"
	names["slow-97"] = "PV, frame pointers, 97 Hz (slowdown run)"
	names["slow-997"] = "PV, frame pointers, 997 Hz (slowdown run)"
	names["slow-97-normal"] = "PV, FP, 97 Hz, --no-realtime (slowdown run)"
	xtrace_us = xtraces > 0 ? 1000 * xms / xtraces : 0
	printf "uniprof overhead on Xen %s under QEMU TCG (one boot; compare ratios, not absolute times)\n\n", xen
	printf "Pause per sample, domain paused to unpaused (stack depth %s frames):\n", depth
	printf "  %-50s %8s %8s %8s %8s %10s\n", "run", "p50 us", "p99 us", "max us", "samples", "xenctx/p50"
	for (i = 1; i <= n; i++) {
		nm = label[i] in names ? names[label[i]] : label[i]
		if (label[i] == "fp-2vcpu" && vcpu1 != "")
			nm = nm " (vCPU 1: " vcpu1 "%)"
		if (label[i] == "big" || label[i] == "small")
			continue
		printf "  %-50s %8d %8d %8d %8d %9.0fx\n", nm, p50[i], p99[i], pmax[i], samples[i],
			(p50[i] > 0 ? xtrace_us / p50[i] : 0)
	}
	printf "  %-50s %8.0f   (%d traces of %s frames, process start and symbols included)\n",
		"xenctx -f, per trace", xtrace_us, xtraces, xframes
	printf "\nGuest slowdown: the unikernel's own work rate (rounds/s), %s s phases, each between two unprofiled ones:\n", phase
	printf "  no profiler        %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", b1, b2, b3, b4, b5, b6
	s97 = slow(r97, (b1 + b2) / 2)
	t97 = slow(q97, (b2 + b3) / 2)
	s997 = slow(r997, (b3 + b4) / 2)
	t997 = slow(q997, (b4 + b5) / 2)
	printf "  97 Hz, paused      %10.1f   slowdown %5.2f%%\n", r97, s97
	printf "  97 Hz, relaxed     %10.1f   slowdown %5.2f%%\n", q97, t97
	printf "  997 Hz, paused     %10.1f   slowdown %5.2f%%\n", r997, s997
	printf "  997 Hz, relaxed    %10.1f   slowdown %5.2f%%\n", q997, t997
	if (idx["slow-97"])
		printf "  (time paused at 97 Hz by the p50 pause alone: %.2f%%; at 997 Hz: %.2f%%)\n",
			97 * p50[idx["slow-97"]] / 1e4, (idx["slow-997"] ? 997 * p50[idx["slow-997"]] / 1e4 : 0)
	s97n = slow(r97n, (b5 + b6) / 2)
	printf "  97 Hz, paused, --no-realtime %8.1f   slowdown %5.2f%%\n", r97n, s97n
	# The stall meter: each profiled phase against the mean of the
	# unprofiled phases around it.
	if (ns) {
		printf "\nStall the guest felt (its own clock read in a tight loop: gaps >= 5 us, less the unprofiled rate), %s s phases:\n", phase
		printf "  %-24s %9s %12s %12s %12s\n", "phase", "samples/s", "us/sample", "stood still", "loop rate"
	}
	for (i = 1; i <= ns; i++) {
		if (st_mode[i] == "none")
			continue
		bg = 0; bl = 0; nb = 0
		for (j = i - 1; j >= 1; j--) if (st_mode[j] == "none") { bg += st_gap[j] / st_ms[j]; bl += st_loops[j] / st_ms[j]; nb++; break }
		for (j = i + 1; j <= ns; j++) if (st_mode[j] == "none") { bg += st_gap[j] / st_ms[j]; bl += st_loops[j] / st_ms[j]; nb++; break }
		if (!nb || st_ms[i] <= 0 || st_hz[i] <= 0)
			continue
		bg /= nb; bl /= nb
		extra = st_gap[i] / st_ms[i] - bg          # us of stall per ms
		st_per[st_label[i]] = 1000 * extra / st_hz[i]
		st_share[st_label[i]] = extra / 10
		st_loop[st_label[i]] = bl > 0 ? 100 * (st_loops[i] / st_ms[i] / bl - 1) : 0
		printf "  %-24s %9.1f %10.0f us %11.2f%% %+11.2f%%\n", st_label[i], st_hz[i],
			st_per[st_label[i]], st_share[st_label[i]], st_loop[st_label[i]]
	}
	if (ns) {
		printf "  relaxed / paused, stall per sample:"
		ratio_line("PV 97 Hz", "pv-relaxed-97-1", "pv-paused-97-1", "pv-relaxed-97-2", "pv-paused-97-2")
		ratio_line("PV 997 Hz", "pv-relaxed-997", "pv-paused-997")
		ratio_line("PVH 97 Hz", "pvh-relaxed-97", "pvh-paused-97")
		printf "\n"
	}
	if (("fp-2vcpu" in vst) && ("fp-2vcpu-relaxed" in vst))
		printf "  2 vCPUs, 97 Hz, share of the run each vCPU stood still (the profiler's count; relaxed: its register reads): paused %s, relaxed %s\n",
			vst["fp-2vcpu"], vst["fp-2vcpu-relaxed"]
	nsp = split("slow-97:relaxed-97 slow-997:relaxed-997 cfi-direct:cfi-relaxed pvh-fp-direct:pvh-fp-relaxed fp-2vcpu:fp-2vcpu-relaxed", pairs, " ")
	printf "\nSplit (leaf %% of samples, paused / relaxed, one run after the other on one guest) and whole stacks:\n"
	for (i = 1; i <= nsp; i++) {
		split(pairs[i], pr, ":")
		if (!(pr[1] in sp) || !(pr[2] in sp))
			continue
		d = 0
		line = ""
		nl = split("chain hot35 hot15 ap80", leaves, " ")
		for (j = 1; j <= nl; j++) {
			a = spv[pr[1], leaves[j]]; b = spv[pr[2], leaves[j]]
			if (a == "" || b == "")
				continue
			line = line sprintf(" %s %.1f/%.1f", leaves[j], a, b)
			if (a - b > d) d = a - b
			if (b - a > d) d = b - a
		}
		split_diff[pr[2]] = d
		printf "  %-15s%s; largest difference %.1f points; whole %s%%/%s%%; relaxed: %d exact, %d verified, %d walked again, %d dropped of %d stacks\n",
			pr[2], line, d, spv[pr[1], "complete"], spv[pr[2], "complete"], spv[pr[2], "exact"],
			spv[pr[2], "verified"], spv[pr[2], "again"], spv[pr[2], "dropped"], spv[pr[2], "stacks"]
	}
	printf "\nStart-up (symbols and unwind tables, until the first sample) and peak memory:\n"
	printf "  test unikernel (%s functions)   %8.0f ms %8d KiB\n", fns["small"], setup["small"], rss["small"]
	printf "  generated image (%s functions) %8.0f ms %8d KiB\n", fns["big"], setup["big"], rss["big"]
	printf "  the same, whole 'xl profile -1' run  %8.0f ms\n", big_once
	r = idx["fp-direct"] ? xtrace_us / p50[idx["fp-direct"]] : 0
	printf "\nGoals: pause p50 >= 100x below xenctx per trace: %.0fx (%s); slowdown at 97 Hz < 1%%: %.2f%% (%s)\n",
		r, (r >= 100 ? "met" : "not met"), s97, (s97 >= 0 && s97 < 1 ? "met" : "not met")
	if ("PV 97 Hz" in stall_ratio)
		printf "Relaxed: stall per sample <= 0.5x paused (PV, 97 Hz): %.2fx (%s); slowdown at 97 Hz <= 0.5x paused: %.2f%% vs %.2f%% (%s)\n",
			stall_ratio["PV 97 Hz"], (stall_ratio["PV 97 Hz"] <= 0.5 ? "met" : "not met"), t97, s97,
			(t97 <= 0.5 * s97 ? "met" : "not met")
	if (nfl) {
		printf "\nuniprofd over a fleet, at its defaults (each domain pushed every 10 s at 19 Hz; CPU budget 10%%):\n"
		printf "  %15s %10s %10s %16s %16s %18s %14s %26s %16s %8s %14s\n", "domains", "CPU (%)", "guards (%)", "CPU/sample (us)", "/ floor (its us)", "less idle / floor", "RSS/domain", "guest paused % (mean/max)", "sent (dropped)", "scale", "faults/sample"
		for (i = 1; i <= nfl; i++) {
			w = kv(fl[i], "window_ms") > 0 ? kv(fl[i], "window_ms") : 30000
			# The floor measured beside this fleet, else the boot's.
			flf = kv(fl[i], "floor_cpu_us") > 0 ? kv(fl[i], "floor_cpu_us") : fl_floor_cpu
			# The daemon's and its crash guards' CPU, per sample.
			c = kv(fl[i], "samples") > 0 ? (kv(fl[i], "cpu_pct") + kv(fl[i], "guard_cpu_pct")) / 100 * w * 1000 / kv(fl[i], "samples") : 0
			# Less the daemon's idle CPU: what each sample added.
			m = kv(fl[i], "samples") > 0 ? (kv(fl[i], "cpu_pct") + kv(fl[i], "guard_cpu_pct") - fl_idle) / 100 * w * 1000 / kv(fl[i], "samples") : 0
			printf "  %15s %10s %10s %16.0f %16s %18s %14s %26s %16s %8s %14s\n", kv(fl[i], "domains") (kv(fl[i], "build") == "before" ? " before" : ""), kv(fl[i], "cpu_pct"),
				kv(fl[i], "guard_cpu_pct") " (" kv(fl[i], "guards") ")",
				c, (flf > 0 && c > 0 ? sprintf("%.2f (%.0f)", c / flf, flf) : "?"),
				(flf > 0 && m > 0 ? sprintf("%.2f", m / flf) : "?"),
				kv(fl[i], "rss_kib_per_domain") " KiB",
				kv(fl[i], "paused_pct_mean") " / " kv(fl[i], "paused_pct_max"),
				kv(fl[i], "sent") " (" kv(fl[i], "dropped") ")", kv(fl[i], "rate_scale"),
				(kv(fl[i], "samples") > 0 && kv(fl[i], "minflt") != "" ? sprintf("%.1f", kv(fl[i], "minflt") / kv(fl[i], "samples")) : "?")
		}
		printf "  The floor (Xen's interfaces only, paced at 19 Hz): %s us of dom0 CPU per sample at the start, and beside each fleet (in brackets); the daemon with nothing to push: %s KiB resident, %s %% of a CPU.\n", fl_floor_cpu, fl_rss0, fl_idle
		printf "  CPU per sample counts the daemon and its crash guards (one process per domain profiled; \"guards\": their CPU and count).\n"
		printf "  Goal: CPU per sample <= 1.2x the floor's\n"
		for (i = 1; i <= nsu; i++)
			printf "  Start-up in dom0, generated 100,000-function image (%s): %s ms, %s KiB peak (goal: 150 ms)\n",
				(su_name[i] == "big-lines" ? "with DWARF" : "symbols only"), kv(su[i], "setup_ms"), kv(su[i], "rss_kib")
	}
	if (notes != "")
		printf "\nNotes:\n%s", notes
	if (errors != "")
		printf "\nMeasurements that failed:\n%s", errors
	if (json != "") {
		printf "{\n  \"xen\": \"%s\",\n  \"stack_depth\": %d,\n  \"pause_us\": {\n", xen, depth > json
		for (i = 1; i <= n; i++)
			printf "    \"%s\": {\"p50\": %d, \"p99\": %d, \"max\": %d, \"samples\": %d, \"hypercalls\": \"%s\"}%s\n",
				label[i], p50[i], p99[i], pmax[i], samples[i], path[i], (i < n ? "," : "") > json
		printf "  },\n  \"xenctx_trace_us\": %.0f,\n  \"xenctx_over_pause_p50\": %.1f,\n", xtrace_us, r > json
		printf "  \"work_rate\": {\"base\": [%s, %s, %s, %s, %s, %s], \"hz97\": %s, \"hz97_relaxed\": %s, \"hz997\": %s, \"hz997_relaxed\": %s, \"hz97_no_realtime\": %s},\n", b1 + 0, b2 + 0, b3 + 0, b4 + 0, b5 + 0, b6 + 0, r97 + 0, q97 + 0, r997 + 0, q997 + 0, r97n + 0 > json
		printf "  \"slowdown_pct\": {\"hz97\": %.3f, \"hz97_relaxed\": %.3f, \"hz997\": %.3f, \"hz997_relaxed\": %.3f, \"hz97_no_realtime\": %.3f},\n", s97, t97, s997, t997, s97n > json
		printf "  \"stall_per_sample_us\": {" > json
		sep = ""
		for (k in st_per) { printf "%s\"%s\": %.1f", sep, k, st_per[k] > json; sep = ", " }
		printf "},\n  \"stall_ratio_relaxed_over_paused\": {" > json
		sep = ""
		for (k in stall_ratio) { printf "%s\"%s\": %.3f", sep, k, stall_ratio[k] > json; sep = ", " }
		printf "},\n  \"split_largest_difference_points\": {" > json
		sep = ""
		for (k in split_diff) { printf "%s\"%s\": %.2f", sep, k, split_diff[k] > json; sep = ", " }
		printf "},\n" > json
		printf "  \"startup\": {\"small\": {\"functions\": %d, \"setup_ms\": %.1f, \"peak_rss_kib\": %d},\n", fns["small"], setup["small"], rss["small"] > json
		printf "              \"big\": {\"functions\": %d, \"setup_ms\": %.1f, \"peak_rss_kib\": %d, \"once_ms\": %d}},\n", fns["big"], setup["big"], rss["big"], big_once > json
		printf "  \"fleet\": [" > json
		for (i = 1; i <= nfl; i++)
			printf "%s{\"domains\": %d, \"build\": \"%s\", \"daemon_cpu_pct\": %s, \"guard_cpu_pct\": %s, \"cpu_us_per_sample\": %s, \"floor_cpu_us_per_sample\": %s, \"rss_kib_per_domain\": %s, \"guest_paused_pct_mean\": %s, \"guest_paused_pct_max\": %s, \"sent\": %d, \"dropped\": %d, \"rate_scale\": %s}", (i > 1 ? ", " : ""), kv(fl[i], "domains"), kv(fl[i], "build"), kv(fl[i], "cpu_pct") + 0, kv(fl[i], "guard_cpu_pct") + 0, kv(fl[i], "cpu_us_per_sample") + 0, (kv(fl[i], "floor_cpu_us") > 0 ? kv(fl[i], "floor_cpu_us") : fl_floor_cpu) + 0, kv(fl[i], "rss_kib_per_domain") + 0, kv(fl[i], "paused_pct_mean") + 0, kv(fl[i], "paused_pct_max") + 0, kv(fl[i], "sent"), kv(fl[i], "dropped"), kv(fl[i], "rate_scale") + 0 > json
		printf "],\n" > json
		floor_json_body()
		printf "}\n" > json
	}
}
function floor_json_body(    k, r, sep) {
	printf "  \"against_floor\": {\"rounds\": %d, \"uniprof2017\": \"%s\"", fl_rounds, (fv("u2017real", 1, "sample_us") > 0 ? "itself" : "its loop (uniprof-floor --style uniprof2017)") > json
	split("p50_97 p99_97 p50_max sample_max relaxed p50_max_u sample_max_u", ks, " ")
	for (k = 1; k <= 7; k++) {
		printf ", \"%s\": [", ks[k] > json
		sep = ""
		for (r = 1; r <= fl_rounds; r++) { printf "%s%.3f", sep, fl_ratio[ks[k], r] > json; sep = ", " }
		printf "], \"%s_median\": %.3f", ks[k], fl_med[ks[k]] > json
	}
	printf "}\n" > json
}
function floor_json() {
	printf "{\n  \"xen\": \"%s\",\n", xen > json
	floor_json_body()
	printf "}\n" > json
}
