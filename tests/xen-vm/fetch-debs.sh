#!/bin/sh
# Fetch Debian's Xen hypervisor, Xen tools, dom0 kernel and busybox into a
# cache directory and unpack them there, without installing anything on the
# host: `apt-get download` + `dpkg-deb -x`.
# Usage: fetch-debs.sh CACHE_DIR
set -eu
cache=${1:?usage: fetch-debs.sh CACHE_DIR}
mkdir -p "$cache/debs" "$cache/root"
cd "$cache/debs"

# The newest Debian 12 amd64 kernel that the archive offers.
kver=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/.*Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
[ -n "$kver" ] || { echo "fetch-debs: cannot resolve linux-image-amd64: run apt-get update" >&2; exit 1; }

pkgs="xen-hypervisor-4.17-amd64 xen-utils-4.17 xen-utils-common busybox-static $kver"
stamp="$cache/root/.fetched"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ]; then
	exit 0
fi
for p in $pkgs; do
	ls "$p"_*.deb >/dev/null 2>&1 || apt-get download -q -o APT::Sandbox::User=root "$p" >/dev/null
done
rm -rf "$cache/root"
mkdir -p "$cache/root"
for d in *.deb; do
	dpkg-deb -x "$d" "$cache/root"
done
echo "$pkgs" > "$stamp"
