/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultline.c -- parse the mtag kernel's tag-check fault line.
 *
 * Everything works on (pointer, length) slices of the line: nothing reads
 * past LEN and the line needs no NUL.  COMM is up to 15 bytes of anything
 * (spaces, '[', ']', ':' included), so its end is found by trying each
 * "[TID]" that could close it, nearest to the kernel's limit first, and
 * keeping the first whose rest parses.
 */
#include "faultline.h"
#include "span.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define TASK_COMM_MAX 15 /* TASK_COMM_LEN - 1 */

static const char SYNC_PREFIX[] = "mte: sync tag check fault";
static const char ASYNC_PREFIX[] = "mte: async tag check fault";
static const char SUFFIX_USER[] = " (report mode: tag checks off in this thread)";
static const char SUFFIX_SYSCALL[] = " (report mode, in a system call: tag checks off in this thread)";

/* "0x" and 1-16 hex digits. */
static bool eat_hex(struct span *s, uint64_t *v)
{
	return span_eat(s, "0x") && span_hex(s, v, 16);
}

/* 1-10 decimal digits, 0..INT_MAX. */
static bool eat_dec(struct span *s, pid_t *v)
{
	uint64_t x;

	if (!span_dec(s, &x, INT_MAX))
		return false;
	*v = (pid_t)x;
	return true;
}

static int tag_char(char c)
{
	if (c == '-')
		return MTE_TAG_UNKNOWN;
	return span_hexval(c); /* -1 (== MTE_TAG_UNKNOWN) for junk: checked apart */
}

/* "HHHHHHHH[H]HHHHHHHH" */
static bool eat_tags(struct span *s, int *tags)
{
	const size_t n = 2 * MTE_FAULT_AROUND + 3;
	size_t j = 0;

	if (s->n < n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s->p[i];

		if (i == MTE_FAULT_AROUND) {
			if (c != '[')
				return false;
			continue;
		}
		if (i == MTE_FAULT_AROUND + 2) {
			if (c != ']')
				return false;
			continue;
		}
		if (c != '-' && span_hexval(c) < 0)
			return false;
		tags[j++] = tag_char(c);
	}
	s->p += n;
	s->n -= n;
	return true;
}

/* " cgroup PATH" up to the end of S (the suffix is already cut off). */
static bool eat_cgroup(struct span *s, struct mte_fault *f)
{
	if (!span_eat(s, " cgroup "))
		return false;
	if (s->n == 0 || s->n >= sizeof(f->cgroup) || memchr(s->p, '\0', s->n))
		return false;
	memcpy(f->cgroup, s->p, s->n);
	f->cgroup[s->n] = '\0';
	s->n = 0;
	return true;
}

/* What follows "COMM[TID]", suffix already cut off.  0 or -EINVAL. */
static int parse_rest(struct span s, struct mte_fault *f)
{
	if (f->kind == MTE_FAULT_ASYNC) {
		if (s.n == 0)
			return 0; /* patch 0003/0004 */
		if (!span_eat(&s, ": pid ") || !eat_dec(&s, &f->pid) || f->pid == 0)
			return -EINVAL;
		if (s.n > 0 && !eat_cgroup(&s, f))
			return -EINVAL;
		return s.n == 0 ? 0 : -EINVAL;
	}

	uint64_t v;

	if (!span_eat(&s, ": addr ") || !eat_hex(&s, &f->addr))
		return -EINVAL;
	f->has_addr = true;
	if (!span_eat(&s, " pointer tag ") || !eat_hex(&s, &v) || v > 0xf ||
	    v != ((f->addr >> 56) & 0xf))
		return -EINVAL;
	f->ptr_tag = (unsigned)v;
	if (!span_eat(&s, " memory tag "))
		return -EINVAL;
	if (span_eat(&s, "unknown"))
		f->mem_tag = MTE_TAG_UNKNOWN;
	else if (eat_hex(&s, &v) && v <= 0xf)
		f->mem_tag = (int)v;
	else
		return -EINVAL;
	if (!span_eat(&s, " pc ") || !eat_hex(&s, &f->pc))
		return -EINVAL;
	if (s.n == 0)
		return 0; /* patch 0003/0004 */
	if (!span_eat(&s, " pid ") || !eat_dec(&s, &f->pid) || f->pid == 0)
		return -EINVAL;
	if (span_eat(&s, " tags ")) {
		if (!eat_tags(&s, f->tags))
			return -EINVAL;
		f->has_tags = true;
	}
	if (s.n > 0 && !eat_cgroup(&s, f))
		return -EINVAL;
	return s.n == 0 ? 0 : -EINVAL;
}

/* A "[TID]" at S->p[i] that could end COMM: digits, then ':', the end, or
 * " (".  Returns the length of "[TID]" or 0. */
static size_t tid_at(const struct span *s, size_t i)
{
	size_t j = i + 1;

	if (s->p[i] != '[')
		return 0;
	while (j < s->n && s->p[j] >= '0' && s->p[j] <= '9')
		j++;
	if (j == i + 1 || j >= s->n || s->p[j] != ']')
		return 0;
	j++;
	if (j == s->n || s->p[j] == ':' || (j + 1 < s->n && s->p[j] == ' ' && s->p[j + 1] == '('))
		return j - i;
	return 0;
}

