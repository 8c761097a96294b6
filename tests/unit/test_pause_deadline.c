/* Nothing can hold the domain paused: the crash guard's watchdog (the real
 * uniprof-guard program, in its image mode) ends a pause that outlives its
 * limit while our code is stuck, exactly once; the sampler drops that
 * sample as abandoned; a failed last unpause does not send the watchdog
 * away; and killing our whole process group leaves the watchdog alive to
 * unpause. The image target stands in for Xen's pause count, so every
 * pause and unpause, whoever made it, is counted. */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "test.h"
#include "target/image_hooks.h"
#include "guard/pause_state.h"
#include "target/image.h"
#include "target/target_impl.h"
#include "util/clock.h"

TEST_GLOBALS;

#define STACK_VA 0xffff880000010000ULL
#define MS 1000000ull
#define S 1000000000ull

static struct up_target *guest(void)
{
	struct test_guest g;
	struct up_target *t;
	uint64_t ret[2] = { 0x1111, 0x2222 };
	uint64_t fp;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_PV);
	tg_map_fresh(&g, STACK_VA, 2);
	fp = tg_fp_chain(&g, STACK_VA, ret, 2);
	r = tg_regs(&g, 0xaaaa, STACK_VA, fp);
	up_image_add_vcpu(g.img, &r);
	t = tg_open(&g);
	tg_release(&g);
	return t;
}

static void use_built_guard(void)
{
	static char path[4096];
	const char *b = getenv("top_builddir");

	snprintf(path, sizeof(path), "%s/core/uniprof-guard", b ? b : ".");
	setenv("UNIPROF_GUARD", path, 1);
}

static double seconds_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* Pause 3 stalls (as a walk stuck in libunwind would) for up to 30 s; the
 * guard ends it after 20 ms, the stall sees that, and the sampler drops
 * the sample. Xen's count: six pauses, six unpauses, none twice. */
