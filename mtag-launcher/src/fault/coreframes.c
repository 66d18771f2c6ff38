/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coreframes.c -- the faulting thread's top frames from a core, with
 * libdw's unwinder (see coreframes.h). */
/* corefile.h first: <signal.h> defines si_addr. */
#include "corefile.h"
#include "coreframes.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

/* Of an object's first page in the core: its ELF header and program
 * headers, where GNU ld puts the build-id note too. */
#define HEAD_PAGE 4096

/* libdw opens the file of a module it found in the core, for its CFI:
 * the core names it (NT_FILE), so only a regular file reached without a
 * symbolic link, checked before the open and after (a device's open can act, a FIFO's block), an
 * arm64 ELF file; libdw then checks that its build-id is the one in the
 * core. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	unsigned char eh[20];
	struct stat st;
	int fd;

	(void)mod;
	(void)userdata;
	(void)base;
	(void)file_name;
	*elfp = NULL;
	if (!modname || modname[0] != '/' || stat(modname, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	/* No symbolic link on the way: the kernel named the file by its
	 * real path, a link there now was put there since. */
	fd = bug_open_beneath("/", modname);
	if (fd < 0)
		return -1;
	/* An arm64 core maps arm64 objects: a file of another machine at
	 * that path now is not the one that was mapped. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || pread(fd, eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh, ELFMAG, SELFMAG) != 0 || eh[18] != (EM_AARCH64 & 0xff) || eh[19] != EM_AARCH64 >> 8) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *no_debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &no_debuginfo_path,
};

/* The build-id of the object mapped by M, from its first page in C
 * (the mapping of the same file at file offset 0), into OUT. */
static void head_build_id(const struct corefile *c, const struct core_mapping *m, char *out,
			  size_t len)
{
	unsigned char *page;
	struct core_mapping first = *m;
	const void *id = NULL;
	ssize_t n;
	Elf *elf;

	out[0] = '\0';
	/* The object's first mapping: the lowest with offset 0 and this path. */
	if (m->pgoff != 0) {
		uint64_t a = m->start - m->pgoff;

		if (m->pgoff > m->start || core_mapping_of(c, a, &first) != 1 || first.pgoff != 0 ||
		    strcmp(first.path, m->path) != 0)
			return;
	}
	page = malloc(HEAD_PAGE);
	if (!page)
		return;
	if (core_read(c, first.start, page, HEAD_PAGE) < 0 || memcmp(page, ELFMAG, SELFMAG) != 0) {
		free(page);
		return;
	}
	/* The section headers are at the end of the file, not in the page:
	 * libelf is told there are none. */
	memset(page + 0x28, 0, 8);
	memset(page + 0x3c, 0, 4);
	elf = elf_memory((char *)page, HEAD_PAGE);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		n = dwelf_elf_gnu_build_id(elf, &id);
		if (n > 0 && id && (size_t)n <= BUG_BUILD_ID_MAX && 2 * (size_t)n + 1 <= len)
			for (ssize_t i = 0; i < n; i++)
				snprintf(out + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
	}
	if (elf)
		elf_end(elf);
	free(page);
}

struct walk {
	const struct corefile *c;
	pid_t tid;
	struct bug_frame *fr;
	size_t n, max;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	struct bug_frame *f = &w->fr[w->n];
	struct core_mapping *m;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	m = malloc(sizeof(*m));
	/* A caller's pc is its return address, maybe just past the end of
	 * its function (a call to a noreturn one): looked up a byte before. */
	if (m && core_mapping_of(w->c, activation || pc == 0 ? pc : pc - 1, m) == 1) {
		snprintf(f->object, sizeof(f->object), "%s", m->path);
		f->offset = pc - m->start + m->pgoff;
		head_build_id(w->c, m, f->build_id, sizeof(f->build_id));
	}
	free(m);
	return ++w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Every thread is gone through, the one of the fault unwound: libdw
 * 0.188 leaks the state of the next thread when the walk over the
 * threads is cut short (dwfl_getthread_frames() does so). */
static int thread_cb(Dwfl_Thread *t, void *arg)
{
	struct walk *w = arg;

	if (dwfl_thread_tid(t) == w->tid && w->n == 0)
		/* It ends with an error at the first frame it cannot unwind:
		 * what came before stands. */
		dwfl_thread_getframes(t, frame_cb, w);
	return DWARF_CB_OK;
}

int core_frames(void *data, size_t size, pid_t tid, struct bug_frame *fr, size_t max,
		const char **why)
{
	struct corefile c;
	struct walk w = { .c = &c, .fr = fr, .max = max };
	Dwfl *dwfl = NULL;
	Elf *elf = NULL;
	int r;

	if (!max)
		return 0;
	r = core_open_mem(&c, data, size);
	if (r < 0) {
		*why = r == -ENOEXEC ? "not an arm64 ELF core" : "the core cannot be read";
		return r;
	}
	r = -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*why = "libelf is unusable";
		goto out;
	}
	elf = elf_memory(data, size);
	dwfl = elf ? dwfl_begin(&callbacks) : NULL;
	if (!dwfl) {
		*why = "libdw cannot read the core";
		goto out;
	}
	if (dwfl_core_file_report(dwfl, elf, NULL) < 0 || dwfl_report_end(dwfl, NULL, NULL) != 0 ||
	    dwfl_core_file_attach(dwfl, elf) < 0) {
		*why = "libdw cannot read the core's threads";
		goto out;
	}
	w.tid = tid ? tid : c.tid;
	dwfl_getthreads(dwfl, thread_cb, &w);
	if (w.n == 0) {
		*why = "libdw found no frame of the faulting thread in the core";
		r = -ENOENT;
		goto out;
	}
	r = (int)w.n;
out:
	if (dwfl)
		dwfl_end(dwfl);
	if (elf)
		elf_end(elf);
	core_close(&c);
	return r;
}
