# libuniprof and the crash guard's watchdog (included by the top Makefile.am: one non-recursive make).
# Everything is built once into a private archive; the shared library
# exports only the public up_* API from it, and the tests link the archive
# so they can reach internals (as libgit2's tests do).
noinst_LTLIBRARIES = core/libuniprof-core.la
lib_LTLIBRARIES = core/libuniprof.la

# One folder per stage of the data's way (docs/ARCHITECTURE.md): a target
# gives registers and guest memory, the unwinders walk it, the sampler
# loops, the profile counts, the writers render.
CORE_UTIL = core/util/error.c core/util/error_impl.h core/util/version.c core/util/layout_version.h \
	core/util/grow.c core/util/grow.h core/util/file_read.c core/util/file_read.h \
	core/util/elf_copy.c core/util/elf_copy.h core/util/file_map.c core/util/file_map.h \
	core/util/strmap.c core/util/strmap.h core/util/clock.h \
	core/util/text_memo.c core/util/text_memo.h \
	core/util/radix_order.c core/util/radix_order.h \
	core/util/utf8.c core/util/utf8.h core/util/image_file.c core/util/image_file.h
CORE_TARGET = core/target/target.c core/target/target_impl.h core/target/image.h \
	core/target/xen.c core/target/xen_domctl.c core/target/xen_domctl.h \
	core/target/dump_core.c core/target/image.c core/target/image_build.c \
	core/target/image_format.h \
	core/target/xen_context_x86.c core/target/xen_context_x86.h \
	core/target/xen_context_arm64.c core/target/xen_context_arm64.h
CORE_GUARD = core/guard/crash_guard.c core/guard/pause_state.c core/guard/pause_state.h
CORE_ARCH = core/arch/arch.c core/arch/arch.h \
	core/arch/x86/arch.c core/arch/x86/x86.h core/arch/x86/paging.c \
	core/arch/x86/hypercall_stub.c core/arch/x86/upcall_frame.c core/arch/x86/interrupt_frame.c core/arch/x86/call_site.c \
	core/arch/arm64/arch.c core/arch/arm64/arm64.h core/arch/arm64/paging.c \
	core/arch/arm64/hypercall.c core/arch/arm64/image_header.c core/arch/arm64/call_site.c
CORE_MEM = core/mem/memory.c core/mem/memory.h core/mem/memory_log.h core/mem/paging.c core/mem/paging.h \
	core/mem/frame_cache.c core/mem/frame_cache.h
CORE_UNWIND = core/unwind/fp.c core/unwind/cfi.c core/unwind/libunwind.c \
	core/unwind/kernel_map.c core/unwind/kernel_map.h core/unwind/hypercall_probe.c \
	core/unwind/eh_frame.c core/unwind/eh_frame.h \
	core/unwind/cfi_table.c core/unwind/cfi_table.h
CORE_SYMBOLS = core/symbols/table.c core/symbols/table_impl.h \
	core/symbols/lookup_cache.h \
	core/symbols/elf.c core/symbols/nm.c core/symbols/demangle.c \
	core/symbols/hypercall.c core/symbols/load.c \
	core/symbols/srcinfo.c core/symbols/srcinfo.h \
	core/symbols/dwarf_prescan.c core/symbols/dwarf_prescan.h
CORE_SAMPLER = core/sampler/sampler.c core/sampler/sampler_impl.h \
	core/sampler/pacing.c core/sampler/paused.c core/sampler/walk.c \
	core/sampler/config.c core/sampler/stats.c \
	core/sampler/relaxed.c core/sampler/stall_budget.c
CORE_PROFILE = core/profile/profile.c core/profile/profile_impl.h \
	core/profile/stored.c core/profile/stored_impl.h \
	core/profile/stored_stacks.c core/profile/folded_read.c \
	core/profile/pprof_read.c
CORE_OUTPUT = core/output/fold.c core/output/fold.h core/output/frame_labels.c \
	core/output/frame_labels.h core/output/top.c core/output/flamegraph_svg.c core/output/heatmap_html.c \
	core/output/text_terminal.c core/output/name_fit.c core/output/name_fit.h \
	core/output/out_buf.c core/output/out_buf.h core/output/diff.c
CORE_PPROF = core/pprof/write.c
# private.h: the up_* API the library keeps to itself (not exported).
core_libuniprof_core_la_SOURCES = core/private.h $(CORE_UTIL) $(CORE_TARGET) $(CORE_GUARD) \
	$(CORE_ARCH) $(CORE_MEM) $(CORE_UNWIND) $(CORE_SYMBOLS) $(CORE_SAMPLER) \
	$(CORE_PROFILE) $(CORE_OUTPUT) $(CORE_PPROF)
nodist_core_libuniprof_core_la_SOURCES = core/pprof/profile.pb-c.c core/pprof/profile.pb-c.h

# pprof's message definitions, compiled from our own .proto by protoc-c.
core/pprof/profile.pb-c.c core/pprof/profile.pb-c.h: $(srcdir)/core/pprof/profile.proto
	$(AM_V_GEN)$(MKDIR_P) core/pprof && \
	$(PROTOC_C) --c_out=core/pprof -I$(srcdir)/core/pprof $(srcdir)/core/pprof/profile.proto
BUILT_SOURCES = core/pprof/profile.pb-c.h
# BUILT_SOURCES covers make all/check only: a single target (make fuzz) too.
core/pprof/libuniprof_core_la-write.lo core/profile/libuniprof_core_la-pprof_read.lo: \
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
# Exactly the functions the installed headers declare, stable and sys:
# no internal up_ function (core/private.h), no test hook (tests link
# the archive).
core_libuniprof_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-export-symbols core/libuniprof.sym
EXTRA_core_libuniprof_la_DEPENDENCIES = core/libuniprof.sym
UNIPROF_API_DECLS = $(uniprofinclude_HEADERS) $(uniprofsysinclude_HEADERS)
core/libuniprof.sym: $(UNIPROF_API_DECLS:%=$(srcdir)/%)
	$(AM_V_GEN)$(MKDIR_P) core && \
	sed -E -n '/^static/d; s/^[a-z][a-z0-9_ ]*[ *](up_[a-z0-9_]+)\(.*/\1/p' \
		$(UNIPROF_API_DECLS:%=$(srcdir)/%) | LC_ALL=C sort -u > $@
CLEANFILES += core/libuniprof.sym

# The stable API (uniprof.h includes it all) and, in sys/, the evolving
# one, included by name (as libgit2's git2/ and git2/sys/).
uniprofincludedir = $(includedir)/uniprof
uniprofinclude_HEADERS = \
	include/uniprof/uniprof.h include/uniprof/error.h \
	include/uniprof/target.h include/uniprof/crash_guard.h \
	include/uniprof/symbols.h include/uniprof/profile.h \
	include/uniprof/stored.h include/uniprof/diff.h \
	include/uniprof/sampler.h include/uniprof/text.h
uniprofsysincludedir = $(includedir)/uniprof/sys
uniprofsysinclude_HEADERS = \
	include/uniprof/sys/unwind.h include/uniprof/sys/kernel.h

pkgconfig_DATA = uniprof.pc

# The crash guard's watchdog, spawned by libuniprof (never forked).
pkglibexec_PROGRAMS = core/uniprof-guard
core_uniprof_guard_SOURCES = core/guard/watchdog.c core/guard/pause_state.c core/guard/pause_state.h
core_uniprof_guard_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS)
core_uniprof_guard_LDADD = $(XENCTRL_LIBS)
