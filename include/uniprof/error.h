/* Error reporting: every failing call returns a negative UP_E* code and
 * leaves a one-line, human-readable message for this thread (as libgit2's
 * git_error_last does), so a front end can print exactly one clear line. */
#ifndef UNIPROF_ERROR_H
#define UNIPROF_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum up_error {
	UP_OK = 0,
	UP_EINVAL = -1,    /* bad argument or option value */
	UP_ENOMEM = -2,
	UP_EIO = -3,       /* file or hypercall failed */
	UP_ENOENT = -4,    /* domain, file or symbol not found */
	UP_EFORMAT = -5,   /* malformed input file */
	UP_EUNSUPP = -6,   /* guest mode or feature we do not handle */
	UP_EFAULT = -7,    /* guest address not mapped / unreadable */
	UP_EGONE = -8,     /* the domain went away */
};

/* The last error message of this thread, or "" if none. */
const char *up_error_last(void);

/* Set this thread's last error to message (a front end re-raising an
 * error it kept, as libgit2's git_error_set_str); returns code. */
int up_error_set(int code, const char *message);

#ifdef __cplusplus
}
#endif
#endif
