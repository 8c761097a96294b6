/* A debuginfod server on 127.0.0.1 that fights back, for the fetch's
 * bounds: a child process serving one request at a time, the first path
 * component of the URL choosing how it misbehaves:
 *   /drip/...   200, chunked, 16 KiB every 50 ms (above curl's low-speed
 *               limit), never ending
 *   /flood/...  200, chunked, 64 KiB every 5 ms, never ending
 *   /loop/...   302 to the same URL, for ever
 *   /wrong/...  200, the file given to hd_start (another build's)
 *   anything else: 404
 * Each request is logged as its mode, one a line. */
#ifndef HOSTILE_DEBUGINFOD_H
#define HOSTILE_DEBUGINFOD_H

#include <sys/types.h>

struct hd_server {
	pid_t pid;
	int port;
	char log[512];
};

/* Start it, logging under DIR; WRONG is the file /wrong serves. 0, or -1
 * after a line on stderr. The child dies with its parent. */
int hd_start(struct hd_server *s, const char *dir, const char *wrong);
void hd_stop(struct hd_server *s);

/* Requests in MODE ("drip", ...) served so far. */
unsigned hd_requests(const struct hd_server *s, const char *mode);

#endif
