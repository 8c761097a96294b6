# Unit tests (tests/unit, tests/toolkit, tests/daemon) and their fixtures (included by the top Makefile.am: one non-recursive make).
UNIT_TESTS = \
	tests/unit/test_paging \
	tests/unit/test_paging_arm64 \
	tests/unit/test_unwind_arm64 \
	tests/unit/test_cfi_arm64 \
	tests/unit/test_xen_context_arm64 \
	tests/unit/test_image_header_arm64 \
	tests/unit/test_unwind_fp \
	tests/unit/test_symbols \
	tests/unit/test_profile \
	tests/unit/test_image \
	tests/unit/test_dump_core \
	tests/unit/test_sampler \
	tests/unit/test_stall_budget \
	tests/unit/test_sample_relaxed \
	tests/unit/test_pause_deadline \
	tests/unit/test_hostile_images \
	tests/unit/test_eh_frame \
	tests/unit/test_cfi_caps \
	tests/unit/test_symbol_caps \
	tests/unit/test_srcinfo \
	tests/unit/test_unwind_cfi \
	tests/unit/test_unwind_compare \
	tests/unit/test_unwind_rules \
	tests/unit/test_hypercall_probe \
	tests/unit/test_unwind_budget \
	tests/unit/test_stored \
	tests/unit/test_diff \
	tests/unit/test_pprof_read \
	tests/unit/test_pprof_write \
	tests/unit/test_sample_times \
	tests/toolkit/test_symbols_find \
	tests/toolkit/test_debuginfod_fetch \
	tests/toolkit/test_image_cache \
	tests/toolkit/test_unwind_load \
	tests/unit/test_output_names \
	tests/unit/test_out_buf \
	tests/unit/test_text_memo \
	tests/unit/test_radix_order \
	tests/unit/test_grow \
	tests/unit/test_file_map \
	tests/toolkit/test_run_checks \
	tests/toolkit/test_summary \
	tests/toolkit/test_formats \
	tests/toolkit/test_output_files \
	tests/toolkit/test_sampler_cpu \
	tests/xl-plugin/test_stack_print \
	tests/xl-plugin/test_top_view

# The daemon's parts, when it is built (configure --with-daemon).
if DAEMON
UNIT_TESTS += tests/daemon/test_settings tests/daemon/test_http_api \
	tests/daemon/test_symbol_cache
endif
check_PROGRAMS = $(UNIT_TESTS)
check_LTLIBRARIES = tests/unit/libtestguest.la
tests_unit_libtestguest_la_SOURCES = tests/unit/guest.c tests/unit/guest.h \
	tests/unit/guest_arm64.c tests/unit/guest_arm64.h \
	tests/unit/xen_core_build.c tests/unit/xen_core_build.h tests/unit/test.h \
	tests/unit/pprof_unpack.h
tests_unit_libtestguest_la_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS)
tests_unit_libtestguest_la_LIBADD = core/libuniprof-core.la
tests_unit_test_dump_core_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS)
tests_unit_test_srcinfo_LDADD = $(LDADD) $(ZLIB_LIBS) $(PROTOBUF_C_LIBS)
tests_unit_test_pprof_read_LDADD = $(LDADD) $(ZLIB_LIBS) $(PROTOBUF_C_LIBS)
tests_unit_test_pprof_write_LDADD = $(LDADD) $(ZLIB_LIBS) $(PROTOBUF_C_LIBS)
tests_unit_test_out_buf_LDADD = $(LDADD) $(MATH_LIBS)

LDADD = tests/unit/libtestguest.la core/libuniprof-core.la

tests_toolkit_test_symbols_find_SOURCES = tests/toolkit/test_symbols_find.c \
	toolkit/symbols_find.c toolkit/symbols_find.h \
	toolkit/debuginfod_fetch.c toolkit/debuginfod_fetch.h \
	toolkit/image_cache.c toolkit/image_cache.h
tests_toolkit_test_symbols_find_CFLAGS = $(AM_CFLAGS) $(DEBUGINFOD_CFLAGS)
tests_toolkit_test_symbols_find_LDADD = $(LDADD)
tests_toolkit_test_debuginfod_fetch_SOURCES = tests/toolkit/test_debuginfod_fetch.c \
	tests/unit/hostile_debuginfod.c tests/unit/hostile_debuginfod.h \
	toolkit/symbols_find.c toolkit/symbols_find.h \
	toolkit/debuginfod_fetch.c toolkit/debuginfod_fetch.h \
	toolkit/unwind_load.c toolkit/unwind_load.h \
	toolkit/image_cache.c toolkit/image_cache.h
