# xl profile (included by the top Makefile.am: one non-recursive make).
# xl-profile lives in our plugin directory, with a link in sbindir for direct
# use; the xl front goes to sbindir, ahead of the distribution's xl in root's
# PATH (never over it: configure refuses if they would be the same file).
xlpluginsdir = $(pkglibexecdir)/xl-plugins
xlplugins_PROGRAMS = xl-plugin/xl-profile
sbin_PROGRAMS =
if XL_FRONT
sbin_PROGRAMS += xl-plugin/xl
endif
xl_plugin_xl_SOURCES = xl-plugin/xl_front.c
xl_plugin_xl_CPPFLAGS = $(AM_CPPFLAGS) -DXL_PLUGIN_DIR='"$(xlpluginsdir)"'
xl_plugin_xl_LDADD =

install-exec-hook:
	$(MKDIR_P) '$(DESTDIR)$(sbindir)'
	rm -f '$(DESTDIR)$(sbindir)/xl-profile'
	$(LN_S) '$(xlpluginsdir)/xl-profile' '$(DESTDIR)$(sbindir)/xl-profile'

uninstall-hook:
	rm -f '$(DESTDIR)$(sbindir)/xl-profile'

xl_plugin_xl_profile_SOURCES = \
	xl-plugin/xl_profile.c xl-plugin/cmd_profile.c \
	xl-plugin/stored_cmds.c xl-plugin/stored_cmds.h \
	xl-plugin/commands.c xl-plugin/commands.h xl-plugin/cmd_report.c xl-plugin/cmd_diff.c \
	xl-plugin/cmd_core.c xl-plugin/core_run.h xl-plugin/core_kernel.c \
	xl-plugin/core_print.c xl-plugin/stack_print.c xl-plugin/stack_print.h \
	xl-plugin/realtime.c xl-plugin/realtime.h \
	xl-plugin/live_domain.c xl-plugin/live_domain.h \
	xl-plugin/cmd_top.c xl-plugin/top_run.h xl-plugin/top_live.c \
	xl-plugin/top_replay.c xl-plugin/top_frame.c xl-plugin/top_keys.c \
	xl-plugin/top_view.c xl-plugin/top_view.h \
	xl-plugin/top_term.c xl-plugin/top_term.h
# xl profile's command line: its parser, usage and option tables.
xl_plugin_xl_profile_SOURCES += xl-plugin/options.c xl-plugin/options.h \
	xl-plugin/option_docs.c xl-plugin/option_docs.h
xl_plugin_xl_profile_CFLAGS = $(AM_CFLAGS) $(XENLIGHT_CFLAGS) $(XLUTIL_CFLAGS) \
	$(XENTOOLLOG_CFLAGS) $(YAJL_CFLAGS)
xl_plugin_xl_profile_LDADD = $(TOOLKIT_LIBS)
