#!/bin/sh
# Boot Xen 4.17 under QEMU (TCG) with our dom0 initramfs and run one job.
# The VM always ends: the job powers off, and a timeout kills QEMU if it
# hangs (QEMU exits 0 even after a panic, so success is judged by the
# UNIPROF-DONE marker, not the exit code).
# Files the job sends back as base64 between UNIPROF-FILE markers land in
# OUTDIR/files.
# Usage: run-vm.sh CACHE_ROOT INITRAMFS JOB OUTDIR TIMEOUT_SECONDS
set -u
root=$1 initrd=$2 job=$3 outdir=$4 limit=$5
mkdir -p "$outdir/files"
console="$outdir/console.log"
xen="$outdir/xen.elf"
kernel=$(ls "$root"/boot/vmlinuz-* | head -n 1)

zcat "$root/boot/xen-4.17-amd64.gz" > "$xen"
: > "$console"
# dom0 gets one vCPU, pinned: with two unpinned dom0 vCPUs and a domU
# running, dom0 processes under TCG died at random with a wrong TLS/heap
# view (tens of SIGSEGVs a minute in a seq|awk loop); with one pinned vCPU,
# none, whether the domU shares its pCPU or not.
timeout -k 10 "$limit" qemu-system-x86_64 -accel "${UNIPROF_QEMU_ACCEL:-tcg}" \
	-cpu "${UNIPROF_QEMU_CPU:-max,-smap,-smep}" \
	-smp 2 -m 2048 -display none -monitor none -no-reboot -nodefaults \
	-name uniprof,debug-threads=on \
	-serial "file:$console" \
	-kernel "$xen" \
	-append "console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M noreboot dom0_max_vcpus=1 dom0_vcpus_pin ${UNIPROF_XEN_ARGS:-}" \
	-initrd "$kernel console=hvc0 earlyprintk=xen loglevel=3 uniprof.job=$job,$initrd" \
	</dev/null >"$outdir/qemu.log" 2>&1 &
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
		grep -qs "^CPU 1/TCG" /proc/$pid/task/*/comm || continue
		for task in /proc/$pid/task/*; do
			renice -n -10 -p "${task##*/}" >/dev/null 2>&1
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
