#!/bin/sh
# Boot Xen 4.17 under QEMU (TCG) with our dom0 initramfs and run one job.
# The VM always ends: the job powers off, and a timeout kills QEMU if it
# hangs (QEMU exits 0 even after a panic, so success is judged by the
# UNIPROF-DONE marker, not the exit code).
# Files the job sends back as base64 between UNIPROF-FILE markers land in
# OUTDIR/files.
# UNIPROF_VM_ARCH=arm64 boots Xen on Arm instead (qemu-system-aarch64,
# virt board with EL2, GICv3; dom0's kernel and initramfs through QEMU's
# guest-loader devices, which write the device-tree nodes Xen reads).
# Usage: run-vm.sh CACHE_ROOT INITRAMFS JOB OUTDIR TIMEOUT_SECONDS
set -u
root=$1 initrd=$2 job=$3 outdir=$4 limit=$5
mkdir -p "$outdir/files"
console="$outdir/console.log"
xen="$outdir/xen.elf"
kernel=$(ls "$root"/boot/vmlinuz-* | head -n 1)

: > "$console"
# dom0 gets one vCPU, pinned: with two unpinned dom0 vCPUs and a domU
# running, dom0 processes under TCG died at random with a wrong TLS/heap
# view (tens of SIGSEGVs a minute in a seq|awk loop); with one pinned vCPU,
# none, whether the domU shares its pCPU or not.
# UNIPROF_VM_CPUS and UNIPROF_DOM0_VCPUS give another shape: the
# production-shaped host (docs/TESTING.md) is 3 CPUs, 2 dom0 vCPUs pinned.
cpus=${UNIPROF_VM_CPUS:-2}
xen_args="dom0_mem=1024M,max:1024M noreboot dom0_max_vcpus=${UNIPROF_DOM0_VCPUS:-1} dom0_vcpus_pin ${UNIPROF_XEN_ARGS:-}"
dom0_args="console=hvc0 loglevel=3 uniprof.job=$job"
# UNIPROF_SCENARIOS (the scenarios job's selection) as uniprof.scenarios=,
# its commas as colons: QEMU reads a comma in -initrd or -device as the
# start of the next module or property.
if [ "$job" = scenarios ] && [ -n "${UNIPROF_SCENARIOS:-}" ]; then
	dom0_args="$dom0_args uniprof.scenarios=$(echo "$UNIPROF_SCENARIOS" | tr ', ' '::')"
fi
# The same machine for both: two CPUs, 2 GiB, the serial line to a file.
machine="-smp $cpus -m 2048 -display none -monitor none -no-reboot -nodefaults -name uniprof,debug-threads=on -serial file:$console"
if [ "${UNIPROF_VM_ARCH:-amd64}" = arm64 ]; then
	# The guest-loader addresses: dom0's 33 MiB Image, then the initramfs,
	# clear of Xen (which QEMU loads at the start of RAM) and the device tree.
	timeout -k 10 "$limit" qemu-system-aarch64 -accel tcg \
		-machine virt,virtualization=on,gic-version=3 \
		-cpu "${UNIPROF_QEMU_CPU:-cortex-a57}" \
		$machine \
		-kernel "$root/boot/xen-4.17-arm64" \
		-append "console=dtuart dtuart=/pl011@9000000 $xen_args" \
		-device "guest-loader,addr=0x50000000,kernel=$kernel,bootargs=$dom0_args earlycon=xenboot" \
		-device "guest-loader,addr=0x58000000,initrd=$initrd" \
		</dev/null >"$outdir/qemu.log" 2>&1 &
else
	zcat "$root/boot/xen-4.17-amd64.gz" > "$xen"
	timeout -k 10 "$limit" qemu-system-x86_64 -accel "${UNIPROF_QEMU_ACCEL:-tcg}" \
		-cpu "${UNIPROF_QEMU_CPU:-max,-smap,-smep}" \
		$machine \
		-kernel "$xen" \
		-append "console=com1 com1=115200,8n1 $xen_args" \
		-initrd "$kernel $dom0_args earlyprintk=xen,$initrd" \
		</dev/null >"$outdir/qemu.log" 2>&1 &
