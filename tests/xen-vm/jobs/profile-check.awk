# Reads a folded profile of the test unikernel and prints, one per line:
#   samples N
#   complete PCT     -- samples whose stack is whole from its entry symbol
#                       (or the thread trampoline, tg_thread_starter)
#   vcpu1 PCT        -- samples from vCPU 1's chain (rooted at tg_ap_entry64,
#                       or tg_ap_start on AArch64)
#   leaf NAME PCT    -- share of NAME as the leaf, among the samples of its
#                       own vCPU's chain (vCPU 1's tg_ap_* or vCPU 0's)
#   idle PCT         -- samples of a blocked vCPU (under [idle])
#   waiting PCT      -- samples of a vCPU woken but not yet run (under
#                       [waiting]: runnable where it blocked)
#   busy N           -- samples of a busy vCPU
#   request NAME PCT -- the blocking workload: NAME's share of the busy
#                       samples in its two request leaves (60/40)
#   requests N       -- busy samples in those two leaves
#   idle_caller_ok PCT -- idle samples blocked in sched_op from tg_block
#   unseen N         -- samples' worth of CPU time no sample saw ([unseen]),
#                       not counted in the others
# When a stack is whole: docs/TESTING.md, "Whole stacks"; callee_ok says
# which calls the guest really makes.
function callee_ok(a, b,    n) {
	# The blocked vCPU's way into the hypervisor, frame by frame.
	if (b ~ /^hypercall_page \[sched_op\]/) return a == "hypercall2"
	if (a == "tg_block") return b == "hypercall"
	if (a !~ /^tg_/ || b !~ /^tg_/) return 1
	if (a == "tg_entry64") return b == "tg_main"
	if (a == "tg_start") return b == "tg_boot"           # AArch64
	if (a == "tg_boot") return b == "tg_main"
	if (a == "tg_main") return b == "tg_workload" || b == "tg_io_loop"
	# The dom0-driven workload, on its thread.
	if (a == "tg_thread_starter") return b == "tg_xs_thread"
	if (a == "tg_xs_thread") return b == "tg_xs_loop"
	if (a == "tg_xs_loop") return b == "tg_xs_read" || b == "tg_req_handle" || b == "tg_runstate" || b == "tg_running"
	if (a == "tg_xs_read") return b == "tg_xs_wait" || b == "tg_notify"
	if (a == "tg_xs_wait") return b == "tg_block_for"
	if (a == "tg_block_for") return b == "tg_block" || b == "tg_xen_time" || b == "tg_upcall"
	if (a == "tg_io_loop") return b == "tg_req_handle" || b == "tg_io_wait" || b == "tg_runstate"
	if (a == "tg_req_handle") return b == "tg_req_parse" || b == "tg_req_crc"
	if (a == "tg_io_wait") return b == "tg_sleep_until" || b == "tg_xen_time"
	if (a == "tg_sleep_until") return b == "tg_block" || b == "tg_xen_time" || b == "tg_upcall"
	if (a == "tg_workload" && b ~ /^tg_crash/) return b == "tg_crash_01"
	if (a == "tg_crash_01") return b == "tg_crash_02"
	if (a == "tg_crash_02") return b == "tg_panic"
	if (a == "tg_workload") return b == "tg_round"
	if (a == "tg_round") return b == "tg_chain_01" || b == "tg_hot_35" || b == "tg_hot_15" || b == "tg_trap_hot_15"
	# trap=1 (PVH): tg_hot_15 by the #BP handler, on its interrupt stack.
	if (a == "tg_trap_hot_15") return b == "tg_hvm_trap"
	if (a == "tg_hvm_trap") return b == "tg_hot_15"
	if (a ~ /^tg_chain_/) {
		n = substr(a, 10) + 0
		return b == sprintf("tg_chain_%02d", n + 1)
	}
	if (a == "tg_ap_entry64") return b == "tg_ap_main"
	if (a == "tg_ap_start") return b == "tg_ap_boot"     # AArch64
	if (a == "tg_ap_boot") return b == "tg_ap_main"
	if (a == "tg_ap_main") return b == "tg_ap_round"
	if (a == "tg_ap_round") return b == "tg_ap_mid" || b == "tg_ap_leaf_20"
	if (a == "tg_ap_mid") return b == "tg_ap_leaf_80"
	return 0
}
# CPU time no sample saw ([unseen]) is not a sample: counted apart.
/^\[unseen\] [0-9]+$/ { unseen += $NF; next }
{
	count = $NF
	stack = $0
	sub(/ [0-9]+$/, "", stack)
	n = split(stack, f, ";")
	# Calls inlined into a function are part of it here: the checks are
	# of real frames (tests/xl-plugin/pprof-go.test checks the inlined).
	m = 0
	for (i = 1; i <= n; i++)
		if (f[i] !~ / \(inlined\)$/) f[++m] = f[i]
	n = m
	total += count
	idle_stack = (f[1] == "[idle]")
	waiting_stack = (f[1] == "[waiting]")
	if (idle_stack || waiting_stack) {
		for (i = 1; i < n; i++) f[i] = f[i + 1]
		n--
	}
	if (idle_stack) {
		idle += count
		if (f[n] ~ /^hypercall_page \[sched_op\]/ && n > 3 && f[n - 3] == "tg_block")
			idle_ok += count
	} else if (waiting_stack) {
		waiting += count
	} else {
		busy += count
		if (f[n] == "tg_req_parse" || f[n] == "tg_req_crc") {
			req[f[n]] += count
			reqs += count
		}
	}
	ap = (f[1] == "tg_ap_entry64" || f[1] == "tg_ap_start")
	good = (f[1] == "tg_entry64" || f[1] == "tg_start" || f[1] == "tg_thread_starter" || ap)
	for (i = 1; i < n && good; i++)
		if (!callee_ok(f[i], f[i + 1])) good = 0
	if (good) complete += count
	# Neither whole nor marked cut: the first few, to show (stat's key
	# "other" prints them; a check failing on them names them).
	if (!good && f[1] != "[truncated]" && nother < 5)
		other[++nother] = $0
	group[ap] += count
	leaf[f[n]] += count
	leaf_group[f[n]] = ap
}
END {
	printf "samples %d\n", total
	printf "unseen %d\n", unseen
	if (total == 0) exit
	printf "complete %.2f\n", 100 * complete / total
	for (i = 1; i <= nother; i++)
		printf "other %d %s\n", i, other[i]
	printf "vcpu1 %.2f\n", 100 * group[1] / total
	printf "idle %.2f\n", 100 * idle / total
	printf "waiting %.2f\n", 100 * waiting / total
	printf "busy %d\n", busy
	printf "requests %d\n", reqs
	if (reqs) for (r in req) printf "request %s %.2f\n", r, 100 * req[r] / reqs
	if (idle) printf "idle_caller_ok %.2f\n", 100 * idle_ok / idle
	for (l in leaf) printf "leaf %s %.2f\n", l, 100 * leaf[l] / group[leaf_group[l]]
}
