/* libmtaginject.so -- fault injection for the mtag VM tests.
 *
 * Preloaded into a service (LD_PRELOAD, from a test drop-in), it does
 * nothing until the process receives, from a socket, the trigger
 *
 *     MTAGBUG-<bug>       <bug> = overflow | uaf | none | spin
 *
 * (in an HTTP request path, a memcached command, an SSH identification
 * string...), and then commits that bug, right there in the process that
 * read the request, on memory from glibc malloc -- the same writes as
 * tests/helpers/progs/mtebug.c, harmless when tag checking is off:
 *   overflow  write 40 bytes into malloc(32): the last 8 land on the next
 *             chunk's header granule (memory tag 0, never handed out)
 *   uaf       free a malloc(32) block, then write its bytes 16..23 (past
 *             the tcache link and key)
 *   none      allocate and free, no bug (checks the plumbing)
 *   spin      no bug: use $MTAGINJECT_SPIN_MS (default 400) ms of the
 *             thread's CPU time, then sleep 2 ms (the report-mode cases:
 *             a thread's tag checking comes back after some CPU time of
 *             its own, checked when it is next switched in)
 * then makes a system call, so that an asynchronous tag check fault is
 * delivered before the read returns.
 *
 * The read-side calls interposed: read, recv, recvfrom, recvmsg and the
 * _FORTIFY_SOURCE variants.  The trigger may arrive split over several
 * reads (sshd reads its peer's identification one byte at a time); each
 * thread keeps the tail of what it read.  Only reads from sockets count.
 *
 * Every event is logged, with async-signal-safe calls only, to the journal
 * (syslog identifier "mtaginject", via /dev/log) and appended to
 * $MTAGINJECT_LOG (default /run/mtag-test/events, if its directory exists):
 *     mtaginject: pid=N tid=T comm=C trigger=overflow
 *     mtaginject: pid=N tid=T comm=C overflow completed
 *     mtaginject: pid=N tid=T comm=C SIGSEGV si_code=9 addr=0x...
 * While the bug runs, a SIGSEGV handler is installed (unless the process
 * has its own; MTAGINJECT_HANDLER=0 disables it) that logs the signal's
 * si_code and address, restores the default action and raises SIGSEGV
 * again, so the process still dies of SIGSEGV (status=11/SEGV) and the
 * kernel reports the fault once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../progs/mtebug-bugs.h"

#ifndef SA_EXPOSE_TAGBITS
#define SA_EXPOSE_TAGBITS 0x00000800
#endif

#define TRIGGER "MTAGBUG-"
#define TRIGGER_LEN (sizeof(TRIGGER) - 1)
#define WORD_MAX 16
#define TAIL_MAX (TRIGGER_LEN + WORD_MAX)

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*read_chk_fn)(int, void *, size_t, size_t);
typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef ssize_t (*recv_chk_fn)(int, void *, size_t, size_t, int);
typedef ssize_t (*recvfrom_fn)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
typedef ssize_t (*recvfrom_chk_fn)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *);
typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);

static read_fn real_read;
static read_chk_fn real_read_chk;
static recv_fn real_recv;
static recv_chk_fn real_recv_chk;
static recvfrom_fn real_recvfrom;
static recvfrom_chk_fn real_recvfrom_chk;
static recvmsg_fn real_recvmsg;

static __thread char tail[TAIL_MAX];
static __thread size_t tail_len;
static __thread int in_bug;
static const char *log_path = "/run/mtag-test/events";
static int use_handler = 1;

/* ------------------------------------------------------------ logging */

struct buf {
	char s[256];
	size_t n;
};

static void b_str(struct buf *b, const char *s)
{
	while (*s && b->n < sizeof(b->s) - 1)
		b->s[b->n++] = *s++;
}

static void b_num(struct buf *b, long v)
{
	char t[24];
	int i = 0;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

	do
		t[i++] = (char)('0' + u % 10);
	while ((u /= 10) && i < (int)sizeof(t));
	if (v < 0)
		b_str(b, "-");
	while (i && b->n < sizeof(b->s) - 1)
		b->s[b->n++] = t[--i];
}

