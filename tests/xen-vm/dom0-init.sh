#!/bin/sh
# /init of the dom0 initramfs: bring up the Xen control plane the way the
# distribution's init scripts would (xenfs, xenstored, xen-init-dom0,
# xenconsoled), run the job named on the kernel command line
# (uniprof.job=NAME runs /uniprof/jobs/NAME.sh, with UNIPROF_SCENARIOS
# from uniprof.scenarios=, colons back to commas), then power off.
/bin/busybox --install -s /bin
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/xen-4.17/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
for d in /run /tmp /var; do mount -t tmpfs tmpfs $d; done
# Loopback, as any host has it: the host daemon serves on 127.0.0.1.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mkdir -p /var/run/xen /var/lib/xen /var/log/xen/console /var/lib/xenstored /run/xen /var/lock
dmesg -n 1

say() { echo "UNIPROF-INIT $*"; }
fail() { say "FAILED: $*"; echo "UNIPROF-DONE"; poweroff -f; }

kver=$(uname -r)
for m in xen-evtchn xen-privcmd xen-gntdev xen-gntalloc xenfs/xenfs; do
	insmod /lib/modules/$kver/kernel/drivers/xen/$m.ko 2>/dev/null ||
		grep -q "^$(basename $m | tr - _) " /proc/modules || fail "insmod $m"
done
mount -t xenfs xenfs /proc/xen || fail "mount xenfs"
oxenstored --pid-file=/run/xen/xenstored.pid >/var/log/xen/xenstored.log 2>&1 || fail "xenstored"
xen-init-dom0 >/var/log/xen/init-dom0.log 2>&1 || fail "xen-init-dom0"
xenconsoled --pid-file=/run/xen/xenconsoled.pid --log=guest --log-dir=/var/log/xen/console ||
	fail "xenconsoled"
xl info >/dev/null 2>&1 || fail "xl info"
say "xen up: $(xl info | sed -n 's/^xen_version *: //p'), $(nproc) dom0 vCPUs"

# Our Debian packages (x86; prepare-dom0.sh built them), installed with
# dpkg as on a Debian dom0. This dom0 is busybox and unpacked Xen
# packages, not a Debian install: dpkg's database starts empty (it lives in
# /var, a tmpfs), so no dependency is registered and --force-depends lets
# dpkg install ours all the same; nothing runs ldconfig's trigger (libc-bin
# is not there either), so we do. What dom0 was before goes to
# /uniprof/pre-install for the package scenario, which purges the packages
# and compares.
if ls /uniprof/debs/*.deb > /dev/null 2>&1; then
	mkdir -p /var/lib/dpkg/info /var/lib/dpkg/updates /var/lib/dpkg/triggers /uniprof/pre-install
	touch /var/lib/dpkg/status /var/lib/dpkg/available
	# Files of the root file system (not /var, /run, /tmp: tmpfs; not /uniprof).
	find / -xdev -path /uniprof -prune -o -print | sort > /uniprof/pre-install/files
	readlink /usr/sbin/xl > /uniprof/pre-install/xl.link
	md5sum < /usr/sbin/xl > /uniprof/pre-install/xl.md5
	# By its path: this shell is busybox's, which runs its own dpkg applet
	# for a bare "dpkg" whatever PATH says.
	/usr/bin/dpkg -i --force-depends /uniprof/debs/*.deb > /uniprof/dpkg-install.log 2>&1 ||
		fail "dpkg -i: $(tail -n 3 /uniprof/dpkg-install.log | tr '\n' ' ')"
	ldconfig
	say "installed: $(cd /uniprof/debs && ls *.deb | tr '\n' ' ')"
fi
# The test tools, never installed (prepare-dom0.sh carries them).
UNIPROF_TOOLS=/uniprof/tools
export UNIPROF_TOOLS

job=$(sed -n 's/.*uniprof\.job=\([^ ]*\).*/\1/p' /proc/cmdline)
UNIPROF_SCENARIOS=$(sed -n 's/.*uniprof\.scenarios=\([^ ]*\).*/\1/p' /proc/cmdline | tr : ,)
export UNIPROF_SCENARIOS
if [ -x "/uniprof/jobs/$job.sh" ]; then
	cd /uniprof && /bin/dash "/uniprof/jobs/$job.sh"
	say "job $job exited $?"
else
	say "FAILED: no job '$job'"
fi
echo "UNIPROF-DONE"
sync
poweroff -f
