/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c -- the one logger: journal entries, or stderr lines (see log.h). */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
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

void log_struct_free(struct log_struct *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->fields[i]);
	free(s->fields);
	s->fields = NULL;
	s->n = s->cap = 0;
}

static void add_v(struct log_struct *s, const char *name, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void add_v(struct log_struct *s, const char *name, const char *fmt, va_list ap)
{
	char *v = xvasprintf(fmt, ap);

	grow_array((void **)&s->fields, &s->cap, s->n + 1, sizeof(*s->fields));
	s->fields[s->n++] = xasprintf("%s=%s", name, v);
	free(v);
}

void log_struct_add(struct log_struct *s, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_v(s, name, fmt, ap);
	va_end(ap);
}

void log_struct_begin(struct log_struct *s, int priority, const char *msgid, const char *fmt, ...)
{
	va_list ap;

	log_struct_free(s);
	s->priority = priority;
	va_start(ap, fmt);
	add_v(s, "MESSAGE", fmt, ap);
	va_end(ap);
	if (msgid)
		log_struct_add(s, "MESSAGE_ID", "%s", msgid);
	log_struct_add(s, "PRIORITY", "%d", priority);
	log_struct_add(s, "SYSLOG_IDENTIFIER", "%s", prog_name);
}

const char *log_struct_get(const struct log_struct *s, const char *name)
{
	size_t l = strlen(name);

	for (size_t i = 0; i < s->n; i++)
		if (strncmp(s->fields[i], name, l) == 0 && s->fields[i][l] == '=')
			return s->fields[i] + l + 1;
	return NULL;
}

int log_struct_send(const struct log_struct *s)
{
	struct iovec *iov;
	int r;

	if (!sdlib())
		return -ENOSYS;
	iov = xmalloc((s->n ? s->n : 1) * sizeof(*iov));
	for (size_t i = 0; i < s->n; i++) {
		iov[i].iov_base = s->fields[i];
		iov[i].iov_len = strlen(s->fields[i]);
	}
	r = sdlib()->journal_sendv(iov, (int)s->n);
	free(iov);
	return r;
}

void log_struct(const struct log_struct *s)
{
	const char *m;

	if (use_journal && log_struct_send(s) >= 0)
		return;
	m = log_struct_get(s, "MESSAGE");
	log_stderr(s->priority, m ? m : "");
}

void log_struct_print(FILE *f, const struct log_struct *s)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s\n", s->fields[i]);
	fputc('\n', f);
}

void log_msg(int priority, const char *msgid, const char *fmt, ...)
{
	struct log_struct s = { 0 };
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	log_struct_begin(&s, priority, msgid, "%s", text);
	free(text);
	log_struct(&s);
	log_struct_free(&s);
}
