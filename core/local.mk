# libuniprof and the crash guard's watchdog (included by the top Makefile.am: one non-recursive make).
# Everything is built once into a private archive; the shared library
# exports only the public up_* API from it, and the tests link the archive
# so they can reach internals (as libgit2's tests do).
noinst_LTLIBRARIES = core/libuniprof-core.la
lib_LTLIBRARIES = core/libuniprof.la

core_libuniprof_core_la_SOURCES = \
	core/error.c core/error_impl.h core/version.c core/grow.c core/grow.h \
	core/target.c core/target_impl.h \
	core/target_xen.c core/xen_domctl.c core/xen_domctl.h \
	core/target_core.c \
	core/target_image.c core/image.c core/image_format.h \
	core/crash_guard.c core/pause_state.c core/pause_state.h \
	core/frame_cache.c core/frame_cache.h \
	core/paging.c core/paging.h \
	core/arch/arch.c core/arch/arch.h \
	core/arch/x86/arch.c core/arch/x86/x86.h core/arch/x86/paging.c \
	core/arch/x86/hypercall_stub.c \
	core/arch/arm64/arch.c core/arch/arm64/arm64.h core/arch/arm64/paging.c \
	core/arch/arm64/hypercall.c core/arch/arm64/image_header.c \
	core/arch/arm64/xen_context.c core/arch/arm64/xen_context.h \
	core/arch/x86/xen_context.c core/arch/x86/xen_context.h \
	core/memory.c core/memory_log.h \
	core/unwind_fp.c core/unwind_cfi.c core/unwind_libunwind.c \
	core/kernel_map.c core/kernel_map.h \
	core/symtab_hypercall.c \
	core/eh_frame.c core/eh_frame.h core/cfi_table.c core/cfi_table.h \
	core/symtab.c core/symtab_impl.h \
	core/symbols_elf.c core/symbols_nm.c core/demangle.c \
	core/strmap.c core/strmap.h \
	core/utf8.c core/utf8.h core/text_terminal.c core/name_fit.c core/name_fit.h \
	core/profile.c core/profile_output.c core/profile_fold.h \
	core/flamegraph_svg.c core/profile_impl.h \
	core/file_read.c core/file_read.h \
	core/pprof_write.c core/stored_load.c core/profile_diff.c \
	core/sampler.c core/sampler_impl.h \
	core/sample_relaxed.c
nodist_core_libuniprof_core_la_SOURCES = core/pprof/profile.pb-c.c core/pprof/profile.pb-c.h

# pprof's message definitions, compiled from our own .proto by protoc-c.
core/pprof/profile.pb-c.c core/pprof/profile.pb-c.h: $(srcdir)/core/pprof/profile.proto
	$(AM_V_GEN)$(MKDIR_P) core/pprof && \
	$(PROTOC_C) --c_out=core/pprof -I$(srcdir)/core/pprof $(srcdir)/core/pprof/profile.proto
BUILT_SOURCES = core/pprof/profile.pb-c.h
# BUILT_SOURCES covers make all/check only: a single target (make fuzz) too.
core/libuniprof_core_la-pprof_write.lo core/libuniprof_core_la-stored_load.lo: \
	core/pprof/profile.pb-c.h
CLEANFILES = core/pprof/profile.pb-c.c core/pprof/profile.pb-c.h
core_libuniprof_core_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DUNIPROF_GUARD_PATH='"$(pkglibexecdir)/uniprof-guard"'
core_libuniprof_core_la_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS) $(XENFMEM_CFLAGS) $(XENCALL_CFLAGS) \
	$(XENTOOLLOG_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(ZLIB_CFLAGS) \
	$(LIBUNWIND_CFLAGS)
CORE_DEP_LIBS = $(XENCTRL_LIBS) $(XENFMEM_LIBS) $(XENCALL_LIBS) $(XENTOOLLOG_LIBS) \
	$(LIBELF_LIBS) $(LIBDW_LIBS) $(ZLIB_LIBS) $(LIBUNWIND_LIBS) \
	$(PROTOBUF_C_LIBS) $(DEMANGLE_LIBS) $(MATH_LIBS)
core_libuniprof_core_la_LIBADD = $(CORE_DEP_LIBS)

core_libuniprof_la_SOURCES =
core_libuniprof_la_LIBADD = core/libuniprof-core.la $(CORE_DEP_LIBS)
core_libuniprof_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-export-symbols-regex '^up_'

uniprofincludedir = $(includedir)/uniprof
uniprofinclude_HEADERS = \
	include/uniprof/uniprof.h include/uniprof/error.h \
	include/uniprof/target.h include/uniprof/memory.h \
	include/uniprof/unwind.h include/uniprof/symbols.h \
	include/uniprof/profile.h include/uniprof/sampler.h \
	include/uniprof/image.h include/uniprof/crash_guard.h \
	include/uniprof/kernel.h include/uniprof/stored.h include/uniprof/diff.h \
	include/uniprof/text.h

pkgconfig_DATA = uniprof.pc

# The crash guard's watchdog, spawned by libuniprof (never forked).
pkglibexec_PROGRAMS = core/uniprof-guard
core_uniprof_guard_SOURCES = core/guard_main.c core/pause_state.c core/pause_state.h
core_uniprof_guard_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS)
core_uniprof_guard_LDADD = $(XENCTRL_LIBS)
