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
echo "demo: fetching Debian's Xen 4.17 and dom0 kernel into $cache"
"$top/tests/xen-vm/fetch-debs.sh" "$cache"
run=$build/demo-run
rm -rf "$run"
mkdir -p "$run"
make install DESTDIR="$run/stage" >install.log 2>&1 || { tail -n 20 install.log; exit 1; }
"$top/tests/xen-vm/make-initramfs.sh" "$cache/root" "$run/stage" tests/guest "$run/dom0.cpio.gz"
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
