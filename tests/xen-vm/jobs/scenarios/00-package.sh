# package: dom0 installed our Debian packages at boot (dom0-init.sh, with
# what dom0 was before in /uniprof/pre-install). They are in place, the
# xl front diverts the distribution's xl and hands it xl's own commands,
# xl profile works through it; purging the four leaves dom0 as it was, the
# real xl working; then they are installed again, and the scenarios after
# this one run on them.
section "The Debian packages: install, divert xl, purge, install again"
PKGS="uniprof uniprofd libuniprof0 libuniprof-dev"
PRE=/uniprof/pre-install
# The real dpkg, never busybox's applet of that name (dom0-init.sh)
DPKG=/usr/bin/dpkg
DEBLIB=/usr/lib/$(uname -m)-linux-gnu

# installed: every package of ours is "install ok installed"
installed() {
	for p in $PKGS; do
		dpkg-query -W -f '${Status}\n' $p 2>/dev/null | grep -qx 'install ok installed' || return 1
	done
}
# none_installed: dpkg knows none of ours, or only as not-installed
none_installed() {
	for p in $PKGS; do
		case $(dpkg-query -W -f '${Status}' $p 2>/dev/null) in
		"" | *not-installed) ;;
		*) return 1 ;;
		esac
	done
}
# files_in_place: what each package is for
files_in_place() {
	for f in /usr/sbin/xl /usr/sbin/xl-profile /usr/libexec/uniprof/xl-plugins/xl-profile \
		/usr/share/man/man1/xl-profile.1.gz /usr/sbin/uniprofd /etc/xen/uniprofd.conf \
		/lib/systemd/system/uniprofd.service /usr/share/man/man8/uniprofd.8.gz \
		$DEBLIB/libuniprof.so.0 /usr/libexec/uniprof/uniprof-guard \
		/usr/include/uniprof/uniprof.h /usr/include/uniprof/sys/unwind.h \
		$DEBLIB/libuniprof.so $DEBLIB/pkgconfig/uniprof.pc; do
		[ -e $f ] || { tap "# missing: $f"; return 1; }
	done
	# The test tools are never packaged (dom0 has them in /uniprof/tools).
	for f in uniprof-walk-bench uniprof-floor uniprof-ingest-receiver; do
		[ ! -e /usr/libexec/uniprof/$f ] || { tap "# packaged: $f"; return 1; }
	done
}
# diverted: dpkg-divert lists ours, the real xl is beside the front
diverted() {
	dpkg-divert --list /usr/sbin/xl | grep -qx 'diversion of /usr/sbin/xl to /usr/sbin/xl.distrib by uniprof' &&
		[ "$(readlink /usr/sbin/xl.distrib)" = "$(cat $PRE/xl.link)" ] && return 0
	tap "# dpkg-divert --list: $(dpkg-divert --list | tr '\n' ' ')"
	ls -l /usr/sbin/xl* 2>&1 | sed 's/^/UNIPROF-TAP #   /'
	tail -n 20 /uniprof/dpkg-install.log | sed 's/^/UNIPROF-TAP #   /'
	return 1
}
# the_front: /usr/sbin/xl is our front (its help lists xl profile), and
# xl's own commands reach the real xl through it
the_front() {
	/usr/sbin/xl help 2>/dev/null | grep -q '^ profile ' &&
		/usr/sbin/xl list | grep -q '^Domain-0 '
}

if [ ! -f $PRE/files ]; then
	not_ok "package: dom0 installed our packages at boot" "no /uniprof/debs, or dom0-init.sh did not install them"
