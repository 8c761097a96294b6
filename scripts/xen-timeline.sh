#!/bin/sh
# Draw Xen's own record of a profiled guest as an SVG timeline: what each
# physical CPU ran (the guest, dom0's vCPUs, idle), the guest's run state
# (running, runnable, blocked, paused by us) and every pause the sampler
# asked for. The input is a trace xentrace wrote in dom0, e.g.
#   xentrace -D -e 0x00029000 -S 256 -T 3 /tmp/t.bin
# (scheduler events without the scheduler's own detail) while xl profile
# ran; xenalyze (Debian's xen-utils, from build/cache by default) decodes it.
# docs/IO-GUESTS.md shows and explains two such pictures.
#
# Usage: scripts/xen-timeline.sh [-m MHZ] [-d DOMID] [-f FROM_S] [-t TO_S]
#                                [-T TITLE] TRACE > timeline.svg
#   -m MHZ    the TSC's frequency, as `xl info` gives cpu_mhz (default 2445.4,
#             QEMU's here)
#   -d DOMID  the guest (default: the first domain other than dom0 and idle)
#   -f, -t    the window, seconds from the trace's start (default 1.0 to 1.1)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mhz=2445.4 dom= from=1.0 to=1.1 title=
while getopts m:d:f:t:T:h opt; do
	case $opt in
	m) mhz=$OPTARG ;;
	d) dom=$OPTARG ;;
	f) from=$OPTARG ;;
	t) to=$OPTARG ;;
	T) title=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] && [ -f "$1" ] || { echo "xen-timeline: give one xentrace file (see --help)" >&2; exit 2; }
xa=${XENALYZE:-$top/build/cache/xen-vm/root/usr/bin/xenalyze}
[ -x "$xa" ] || xa=$(command -v xenalyze) ||
	{ echo "xen-timeline: no xenalyze: run scripts/xen-run.sh once (it fetches Debian's Xen tools) or set XENALYZE" >&2; exit 1; }
