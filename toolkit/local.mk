# toolkit: what xl profile and uniprofd share (included by the top
# Makefile.am: one non-recursive make). The domain through libxl, the
# symbol search (and debuginfod), unwind tables, the kernel map, the summaries, the output
# formats and the files they go to. Its users include its headers by path
# ("toolkit/run_output.h").
noinst_LTLIBRARIES += toolkit/libtoolkit.la
toolkit_libtoolkit_la_SOURCES = \
	toolkit/value_parse.c toolkit/value_parse.h \
	toolkit/domain.c toolkit/domain.h toolkit/cpuset.h \
	toolkit/sampler_cpu.c toolkit/sampler_cpu.h \
	toolkit/backend_load.c toolkit/backend_load.h \
	toolkit/pcpu_clock.c toolkit/pcpu_clock.h \
	toolkit/symbols_find.c toolkit/symbols_find.h \
	toolkit/debuginfod_fetch.c toolkit/debuginfod_fetch.h \
	toolkit/image_cache.c toolkit/image_cache.h \
	toolkit/run.h toolkit/run_checks.c toolkit/run_checks.h \
	toolkit/run_output.c toolkit/run_output.h \
	toolkit/summary.c toolkit/summary.h \
	toolkit/formats.c toolkit/formats.h \
	toolkit/json_write.c toolkit/json_write.h \
	toolkit/output_files.c toolkit/output_files.h \
	toolkit/unwind_load.c toolkit/unwind_load.h \
	toolkit/kernel_map_load.c toolkit/kernel_map_load.h
toolkit_libtoolkit_la_CFLAGS = $(AM_CFLAGS) $(XENLIGHT_CFLAGS) $(XLUTIL_CFLAGS) $(XENCTRL_CFLAGS) \
	$(XENTOOLLOG_CFLAGS) $(YAJL_CFLAGS) $(DEBUGINFOD_CFLAGS)
TOOLKIT_DEP_LIBS = $(XENLIGHT_LIBS) $(XLUTIL_LIBS) $(XENCTRL_LIBS) \
	$(XENTOOLLOG_LIBS) $(YAJL_LIBS) $(MATH_LIBS)
TOOLKIT_LIBS = toolkit/libtoolkit.la core/libuniprof.la $(TOOLKIT_DEP_LIBS)