static int try_split(struct span s, size_t i, struct mte_fault *f)
{
	size_t l = tid_at(&s, i);
	struct span tid, rest;

	if (!l || memchr(s.p, '\0', i))
		return -EINVAL;
	tid.p = s.p + i + 1;
	tid.n = l - 2;
	if (!eat_dec(&tid, &f->tid) || tid.n != 0)
		return -EINVAL;
	rest.p = s.p + i + l;
	rest.n = s.n - i - l;
	memcpy(f->comm, s.p, i);
	f->comm[i] = '\0';
	f->pid = 0;
	f->cgroup[0] = '\0';
	f->has_addr = f->has_tags = false;
	f->addr = f->pc = 0;
	f->ptr_tag = 0;
	f->mem_tag = MTE_TAG_UNKNOWN;
	for (size_t k = 0; k < MTE_FAULT_NTAGS; k++)
		f->tags[k] = MTE_TAG_UNKNOWN;
	return parse_rest(rest, f);
}

/* The line without its trailing newline and printk timestamp
 * ("[   12.345678] "). */
static struct span line_body(const char *line, size_t len)
{
	struct span s = { line, len };

	while (s.n > 0 && (s.p[s.n - 1] == '\n' || s.p[s.n - 1] == '\r'))
		s.n--;
	if (s.n > 0 && s.p[0] == '[') {
		size_t i = 1;

		while (i < s.n && (s.p[i] == ' ' || s.p[i] == '.' || (s.p[i] >= '0' && s.p[i] <= '9')))
			i++;
		if (i + 1 < s.n && i > 1 && s.p[i] == ']' && s.p[i + 1] == ' ') {
			s.p += i + 2;
			s.n -= i + 2;
		}
	}
	return s;
}

int mte_fault_parse(const char *line, size_t len, struct mte_fault *f)
{
	struct span s;
	size_t max;

	if (!line)
		return 0;
	s = line_body(line, len);
	memset(f, 0, sizeof(*f));
	if (span_eat(&s, SYNC_PREFIX))
		f->kind = MTE_FAULT_SYNC;
	else if (span_eat(&s, ASYNC_PREFIX))
		f->kind = MTE_FAULT_ASYNC;
	else
		return 0;
	if (!span_eat(&s, " in "))
		return -EINVAL;

	enum mte_fault_report report = MTE_FAULT_SIGNAL;

	if (span_ends_with(&s, SUFFIX_USER)) {
		report = MTE_FAULT_REPORT_USER;
		s.n -= strlen(SUFFIX_USER);
	} else if (span_ends_with(&s, SUFFIX_SYSCALL)) {
		report = MTE_FAULT_REPORT_SYSCALL;
		s.n -= strlen(SUFFIX_SYSCALL);
	}
	/* Candidates for the end of COMM: within the kernel's 15 bytes,
	 * nearest the limit first; then longer ones (another kernel's
	 * TASK_COMM_LEN), still within f->comm. */
	max = s.n < sizeof(f->comm) - 1 ? s.n : sizeof(f->comm) - 1;
	for (int pass = 0; pass < 2; pass++) {
		size_t lo = pass == 0 ? 0 : TASK_COMM_MAX + 1;
		size_t hi = pass == 0 ? (max < TASK_COMM_MAX ? max : TASK_COMM_MAX) : max;

		if (lo > hi)
			continue;
		for (size_t i = hi + 1; i-- > lo;) {
			if (i >= s.n || s.p[i] != '[')
				continue;
			if (try_split(s, i, f) == 0) {
				f->report = report;
				return 1;
			}
		}
	}
	return -EINVAL;
}

int mte_suppressed_parse(const char *line, size_t len, struct mte_suppressed *out)
{
	struct span s, n;
	const char *sp;

	if (!line)
		return 0;
	s = line_body(line, len);
	memset(out, 0, sizeof(*out));
	if (!span_eat(&s, "mte: "))
		return 0;
	/* "N fault reports suppressed for ": the count first, then the
	 * words; anything else after "mte: " is another kind of line. */
	n = s;
	sp = memchr(s.p, ' ', s.n);
	if (!sp)
		return 0;
	s.p = sp;
	s.n -= (size_t)(sp - n.p);
	n.n = (size_t)(sp - n.p);
	if (!span_eat(&s, " fault reports suppressed for "))
		return 0;
	if (!span_dec(&n, &out->count, UINT64_MAX / 2) || n.n != 0 || out->count == 0)
		return -EINVAL;
	if (span_eat(&s, "cgroup id ")) {
		if (!span_dec(&s, &out->cgroup_id, UINT64_MAX) || s.n != 0)
			return -EINVAL;
		out->by_id = true;
		return 1;
	}
	if (s.n == 0 || s.p[0] != '/' || s.n >= sizeof(out->cgroup) || memchr(s.p, '\0', s.n))
		return -EINVAL;
	memcpy(out->cgroup, s.p, s.n);
	out->cgroup[s.n] = '\0';
	return 1;
}

void mte_fault_tags_str(const struct mte_fault *f, char *buf, size_t len)
{
	char s[MTE_FAULT_NTAGS + 3];
	size_t j = 0;

	if (!len)
		return;
	if (!f->has_tags) {
		buf[0] = '\0';
		return;
	}
	for (size_t i = 0; i < MTE_FAULT_NTAGS; i++) {
		int t = f->tags[i];

		if (i == MTE_FAULT_AROUND)
			s[j++] = '[';
		s[j++] = t >= 0 && t <= 15 ? "0123456789abcdef"[t] : '-';
		if (i == MTE_FAULT_AROUND)
			s[j++] = ']';
	}
	s[j] = '\0';
	snprintf(buf, len, "%s", s);
}