static void b_hex(struct buf *b, uintptr_t v)
{
	char t[2 * sizeof(v)];
	int i = 0;

	do {
		t[i++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v && i < (int)sizeof(t));
	b_str(b, "0x");
	while (i && b->n < sizeof(b->s) - 1)
		b->s[b->n++] = t[--i];
}

/* "pid=N comm=C " */
static void b_who(struct buf *b)
{
	char comm[32];
	ssize_t n = -1;
	int fd;

	b_str(b, "pid=");
	b_num(b, (long)getpid());
	b_str(b, " tid=");
	b_num(b, (long)syscall(SYS_gettid));
	b_str(b, " comm=");
	fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = syscall(SYS_read, fd, comm, sizeof(comm) - 1);
		close(fd);
	}
	if (n > 0) {
		comm[n] = 0;
		if (comm[n - 1] == '\n')
			comm[n - 1] = 0;
		b_str(b, comm);
	} else {
		b_str(b, "?");
	}
	b_str(b, " ");
}

/* Log one line (async-signal-safe): journal via /dev/log, and the file. */
static void emit(struct buf *b)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	struct buf m = { .n = 0 };
	int saved = errno, fd;

	/* <12> = user.warning */
	b_str(&m, "<12>mtaginject[");
	b_num(&m, (long)getpid());
	b_str(&m, "]: ");
	b->s[b->n] = 0;
	b_str(&m, b->s);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		(void)sendto(fd, m.s, m.n, MSG_NOSIGNAL, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
	}
	if (log_path && *log_path) {
		fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
		if (fd >= 0) {
			/* Services run as different users: keep it writable. */
			(void)fchmod(fd, 0666);
			struct buf l = { .n = 0 };

			b_str(&l, "mtaginject: ");
			b_str(&l, b->s);
			b_str(&l, "\n");
			(void)!write(fd, l.s, l.n);
			close(fd);
		}
	}
	errno = saved;
}

/* ------------------------------------------------------------ the bug */

static struct sigaction old_segv;
static int handler_set;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	struct buf b = { .n = 0 };
	struct sigaction dfl;

	(void)uc;
	b_who(&b);
	b_str(&b, "SIGSEGV si_code=");
	b_num(&b, si->si_code);
	b_str(&b, " addr=");
	b_hex(&b, (uintptr_t)si->si_addr);
	emit(&b);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	/* Die of it (default action), as tests/helpers/progs/mtebug.c does. */
	raise(sig);
}

static long spin_ms = 400;

/* Use spin_ms of this thread's CPU time, then let it be switched out. */
static void spin(void)
{
	struct timespec t0, t, pause = { .tv_sec = 0, .tv_nsec = 2000000 };

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < spin_ms);
	nanosleep(&pause, NULL);
}

static void do_bug(const char *kind)
{
	struct buf b = { .n = 0 };

	in_bug = 1;
	b_who(&b);
	b_str(&b, "trigger=");
	b_str(&b, kind);
	emit(&b);

	handler_set = 0;
	if (use_handler && sigaction(SIGSEGV, NULL, &old_segv) == 0 &&
	    !(old_segv.sa_flags & SA_SIGINFO) && old_segv.sa_handler == SIG_DFL) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		/* SA_EXPOSE_TAGBITS: si_addr keeps the pointer's tag. */
		sa.sa_flags = SA_SIGINFO | SA_EXPOSE_TAGBITS;
		handler_set = sigaction(SIGSEGV, &sa, NULL) == 0;
	}

	if (strcmp(kind, "spin") == 0)
		spin();
	else if (mtebug_commit(kind) < 0)
		goto out;
	b.n = 0;
	b_who(&b);
	b_str(&b, kind);
	b_str(&b, " completed");
	emit(&b);
out:
	if (handler_set)
		sigaction(SIGSEGV, &old_segv, NULL);
	in_bug = 0;
}

/* ------------------------------------------------------------ trigger */

