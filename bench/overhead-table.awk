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
	r997 = kv(f[4], "p997"); b3 = kv(f[5], "base")
	r97n = kv(f[6], "p97normal"); b4 = kv(f[7], "base")
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
END {
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
	printf "\nGuest slowdown: the unikernel's own work rate (rounds/s), %s s phases:\n", phase
	printf "  no profiler        %10.1f %10.1f %10.1f %10.1f\n", b1, b2, b3, b4
	s97 = slow(r97, (b1 + b2) / 2)
	s997 = slow(r997, (b2 + b3) / 2)
	printf "  profiled at 97 Hz  %10.1f   slowdown %5.2f%%\n", r97, s97
	printf "  profiled at 997 Hz %10.1f   slowdown %5.2f%%\n", r997, s997
	if (idx["slow-97"])
		printf "  (time paused at 97 Hz by the p50 pause alone: %.2f%%; at 997 Hz: %.2f%%)\n",
			97 * p50[idx["slow-97"]] / 1e4, (idx["slow-997"] ? 997 * p50[idx["slow-997"]] / 1e4 : 0)
	s97n = slow(r97n, (b3 + b4) / 2)
	printf "  97 Hz, --no-realtime %8.1f   slowdown %5.2f%%\n", r97n, s97n
	printf "\nStart-up (symbols and unwind tables, until the first sample) and peak memory:\n"
	printf "  test unikernel (%s functions)   %8.0f ms %8d KiB\n", fns["small"], setup["small"], rss["small"]
	printf "  generated image (%s functions) %8.0f ms %8d KiB\n", fns["big"], setup["big"], rss["big"]
	printf "  the same, whole 'xl profile -1' run  %8.0f ms\n", big_once
	r = idx["fp-direct"] ? xtrace_us / p50[idx["fp-direct"]] : 0
	printf "\nGoals: pause p50 >= 100x below xenctx per trace: %.0fx (%s); slowdown at 97 Hz < 1%%: %.2f%% (%s)\n",
		r, (r >= 100 ? "met" : "not met"), s97, (s97 >= 0 && s97 < 1 ? "met" : "not met")
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
		printf "  \"work_rate\": {\"base\": [%s, %s, %s, %s], \"hz97\": %s, \"hz997\": %s, \"hz97_no_realtime\": %s},\n", b1 + 0, b2 + 0, b3 + 0, b4 + 0, r97 + 0, r997 + 0, r97n + 0 > json
		printf "  \"slowdown_pct\": {\"hz97\": %.3f, \"hz997\": %.3f, \"hz97_no_realtime\": %.3f},\n", s97, s997, s97n > json
		printf "  \"startup\": {\"small\": {\"functions\": %d, \"setup_ms\": %.1f, \"peak_rss_kib\": %d},\n", fns["small"], setup["small"], rss["small"] > json
		printf "              \"big\": {\"functions\": %d, \"setup_ms\": %.1f, \"peak_rss_kib\": %d, \"once_ms\": %d}}\n}\n", fns["big"], setup["big"], rss["big"], big_once > json
	}
}
