#!/bin/sh
# The demo: boot Xen 4.17 in QEMU with a Linux dom0, start the sample
# unikernel, profile it with `xl profile` for 10 seconds, and copy the flame
# graph, folded stacks, top list and JSON summary to ./demo-output.
# Installs its own dependencies.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build/demo}
out=${DEMO_OUTPUT:-$PWD/demo-output}
echo "demo: building uniprof and the sample unikernel"
"$top/scripts/build.sh" "$build"
cd "$build"
cache=${UNIPROF_CACHE:-$top/build/cache/xen-vm}
echo "demo: fetching Debian's Xen 4.17 and dom0 kernel into $cache, building dom0's initramfs"
run=$build/demo-run
rm -rf "$run"
"$top/tests/xen-vm/prepare-dom0.sh" "$top" "$build" "$cache" "$run"
echo "demo: booting Xen in QEMU (software emulation, about 2 minutes)"
if ! "$top/tests/xen-vm/run-vm.sh" "$cache/root" "$run/dom0.cpio.gz" demo "$run/vm" 900; then
	echo "demo: the VM did not finish; console tail:" >&2
	tail -n 40 "$run/vm/console.log" >&2
	exit 1
fi
tr -d '\r' < "$run/vm/console.log" | sed -n 's/^UNIPROF-DEMO //p'
mkdir -p "$out"
cp "$run"/vm/files/* "$out"/
echo
echo "demo: wrote to $out:"
ls -1 "$out" | sed 's/^/  /'
ls "$out"/*.svg >/dev/null 2>&1 || { echo "demo: no flame graph came back" >&2; exit 1; }