static int is_socket(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Look for TRIGGER<word><non-letter> in tail+data; keep a new tail. */
static void scan(int fd, const char *data, size_t n)
{
	char win[2 * TAIL_MAX];
	const char *hit = NULL;
	size_t wn = 0, take;

	if (n == 0 || in_bug)
		return;
	/* Fast path: no 'M' anywhere and nothing pending. */
	if (tail_len == 0 && !memchr(data, 'M', n))
		return;

	for (int pass = 0; pass < 2 && !hit; pass++) {
		const char *s;
		size_t sn;

		if (pass == 0) {
			/* The seam: tail + start of data. */
			take = n < TAIL_MAX ? n : TAIL_MAX;
			memcpy(win, tail, tail_len);
			memcpy(win + tail_len, data, take);
			wn = tail_len + take;
			s = win;
			sn = wn;
		} else {
			s = data;
			sn = n;
		}
		for (const char *q = s; (q = memmem(q, sn - (size_t)(q - s), TRIGGER, TRIGGER_LEN)); q++) {
			const char *w = q + TRIGGER_LEN, *end = s + sn;
			char word[WORD_MAX + 1];
			size_t k = 0;

			while (w + k < end && k < WORD_MAX &&
			       ((w[k] >= 'a' && w[k] <= 'z') || (w[k] >= 'A' && w[k] <= 'Z')))
				k++;
			if (w + k >= end)
				break; /* word may go on in the next read */
			memcpy(word, w, k);
			word[k] = 0;
			if (k && is_socket(fd)) {
				tail_len = 0;
				do_bug(word);
				return;
			}
		}
	}
	/* Keep the last TAIL_MAX bytes seen. */
	if (n >= TAIL_MAX) {
		memcpy(tail, data + n - TAIL_MAX, TAIL_MAX);
		tail_len = TAIL_MAX;
	} else {
		size_t keep = tail_len + n > TAIL_MAX ? TAIL_MAX - n : tail_len;

		memmove(tail, tail + tail_len - keep, keep);
		memcpy(tail + keep, data, n);
		tail_len = keep + n;
	}
	/* Nothing that could start a trigger: forget it. */
	if (!memchr(tail, 'M', tail_len))
		tail_len = 0;
}

/* ------------------------------------------------------------ interposers */

#define RESOLVE(var, name) \
	do { \
		if (!(var)) \
			*(void **)&(var) = dlsym(RTLD_NEXT, name); \
	} while (0)

__attribute__((constructor)) static void init(void)
{
	const char *e = getenv("MTAGINJECT_LOG");
	const char *h = getenv("MTAGINJECT_HANDLER");
	const char *sp = getenv("MTAGINJECT_SPIN_MS");

	if (e)
		log_path = e;
	if (h && strcmp(h, "0") == 0)
		use_handler = 0;
	if (sp && atol(sp) > 0)
		spin_ms = atol(sp);
	RESOLVE(real_read, "read");
	RESOLVE(real_recv, "recv");
	RESOLVE(real_recvfrom, "recvfrom");
	RESOLVE(real_recvmsg, "recvmsg");
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t r;

	RESOLVE(real_read, "read");
	r = real_read(fd, buf, count);
	if (r > 0)
		scan(fd, buf, (size_t)r);
	return r;
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	ssize_t r;

	RESOLVE(real_read_chk, "__read_chk");
	r = real_read_chk(fd, buf, count, buflen);
	if (r > 0)
		scan(fd, buf, (size_t)r);
	return r;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t r;

	RESOLVE(real_recv, "recv");
	r = real_recv(fd, buf, len, flags);
	if (r > 0 && !(flags & MSG_PEEK))
		scan(fd, buf, (size_t)r);
	return r;
}

ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	ssize_t r;

	RESOLVE(real_recv_chk, "__recv_chk");
	r = real_recv_chk(fd, buf, len, buflen, flags);
	if (r > 0 && !(flags & MSG_PEEK))
		scan(fd, buf, (size_t)r);
	return r;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *src, socklen_t *alen)
{
	ssize_t r;

	RESOLVE(real_recvfrom, "recvfrom");
	r = real_recvfrom(fd, buf, len, flags, src, alen);
	if (r > 0 && !(flags & MSG_PEEK))
		scan(fd, buf, (size_t)r);
	return r;
}

ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
		       struct sockaddr *src, socklen_t *alen)
{
	ssize_t r;

	RESOLVE(real_recvfrom_chk, "__recvfrom_chk");
	r = real_recvfrom_chk(fd, buf, len, buflen, flags, src, alen);
	if (r > 0 && !(flags & MSG_PEEK))
		scan(fd, buf, (size_t)r);
	return r;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t r;
	size_t left;

	RESOLVE(real_recvmsg, "recvmsg");
	r = real_recvmsg(fd, msg, flags);
	if (r <= 0 || (flags & MSG_PEEK))
		return r;
	left = (size_t)r;
	for (size_t i = 0; i < (size_t)msg->msg_iovlen && left; i++) {
		size_t n = msg->msg_iov[i].iov_len < left ? msg->msg_iov[i].iov_len : left;

		scan(fd, msg->msg_iov[i].iov_base, n);
		left -= n;
	}
	return r;
}
