/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c -- the one logger: journal entries, or stderr lines (see log.h). */
#include "log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "sdlib.h"
#include "util.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static const char *prog_name = "mtag-launcher";
static bool use_journal;
static bool be_quiet;
static bool stream_prefix;  /* "<N>" before each stderr line */

/* Is stderr systemd's journal stream ($JOURNAL_STREAM is its dev:inode)? */
static bool stderr_is_journal_stream(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 &&
	       fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_setup(const char *prog, enum log_target t, bool quiet)
{
	prog_name = prog;
	be_quiet = quiet;
	sdlib_set_warn(log_stderr);
	stream_prefix = false;
	switch (t) {
	case LOG_JOURNAL:
		use_journal = true;
		break;
	case LOG_STDERR:
		use_journal = false;
		break;
	case LOG_STREAM:
		use_journal = false;
		stream_prefix = stderr_is_journal_stream();
		break;
	default:
		/* sd_journal_send() drops messages silently when journald is
		 * not there, so check for its socket: without it, stderr. */
		use_journal = getenv("INVOCATION_ID") != NULL &&
			      access(JOURNAL_SOCKET, W_OK) == 0;
		break;
	}
}

void log_setup_generator(const char *prog)
{
	log_setup(prog, LOG_STDERR, true);
	/* $SYSTEMD_SCOPE: run by systemd (251+). */
	if (getenv("SYSTEMD_SCOPE") && !isatty(STDERR_FILENO)) {
		int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
}

bool log_to_journal(void)
{
	return use_journal;
}

const char *log_prog(void)
{
	return prog_name;
}

void log_stderr(int priority, const char *text)
{
	const char *lvl = priority <= LOG_ERR ? "error: " :
			  priority == LOG_WARNING ? "warning: " : "";

	if (be_quiet && priority > LOG_WARNING)
		return;
	if (stream_prefix)
		fprintf(stderr, "<%d>%s\n", priority, text);
	else
		fprintf(stderr, "%s: %s%s\n", prog_name, lvl, text);
}

void log_msg(int priority, const char *msgid, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	if (use_journal && sdlib()) {
		int (*send)(const char *, ...) = sdlib()->journal_send;
		int r;

		if (msgid)
			r = send("MESSAGE=%s", text, "PRIORITY=%d", priority,
					    "MESSAGE_ID=%s", msgid,
					    "SYSLOG_IDENTIFIER=%s", prog_name, NULL);
		else
			r = send("MESSAGE=%s", text, "PRIORITY=%d", priority,
					    "SYSLOG_IDENTIFIER=%s", prog_name, NULL);
		if (r >= 0) {
			free(text);
			return;
		}
	}
	log_stderr(priority, text);
	free(text);
}

