# dump-core: the hung-domain runbook, xl dump-core of a 2-vCPU guest.
section "A hung domain's runbook"
# --- A hung domain's runbook: xl pause, xl dump-core, xl unpause (xl
# dump-core itself does not pause). The core of a running 2-vCPU guest holds
# both vCPUs' stacks whole, the same frames --once printed while it was
# paused for the dump; its kernel is found by the build-id in its memory,
# among the configurations in /etc/xen: core's PVH guest's names it, and
# is written here if core has not written it.
[ -e /etc/xen/tg-core-pvh.cfg ] || core_config tg-core-pvh tg-pvh-fp
g=tg-smp-dump
if create_guest $g tg-pv-fp 'vcpus=2' 'cpus="all"' && \
   grep -q "tg: start.*vcpus=2" /var/log/xen/console/guest-$g.log; then
	sleep 2
	xl pause $g
	$PROF $g --once > $OUT/$g.once 2>&1
	t0=$(date +%s)
	timeout -s KILL 300 $XL_BIN dump-core $g /tmp/$g.core > $OUT/$g.dump 2>&1
	rc=$?
	xl unpause $g
	check "dump-core: xl dump-core of the paused 2-vCPU guest exits 0 in $(( $(date +%s) - t0 ))s" [ $rc -eq 0 ]
	check "dump-core: the domain runs again" not_paused $g
	# No /etc/xen/tg-smp-dump.cfg: the kernel is found by the build-id the
	# core holds, among the configurations in /etc/xen.
	$PROF core -v /tmp/$g.core > $OUT/$g.core 2> $OUT/$g.core.err
	rc=$?
	check "dump-core: xl profile core exits 0" [ $rc -eq 0 ]
	check "dump-core: symbols found by the core's build-id: $(grep -m1 '^symbols' $OUT/$g.core)" \
		grep -q "^symbols /guests/tg-fp.elf" $OUT/$g.core
	check "dump-core: both vCPUs' stacks complete" \
		sh -c "grep -q '^vcpu0 (complete)' $OUT/$g.core && grep -q '^vcpu1 (complete)' $OUT/$g.core"
	roots=$(awk '/^vcpu/ { v = $1 } /^  #/ { last[v] = $3 } END { for (k in last) print k, last[k] }' $OUT/$g.core | sort | sed 's/+0x[0-9a-f]*//' | tr '\n' ' ')
	check "dump-core: vCPU 0 from tg_entry64, vCPU 1 from tg_ap_entry64: $roots" \
		[ "$roots" = "vcpu0 tg_entry64 vcpu1 tg_ap_entry64 " ]
	if [ "$(frames $OUT/$g.once)" = "$(frames $OUT/$g.core)" ] && [ -n "$(frames $OUT/$g.core)" ]; then
		ok "dump-core: the same $(frames $OUT/$g.core | wc -l) frames as --once on the paused domain"
	else
		not_ok "dump-core: the same frames as --once on the paused domain" "$(cat $OUT/$g.once)" "--- core:" "$(cat $OUT/$g.core $OUT/$g.core.err)"
	fi
else
	not_ok "dump-core: 2-vCPU guest starts"
fi
stop_guest $g
rm -f /tmp/$g.core
