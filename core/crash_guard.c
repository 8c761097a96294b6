/* The crash guard (see include/uniprof/crash_guard.h). A signal handler
 * could not unpause safely (libxenctrl takes locks and allocates) and does
 * not run at all on SIGKILL; a watchdog process can do both. It is a
 * separate program started with posix_spawn, not a fork of the profiler:
 * a forked copy would share Xen handles, hypercall buffers and mappings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error_impl.h"
#include "pause_state.h"
#include "target_impl.h"
#include "uniprof/crash_guard.h"

extern char **environ;

struct guard {
	struct up_target *target;
	struct pause_state *shared;
	pid_t pid;
	int fd;     /* write end: closes when we die */
};

static struct guard guard = { .pid = -1, .fd = -1 };

static const char *guard_path(void)
{
	const char *p = getenv("UNIPROF_GUARD");

	return p && *p ? p : UNIPROF_GUARD_PATH;
}

static void unmap_shared(struct pause_state *shared)
{
	munmap(shared, sizeof(*shared));
}

int up_crash_guard_install(struct up_target *t)
{
	char a_pipe[16], a_flag[16], a_dom[16];
	char *argv[5];
	struct pause_state *shared;
	posix_spawnattr_t attr;
	int fds[2], flag_fd, rc;
	pid_t pid;

	if (guard.target)
		return up_fail(UP_EINVAL, "a crash guard is already installed");
	flag_fd = memfd_create("uniprof-guard", 0);
	if (flag_fd < 0 || ftruncate(flag_fd, sizeof(*shared)) < 0) {
		if (flag_fd >= 0)
			close(flag_fd);
		return up_fail(UP_EIO, "cannot start the crash guard: %s", strerror(errno));
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED,
		      flag_fd, 0);
	if (shared == MAP_FAILED) {
		close(flag_fd);
		return up_fail(UP_EIO, "cannot start the crash guard: %s", strerror(errno));
	}
	ps_init(shared);
	ps_copy(shared, t->ps);
	if (pipe(fds) < 0) {
		unmap_shared(shared);
		close(flag_fd);
		return up_fail(UP_EIO, "cannot start the crash guard: %s", strerror(errno));
	}
	/* Only the watchdog's ends cross exec; ours stay private. */
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	snprintf(a_pipe, sizeof(a_pipe), "%d", fds[0]);
	snprintf(a_flag, sizeof(a_flag), "%d", flag_fd);
	/* Image targets (tests) get the same watchdog; it then ends pauses
	 * in the shared stand-in for Xen's pause count. */
	if (t->ops->live)
		snprintf(a_dom, sizeof(a_dom), "%u", t->info.domid);
	else
		snprintf(a_dom, sizeof(a_dom), "image");
	argv[0] = (char *)"uniprof-guard";
	argv[1] = a_pipe;
	argv[2] = a_flag;
	argv[3] = a_dom;
	argv[4] = NULL;
	/* A session of its own: Ctrl-C and kill -- -PGID reach our process
	 * group, not the watchdog that must outlive it. A kill of our whole
	 * cgroup (systemd's final SIGKILL, cgroup.kill) takes it too: it
	 * stays in our cgroup on purpose, since leaving it would need
	 * privileges and escape the limits the administrator set. */
	rc = posix_spawnattr_init(&attr);
	if (rc == 0) {
#ifdef POSIX_SPAWN_SETSID
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
#else
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
#endif
		rc = posix_spawn(&pid, guard_path(), NULL, &attr, argv, environ);
		posix_spawnattr_destroy(&attr);
	}
	close(fds[0]);
	close(flag_fd);
	if (rc != 0) {
		close(fds[1]);
		unmap_shared(shared);
		return up_fail(UP_EIO, "cannot start the crash guard %s: %s",
			       guard_path(), strerror(rc));
	}
	guard.target = t;
	guard.shared = shared;
	guard.pid = pid;
	guard.fd = fds[1];
	t->ps = shared;
	return 0;
}

void up_crash_guard_release(struct up_target *t)
{
	bool held;

	if (!guard.target || guard.target != t)
		return;
	ps_copy(&t->ps_local, guard.shared);
	t->ps = &t->ps_local;
	/* Our last unpause failed: the watchdog must not quit. Closing the
	 * pipe instead tells it we are gone; it then keeps trying to unpause
	 * on its own, and we do not wait for it. */
	held = ps_held(guard.shared);
	if (!held && write(guard.fd, "q", 1) == 1)
		while (waitpid(guard.pid, NULL, 0) < 0 && errno == EINTR)
			;
	close(guard.fd);
	unmap_shared(guard.shared);
	guard = (struct guard){ .pid = -1, .fd = -1 };
}

uint64_t up_crash_guard_pid(void)
{
	return guard.target ? (uint64_t)guard.pid : 0;
}
