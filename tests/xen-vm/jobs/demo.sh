#!/bin/sh
# The demo, run in dom0: start the sample unikernel as a PVH guest, profile
# it for 10 seconds with xl profile, send the results to the host.
. /uniprof/jobs/lib.sh
say() { echo "UNIPROF-DEMO $*"; }
g=tg-pvh-fp
say "xl create /guests/$g.cfg"
start_guest $g || { say "the guest did not start"; exit 1; }
say "xl profile $g -f 97 -d 10"
xl-profile $g -f 97 -d 10 > /tmp/demo.out 2>&1
rc=$?
sed 's/^/UNIPROF-DEMO   /' /tmp/demo.out
stop_guest $g
for f in /var/log/xen/profile/$g-*; do
	send_file "$f" "$(basename "$f")"
done
exit $rc
