# Fuzzing (included by the top Makefile.am: one non-recursive make).
# libFuzzer targets (configure CC=clang --enable-fuzzing; tests/fuzz/README).
# make fuzz builds them and runs each for FUZZ_SECONDS from its seed corpus
# and regression inputs; any crash, leak, timeout or OOM fails it.
FUZZ_SECONDS = 60
FUZZ_TARGETS = tests/fuzz/fuzz_symbols tests/fuzz/fuzz_eh_frame \
	tests/fuzz/fuzz_cfi_table tests/fuzz/fuzz_image tests/fuzz/fuzz_output \
	tests/fuzz/fuzz_stored tests/fuzz/fuzz_dump_core tests/fuzz/fuzz_srcinfo
EXTRA_DIST += tests/fuzz
if FUZZING
EXTRA_PROGRAMS = $(FUZZ_TARGETS) tests/fuzz/gen_seeds
CLEANFILES += $(FUZZ_TARGETS) tests/fuzz/gen_seeds
FUZZ_LINK = -fsanitize=fuzzer
FUZZ_LDADD = core/libuniprof-core.la
# Writes the image and output seeds (tests/fuzz/make-corpus.sh).
tests_fuzz_gen_seeds_SOURCES = tests/fuzz/gen_seeds.c
tests_fuzz_gen_seeds_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_fuzz_gen_seeds_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS)
tests_fuzz_gen_seeds_LDADD = tests/unit/libtestguest.la core/libuniprof-core.la
tests_fuzz_fuzz_symbols_SOURCES = tests/fuzz/fuzz_symbols.c
tests_fuzz_fuzz_symbols_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_symbols_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_symbols_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_eh_frame_SOURCES = tests/fuzz/fuzz_eh_frame.c
tests_fuzz_fuzz_eh_frame_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_eh_frame_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_eh_frame_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_cfi_table_SOURCES = tests/fuzz/fuzz_cfi_table.c
tests_fuzz_fuzz_cfi_table_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_cfi_table_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_cfi_table_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_image_SOURCES = tests/fuzz/fuzz_image.c
tests_fuzz_fuzz_image_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_image_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_image_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_stored_SOURCES = tests/fuzz/fuzz_stored.c
tests_fuzz_fuzz_stored_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_stored_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_stored_LDADD = $(FUZZ_LDADD) $(ZLIB_LIBS)
tests_fuzz_fuzz_dump_core_SOURCES = tests/fuzz/fuzz_dump_core.c
tests_fuzz_fuzz_dump_core_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_dump_core_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_dump_core_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_srcinfo_SOURCES = tests/fuzz/fuzz_srcinfo.c
tests_fuzz_fuzz_srcinfo_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_srcinfo_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_srcinfo_LDADD = $(FUZZ_LDADD)
# The JSON summary is xl profile's own (toolkit/summary.c), read back with yajl; the
# SVG is read back with libxml2.
tests_fuzz_fuzz_output_SOURCES = tests/fuzz/fuzz_output.c \
	toolkit/run.h toolkit/run_checks.c toolkit/run_checks.h \
	toolkit/run_output.c toolkit/run_output.h \
	toolkit/summary.c toolkit/summary.h \
	toolkit/formats.c toolkit/formats.h \
	toolkit/output_files.c toolkit/output_files.h \
	toolkit/json_write.c toolkit/json_write.h
tests_fuzz_fuzz_output_CFLAGS = $(AM_CFLAGS) $(FUZZ_LINK) $(YAJL_CFLAGS) \
	$(LIBXML_CFLAGS)
tests_fuzz_fuzz_output_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_output_LDADD = $(FUZZ_LDADD) $(YAJL_LIBS) $(LIBXML_LIBS)

fuzz: $(FUZZ_TARGETS)
	FUZZ_SECONDS='$(FUZZ_SECONDS)' $(SHELL) $(top_srcdir)/tests/fuzz/run.sh \
		'$(top_srcdir)/tests/fuzz' tests/fuzz $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: configure with CC=clang --enable-fuzzing (see tests/fuzz/README)" >&2; exit 1
endif
.PHONY: fuzz