tests_toolkit_test_debuginfod_fetch_CFLAGS = $(AM_CFLAGS) -pthread $(DEBUGINFOD_CFLAGS)
tests_toolkit_test_debuginfod_fetch_LDADD = $(LDADD) -lpthread
tests_toolkit_test_image_cache_SOURCES = tests/toolkit/test_image_cache.c \
	toolkit/image_cache.c toolkit/image_cache.h
tests_toolkit_test_unwind_load_SOURCES = tests/toolkit/test_unwind_load.c \
	toolkit/unwind_load.c toolkit/unwind_load.h \
	toolkit/image_cache.c toolkit/image_cache.h
# It reads the test guests (noinst_DATA: built before any test runs).
tests_toolkit_test_summary_SOURCES = tests/toolkit/test_summary.c tests/toolkit/budget_run.h \
	toolkit/run.h toolkit/run_checks.c toolkit/run_checks.h \
	toolkit/run_output.c toolkit/run_output.h \
	toolkit/summary.c toolkit/summary.h \
	toolkit/formats.c toolkit/formats.h \
	toolkit/output_files.c toolkit/output_files.h \
	toolkit/json_write.c toolkit/json_write.h
tests_toolkit_test_summary_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_toolkit_test_summary_LDADD = $(LDADD) $(YAJL_LIBS) $(MATH_LIBS)
tests_toolkit_test_run_checks_SOURCES = tests/toolkit/test_run_checks.c tests/toolkit/budget_run.h \
	toolkit/run.h toolkit/run_checks.c toolkit/run_checks.h
tests_toolkit_test_run_checks_LDADD = $(LDADD) $(MATH_LIBS)

# xl profile --once and core's stack printing, text and JSON.
tests_xl_plugin_test_stack_print_SOURCES = tests/xl-plugin/test_stack_print.c \
	xl-plugin/stack_print.c xl-plugin/stack_print.h \
	toolkit/json_write.c toolkit/json_write.h
tests_xl_plugin_test_stack_print_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/xl-plugin -I$(top_srcdir)/tests/unit
tests_xl_plugin_test_stack_print_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_xl_plugin_test_stack_print_LDADD = $(LDADD) $(YAJL_LIBS)

# A pprof profile of the test unikernel's image written without Xen as xl
# profile writes one, for pprof-mappings-go.test (not a test of its own).
# It counts stacks itself (up_profile_add_activity): the private archive.
check_PROGRAMS += tests/xl-plugin/guest-pprof
tests_xl_plugin_guest_pprof_SOURCES = tests/xl-plugin/guest_pprof.c
tests_xl_plugin_guest_pprof_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_xl_plugin_guest_pprof_LDADD = toolkit/libtoolkit.la core/libuniprof-core.la $(TOOLKIT_DEP_LIBS)

# xl profile top's screen: a live run's sends nothing to libdw.
tests_xl_plugin_test_top_view_SOURCES = tests/xl-plugin/test_top_view.c \
	xl-plugin/top_view.c xl-plugin/top_view.h
tests_xl_plugin_test_top_view_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/xl-plugin -I$(top_srcdir)/tests/unit
tests_xl_plugin_test_top_view_LDADD = $(LDADD) $(MATH_LIBS)

# The sampler's dom0 CPU: /proc/interrupts read, the choice made.
tests_toolkit_test_sampler_cpu_SOURCES = tests/toolkit/test_sampler_cpu.c \
	toolkit/sampler_cpu.c toolkit/sampler_cpu.h \
	toolkit/backend_load.c toolkit/backend_load.h \
	toolkit/domain.c toolkit/domain.h
tests_toolkit_test_sampler_cpu_CFLAGS = $(AM_CFLAGS) $(XENLIGHT_CFLAGS) $(XENTOOLLOG_CFLAGS)
tests_toolkit_test_sampler_cpu_LDADD = $(LDADD) $(XENLIGHT_LIBS) $(XENTOOLLOG_LIBS)

# The output formats' table is consistent (names, suffixes, bits, commands).
tests_toolkit_test_formats_SOURCES = tests/toolkit/test_formats.c \
	toolkit/formats.c toolkit/formats.h \
	toolkit/output_files.c toolkit/output_files.h

# Profile files: written whole, with the mode xl-profile(1) gives.
tests_toolkit_test_output_files_SOURCES = tests/toolkit/test_output_files.c \
	toolkit/output_files.c toolkit/output_files.h