static void test_guard_ends_a_stuck_pause(void)
{
	struct up_target *t = guest();
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_image_pause_counts pc;
	struct up_profile *p;
	struct timespec a;

	REQUIRE(up_crash_guard_install(t) == 0);
	up_target_image_set_stall(t, 3, 30 * S);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 1000;
	c.max_samples = 6;
	c.max_pause_ns = 20 * MS;
	c.drop_late = true;     /* exact counts: one stack per kept sample */
	REQUIRE(up_profile_new(&p, 1) == 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	/* Generous for a busy machine: the stall alone would take 30 s,
	 * and a guard that missed it would sleep 10 s. */
	CHECK(seconds_since(&a) < 5);
	CHECK(st.stop == UP_STOP_MAX_SAMPLES);
	CHECK_U64(st.abandoned_samples, 1);
	CHECK_U64(st.samples, 5);
	CHECK_U64(st.nr_pause, 5);
	CHECK_U64(up_profile_vcpu_samples(p, 0), 5);
	CHECK(!up_target_paused_by_us(t));
	up_target_image_pause_counts(t, &pc);
	CHECK_U64(pc.pauses, 6);
	CHECK_U64(pc.unpauses, 6);
	CHECK_U64(pc.bad_unpauses, 0);
	CHECK_U64(pc.guard_releases, 1);
	CHECK(pc.held == 0);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

/* Every pause stalls up to 1 ms against a 1 ms limit: the guard and the
 * sampler race for the unpause on every sample. Whoever wins, Xen's count
 * sees exactly one unpause per pause, and each guard release is one
 * abandoned sample. */
static void test_exactly_one_unpause_under_races(void)
{
	struct up_target *t = guest();
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_image_pause_counts pc;
	struct up_profile *p;

	REQUIRE(up_crash_guard_install(t) == 0);
	up_target_image_set_stall(t, UP_IMAGE_STALL_EVERY, 1 * MS);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 400;
	c.max_samples = 300;
	c.max_pause_ns = 1 * MS;
	c.drop_late = true;     /* exact counts: one stack per kept sample */
	/* Every pause stands 1 ms at 400 Hz on purpose, 40 % of the time:
	 * past any stall budget, which would count samples several times. */
	c.max_stall_pct = UP_SAMPLER_NO_STALL_BUDGET;
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	up_target_image_pause_counts(t, &pc);
	CHECK_U64(pc.pauses, 300);
	CHECK_U64(pc.unpauses, 300);
	/* The deadline runs from the pause's landing: the guard never
	 * tries an unpause before it (which Xen would refuse, or, another
	 * profiler holding the domain paused, take from that one). */
	CHECK(pc.held == 0);
	CHECK_U64(pc.bad_unpauses, 0);
	CHECK_U64(st.samples + st.abandoned_samples, 300);
	CHECK_U64(st.abandoned_samples, pc.guard_releases);
	CHECK_U64(up_profile_vcpu_samples(p, 0), st.samples);
	/* Both sides must have won some (a 1 ms limit: the guard looks
	 * every 1 ms, or by the alarm at each deadline). */
	CHECK(st.abandoned_samples > 0);
	fprintf(stderr, "  races: %llu abandoned, %llu kept, %llu early unpauses refused\n",
		(unsigned long long)st.abandoned_samples,
		(unsigned long long)st.samples, (unsigned long long)pc.bad_unpauses);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

/* Xen's pause count of one domain, which two profilers share. */
static int shared_unpause(void *arg)
{
	int *count = arg;

	if (*count == 0)
		return -1;      /* Xen: EINVAL */
	(*count)--;
	return 0;
}

/* Two profilers of one domain (uniprofd's push and pull): B marks its
 * pause and is descheduled past its limit before the hypercall, while A
 * holds the domain paused. B's guard must not end B's pause then: its
 * unpause would take A's, and B's pause, landing after, would be one no
 * one undoes. The deadline runs from B's mark, so once B's pause lands
 * overdue, the guard ends it at once. */
static void test_guard_waits_for_the_pause_to_land(void)
{
	struct pause_state a, b;
	uint64_t wait, t0;
	int count = 0;

	ps_init(&a);
	ps_init(&b);
	atomic_store(&b.limit_ns, 100 * MS);
	ps_begin(&a);
	count++;                        /* A's pause lands */
	ps_paused(&a);
	ps_begin(&b);                   /* B marked, not landed yet */
	t0 = mono_ns();
	CHECK(ps_held(&b));
	/* Before the deadline, the guard sleeps until it, at most. */
	CHECK(ps_guard_check(&b, t0, shared_unpause, &count, &wait) == 0);
	CHECK(wait > 0 && wait <= 100 * MS);
	/* Past it, it only looks again soon. */
	CHECK(ps_guard_check(&b, t0 + 200 * MS, shared_unpause, &count,
			     &wait) == 0);
	CHECK_U64(wait, PS_LANDING_POLL_NS);
	CHECK(count == 1);              /* A's pause stands */
	count++;                        /* B's pause lands */
	ps_paused(&b);
	CHECK(ps_guard_check(&b, t0 + 200 * MS, shared_unpause, &count,
			     &wait) == 1);
	CHECK(ps_claim_unpause(&b) == PS_CLAIM_RELEASED);
	CHECK(ps_claim_unpause(&a) == PS_CLAIM_OURS);
	CHECK(shared_unpause(&count) == 0);
	ps_unpause_done(&a, true);
	CHECK(count == 0);
	CHECK(!ps_held(&a) && !ps_held(&b));
	/* A pause that never landed is nobody's. */
	ps_begin(&b);
	ps_begin_failed(&b);
	CHECK(!ps_held(&b));
	CHECK(ps_claim_unpause(&b) == PS_CLAIM_NOT_PAUSED);
}

/* Between samples the guard sleeps until the next one announced, not a
 * look period at a time (uniprofd keeps one guard per domain), and a
 * pause that comes before the announced time says the guard must be
 * woken. */
static void test_guard_sleeps_until_the_next_pause(void)
{
	struct pause_state ps;
	uint64_t now = 10 * S, period = 25 * MS, wait, q;

	ps_init(&ps);
	/* Nothing announced: with the alarm, a pause would wake the guard,
	 * which sleeps; without, nothing would, and it looks every period. */
	CHECK_U64(ps_guard_sleep_ns(&ps, now, 0, 0, period, true), PS_ALARM_SLEEP_NS);
	CHECK_U64(ps_guard_sleep_ns(&ps, now, 0, 0, period, false), period);
	/* A pause in progress: until its deadline, at most a period. */
	CHECK_U64(ps_guard_sleep_ns(&ps, now, 0, 3 * MS, period, false), 3 * MS);
	CHECK_U64(ps_guard_sleep_ns(&ps, now, 0, 40 * MS, period, true), period);
	/* The next pause at now + 300 ms: a period past it, so that pause
	 * is seen within a period of its start as before. */
	ps_quiet_until(&ps, now + 300 * MS);
	q = ps_guard_quiet(&ps);
	CHECK_U64(ps_guard_sleep_ns(&ps, now, q, 0, period, false), 300 * MS + period);
	/* With the alarm clock the profiler sets: until it rings. */
	CHECK_U64(ps_guard_sleep_ns(&ps, now, q, 0, period, true), PS_ALARM_SLEEP_NS);
	/* Announced time passed (its alarm may have rung): looking every
	 * period until it starts, alarm or not. */
	CHECK_U64(ps_guard_sleep_ns(&ps, now + 300 * MS, q, 0, period, false), period);
	CHECK_U64(ps_guard_sleep_ns(&ps, now + 300 * MS, q, 0, period, true), period);
	/* None planned: at most the idle sleep. */
	ps_quiet_until(&ps, UINT64_MAX);
	q = ps_guard_quiet(&ps);
	CHECK_U64(ps_guard_sleep_ns(&ps, now, q, 0, period, false), PS_IDLE_SLEEP_NS + period);
	/* No deadline at all: the idle sleep, whatever was announced. */
	atomic_store(&ps.limit_ns, 0);
	CHECK_U64(ps_guard_sleep_ns(&ps, now, q, 0, period, true), PS_IDLE_SLEEP_NS);
	atomic_store(&ps.limit_ns, PS_DEFAULT_LIMIT_NS);
	/* A pause before the time announced wants the guard woken, and
	 * takes the announcement back; one after it does not; one with
	 * nothing announced does. */
	ps_quiet_until(&ps, mono_ns() + 60 * S);
	CHECK(ps_begin(&ps));
	/* A guard that reads the announcement as taken back sees the
	 * pause in the check that follows, and sleeps to its deadline. */
	q = ps_guard_quiet(&ps);
	CHECK_U64(q, 0);
	CHECK(ps_guard_check(&ps, mono_ns(), NULL, NULL, &wait) == 0);
	CHECK(wait > 0);
	CHECK(ps_guard_sleep_ns(&ps, mono_ns(), q, wait, period, true) <= period);
	ps_paused(&ps);
	CHECK(ps_claim_unpause(&ps) == PS_CLAIM_OURS);
	ps_unpause_done(&ps, true);
	ps_quiet_until(&ps, mono_ns());
	CHECK(!ps_begin(&ps));
	ps_begin_failed(&ps);
	CHECK(ps_begin(&ps));
	ps_begin_failed(&ps);
}

/* How long the real guard takes to end a pause that begins now and is
 * held, -1 if not within 15 s; said on stderr when over say_over s. */
static double guard_ends_held_pause(struct up_target *t, double say_over)
{
	struct up_image_pause_counts pc;
	struct timespec a;
	double took = -1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (up_target_pause(t) != 0)
		return -1;
	while (took < 0 && seconds_since(&a) < 15) {
		up_target_image_pause_counts(t, &pc);
		if (pc.guard_releases)
			took = seconds_since(&a);
		else
			nanosleep(&(struct timespec){ .tv_nsec = 1000 * 1000 }, NULL);
	}
	if (took < 0 || took >= say_over)
		fprintf(stderr, "  the guard ended the pause after %.3f s\n", took);
	return took;
}

/* A late sampler: its alarm rang while it was held up (the guard then
 * sees nothing announced and sleeps on), and its next announcement is an
 * instant already past, near the old alarm. The alarm must be set again,
 * or the pause that follows, on time and so waking nobody, is unwatched
 * until the guard's sleep runs out (10 s) instead of its limit (50 ms). */
static void test_guard_after_a_late_announcement(void)
{
	struct up_target *t = guest();
	uint64_t t0;
	double took;

	REQUIRE(up_crash_guard_install(t) == 0);
	up_target_set_max_pause(t, 50 * MS);
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	t0 = mono_ns();
	target_quiet_until(t, t0);              /* its alarm: t0 + 50 ms */
	CHECK(up_target_pause(t) == 0);
	CHECK(up_target_unpause(t) == 0);
	nanosleep(&(struct timespec){ .tv_nsec = 120 * 1000 * 1000 }, NULL);
	target_quiet_until(t, t0 + 10 * MS);    /* read before the delay */
	took = guard_ends_held_pause(t, 0.5);
	CHECK(took >= 0 && took < 2);
	CHECK(up_target_unpause(t) == 0);
	up_target_close(t);
}

/* A guard without its alarm clock (a profiler out of descriptors) still
 * ends a pause announced and begun on time at its limit: it looks every
 * period when nothing is announced, as announcements wake nobody then. */
static void test_guard_without_its_alarm(void)
{
	char script[128];
	const char *real = getenv("UNIPROF_GUARD");
	struct up_target *t;
	double took;
	FILE *f;

	snprintf(script, sizeof(script), "/tmp/uniprof-guard-noalarm-%d", (int)getpid());
	REQUIRE(real && (f = fopen(script, "w")));
	/* Its socket, state and domain only: no alarm descriptor. */
	fprintf(f, "#!/bin/sh\nexec '%s' \"$1\" \"$2\" \"$3\"\n", real);
	fclose(f);
	REQUIRE(chmod(script, 0700) == 0);
	setenv("UNIPROF_GUARD", script, 1);
	t = guest();
	REQUIRE(up_crash_guard_install(t) == 0);
	setenv("UNIPROF_GUARD", real, 1);
	up_target_set_max_pause(t, 50 * MS);
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	/* A sample, then the gap before the next announcement, in which
	 * the guard looks (a period after the time announced) and finds
	 * nothing announced; then the next sample, on time. */
	target_quiet_until(t, mono_ns());
	CHECK(up_target_pause(t) == 0);
	CHECK(up_target_unpause(t) == 0);
	nanosleep(&(struct timespec){ .tv_nsec = 40 * 1000 * 1000 }, NULL);
	target_quiet_until(t, mono_ns() + 5 * MS);
	nanosleep(&(struct timespec){ .tv_nsec = 5 * 1000 * 1000 }, NULL);
	took = guard_ends_held_pause(t, 0.3);
	/* Its limit is 50 ms; sleeping a second on nothing announced, the
	 * guard would take most of it. */
	CHECK(took >= 0 && took < 0.6);
	CHECK(up_target_unpause(t) == 0);
	up_target_close(t);
	unlink(script);
}

/* The real guard, asleep until a pause announced a minute ahead, is woken
 * by a pause that comes now, and ends it at its limit (20 ms), not when
 * its alarm rings (the minute) or its sleep runs out (10 s). */
static void test_guard_woken_by_an_early_pause(void)
{
	struct up_target *t = guest();
	struct up_image_pause_counts pc;
	struct timespec a;
	double took = -1;

	REQUIRE(up_crash_guard_install(t) == 0);
	up_target_set_max_pause(t, 20 * MS);
	target_quiet_until(t, mono_ns() + 60 * S);
	/* Let the guard take the announcement and go to sleep on it. */
	nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(up_target_pause(t) == 0);
	/* This thread holds the pause, as a stuck walk would. */
	while (seconds_since(&a) < 5) {
		up_target_image_pause_counts(t, &pc);
		if (pc.guard_releases) {
			took = seconds_since(&a);
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 1000 * 1000 }, NULL);
	}
	CHECK(took >= 0);
	if (took >= 0.5)
		fprintf(stderr, "  the guard ended the early pause after %.3f s\n", took);
	/* Well under the sleep it would have slept: the margin is for a busy
	 * machine's scheduling of this thread and the guard. */
	CHECK(took < 2);
	CHECK(up_target_unpause(t) == 0);      /* the guard's: nothing to do */
	up_target_image_pause_counts(t, &pc);
	CHECK_U64(pc.pauses, 1);
	CHECK_U64(pc.unpauses, 1);
	CHECK_U64(pc.bad_unpauses, 0);
	up_target_close(t);
}

/* The times the guard process went to sleep (voluntary switches). */
static long guard_sleeps(pid_t pid)
{
	char path[64], line[256];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* A sampler at 200 Hz for a second, every sample in time: the guard sleeps
 * through them on its alarm clock. Looking every period (25 ms) it would
 * wake 40 times, and once per sample 200 times; the bound leaves room
 * for its start and a few spurious wakes. */
static void test_guard_sleeps_through_samples(void)
{
	struct up_target *t = guest();
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	long before, after;
	pid_t guard;

	REQUIRE(up_crash_guard_install(t) == 0);
	guard = (pid_t)up_crash_guard_pid(t);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 200;
	c.duration_s = 1;
	c.max_pause_ns = 50 * MS;
	REQUIRE(up_profile_new(&p, 1) == 0);
	/* Past its start-up (exec, its first look). */
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	before = guard_sleeps(guard);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	after = guard_sleeps(guard);
	CHECK(before >= 0 && after >= before);
	CHECK(st.samples >= 100);
	CHECK_U64(st.abandoned_samples, 0);
	if (after - before > 15)
		fprintf(stderr, "  the guard slept %ld times over %llu samples\n",
			after - before, (unsigned long long)st.samples);
	CHECK(after - before <= 15);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

static int wait_status(pid_t pid)
{
	int status = -1;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* Our last unpause fails: the guard is not told to quit; it unpauses the
 * domain itself (exit status 3) and we do not wait for it. */
static void test_failed_last_unpause_keeps_the_guard(void)
{
	struct up_target *t = guest();
	pid_t guard;
	int status;

	REQUIRE(up_crash_guard_install(t) == 0);
	guard = (pid_t)up_crash_guard_pid(t);
	REQUIRE(guard > 0);
	/* No deadline: on a busy machine this thread can stand still past
	 * the default 50 ms, and the guard's deadline unpause would go
	 * through before the failing one this is about. */
	up_target_set_max_pause(t, 0);
	CHECK(up_target_pause(t) == 0);
	up_target_image_fail_unpauses(t, 100);
	CHECK(up_target_unpause(t) < 0);
	CHECK(up_target_paused_by_us(t));
	up_target_close(t);            /* its unpause fails too */
	status = wait_status(guard);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
}

/* Two domains guarded by one process (the host daemon): each target has
 * its own watchdog, and neither holds the other's pipe, so the first one's
 * watchdog still sees its target go while the second lives on. */
static void test_two_guards_in_one_process(void)
{
	struct up_target *a = guest(), *b = guest();
	pid_t ga, gb;
	int status;

	REQUIRE(up_crash_guard_install(a) == 0);
	REQUIRE(up_crash_guard_install(b) == 0);
	ga = (pid_t)up_crash_guard_pid(a);
	gb = (pid_t)up_crash_guard_pid(b);
	CHECK(ga > 0 && gb > 0 && ga != gb);
	CHECK(up_crash_guard_install(a) < 0);   /* one per target */
	up_target_set_max_pause(a, 0);          /* as above: no deadline */
	up_target_set_max_pause(b, 0);
	CHECK(up_target_pause(a) == 0);
	CHECK(up_target_pause(b) == 0);
	up_target_image_fail_unpauses(a, 100);
	up_target_close(a);            /* its unpause fails: pipe closed */
	status = wait_status(ga);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	CHECK(kill(gb, 0) == 0);       /* b's watchdog still stands by */
	CHECK(up_target_unpause(b) == 0);
	up_target_close(b);
	CHECK(kill(gb, 0) < 0);        /* told to quit and reaped */
}

/* kill -KILL -- -PGID of the profiler's group: the guard lives in its own
 * session, survives, and unpauses what the profiler held. We are the
 * subreaper, so the orphaned guard's exit status comes to us. */
static void test_group_kill_spares_the_guard(void)
{
	int fds[2], status;
	pid_t child, guard = 0;

	REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	REQUIRE(pipe(fds) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		struct up_target *t;
		pid_t g;

		setpgid(0, 0);
		close(fds[0]);
		t = guest();
		if (up_crash_guard_install(t) < 0)
			_exit(1);
		/* No deadline: on a busy machine the kill can come later than
		 * the default 50 ms, and the guard's deadline unpause would
		 * then end this pause before the kill this is about. */
		up_target_set_max_pause(t, 0);
		if (up_target_pause(t) < 0)
			_exit(1);
		g = (pid_t)up_crash_guard_pid(t);
		if (write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	CHECK(read(fds[0], &guard, sizeof(guard)) == sizeof(guard));
	close(fds[0]);
	CHECK(getpgid(guard) != child);
	CHECK(kill(-child, SIGKILL) == 0);
	status = wait_status(child);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	if (guard > 0) {
		status = wait_status(guard);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int main(void)
{
	use_built_guard();
	/* A hang here is a failure, not a stuck suite. */
	alarm(120);
	RUN(test_guard_ends_a_stuck_pause);
	RUN(test_exactly_one_unpause_under_races);
	RUN(test_guard_waits_for_the_pause_to_land);
	RUN(test_guard_sleeps_until_the_next_pause);
	RUN(test_guard_woken_by_an_early_pause);
	RUN(test_guard_after_a_late_announcement);
	RUN(test_guard_without_its_alarm);
	RUN(test_guard_sleeps_through_samples);
	RUN(test_failed_last_unpause_keeps_the_guard);
	RUN(test_two_guards_in_one_process);
	RUN(test_group_kill_spares_the_guard);
	TEST_MAIN_END();
}
