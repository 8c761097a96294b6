#!/bin/sh
# xl's block hotplug script for this dom0, in place of Xen's own (bash,
# which this busybox dom0 has not): a `phy:` disk only, as the guests
# tried by hand use (a RAM disk, scripts/xen-run.sh). libxl runs it with
# add or remove and XENBUS_PATH, the backend's xenstore directory; blkback
# waits for physical-device (major:minor, hex) before it connects.
p=$XENBUS_PATH
case "$1" in
add)
	dev=$(xenstore-read "$p/params") || exit 1
	[ -b "$dev" ] || { xenstore-write "$p/hotplug-error" "$dev is not a block device" "$p/hotplug-status" error; exit 1; }
	xenstore-write "$p/physical-device" "$(stat -L -c '%t:%T' "$dev")" \
		"$p/physical-device-path" "$dev" "$p/hotplug-status" connected
	;;
remove)
	xenstore-rm "$p/hotplug-status" 2>/dev/null
	;;
esac
exit 0