else
	check "package: the four packages are installed" installed
	check "package: their files are in place" files_in_place
	check "package: dpkg-divert lists the diversion of /usr/sbin/xl to xl.distrib" diverted
	check "package: /usr/sbin/xl is the front, and 'xl list' through it reaches the real xl" the_front
	check "package: xl profile runs from the package" sh -c '/usr/sbin/xl profile --help | grep -q "Usage: xl profile"'
	check "package: uniprofd reads its conffile (--check)" sh -c 'uniprofd --check > /tmp/uniprofd-check.log 2>&1'
	# A profile through the front before the purge: the packages in use.
	if start_guest tg-pv-fp; then
		$PROF tg-pv-fp -d 3 -q -o $OUT/pkg > /tmp/pkg-profile.log 2>&1
		rc=$?
		check "package: 'xl profile' through the installed front exits 0 and writes its profile" \
			sh -c "[ $rc -eq 0 ] && [ -s $OUT/pkg.pb.gz ] && [ -s $OUT/pkg.svg ]"
		[ $rc -eq 0 ] || sed 's/^/UNIPROF-TAP #   /' /tmp/pkg-profile.log
		check "package: tg-pv-fp running, not paused, after the profile" not_paused tg-pv-fp
		stop_guest tg-pv-fp
	else
		not_ok "package: tg-pv-fp starts for a profile through the installed front"
	fi

	# What dpkg says is ours, before it forgets.
	for p in $PKGS; do dpkg-query -L $p; done 2>/dev/null | sort -u > /tmp/ours.files
	$DPKG --purge $PKGS > /tmp/dpkg-purge.log 2>&1
	rc=$?
	check "package: dpkg --purge $PKGS exits 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || sed 's/^/UNIPROF-TAP #   /' /tmp/dpkg-purge.log
	check "package: purged, dpkg lists none of ours" none_installed
	check "package: no diversion left" sh -c '[ -z "$(dpkg-divert --list)" ]'
	check "package: /usr/sbin/xl is again the distribution's ($(cat $PRE/xl.link))" \
		sh -c "[ \"\$(readlink /usr/sbin/xl)\" = \"$(cat $PRE/xl.link)\" ] && [ \"\$(md5sum < /usr/sbin/xl)\" = \"$(cat $PRE/xl.md5)\" ] && [ ! -e /usr/sbin/xl.distrib ] && [ ! -L /usr/sbin/xl.distrib ]"
	check "package: after the purge 'xl list' works" sh -c '/usr/sbin/xl list | grep -q "^Domain-0 "'
	# Other scenarios run meanwhile (the core guests' configurations are
	# written in the background): what matters is that nothing of ours is
	# left and nothing that was there before is gone.
	find / -xdev -path /uniprof -prune -o -print | sort > /tmp/after-purge.files
	# (busybox has no comm: lines of the second file not in the first, by awk)
	only_in_2nd() { awk 'NR == FNR { a[$0]; next } !($0 in a)' "$1" "$2"; }
	only_in_2nd $PRE/files /tmp/after-purge.files > /tmp/added.files
	only_in_2nd /tmp/after-purge.files $PRE/files > /tmp/gone.files
	awk 'NR == FNR { a[$0]; next } $0 in a' /tmp/ours.files /tmp/added.files > /tmp/left.files
	if [ -s /tmp/ours.files ] && [ ! -s /tmp/left.files ] && [ ! -s /tmp/gone.files ]; then
		ok "package: after the purge none of the packages' $(wc -l < /tmp/ours.files) paths is left, nothing there before is gone"
		[ -s /tmp/added.files ] && tap "# written meanwhile by other scenarios: $(tr '\n' ' ' < /tmp/added.files)"
	else
		not_ok "package: after the purge dom0's files are those before the install" \
			"left of ours: $(head -n 10 /tmp/left.files | tr '\n' ' ')" \
			"gone: $(head -n 10 /tmp/gone.files | tr '\n' ' ')" \
			"dpkg -L listed $(wc -l < /tmp/ours.files) paths"
	fi

	$DPKG -i --force-depends /uniprof/debs/*.deb > /tmp/dpkg-reinstall.log 2>&1
	rc=$?
	ldconfig
	check "package: installed again (dpkg -i --force-depends) for the scenarios after this" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tail -n 10 /tmp/dpkg-reinstall.log | sed 's/^/UNIPROF-TAP #   /'
	check "package: installed again, the four are installed" installed
	check "package: installed again, xl is the front and reaches the real xl" the_front
fi
