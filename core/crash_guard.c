/* The crash guard's watchdog (see include/uniprof/crash_guard.h). A signal
 * handler could not unpause safely (libxenctrl takes locks and allocates),
 * and could not run at all on SIGKILL; a second process can do both. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error_impl.h"
#include "target_impl.h"
#include "uniprof/crash_guard.h"

struct guard {
	struct up_target *target;
	volatile int *shared;
	pid_t pid;
	int fd;     /* write end: closes when we die */
};

static struct guard guard = { .pid = -1, .fd = -1 };

static void watchdog(int fd, volatile int *shared, uint32_t domid,
		     int (*unpause)(uint32_t))
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	/* Ctrl-C goes to the whole process group: the watchdog must outlive
	 * the profiler, not die with it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "uniprof-guard");
	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			continue;
		if (read(fd, &c, 1) == 1) {
			if (c == 'q')             /* orderly release */
				_exit(0);
			continue;
		}
		break;                            /* EOF: the profiler died */
	}
	if (*shared) {
		for (int i = 0; i < 5 && unpause(domid) < 0; i++)
			usleep(100000);
	}
	_exit(0);
}

int up_crash_guard_install(struct up_target *t)
{
	int fds[2];
	volatile int *shared;
	pid_t pid;

	if (!t->ops->emergency_unpause)
		return 0;
	if (guard.target)
		return up_fail(UP_EINVAL, "a crash guard is already installed");
	shared = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return up_fail(UP_EIO, "cannot start the crash guard: %s",
			       strerror(errno));
	*shared = *t->paused;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		munmap((void *)shared, sizeof(int));
		return up_fail(UP_EIO, "cannot start the crash guard: %s",
			       strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		munmap((void *)shared, sizeof(int));
		return up_fail(UP_EIO, "cannot start the crash guard: %s",
			       strerror(errno));
	}
	if (pid == 0) {
		close(fds[1]);
		watchdog(fds[0], shared, t->info.domid,
			 t->ops->emergency_unpause);
	}
	close(fds[0]);
	guard.target = t;
	guard.shared = shared;
	guard.pid = pid;
	guard.fd = fds[1];
	t->paused = shared;
	return 0;
}

void up_crash_guard_release(struct up_target *t)
{
	if (!guard.target || guard.target != t)
		return;
	t->paused_local = *guard.shared;
	t->paused = &t->paused_local;
	if (write(guard.fd, "q", 1) == 1)
		while (waitpid(guard.pid, NULL, 0) < 0 && errno == EINTR)
			;
	close(guard.fd);
	munmap((void *)guard.shared, sizeof(int));
	guard = (struct guard){ .pid = -1, .fd = -1 };
}
