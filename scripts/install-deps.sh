#!/bin/sh
# Install what uniprof needs to build and to run its real-Xen tests on a
# Debian 12 machine: compilers, autotools, the Xen/ELF/yajl/unwind
# development packages, libmicrohttpd and libcurl (the host daemon),
# libdebuginfod and Debian's debuginfod server (the build-id fetch test), QEMU, Chromium (the flame-graph browser test),
# clang with libFuzzer and libxml2 (the fuzz targets, scripts/fuzz.sh), and the AArch64 cross compiler (the
# AArch64 unwind fixtures). Only Debian's own packages and, for the
# third-party checks of our output (tests/thirdparty), the npm registry's;
# nothing else is downloaded. Does nothing when all are present.
# debhelper and lintian build and check our Debian packages (debian/),
# which the x86 real-Xen scenarios install in dom0.
# The third-party tools (tests/thirdparty): Go with google/pprof's
# source, from which the standalone pprof command is built here, offline
# (/usr/local/bin/pprof); Brendan Gregg's flamegraph.pl, which Debian does
# not package but ruby-stackprof ships unchanged (upstream's of 2019),
# linked as /usr/local/bin/flamegraph.pl; Node.js, and from npm the
# speedscope viewer and the pprof-format decoder, at the versions the tests
# were written against (npm's global root).
set -eu
pkgs="build-essential autoconf automake libtool pkg-config
      libxen-dev libyajl-dev libunwind-dev libelf-dev libdw-dev zlib1g-dev
      libmicrohttpd-dev libcurl4-openssl-dev libdebuginfod-dev
      libprotobuf-c-dev protobuf-c-compiler
      qemu-system-x86 cpio gzip binutils dash chromium tmux debuginfod
      clang libclang-rt-14-dev libxml2-dev
      debhelper lintian
      gcc-aarch64-linux-gnu
      golang-go golang-github-google-pprof-dev ruby-stackprof nodejs"
npm_pkgs="speedscope@1.25.0 pprof-format@2.3.2"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# npm: Debian's nodejs has it in the npm package; a nodejs from elsewhere
# (NodeSource's) has it built in and conflicts with that package.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: need root to install:$missing" >&2
		exit 1
	fi
	echo "install-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

# google/pprof's command from Debian's source (GOPATH mode: Debian's Go
# packages under /usr/share/gocode, no module download).
if ! [ -x /usr/local/bin/pprof ] || [ /usr/local/bin/pprof -ot /usr/share/gocode/src/github.com/google/pprof/pprof.go ]; then
	[ "$(id -u)" -eq 0 ] || { echo "install-deps: need root to build /usr/local/bin/pprof" >&2; exit 1; }
	echo "install-deps: building /usr/local/bin/pprof from golang-github-google-pprof-dev"
	cache=$(mktemp -d)
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$cache" GOFLAGS= HOME="$cache" \
		go build -o /usr/local/bin/pprof github.com/google/pprof || { rm -rf "$cache"; exit 1; }
	rm -rf "$cache"
fi
fg=$(dpkg -L ruby-stackprof | grep '/FlameGraph/flamegraph\.pl$' | head -n 1)
if [ "$(readlink /usr/local/bin/flamegraph.pl 2>/dev/null)" != "$fg" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "install-deps: need root to link /usr/local/bin/flamegraph.pl" >&2; exit 1; }
	ln -sf "$fg" /usr/local/bin/flamegraph.pl
fi
root=$(npm root -g)
npm_missing=
for p in $npm_pkgs; do
	name=${p%@*} version=${p##*@}
	grep -q "\"version\": \"$version\"" "$root/$name/package.json" 2>/dev/null || npm_missing="$npm_missing $p"
done
if [ -n "$npm_missing" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "install-deps: need root to install from npm:$npm_missing" >&2; exit 1; }
	echo "install-deps: installing from npm$npm_missing"
	npm install -g --no-audit --no-fund --loglevel=error $npm_missing >/dev/null
fi
