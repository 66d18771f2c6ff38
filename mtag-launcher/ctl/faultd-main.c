/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtag-faultd -- one structured journal entry per MTE tag-check fault.
 *
 *   mtag-faultd [--state-dir DIR]
 *   mtag-faultd --from-stdin [--proc DIR]
 *
 * Follows the kernel's messages in the system journal (_TRANSPORT=kernel,
 * this boot), and for every tag-check fault line (faultline.h) writes an
 * entry with MESSAGE_ID=MSGID_FAULT and the fields of faultfields.h; a line
 * that starts like one but does not parse gets an MSGID_FAULT_UNPARSED
 * entry.  The cursor of the last kernel entry handled is kept in
 * $STATE_DIRECTORY/cursor, so that a restart neither repeats nor skips a
 * fault.  See mtag-faultd(8).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "faultd.h"
#include "faultfields.h"

#ifndef MTAG_VERSION
#define MTAG_VERSION "unknown"
#endif

#define PROG "mtag-faultd"

struct opts {
	char *state_dir;
	const char *proc;
	const char *journal_dir;  /* tests: a directory of journal files */
	bool from_stdin;
	bool print;               /* tests: entries to stdout, not the journal */
};

/* --- messages ------------------------------------------------------------ */

static bool stderr_is_journal;

/* Is stderr systemd's journal stream ($JOURNAL_STREAM is its dev:inode)?
 * Then "<N>" prefixes give the lines their priority. */
static void detect_journal_stream(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0)
		stderr_is_journal = (unsigned long long)st.st_dev == dev &&
				    (unsigned long long)st.st_ino == ino;
}

