# Reads a folded profile of the test unikernel and prints, one per line:
#   samples N
#   complete PCT     -- samples whose stack is whole from its entry symbol
#   vcpu1 PCT        -- samples from vCPU 1's chain (rooted at tg_ap_entry64)
#   leaf NAME PCT    -- share of NAME as the leaf, among the samples of its
#                       own vCPU's chain (vCPU 1's tg_ap_* or vCPU 0's)
# A stack is whole when it starts at the entry symbol, is not truncated,
# and every caller -> callee step between the guest's tg_* functions is a
# call the guest really makes (so a skipped frame shows).
function callee_ok(a, b,    n) {
	if (a !~ /^tg_/ || b !~ /^tg_/) return 1
	if (a == "tg_entry64") return b == "tg_main"
	if (a == "tg_main") return b == "tg_workload"
	if (a == "tg_workload") return b == "tg_round"
	if (a == "tg_round") return b == "tg_chain_01" || b == "tg_hot_35" || b == "tg_hot_15"
	if (a ~ /^tg_chain_/) {
		n = substr(a, 10) + 0
		return b == sprintf("tg_chain_%02d", n + 1)
	}
	if (a == "tg_ap_entry64") return b == "tg_ap_main"
	if (a == "tg_ap_main") return b == "tg_ap_round"
	if (a == "tg_ap_round") return b == "tg_ap_mid" || b == "tg_ap_leaf_20"
	if (a == "tg_ap_mid") return b == "tg_ap_leaf_80"
	return 0
}
{
	count = $NF
	stack = $0
	sub(/ [0-9]+$/, "", stack)
	n = split(stack, f, ";")
	total += count
	ap = (f[1] == "tg_ap_entry64")
	good = (f[1] == "tg_entry64" || ap)
	for (i = 1; i < n && good; i++)
		if (!callee_ok(f[i], f[i + 1])) good = 0
	if (good) complete += count
	group[ap] += count
	leaf[f[n]] += count
	leaf_group[f[n]] = ap
}
END {
	printf "samples %d\n", total
	if (total == 0) exit
	printf "complete %.2f\n", 100 * complete / total
	printf "vcpu1 %.2f\n", 100 * group[1] / total
	for (l in leaf) printf "leaf %s %.2f\n", l, 100 * leaf[l] / group[leaf_group[l]]
}