libs=$(dirname "$(dirname "$xa")")/lib/x86_64-linux-gnu
LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$xa" --cpu-hz="${mhz}M" -a "$1" 2>/dev/null |
awk -v dom="$dom" -v from="$from" -v to="$to" -v title="$title" '
# Lines: "   1.234567890 .x| d0v1 runstate_change d1v0 runnable->running":
# time, one mark per pCPU (x: the pCPU that wrote it), the vCPU current
# there, the event.
function pcpu_of(m,    i) { for (i = 1; i <= length(m); i++) if (substr(m, i, 1) == "x") return i - 1; return -1 }
function x(t) { return left + (t - from) / (to - from) * width }
# Each lane is drawn a pixel column at a time, in the colour that held
# most of the time in that column, runs of one colour as one bar: a window
# of seconds would otherwise hold hundreds of thousands of bars.
function acc(lane, t0, t1, color,    c, c0, c1, a, b) {
	if (t1 <= from || t0 >= to) return
	if (t0 < from) t0 = from
	if (t1 > to) t1 = to
	c0 = int((t0 - from) / (to - from) * width)
	c1 = int((t1 - from) / (to - from) * width)
	if (c1 >= width) c1 = width - 1
	for (c = c0; c <= c1; c++) {
		a = from + (to - from) * c / width; b = from + (to - from) * (c + 1) / width
		if (a < t0) a = t0
		if (b > t1) b = t1
		if (b > a) { cell[lane, c, color] += b - a; colors[color] = 1 }
	}
}
function draw(lane, y, h,    c, best, bt, col, run0, runc) {
	runc = ""
	for (c = 0; c <= width; c++) {
		best = ""; bt = 0
		if (c < width)
			for (col in colors)
				if (cell[lane, c, col] > bt) { bt = cell[lane, c, col]; best = col }
		if (best != runc) {
			if (runc != "")
				printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%.3f-%.3f ms</title></rect>\n", left + run0, y, c - run0, h, runc, (to - from) * 1e3 * run0 / width, (to - from) * 1e3 * c / width
			runc = best; run0 = c
		}
	}
}
$3 ~ /^d[0-9?]+v[0-9?]+$/ && $1 ~ /^[0-9.]+$/ {
	t = $1 + 0
	if ($4 == "runstate_change" || $4 == "runstate_continue") {
		v = $5; split($6, st, "->")
		d = v; sub(/^d/, "", d); sub(/v.*/, "", d)
		if (dom == "" && d != 0 && d != 32767 && d != 32768) dom = d
		p = pcpu_of($2)
		if (p + 1 > npcpu) npcpu = p + 1
		if (st[1] == st[2]) next     # runstate_continue: it runs on
		# Any vCPU: where it ran; the guest: every state.
		if (st[1] == "running" && (v in run_at)) {
			n = nr[run_on[v]]++; rv[run_on[v], n] = v; r0[run_on[v], n] = run_at[v]; r1[run_on[v], n] = t
			delete run_at[v]
		}
		if (st[2] == "running") { run_on[v] = p; run_at[v] = t }
		if (v ~ ("^d" dom "v")) {
			if (v in gs) { k = ng++; gv[k] = v; gst[k] = gs[v]; g0[k] = gt[v]; g1[k] = t }
			gs[v] = st[2]; gt[v] = t
		}
	} else if ($4 == "vcpu_sleep" && $5 ~ ("^d" dom "v")) {
		# A pause of ours (domain pause, then the register read):
		# the first of a burst is the sample.
		if (t - last_sleep > 0.0005) ps[np++] = t
		last_sleep = t
	}
	if (t > tmax) tmax = t
}
END {
	left = 150; width = 1000; lane = 22
	ylanes = 50; H = ylanes + (npcpu + 2) * (lane + 8) + 70
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", left + width + 30, H
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	gsub(/&/, "\\&amp;", title); gsub(/</, "\\&lt;", title)
	printf "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", title
	printf "<text x=\"10\" y=\"38\" fill=\"#555\">%.1f ms of Xen'"'"'s trace from %.3f s; guest d%s; red: the guest runs, blue: dom0, orange: the guest waits for a pCPU (runnable), grey: blocked, black: paused by the sampler</text>\n", (to - from) * 1e3, from, dom
	# Open intervals end at the trace'"'"'s end.
	for (v in run_at) { n = nr[run_on[v]]++; rv[run_on[v], n] = v; r0[run_on[v], n] = run_at[v]; r1[run_on[v], n] = tmax }
	for (v in gs) { k = ng++; gv[k] = v; gst[k] = gs[v]; g0[k] = gt[v]; g1[k] = tmax }
	for (p = 0; p < npcpu; p++) {
		y = ylanes + p * (lane + 8)
		printf "<text x=\"10\" y=\"%d\">pCPU %d</text>\n", y + 15, p
		printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n", left, y, width, lane
		for (i = 0; i < nr[p]; i++) {
			v = rv[p, i]
			if (v ~ /^d3276[78]v/) continue
			c = v ~ ("^d" dom "v") ? "#d62728" : (v ~ /^d0v0$/ ? "#1f77b4" : (v ~ /^d0v/ ? "#6baed6" : "#9467bd"))
			acc("p" p, r0[p, i], r1[p, i], c)
		}
		draw("p" p, y, lane)
	}
	y = ylanes + npcpu * (lane + 8)
	printf "<text x=\"10\" y=\"%d\">guest run state</text>\n", y + 15
	for (k = 0; k < ng; k++) {
		s = gst[k]
		c = s == "running" ? "#d62728" : s == "runnable" ? "#ff9f1c" : s == "blocked" ? "#d9d9d9" : "#000000"
		acc("g", g0[k], g1[k], c)
	}
	draw("g", y, lane)
	y += lane + 8
	printf "<text x=\"10\" y=\"%d\">sampler pauses</text>\n", y + 15
	for (i = 0; i < np; i++)
		if (ps[i] >= from && ps[i] <= to)
			printf "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"black\" stroke-width=\"%s\"><title>pause at %.3f ms</title></line>\n", x(ps[i]), y, x(ps[i]), y + lane, (to - from > 0.3 ? 1 : 2), (ps[i] - from) * 1e3
	# The time axis, in milliseconds of the window.
	y += lane + 18
	for (i = 0; i <= 10; i++) {
		t = from + (to - from) * i / 10
		printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%.0f ms</text>\n", x(t), y - 8, x(t), y - 2, x(t), y + 12, (t - from) * 1e3
	}
	print "</svg>"
}'