static void say(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(int prio, const char *fmt, ...)
{
	va_list ap;

	if (stderr_is_journal)
		fprintf(stderr, "<%d>", prio);
	else
		fprintf(stderr, "%s: %s", PROG, prio <= 3 ? "error: " : prio == 4 ? "warning: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [--state-dir DIR]\n"
		"       " PROG " --from-stdin [--proc DIR]\n"
		"\n"
		"Write one structured journal entry (MESSAGE_ID=5fda042e18d64e2e9d913704e87926cb)\n"
		"per MTE tag-check fault the kernel logs.  Run by mtag-faultd.service.\n"
		"\n"
		"      --state-dir DIR    keep the journal cursor in DIR/cursor (default\n"
		"                         $STATE_DIRECTORY, else /var/lib/mtag)\n"
		"      --from-stdin       read kernel lines from standard input and print the\n"
		"                         entries as FIELD=VALUE blocks instead of writing them\n"
		"      --proc DIR         read the faulting processes' maps and status under\n"
		"                         DIR instead of /proc\n"
		"  -h, --help             show this help\n"
		"      --version          show the version\n"
		"\n"
		"See mtag-faultd(8) and mtagctl(8).\n");
}

/* --- --from-stdin -------------------------------------------------------- */

static int run_stdin(const struct opts *o)
{
	struct faultd_entry e = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		struct faultd_kmsg k = { .text = line, .len = (size_t)n };

		if (faultd_build(o->proc, &k, &e) != FAULTD_NONE)
			faultd_entry_print(stdout, &e);
	}
	faultd_entry_free(&e);
	free(line);
	if (ferror(stdin)) {
		say(3, "reading standard input: %s", strerror(errno));
		return 1;
	}
	if (fflush(stdout) != 0) {
		say(3, "writing standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* --- the journal --------------------------------------------------------- */

struct follow {
	const struct opts *o;
	sd_journal *j;
	struct faultd_entry e;
	char *cursor;          /* of the last kernel entry handled */
	bool cursor_dirty;     /* not yet in the state file */
	bool check_written;    /* the first fault line after a saved cursor */
	unsigned long faults, unparsed, already;
	unsigned long kill_after; /* tests: SIGKILL after this many sends */
};

static int save_cursor(struct follow *s, bool durable)
{
	const char *what;
	int r;

	if (!s->cursor || !s->cursor_dirty)
		return 0;
	r = faultd_cursor_save(s->o->state_dir, s->cursor, durable, &what);
	if (r < 0) {
		say(3, "cannot write %s: %s", what, strerror(-r));
		return r;
	}
	s->cursor_dirty = false;
	return 0;
}

static int send_entry(struct follow *s)
{
	struct iovec *iov;
	int r;

	if (s->o->print) {
		faultd_entry_print(stdout, &s->e);
		fflush(stdout);
		return 0;
	}
	iov = calloc(s->e.n, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	for (size_t i = 0; i < s->e.n; i++) {
		iov[i].iov_base = s->e.fields[i];
		iov[i].iov_len = strlen(s->e.fields[i]);
	}
	r = sd_journal_sendv(iov, (int)s->e.n);
	free(iov);
	return r;
}

/* Did an earlier run of mtag-faultd write the entry for kernel entry
 * CURSOR?  It writes the entry, then saves the cursor: a crash (SIGKILL,
 * the OOM killer, a power cut) between the two leaves the cursor one
 * fault line behind, and the first fault line after it may have its entry
 * already.  Only root's entries count (anyone may log MTAG_KERNEL_CURSOR=).
 * Returns 1, 0, or -errno (then the entry is written: a duplicate rather
 * than a loss). */
static int entry_written(const struct follow *s, const char *cursor)
{
	sd_journal *j = NULL;
	char *m;
	int r;

	if (s->o->journal_dir)
		r = sd_journal_open_directory(&j, s->o->journal_dir, 0);
	else
		r = sd_journal_open(&j, SD_JOURNAL_SYSTEM);
	if (r < 0)
		return r;
	if (asprintf(&m, "MTAG_KERNEL_CURSOR=%s", cursor) < 0) {
		sd_journal_close(j);
		return -ENOMEM;
	}
	if ((r = sd_journal_add_match(j, m, 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "_UID=0", 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "MESSAGE_ID=" MSGID_FAULT, 0)) >= 0 &&
	    (r = sd_journal_add_match(j, "MESSAGE_ID=" MSGID_FAULT_UNPARSED, 0)) >= 0)
		r = sd_journal_next(j);
	free(m);
	sd_journal_close(j);
	return r < 0 ? r : r > 0;
}

/* The entry J is on: build and write its fault entry, if any, then move
 * the cursor.  Returns 0 or -errno (the caller exits: the entry is done
 * again after a restart). */
static int handle_entry(struct follow *s)
{
	struct faultd_kmsg k = { 0 };
	const void *data;
	size_t len;
	char *cursor = NULL;
	enum faultd_kind kind = FAULTD_NONE;
	bool written_before = false;
	int r;

	r = sd_journal_get_cursor(s->j, &cursor);
	if (r < 0) {
		say(3, "cannot get the cursor of a kernel journal entry: %s", strerror(-r));
		return r;
	}
	r = sd_journal_get_data(s->j, "MESSAGE", &data, &len);
	if (r >= 0 && len > strlen("MESSAGE=")) {
		k.text = (const char *)data + strlen("MESSAGE=");
		k.len = len - strlen("MESSAGE=");
		k.cursor = cursor;
		if (sd_journal_get_realtime_usec(s->j, &k.realtime_usec) < 0)
			k.realtime_usec = 0;
		/* Cheap test first: most kernel lines are not ours. */
		if (memmem(k.text, k.len, "tag check fault", strlen("tag check fault")))
			kind = faultd_build(s->o->proc, &k, &s->e);
	} else if (r < 0 && r != -ENOENT) {
		say(4, "kernel journal entry %s: cannot read its MESSAGE: %s (skipped)",
		    cursor, strerror(-r));
	}
	if (kind != FAULTD_NONE && s->check_written && !s->o->print) {
		s->check_written = false;
		r = entry_written(s, cursor);
		if (r < 0)
			say(4, "cannot look for an entry of kernel entry %s written before a restart: %s",
			    cursor, strerror(-r));
		if (r > 0) {
			say(6, "kernel entry %s: its fault entry was written before the restart (not repeated)",
			    cursor);
			s->already++;
			kind = FAULTD_NONE;
			written_before = true;
		}
	}
	if (kind != FAULTD_NONE) {
		r = send_entry(s);
		if (r == 0 && s->kill_after && s->faults + s->unparsed + 1 >= s->kill_after)
			raise(SIGKILL); /* tests: the crash between entry and cursor */
		if (r < 0) {
			say(3, "cannot write the fault entry to the journal: %s (kernel entry %s)",
			    strerror(-r), cursor);
			free(cursor);
			return r;
		}
		if (kind == FAULTD_FAULT)
			s->faults++;
		else
			s->unparsed++;
	}
	free(s->cursor);
	s->cursor = cursor;
	s->cursor_dirty = true;
	/* After a fault line the cursor goes to disk at once (a crash must not
	 * repeat its entry); after other kernel lines when the journal is idle. */
	if (kind != FAULTD_NONE || written_before) {
		r = save_cursor(s, true);
		if (r < 0)
			return r;
		sd_notifyf(0, "STATUS=Following the kernel's messages: %lu tag-check fault%s reported%s",
			   s->faults, s->faults == 1 ? "" : "s",
			   s->unparsed ? ", some lines unreadable" : "");
	}
	return 0;
}

/* Position J after the saved cursor, or at the start of this boot.
 * Returns 1 when J is on an entry still to handle, 0 when the next
 * sd_journal_next() gives it, -errno. */
static int seek_start(struct follow *s, const char *boot)
{
	char *saved = NULL, cboot[33];
	const char *what;
	int r;

	r = faultd_cursor_load(s->o->state_dir, &saved, &what);
	if (r < 0) {
		say(3, "cannot read %s: %s", what, strerror(-r));
		return r;
	}
	if (r > 0 && (!faultd_cursor_boot(saved, cboot, sizeof(cboot)) || strcmp(cboot, boot) != 0)) {
		say(6, "%s: a cursor of another boot: starting at this boot's first kernel message", what);
		free(saved);
		saved = NULL;
	}
	if (saved) {
		r = sd_journal_seek_cursor(s->j, saved);
		if (r < 0) {
			say(4, "%s: cannot seek to cursor '%s': %s: starting at this boot's first kernel message",
			    what, saved, strerror(-r));
		} else {
			r = sd_journal_next(s->j);
			if (r < 0) {
				say(3, "reading the journal: %s", strerror(-r));
				free(saved);
				return r;
			}
			/* Going on from the cursor of an earlier run: its
			 * last entry may be written with the cursor not. */
			s->check_written = true;
			if (r == 0 || sd_journal_test_cursor(s->j, saved) > 0) {
				/* On the saved entry (done), or past the end. */
				s->cursor = saved;
				return 0;
			}
			/* The saved entry is gone (rotated away): J is on the
			 * first entry after where it was. */
			say(4, "%s: kernel entry %s is no longer in the journal: going on from the next one",
			    what, saved);
			s->cursor = saved;
			return 1;
		}
		free(saved);
	}
	r = sd_journal_seek_head(s->j);
	if (r < 0) {
		say(3, "cannot seek to the start of the journal: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int wait_journal(struct follow *s, int sfd)
{
	struct pollfd p[2];
	uint64_t t;
	int r, ms = -1;

	r = sd_journal_get_fd(s->j);
	if (r < 0) {
		say(3, "cannot watch the journal: %s", strerror(-r));
		return r;
	}
	p[0] = (struct pollfd){ .fd = r, .events = (short)sd_journal_get_events(s->j) };
	p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	if (sd_journal_get_timeout(s->j, &t) >= 0 && t != (uint64_t)-1) {
		struct timespec ts;
		uint64_t now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
		ms = t > now ? (int)((t - now + 999) / 1000) : 0;
	}
	r = poll(p, 2, ms);
	if (r < 0 && errno != EINTR) {
		say(3, "poll: %s", strerror(errno));
		return -errno;
	}
	if (p[1].revents & POLLIN)
		return 1; /* SIGTERM or SIGINT */
	r = sd_journal_process(s->j);
	if (r < 0) {
		say(3, "reading the journal: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int run_journal(const struct opts *o)
{
	struct follow s = { .o = o };
	const char *ka = getenv("MTAG_FAULTD_TEST_KILL_AFTER");
	sd_id128_t boot_id;
	char boot[33], match[64];
	sigset_t ss;
	int r, sfd = -1, rc = 1;

	/* SIGTERM and SIGINT through a signalfd next to the journal's fd:
	 * sd_journal_wait() restarts its poll() after a signal, so it cannot
	 * be woken for a clean stop. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0 ||
	    (sfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		say(3, "signalfd: %s", strerror(errno));
		return 1;
	}
	r = sd_id128_get_boot(&boot_id);
	if (r < 0) {
		say(3, "cannot read this boot's ID (/proc/sys/kernel/random/boot_id): %s", strerror(-r));
		goto out;
	}
	sd_id128_to_string(boot_id, boot);
	/* Tests only: die by SIGKILL right after writing the Nth entry, before
	 * its cursor is saved (the crash the restart must not repeat). */
	if (ka)
		s.kill_after = strtoul(ka, NULL, 10);
	if (o->journal_dir)
		r = sd_journal_open_directory(&s.j, o->journal_dir, 0);
	else
		r = sd_journal_open(&s.j, SD_JOURNAL_SYSTEM);
	if (r < 0) {
		say(3, "cannot open the %s journal%s%s: %s", o->journal_dir ? "" : "system",
		    o->journal_dir ? " in " : "", o->journal_dir ? o->journal_dir : "", strerror(-r));
		goto out;
	}
	snprintf(match, sizeof(match), "_BOOT_ID=%s", boot);
	if ((r = sd_journal_add_match(s.j, "_TRANSPORT=kernel", 0)) < 0 ||
	    (r = sd_journal_add_match(s.j, match, 0)) < 0) {
		say(3, "sd_journal_add_match: %s", strerror(-r));
		goto out;
	}
	r = seek_start(&s, boot);
	if (r < 0)
		goto out;
	if (r > 0 && handle_entry(&s) < 0)
		goto out;
	sd_notifyf(0, "READY=1\nSTATUS=Following the kernel's messages");
	for (;;) {
		r = sd_journal_next(s.j);
		if (r < 0) {
			say(3, "reading the journal: %s", strerror(-r));
			goto out;
		}
		if (r > 0) {
			if (handle_entry(&s) < 0)
				goto out;
			continue;
		}
		/* Caught up: the cursor of the last line to disk, then wait. */
		if (save_cursor(&s, false) < 0)
			goto out;
		r = wait_journal(&s, sfd);
		if (r < 0)
			goto out;
		if (r > 0)
			break;
	}
	sd_notify(0, "STOPPING=1");
	rc = save_cursor(&s, true) < 0 ? 1 : 0;
out:
	faultd_entry_free(&s.e);
	free(s.cursor);
	if (s.j)
		sd_journal_close(s.j);
	if (sfd >= 0)
		close(sfd);
	return rc;
}

enum { OPT_STATE_DIR = 256, OPT_FROM_STDIN, OPT_PROC, OPT_JOURNAL_DIR, OPT_PRINT, OPT_VERSION };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "from-stdin", no_argument, NULL, OPT_FROM_STDIN },
		{ "proc", required_argument, NULL, OPT_PROC },
		/* For the tests: journal files of a directory, and the
		 * entries printed instead of written. */
		{ "journal-dir", required_argument, NULL, OPT_JOURNAL_DIR },
		{ "print", no_argument, NULL, OPT_PRINT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .proc = "/proc" };
	const char *state_dir = NULL;
	int c, rc;

	detect_journal_stream();
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_STATE_DIR:
			state_dir = optarg;
			break;
		case OPT_FROM_STDIN:
			o.from_stdin = true;
			break;
		case OPT_PROC:
			o.proc = optarg;
			break;
		case OPT_JOURNAL_DIR:
			o.journal_dir = optarg;
			break;
		case OPT_PRINT:
			o.print = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf(PROG " %s\n", MTAG_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		say(3, "unexpected argument '%s' (see --help)", argv[optind]);
		return 2;
	}
	if (o.from_stdin && (state_dir || o.journal_dir)) {
		say(3, "--from-stdin reads no journal: --state-dir and --journal-dir do not go with it");
		return 2;
	}
	if (o.from_stdin)
		return run_stdin(&o);

	o.state_dir = faultd_state_dir(state_dir);
	{
		struct stat st;

		const char *why = NULL;

		if (stat(o.state_dir, &st) < 0)
			why = strerror(errno);
		else if (!S_ISDIR(st.st_mode))
			why = "not a directory";
		if (why) {
			say(3, "state directory %s: %s (--state-dir, $STATE_DIRECTORY)", o.state_dir, why);
			free(o.state_dir);
			return 1;
		}
	}
	rc = run_journal(&o);
	free(o.state_dir);
	return rc;
}
