# The checks of what the real-Xen run wrote by tools nobody here wrote
# (included by the top Makefile.am), host side, installed by
# scripts/install-deps.sh from Debian and npm: they read the run's files,
# so they run after it, and before the production host, which boots with
# the machine to itself.
THIRDPARTY_TESTS = tests/thirdparty/pprof-standalone.test tests/thirdparty/pprof-invariants.test \
	tests/thirdparty/speedscope-chromium.test tests/thirdparty/flamegraph-pl.test
TESTS += $(THIRDPARTY_TESTS)
$(THIRDPARTY_TESTS:.test=.log): tests/xen-vm/xen-scenarios.log
tests/xen-vm/xen-production.log: $(THIRDPARTY_TESTS:.test=.log)
EXTRA_DIST += tests/thirdparty
# The same rules without Xen, in the unit tests' part: the checker tried
# on broken profiles, then our writer's profiles of the test unikernel.
TESTS += tests/thirdparty/pprof-invariants-noxen.test