# The daemon's parts, tested as the daemon links them.
tests_daemon_test_settings_SOURCES = tests/daemon/test_settings.c $(UPD_SOURCES)
tests_daemon_test_settings_CPPFLAGS = $(UPD_CPPFLAGS) -I$(top_srcdir)/daemon -I$(top_srcdir)/tests/unit
tests_daemon_test_settings_CFLAGS = $(UPD_CFLAGS)
tests_daemon_test_settings_LDADD = $(UPD_LIBS)
tests_daemon_test_http_api_SOURCES = tests/daemon/test_http_api.c \
	daemon/http_api.c daemon/http_api.h daemon/request.c daemon/request.h \
	daemon/log.c daemon/log.h
tests_daemon_test_http_api_CPPFLAGS = $(UPD_CPPFLAGS) -I$(top_srcdir)/daemon -I$(top_srcdir)/tests/unit
tests_daemon_test_http_api_CFLAGS = $(UPD_CFLAGS)
tests_daemon_test_http_api_LDADD = $(UPD_LIBS)
# One domain's slow symbol load (a dripping debuginfod server) blocks no other.
tests_daemon_test_symbol_cache_SOURCES = tests/daemon/test_symbol_cache.c \
	tests/unit/hostile_debuginfod.c tests/unit/hostile_debuginfod.h $(UPD_SOURCES)
tests_daemon_test_symbol_cache_CPPFLAGS = $(UPD_CPPFLAGS) -I$(top_srcdir)/daemon -I$(top_srcdir)/tests/unit
tests_daemon_test_symbol_cache_CFLAGS = $(UPD_CFLAGS)
tests_daemon_test_symbol_cache_LDADD = $(UPD_LIBS)

# x86_64 images the tests read, never run here: built by TG_CC (the test
# unikernel's x86_64 compiler), so a cross build has them too; with the
# build's CFLAGS after our own, as automake's rules had them.
# A small program with known functions for the symbol tests.
X86_FIXTURES = tests/unit/fixture_symbols tests/unit/fixture_cfi_far \
	tests/unit/fixture_cfi_loop tests/unit/fixture_entry0 tests/unit/fixture_lines
tests/unit/fixture_symbols: $(srcdir)/tests/unit/fixture_symbols.c
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(TG_CC) -O1 -g0 $(CFLAGS) -Wl,--build-id=sha1 -o $@ $(srcdir)/tests/unit/fixture_symbols.c
# Inlined calls and line tables (-O2 -g), for the source-line tests.
tests/unit/fixture_lines: $(srcdir)/tests/unit/fixture_lines.c
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(TG_CC) $(CFLAGS) -O2 -g -Wl,--build-id=sha1 -o $@ $(srcdir)/tests/unit/fixture_lines.c
# An image with one CFI rule beyond the table, for the libunwind fallback.
tests/unit/fixture_cfi_far: $(srcdir)/tests/unit/fixture_cfi_far.c
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(TG_CC) -O1 -g0 $(CFLAGS) -no-pie -o $@ $(srcdir)/tests/unit/fixture_cfi_far.c
# An image whose CFA rule loops forever in a DWARF expression evaluator.
tests/unit/fixture_cfi_loop: $(srcdir)/tests/unit/fixture_cfi_loop.c
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(TG_CC) -O1 -g0 $(CFLAGS) -no-pie -o $@ $(srcdir)/tests/unit/fixture_cfi_loop.c
# An image linked at 0 and entered there, as Mini-OS and Unikraft are.
tests/unit/fixture_entry0: $(srcdir)/tests/unit/fixture_entry0.c
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(TG_CC) -O1 -g0 -ffreestanding -fno-pie -no-pie -nostdlib -static \
		-Wl,-Ttext=0 -o $@ $(srcdir)/tests/unit/fixture_entry0.c
CLEANFILES += $(X86_FIXTURES)

# An AArch64 image with the CFI GCC writes for it (leaves, frame records,
# a function without frame pointer), for the AArch64 CFI tests.
check_DATA = $(X86_FIXTURES)
if HAVE_AARCH64_CC
check_DATA += tests/unit/fixture_arm64.elf
tests/unit/fixture_arm64.elf: $(srcdir)/tests/unit/fixture_arm64.c
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(AARCH64_CC) -O2 -g0 -ffreestanding -nostdlib -static \
		-fasynchronous-unwind-tables -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -Wl,--build-id=sha1 -o $@ $(srcdir)/tests/unit/fixture_arm64.c
CLEANFILES += tests/unit/fixture_arm64.elf
endif
