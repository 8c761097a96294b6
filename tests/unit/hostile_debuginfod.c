/* A debuginfod server that misbehaves (see hostile_debuginfod.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile_debuginfod.h"

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* All of buf, or -1 once the client has gone. */
static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Chunks of SIZE bytes every MS milliseconds until the client goes. */
static void endless(int fd, size_t size, long ms)
{
	static char chunk[64 * 1024 + 32];
	int head = snprintf(chunk, 16, "%zx\r\n", size);
	const char *hdr = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
			  "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

	if (size > 64 * 1024)
		return;
	memset(chunk + head, 'x', size);
	memcpy(chunk + head + size, "\r\n", 2);
	if (send_all(fd, hdr, strlen(hdr)) < 0)
		return;
	while (send_all(fd, chunk, (size_t)head + size + 2) == 0)
		pause_ms(ms);
}

static void serve_file(int fd, const char *path)
{
	char hdr[256], buf[16384];
	int in = open(path, O_RDONLY);
	off_t len = in >= 0 ? lseek(in, 0, SEEK_END) : -1;
	ssize_t n;

	if (len < 0 || lseek(in, 0, SEEK_SET) < 0) {
		snprintf(hdr, sizeof(hdr), "HTTP/1.1 500 No file\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		send_all(fd, hdr, strlen(hdr));
		if (in >= 0)
			close(in);
		return;
	}
	snprintf(hdr, sizeof(hdr), "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
		 (long long)len);
	if (send_all(fd, hdr, strlen(hdr)) == 0)
		while ((n = read(in, buf, sizeof(buf))) > 0 && send_all(fd, buf, (size_t)n) == 0)
			;
	close(in);
}

static void serve(int fd, const char *log, const char *wrong)
{
	char req[4096], mode[16] = "", path[2048], reply[2400];
	size_t got = 0;
	int lf;

	/* The request head, bounded; its first line is all we read. */
	while (got < sizeof(req) - 1) {
		ssize_t n = recv(fd, req + got, sizeof(req) - 1 - got, 0);

		if (n <= 0)
			return;
		got += (size_t)n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[got] = '\0';
	if (sscanf(req, "GET %2047s", path) != 1 || sscanf(path, "/%15[a-z]/", mode) != 1)
		snprintf(mode, sizeof(mode), "other");
	lf = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (lf >= 0) {
		dprintf(lf, "%s\n", mode);
		close(lf);
	}
	if (strcmp(mode, "drip") == 0) {
		endless(fd, 16 * 1024, 50);
	} else if (strcmp(mode, "flood") == 0) {
		endless(fd, 64 * 1024, 5);
	} else if (strcmp(mode, "loop") == 0) {
		/* Not at full speed: curl follows thousands of redirects a
		 * second, each a new connection, and the ports they leave in
		 * TIME_WAIT (16,000 a run) made a second run within a minute
		 * fail to connect instead of reaching its deadline. */
		usleep(2000);
		snprintf(reply, sizeof(reply), "HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			 path);
		send_all(fd, reply, strlen(reply));
	} else if (strcmp(mode, "wrong") == 0) {
		serve_file(fd, wrong);
	} else {
		snprintf(reply, sizeof(reply), "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		send_all(fd, reply, strlen(reply));
	}
}

int hd_start(struct hd_server *s, const char *dir, const char *wrong)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	snprintf(s->log, sizeof(s->log), "%s/hostile.log", dir);
	unlink(s->log);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		fprintf(stderr, "# hostile server: cannot listen on 127.0.0.1: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	s->port = ntohs(a.sin_port);
	s->pid = fork();
	if (s->pid < 0) {
		close(fd);
		return -1;
	}
	if (s->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			int c = accept(fd, NULL, NULL);

			if (c < 0)
				continue;
			serve(c, s->log, wrong);
			close(c);
		}
	}
	close(fd);
	return 0;
}

void hd_stop(struct hd_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = -1;
}

unsigned hd_requests(const struct hd_server *s, const char *mode)
{
	char line[64];
	unsigned n = 0;
	FILE *f = fopen(s->log, "r");

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, mode) == 0)
			n++;
	}
	if (f)
		fclose(f);
	return n;
}
