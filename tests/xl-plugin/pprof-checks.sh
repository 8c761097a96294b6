# Checks of a pprof profile of the test unikernel by google/pprof (Go's
# go tool pprof), shared by pprof-go.test (the real-Xen run's profile) and
# pprof-mappings-go.test (profiles written here without Xen), and by
# tests/thirdparty/pprof-standalone.test with google/pprof's standalone
# command (PPROF=pprof, built from Debian's source by install-deps.sh).
# Sourced; each check prints one TAP line and counts on from $n.

# The pprof command: Go's by default.
PPROF=${PPROF:-go tool pprof}

# Every node: by default pprof drops those under 0.5% of the samples.
PPROF_ALL="-nodecount=1000 -nodefraction=0 -edgefraction=0"

# pprof's -top as "name flat" lines, sorted (the name may hold spaces:
# "hypercall_page [sched_op]"), the functions only: not the calls inlined
# into them. We name a caller's frame by its call instruction (the return
# address less one, as perf does), pprof by the return address itself,
# the instruction after the call: where a call ends an inlined body the
# two differ by that inlined frame (tg_chain_step), never by a function.
# With STUBS (a name), the hypercall page's stubs, which uniprof names by
# Xen's hypercall numbers and no image can name, count under that name,
# as pprof counts addresses it cannot name: [tg-fp.elf].
pprof_top_list() {
	awk -v stubs="${2:-}" '$2 ~ /%$/ && $3 ~ /%$/ && $5 ~ /%$/ && NF >= 6 {
		n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		if (n ~ / \(inline\)$/ || n ~ / \(inlined\)$/)
			next
		if (stubs != "" && n ~ /^hypercall_page \[/)
			n = stubs
		flat[n] += $1 }
		END { for (n in flat) print n, flat[n] }' "$1" | sort
}

# The image's executable PT_LOAD as readelf reads its program header:
# "START/LIMIT/OFFSET" as go tool pprof -raw prints a mapping.
elf_text_mapping() {
	readelf -lW "$1" | awk '$1 == "LOAD" && $0 ~ /E +0x[0-9a-f]+$/ { print $3, $6, $2; exit }' |
	{ read -r start size off && printf '0x%x/0x%x/0x%x\n' $((start)) $((start + size)) $((off)); }
}

elf_build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1
}

# The mappings go tool pprof -raw shows (no symbolization), one a line.
pprof_mappings() {
	$PPROF -raw -symbolize=none "$1" 2>/dev/null | sed -n '/^Mappings/,$p' | sed 1d
}

# check_disasm IMAGE PROFILE WHAT: -disasm tg_chain_10 finds the function
# in the image through the profile's mapping, its samples on its own
# instructions (their flat counts add up to the routine's).
check_disasm() {
	n=$((n + 1))
	$PPROF -disasm tg_chain_10 "$1" "$2" > "$out/$3.disasm" 2>&1
	set -- "$@" $(awk '/^ROUTINE/ { r = 1; next }
		r == 1 && /\(flat, cum\)/ { flat = $1; r = 2; next }
		r == 2 && $3 ~ /^[0-9a-f]+:$/ && $1 != "." { sum += $1 }
		END { print flat + 0, sum + 0 }' "$out/$3.disasm")
	if grep -q '^ROUTINE =* tg_chain_10$' "$out/$3.disasm" && [ "$4" -gt 0 ] && [ "$4" = "$5" ]; then
		echo "ok $n - $3: -disasm tg_chain_10 finds it in the image, its $4 samples on its instructions"
	else
		echo "not ok $n - $3: -disasm tg_chain_10: routine flat ${4:-?}, instructions' sum ${5:-?}"
		head -n 5 "$out/$3.disasm" | sed 's/^/# /'
	fi
}

# check_symbolize IMAGE PROFILE NAMED WHAT [STUBS]: -symbolize=force names
# from the image the same functions, with the same self counts, as the
# named profile NAMED names itself (-top without the image). STUBS: the
# profile has no names (pprof_top_list).
check_symbolize() {
	n=$((n + 1))
	$PPROF -top $PPROF_ALL "$3" > "$out/$4.own.txt" 2>&1
	$PPROF -symbolize=force -top $PPROF_ALL "$1" "$2" > "$out/$4.forced.txt" 2>&1
	pprof_top_list "$out/$4.own.txt" "${5:-}" > "$out/$4.own"
	pprof_top_list "$out/$4.forced.txt" > "$out/$4.forced"
	if [ -s "$out/$4.own" ] && cmp -s "$out/$4.own" "$out/$4.forced"; then
		echo "ok $n - $4: -symbolize=force names from the image the profile's $(wc -l < "$out/$4.own") functions, self counts and all"
	else
		echo "not ok $n - $4: -symbolize=force names other functions (the profile's, then the image's):"
		paste "$out/$4.own" "$out/$4.forced" | head -n 8 | sed 's/^/# /'
		grep -v '^ *[0-9.]' "$out/$4.forced.txt" | head -n 3 | sed 's/^/# /'
	fi
}