fi
qemu=$!
# QEMU's threads go ahead of other host processes, as a real machine's
# CPUs and timers are its own: with a CPU-heavy process on this host the
# emulated machine itself misbehaved (timer interrupts delivered late by
# QEMU's main loop, pausing a busy vCPU waiting for its thread to get a
# core back), the sampler stalled for up to 200 ms, mostly while the
# guest was busy, and busy read 3-11 points low. All its threads,
# vCPUs and main loop alike, once the vCPU threads exist. Best effort:
# without the right to renice, as is.
(
	for i in $(seq 1 50); do
		sleep 0.2
		pid=$(pgrep -P $qemu qemu-system) || continue
		grep -qs "^CPU $((cpus - 1))/TCG" /proc/$pid/task/*/comm || continue
		for task in /proc/$pid/task/*; do
			renice -n -10 -p "${task##*/}" >/dev/null 2>&1
		done
		# UNIPROF_VM_HOST_CPUS: emulated CPU i's thread on the i-th
		# host CPU of the list (comma-separated), so that more emulated
		# CPUs than host cores share them as told, not as the host's
		# scheduler likes (see TESTING.md, the production-shaped host).
		i=0
		for hc in $(echo "${UNIPROF_VM_HOST_CPUS:-}" | tr ',' ' '); do
			for task in /proc/$pid/task/*; do
				grep -qs "^CPU $i/TCG" "$task/comm" &&
					taskset -p -c "$hc" "${task##*/}" >/dev/null 2>&1
			done
			i=$((i + 1))
		done
		# UNIPROF_VM_CPU_NICE: emulated CPU i's thread at the i-th nice
		# value of the list, so that a guest's pCPU can be served first
		# on a host with fewer cores than emulated CPUs.
		i=0
		for n in $(echo "${UNIPROF_VM_CPU_NICE:-}" | tr ',' ' '); do
			for task in /proc/$pid/task/*; do
				grep -qs "^CPU $i/TCG" "$task/comm" &&
					renice -n "$n" -p "${task##*/}" >/dev/null 2>&1
			done
			i=$((i + 1))
		done
		exit 0
	done
) &
# Xen runs with noreboot, so a crashed dom0 leaves QEMU spinning: end it as
# soon as the console says the run is over, one way or the other.
while kill -0 $qemu 2>/dev/null; do
	sleep 2
	if grep -q -e '^UNIPROF-DONE' -e 'Dom0 crashed' -e 'Panic on CPU' \
		-e 'Kernel panic' "$console" 2>/dev/null; then
		sleep 15
		kill $qemu 2>/dev/null
		break
	fi
done
wait $qemu
rc=$?
rm -f "$xen"
[ $rc -eq 124 ] && echo "run-vm: QEMU killed after ${limit}s" >> "$outdir/qemu.log"

# Unpack files sent over the console.
tr -d '\r' < "$console" | tr -c '[:print:]\n\t' '?' | awk -v dir="$outdir/files" '
	/^UNIPROF-FILE-BEGIN / { name = $2; out = dir "/" name ".b64"; printf "" > out; next }
	/^UNIPROF-FILE-END/ { close(out); out = ""; next }
	# Xen and the guests may log into the same console: keep base64 only.
	out != "" && /^[A-Za-z0-9+\/=]+$/ { print >> out }
'
for f in "$outdir"/files/*.b64; do
	[ -e "$f" ] || continue
	base64 -d < "$f" > "${f%.b64}" 2>/dev/null || echo "run-vm: damaged file ${f%.b64}" >> "$outdir/qemu.log"
	rm -f "$f"
done
grep -q '^UNIPROF-DONE' "$console"
