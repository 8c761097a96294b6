/* Where profiles go and how they are written: beside the domain's logs by
 * default, created with safe permissions, each file written under a
 * temporary name and renamed, so a reader never sees half a profile. */
#ifndef XLP_OUTPUT_FILES_H
#define XLP_OUTPUT_FILES_H

#include <stdio.h>

/* The path stem for this run's files ("DIR/NAME-YYYYmmddTHHMMSSZ"):
 * output may be NULL (default directory), a directory, or a stem. Creates
 * the default directory (mode 0750) if needed. Prints one error line and
 * returns NULL on failure. */
char *xlp_output_stem(const char *output, const char *domain_name);

struct xlp_file {
	FILE *f;
	char *tmp;
	char *path;
};

/* A profile file's mode, less the umask: owner and group read, never
 * others (xl-profile(1), FILES, says why). */
#define XLP_FILE_MODE 0640

/* Open stem+suffix for writing through a temporary file (mode
 * XLP_FILE_MODE & ~umask). 0, or -1 after one error line. */
int xlp_file_open(struct xlp_file *out, const char *stem, const char *suffix);

/* Close and rename into place; on error removes the temporary file. */
int xlp_file_commit(struct xlp_file *f);
void xlp_file_abort(struct xlp_file *f);

#endif
