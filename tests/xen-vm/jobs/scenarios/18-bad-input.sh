# bad-input: one clear line and a non-zero exit for each mistake.
section "Bad input"
# --- Bad input: one clear line, non-zero exit.
start_guest tg-pv-fp || tap "# the guest for the bad-input checks did not start"
# dom0 itself stays sound while a guest runs: short processes, each with
# its own TLS and heap (with two unpinned dom0 vCPUs under TCG, tens of
# these died a minute; see run-vm.sh).
bad=0
for i in $(seq 1 150); do
	[ "$(seq 1 300 | awk '{ s += $1 } END { print s }' 2>/dev/null)" = 45150 ] || bad=$((bad + 1))
done
check "dom0: 150 short processes beside a running guest, $bad failed" [ $bad -eq 0 ]
one_line_error "does not exist" no-such-domain -d 1
one_line_error "does not exist" 4242 -d 1
one_line_error "dom0" Domain-0 -d 1
one_line_error "dom0" 0 -d 1
one_line_error "invalid frequency" -f 0 tg-pv-fp
one_line_error "invalid frequency" -f abc tg-pv-fp
one_line_error "invalid frequency" -f 200000 tg-pv-fp
one_line_error "invalid duration" -d -3 tg-pv-fp
one_line_error "invalid duration" -d 0 tg-pv-fp
one_line_error "invalid format" -F pdf tg-pv-fp
one_line_error "invalid unwinder" -u orc tg-pv-fp
one_line_error "invalid unwinder" -u magic tg-pv-fp
one_line_error "invalid hypercall path" --hypercalls magic tg-pv-fp
one_line_error "invalid vCPU" --vcpu x tg-pv-fp
one_line_error "vCPU 5 does not exist" --vcpu 5 -d 1 tg-pv-fp
one_line_error "invalid top count" --top -1 tg-pv-fp
one_line_error "invalid maximum depth" --max-depth 0 tg-pv-fp
one_line_error "invalid maximum depth" --max-depth 5000 tg-pv-fp
one_line_error "unknown option --bogus" --bogus tg-pv-fp
one_line_error "needs a value" tg-pv-fp -f
one_line_error "no domain given" -d 1
one_line_error "cannot open symbol file /nonexistent.elf" -s /nonexistent.elf -d 1 tg-pv-fp
one_line_error "neither an ELF file nor an nm symbol map" -s /uniprof/jobs/lib.sh -d 1 tg-pv-fp
one_line_error "not paused" --paused -d 1 tg-pv-fp
one_line_error "does not combine" --once -d 3 tg-pv-fp
one_line_error "cannot open core file /nonexistent" core /nonexistent
one_line_error "not a Xen core file" core /guests/tg-fp.elf
one_line_error "give the core file" core
one_line_error "needs a core file" --core
stop_guest tg-pv-fp
