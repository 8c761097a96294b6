/* uniprof-guard: the crash guard's watchdog, a separate program so that
 * nothing of the profiler (Xen handles, hypercall buffers, mappings) is
 * ever duplicated by fork. Started by up_crash_guard_install with:
 *   uniprof-guard PIPE_FD FLAG_FD DOMID
 * It waits for the pipe to close; if the profiler died while the shared
 * flag says "paused by us", it unpauses the domain. 'q' on the pipe is an
 * orderly release. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <xenctrl.h>

int main(int argc, char **argv)
{
	int pipe_fd, flag_fd;
	unsigned long domid;
	volatile int *flag;
	struct pollfd pfd;
	char c;

	if (argc != 4)
		return 2;
	pipe_fd = atoi(argv[1]);
	flag_fd = atoi(argv[2]);
	domid = strtoul(argv[3], NULL, 10);
	flag = mmap(NULL, sizeof(int), PROT_READ, MAP_SHARED, flag_fd, 0);
	if (flag == MAP_FAILED)
		return 1;
	/* Ctrl-C goes to the whole process group: outlive the profiler. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	pfd.fd = pipe_fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			continue;
		if (read(pipe_fd, &c, 1) == 1) {
			if (c == 'q')
				return 0;
			continue;
		}
		break;                  /* EOF: the profiler is gone */
	}
	if (*flag) {
		for (int i = 0; i < 5; i++) {
			xc_interface *xch = xc_interface_open(NULL, NULL, 0);
			int rc = xch ? xc_domain_unpause(xch, (uint32_t)domid) : -1;

			if (xch)
				xc_interface_close(xch);
			if (rc == 0)
				break;
			usleep(100000);
		}
	}
	return 0;
}
