/* uniprof-guard: the crash guard's watchdog, a separate program so that
 * nothing of the profiler (Xen handles, hypercall buffers, mappings) is
 * ever duplicated by fork. Started by up_crash_guard_install with:
 *   uniprof-guard SOCKET_FD STATE_FD DOMID|image [ALARM_FD]
 * STATE_FD is the shared struct pause_state (core/guard/pause_state.h);
 * ALARM_FD a timerfd the profiler sets for the latest instant the next
 * pause must be looked at. It watches two things:
 * - the socket: 'q' is an orderly release; 'w' a pause not announced, or
 *   before the time announced, or handed back (pause_state.h); EOF means
 *   the profiler is gone, and a domain still paused by it is unpaused
 *   (retrying for a while);
 * - the pause in progress: one that outlives its limit is ended here,
 *   exactly once (the state word's compare-and-swap decides whether we or
 *   the profiler make that unpause), even if the profiler is stuck.
 * "image" (tests): the unpause acts on the shared stand-in for Xen's pause
 * count instead of a domain.
 * Exit status: 0 nothing was left to do, 2 bad arguments, 3 it unpaused a
 * domain the profiler left paused, 4 it could not. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xenctrl.h>

#include "guard/pause_state.h"
#include "util/clock.h"

/* Above the sampler's SCHED_FIFO priority (10, xl-plugin/realtime.c): a
 * sampler spinning in its paused window must not starve its own deadline.
 * The guard sleeps nearly all the time. */
#define GUARD_PRIORITY 11

/* How often a new pause is looked at; once seen, the guard sleeps until
 * its exact deadline. */
#define MAX_PERIOD_NS (25ull * 1000 * 1000)
#define MIN_PERIOD_NS (1ull * 1000 * 1000)

/* After the profiler is gone: how long to keep trying to unpause. */
#define GIVE_UP_NS (600ull * 1000 * 1000 * 1000)

struct domain {
	struct pause_state *ps;
	uint32_t domid;
	bool image;
	int last_errno;
	/* Opened once: a deadline unpause must not wait for libxenctrl to
	 * set itself up. Reopened after a failure other than "not paused"
	 * or "no such domain". */
	xc_interface *xch;
};

static int unpause_domain(void *arg)
{
	struct domain *d = arg;
	int rc;

	if (d->image) {
		d->last_errno = EINVAL;
		return ps_image_unpause(d->ps);
	}
	if (!d->xch && !(d->xch = xc_interface_open(NULL, NULL, 0))) {
		d->last_errno = errno;
		return -1;
	}
	rc = xc_domain_unpause(d->xch, d->domid);
	d->last_errno = rc ? errno : 0;
	if (rc && d->last_errno != EINVAL && d->last_errno != ESRCH) {
		xc_interface_close(d->xch);
		d->xch = NULL;
	}
	return rc ? -1 : 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The profiler is gone (or let go while still holding the pause): keep
 * trying until the domain runs, is gone, or ten minutes have passed. The
 * profiler may have died inside its own unpause: if that one went
 * through, ours finds Xen's pause count at 0 and fails harmlessly. */
static int unpause_until_done(struct domain *d)
{
	uint64_t start = mono_ns(), wait = 100ull * 1000 * 1000;
	bool said = false;

	for (;;) {
		if (unpause_domain(d) == 0)
			return 3;
		/* ESRCH: no such domain. EINVAL: Xen's pause count is 0, so
		 * nobody holds it paused any more. */
		if (d->image || d->last_errno == ESRCH || d->last_errno == EINVAL)
			return 4;
		if (!said) {
			fprintf(stderr, "uniprof-guard: cannot unpause domain %u (%s); retrying; 'xl unpause %u' ends it by hand\n",
				d->domid, strerror(d->last_errno), d->domid);
			said = true;
		}
		if (mono_ns() - start > GIVE_UP_NS) {
			fprintf(stderr, "uniprof-guard: gave up unpausing domain %u: run 'xl unpause %u'\n",
				d->domid, d->domid);
			return 4;
		}
		sleep_ns(wait);
		if (wait < 1000ull * 1000 * 1000)
			wait *= 2;
	}
}

static uint64_t period_ns(const struct pause_state *ps)
{
	uint64_t p = atomic_load(&ps->limit_ns) / 2;

	return p < MIN_PERIOD_NS ? MIN_PERIOD_NS : p > MAX_PERIOD_NS ? MAX_PERIOD_NS : p;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = GUARD_PRIORITY };
	struct domain d = { 0 };
	int sock_fd, flag_fd;
	struct pollfd pfd[2];
	nfds_t nfds = 1;
	bool said = false;
	char c;

	if (argc != 4 && argc != 5)
		return 2;
	sock_fd = atoi(argv[1]);
	flag_fd = atoi(argv[2]);
	d.image = strcmp(argv[3], "image") == 0;
	d.domid = (uint32_t)strtoul(argv[3], NULL, 10);
	d.ps = mmap(NULL, sizeof(*d.ps), PROT_READ | PROT_WRITE, MAP_SHARED,
		    flag_fd, 0);
	if (d.ps == MAP_FAILED)
		return 2;
	/* Ctrl-C and kill -- -PGID go to the profiler's process group: outlive
	 * them (the spawn normally made us a session leader already). */
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (!d.image)
		d.xch = xc_interface_open(NULL, NULL, 0);   /* NULL: retried later */
	/* Best effort: without the privilege, normal priority. */
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		mlockall(MCL_CURRENT | MCL_FUTURE);
	pfd[0].fd = sock_fd;
	pfd[0].events = POLLIN;
	/* The alarm clock the profiler sets for the latest instant we must
	 * look (a timerfd): then we sleep through the samples that end in
	 * time instead of waking for each. */
	if (argc == 5) {
		pfd[1].fd = atoi(argv[4]);
		pfd[1].events = POLLIN;
		nfds = 2;
	}
	for (;;) {
		/* Before the check: see ps_guard_sleep_ns. */
		uint64_t quiet = ps_guard_quiet(d.ps), wait, period = period_ns(d.ps);
		struct timespec ts;
		int rc;

		rc = ps_guard_check(d.ps, mono_ns(), unpause_domain, &d, &wait);
		if (rc < 0 && !said && !d.image) {
			fprintf(stderr, "uniprof-guard: a pause of domain %u outlived its limit and cannot be ended: %s\n",
				d.domid, strerror(d.last_errno));
			said = true;
		}
		wait = ps_guard_sleep_ns(d.ps, mono_ns(), quiet, wait, period, nfds == 2);
		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
		rc = ppoll(pfd, nfds, &ts, NULL);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			continue;
		if (nfds == 2 && pfd[1].revents) {
			uint64_t rang;

			/* Non-blocking: the profiler may set it again between
			 * our poll and this read. */
			(void)!read(pfd[1].fd, &rang, sizeof(rang));
		}
		if (!pfd[0].revents)
			continue;
		rc = (int)read(sock_fd, &c, 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 1) {
			/* 'w': looked at above. A quit while the domain is still
			 * paused by us would leave it so: the profiler never
			 * sends one then. */
			if (c == 'q' && !ps_held(d.ps))
				return 0;
			continue;
		}
		break;                  /* EOF: the profiler is gone */
	}
	if (ps_held(d.ps))
		return unpause_until_done(&d);
	return 0;
}
