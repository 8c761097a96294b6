# uniprofd, the host daemon (included by the top Makefile.am: one non-recursive make).
# Built when configure found its libraries (--with-daemon).
if DAEMON
sbin_PROGRAMS += daemon/uniprofd
UPD_SOURCES = \
	daemon/settings.c daemon/settings.h \
	daemon/request.c daemon/request.h \
	daemon/log.c daemon/log.h \
	daemon/domains.c daemon/domains.h \
	daemon/symbol_cache.c daemon/symbol_cache.h \
	daemon/profile_run.c daemon/profile_run.h \
	daemon/cpu_budget.c daemon/cpu_budget.h \
	daemon/push.c daemon/push.h \
	daemon/http_api.c daemon/http_api.h \
	daemon/endpoints.c daemon/endpoints.h
daemon_uniprofd_SOURCES = daemon/uniprofd.c $(UPD_SOURCES)
UPD_CPPFLAGS = $(AM_CPPFLAGS)
UPD_CFLAGS = $(AM_CFLAGS) -pthread $(MHD_CFLAGS) $(CURL_CFLAGS) $(YAJL_CFLAGS) \
	$(XENLIGHT_CFLAGS) $(XENSTORE_CFLAGS)
UPD_LIBS = $(TOOLKIT_LIBS) $(MHD_LIBS) $(CURL_LIBS) $(XENSTORE_LIBS) -lpthread
daemon_uniprofd_CPPFLAGS = $(UPD_CPPFLAGS)
daemon_uniprofd_CFLAGS = $(UPD_CFLAGS)
daemon_uniprofd_LDADD = $(UPD_LIBS)
# A stand-in for Pyroscope's /ingest that checks what it is sent, for the
# real-Xen push scenarios and the fleet benchmark. A test tool: built, never
# installed (the harness carries it into dom0, tests/xen-vm/prepare-dom0.sh);
# linked with the private archive, so it runs from the build tree alone.
noinst_PROGRAMS += tests/daemon/uniprof-ingest-receiver
tests_daemon_uniprof_ingest_receiver_SOURCES = tests/daemon/ingest_receiver.c
tests_daemon_uniprof_ingest_receiver_CFLAGS = $(AM_CFLAGS) -pthread $(MHD_CFLAGS)
tests_daemon_uniprof_ingest_receiver_LDADD = core/libuniprof-core.la $(MHD_LIBS) -lpthread
# An example configuration and a systemd unit, for the admin to install.
dist_pkgdata_DATA = daemon/dist/uniprofd.conf
pkgdata_DATA = daemon/dist/uniprofd.service
daemon/dist/uniprofd.service: $(srcdir)/daemon/dist/uniprofd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) daemon/dist && \
	sed 's|@sbindir[@]|$(sbindir)|g' $(srcdir)/daemon/dist/uniprofd.service.in > $@
endif
CLEANFILES += daemon/dist/uniprofd.service
EXTRA_DIST += daemon/dist/uniprofd.service.in tests/daemon
