#!/bin/sh
# Fetch Debian's Xen hypervisor, Xen tools, dom0 kernel and busybox into a
# cache directory and unpack them there, without installing anything on the
# host: `apt-get download` + `dpkg-deb -x`.
# ARCH is the dom0's: amd64 (default), or arm64 for Xen on Arm (needs the
# arm64 architecture in dpkg, as scripts/cross-arm64.sh sets it up; the
# libraries the arm64 tools load come from the host's multiarch tree).
# Usage: fetch-debs.sh CACHE_DIR [ARCH]
set -eu
cache=${1:?usage: fetch-debs.sh CACHE_DIR [ARCH]}
arch=${2:-amd64}
mkdir -p "$cache/debs" "$cache/root"
cd "$cache/debs"

# The newest Debian 12 kernel of that architecture the archive offers.
kver=$(apt-cache depends "linux-image-$arch:$arch" 2>/dev/null |
	sed -n "s/.*Depends: \(linux-image-[0-9][^ :]*-$arch\)\(:$arch\)\{0,1\}$/\1/p" | head -n 1)
[ -n "$kver" ] || { echo "fetch-debs: cannot resolve linux-image-$arch: run apt-get update" >&2; exit 1; }

case $arch in
amd64) pkgs="xen-hypervisor-4.17-amd64 xen-utils-4.17 xen-utils-common xenstore-utils busybox-static $kver" ;;
arm64) pkgs="xen-hypervisor-4.17-arm64:arm64 xen-utils-4.17:arm64 xen-utils-common busybox-static:arm64 dash:arm64 $kver:arm64" ;;
*) echo "fetch-debs: no dom0 for architecture $arch (amd64 or arm64)" >&2; exit 1 ;;
esac
stamp="$cache/root/.fetched"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ]; then
	exit 0
fi
for p in $pkgs; do
	ls "${p%:*}"_*.deb >/dev/null 2>&1 || apt-get download -q -o APT::Sandbox::User=root "$p" >/dev/null
done
rm -rf "$cache/root"
mkdir -p "$cache/root"
for d in *.deb; do
	dpkg-deb -x "$d" "$cache/root"
done
echo "$pkgs" > "$stamp"
